"""Compile eagerad's matmul, reduction, row and fused-gradient CUDA kernels for a GPU
architecture WITHOUT a GPU, and report each kernel's registers, spills and shared memory.

Numba's CUDA simulator runs kernels as Python, so it never type-checks them the way the
real compiler does; this script does the real compilation (Numba -> NVVM -> PTX, then
``ptxas`` for the resource report) on a machine with a CUDA toolkit but no device.  It
needs libNVVM and libdevice (``CUDA_HOME``, default /usr/local/cuda*) and, for the
register report, ``ptxas``.  Usage::

    python benchmarks/cuda_compile_check.py [--cc 9.0]

Any kernel that fails to compile, spills, or uses a stack frame is listed and the exit
status is 1.  (It patches two Numba look-ups that otherwise need NVRTC and a driver.)
"""
import argparse
import glob
import os
import subprocess
import sys
import tempfile

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)


def _toolkit():
    for home in [os.environ.get("CUDA_HOME", "")] + sorted(glob.glob("/usr/local/cuda*"))[::-1]:
        lib = glob.glob(os.path.join(home, "nvvm", "libdevice", "libdevice*.bc"))
        if home and lib:
            return home, lib[0]
    raise SystemExit("no CUDA toolkit with libNVVM/libdevice found (set CUDA_HOME)")


def _patch_numba(libdevice, cc):
    """Let ``cuda.compile_ptx`` run without NVRTC or a driver."""
    import types
    from numba.cuda import dispatcher
    from numba.cuda.cudadrv import libs, nvrtc, nvvm
    # device functions ask the current device for its compute capability
    dispatcher.get_current_device = lambda: types.SimpleNamespace(compute_capability=cc)
    nvrtc.get_supported_ccs = lambda: ((7, 5), (8, 0), (8, 6), (8, 9), cc)
    libs.get_libdevice = lambda: libdevice
    nvvm.get_libdevice = libs.get_libdevice
    import eagerad.backend as backend
    backend.require_cuda = lambda: None      # the package import checks for a device


def _kernels():
    """(label, dispatcher, argument types) of every kernel family this script covers."""
    import numba
    from numba import types
    import eagerad.backend.cuda  # noqa: F401
    mm = sys.modules["eagerad.backend.cuda.matmul"]
    red = sys.modules["eagerad.backend.cuda.reduction"]
    rows = sys.modules["eagerad.backend.cuda.rows"]
    fused = sys.modules["eagerad.backend.cuda.fused"]

    def arr(dt):
        return types.Array(numba.from_dtype(np.dtype(dt)), 1, "C")
    i64 = types.int64
    out = []
    for dt in (np.float32, np.float64):
        for cfg in mm.CONFIGS:
            for ta, tb in ((False, False), (False, True), (True, False)):
                out.append((f"matmul {np.dtype(dt).name} {cfg} ta={ta} tb={tb}",
                            mm.kernel(dt, cfg, ta, tb), (arr(dt),) * 3 + (i64,) * 6))
    out.append(("matmul float32 acc from float16 small", mm.kernel(np.float32, "small"),
                (arr(np.float32), arr(np.float16), arr(np.float16)) + (i64,) * 6))
    out.append(("matmul complex128 small", mm.kernel(np.complex128, "small"),
                (arr(np.complex128),) * 3 + (i64,) * 6))
    for op, acc, src in (("sum", np.float32, np.float32), ("sum", np.float32, np.float16),
                         ("max", np.float64, np.float64), ("prod", np.int64, np.int32),
                         ("any", np.uint8, np.bool_), ("all", np.uint8, np.float32)):
        out.append((f"reduce {op} {np.dtype(src).name}->{np.dtype(acc).name}",
                    red.segment_kernel(op, acc),
                    (arr(acc), arr(src), i64, i64, i64, i64, arr(acc), arr(np.int32))))
    for kind in rows.KINDS:
        for dt, acc in ((np.float32, np.float32), (np.float64, np.float64),
                        (np.float16, np.float32)):
            for long_rows in (False, True):
                outdt = dt
                out.append((f"rows {kind} {np.dtype(dt).name} long={long_rows}",
                            rows.row_kernel(kind, acc, long_rows),
                            (arr(outdt), arr(dt), arr(dt), i64, i64, i64)))
    for name in ("sin", "cos", "pow", "gelu", "gelu_tanh"):
        for dt in (np.float32, np.float64):
            f = numba.from_dtype(np.dtype(dt))
            out.append((f"fused {name} {np.dtype(dt).name}", fused._kernel(name),
                        (arr(dt),) * 3 + (f, f)))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cc", default="9.0", help="compute capability (default 9.0, Hopper)")
    args = parser.parse_args()
    cc = tuple(int(p) for p in args.cc.split("."))
    home, libdevice = _toolkit()
    _patch_numba(libdevice, cc)
    from numba import cuda
    ptxas = os.path.join(home, "bin", "ptxas")
    problems = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, kernel, sig in _kernels():
            try:
                ptx, _ = cuda.compile_ptx(kernel.py_func, sig, cc=cc)
            except Exception as err:       # a typing or lowering error the simulator hides
                problems.append(f"{label}: {type(err).__name__}: {str(err)[:400]}")
                print(f"{label:48s} COMPILE ERROR")
                continue
            report = "(no ptxas)"
            if os.path.exists(ptxas):
                path = os.path.join(tmp, "k.ptx")
                with open(path, "w") as f:
                    f.write(ptx)
                proc = subprocess.run([ptxas, f"-arch=sm_{cc[0]}{cc[1]}", "-v", path, "-o",
                                       os.path.join(tmp, "k.cubin")], capture_output=True,
                                      text=True)
                lines = [ln.split("info    : ")[-1] for ln in proc.stderr.splitlines()
                         if "registers" in ln or "spill" in ln]
                report = " | ".join(lines) or proc.stderr.strip()[-300:]
                if proc.returncode or "0 bytes spill stores" not in report \
                        or "0 bytes stack frame" not in report:
                    problems.append(f"{label}: {report}")
            print(f"{label:48s} {report}")
    print(f"\n{len(problems)} problem(s)")
    for p in problems:
        print("  " + p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
