"""GPU timings: eagerad's CUDA backend next to PyTorch CUDA and CuPy, same run.

Run ``python benchmarks/gpu.py`` on a machine with an NVIDIA GPU and numba-cuda
(``pip install eagerad[cuda]``); PyTorch and CuPy rows say "not measured" when
they are absent.  ``--smoke`` shrinks every size so the script also runs under
Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) as a correctness check;
its timings mean nothing.

Workloads (median wall time of the repeats after a warm-up, each step ending in a
device synchronisation):

- W2  MLP training step, batch 4096: 784 -> 256 ReLU -> 10, cross-entropy, backward,
      SGD update, float32
- W3  10M float32 ``(tanh(x) * x + exp(-x)).sum()`` forward and backward
- MM  float32 square matrix products n = 256 ... 4096: eagerad's register-tiled kernel,
      eagerad through cuBLAS (CuPy), eagerad's ``a @ b`` as the default picks, next to
      ``torch.matmul`` and ``cupy.matmul``; each result is checked against PyTorch's
      (relative Frobenius error) and its TFLOP/s printed
- SEEDS every seed tutorial (tutorials/run_seeds.py) with CUDA as the default device, in
      fresh processes: the first compiles (cold), the second is the target (< 2 s)

Every library computes the same W3 gradient, compared at the end as a check.
``--only`` picks parts (``w2w3``, ``matmul``, ``seeds``; default all), so the device
script can give each part its own time limit.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout

SIZES = {"full": {"batch": 4096, "din": 784, "hidden": 256, "dout": 10, "n": 10_000_000,
                  "matmul": (256, 512, 1024, 2048, 4096)},
         "smoke": {"batch": 8, "din": 6, "hidden": 5, "dout": 3, "n": 3000, "matmul": (9, 16)}}
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def timeit(step, sync, repeat, warmup=2):
    """Median seconds of ``repeat`` synchronised calls of ``step`` after ``warmup``."""
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def data(size):
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((size["batch"], size["din"]), dtype=np.float32),
            "labels": rng.integers(0, size["dout"], size["batch"]),
            "w1": (rng.standard_normal((size["hidden"], size["din"])) * 0.05).astype(np.float32),
            "w2": (rng.standard_normal((size["dout"], size["hidden"])) * 0.05).astype(np.float32),
            "v": rng.uniform(-2, 2, size["n"]).astype(np.float32)}

# ------------------------------------------------------------------ eagerad


def eagerad_rows(d, repeat):
    import eagerad
    from eagerad import context
    problem = context.cuda_problem()
    if problem:
        return {"W2": f"not measured ({problem})", "W3": f"not measured ({problem})"}, None
    from numba import cuda
    dev = "cuda"
    x = eagerad.tensor(d["x"], device=dev)
    labels = eagerad.tensor(d["labels"], device=dev)
    w1 = eagerad.Parameter(eagerad.tensor(d["w1"], device=dev), name="w1")
    w2 = eagerad.Parameter(eagerad.tensor(d["w2"], device=dev), name="w2")
    opt = eagerad.nn.SGD([w1, w2], learning_rate=0.01)
    loss_grad = eagerad.value_and_grad(
        lambda xb: eagerad.ops.cross_entropy((xb @ w1.T).relu() @ w2.T, labels), None, [w1, w2])

    def w2_step():
        _, grads = loss_grad(x)
        opt(grads)

    v = eagerad.tensor(d["v"], device=dev, requires_grad=True)

    def w3_step():
        v.grad = None
        (v.tanh() * v + (-v).exp()).sum().backward()

    rows = {"W2": timeit(w2_step, cuda.synchronize, repeat),
            "W3": timeit(w3_step, cuda.synchronize, repeat)}
    return rows, v.grad.numpy()

# ------------------------------------------------------------------ PyTorch


def torch_rows(d, repeat):
    try:
        import torch
    except ImportError:
        return {"W2": "not measured (PyTorch is not installed)",
                "W3": "not measured (PyTorch is not installed)"}, None
    if not torch.cuda.is_available():
        return {"W2": "not measured (PyTorch has no CUDA device)",
                "W3": "not measured (PyTorch has no CUDA device)"}, None
    dev = "cuda"
    x = torch.tensor(d["x"], device=dev)
    labels = torch.tensor(d["labels"], device=dev)
    w1 = torch.tensor(d["w1"], device=dev, requires_grad=True)
    w2 = torch.tensor(d["w2"], device=dev, requires_grad=True)
    opt = torch.optim.SGD([w1, w2], lr=0.01)

    def w2_step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy((x @ w1.T).relu() @ w2.T, labels).backward()
        opt.step()

    v = torch.tensor(d["v"], device=dev, requires_grad=True)

    def w3_step():
        v.grad = None
        (v.tanh() * v + (-v).exp()).sum().backward()

    rows = {"W2": timeit(w2_step, torch.cuda.synchronize, repeat),
            "W3": timeit(w3_step, torch.cuda.synchronize, repeat)}
    return rows, v.grad.cpu().numpy()

# --------------------------------------------------------------------- CuPy


def cupy_rows(d, repeat):
    """Hand-written forward and backward in CuPy: the cost of the arithmetic alone."""
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as err:   # not installed, or no device/driver
        return {"W2": f"not measured (CuPy unavailable: {type(err).__name__})",
                "W3": f"not measured (CuPy unavailable: {type(err).__name__})"}, None
    x, w1, w2 = cp.asarray(d["x"]), cp.asarray(d["w1"]), cp.asarray(d["w2"])
    labels = cp.asarray(d["labels"])
    onehot = cp.eye(d["w2"].shape[0], dtype=cp.float32)[labels]

    def w2_step():
        h = x @ w1.T
        a = cp.maximum(h, 0)
        z = a @ w2.T
        p = cp.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        gz = (p - onehot) / x.shape[0]
        gw2 = gz.T @ a
        gh = (gz @ w2) * (h > 0)
        gw1 = gh.T @ x
        cp.subtract(w1, 0.01 * gw1, out=w1)
        cp.subtract(w2, 0.01 * gw2, out=w2)

    v = cp.asarray(d["v"])
    out = {}

    def w3_step():
        t = cp.tanh(v)
        e = cp.exp(-v)
        (t * v + e).sum()
        out["grad"] = (1 - t * t) * v + t - e

    sync = cp.cuda.Device().synchronize
    rows = {"W2": timeit(w2_step, sync, repeat), "W3": timeit(w3_step, sync, repeat)}
    return rows, cp.asnumpy(out["grad"])

# ------------------------------------------------------------------- matmul


def _per_call(fn, sync, repeat, inner):
    """Median seconds per call of ``fn`` over ``repeat`` samples of ``inner`` back-to-back
    calls (launch overhead included, as an eager program pays it)."""
    fn()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(inner):
            fn()
        sync()
        times.append((time.perf_counter() - start) / inner)
    return float(np.median(times))


def matmul_table(sizes, repeat):
    """Rows ``{n: {library: seconds or reason}}`` and the relative errors, float32 n x n."""
    import eagerad
    from numba import cuda
    import eagerad.backend.cuda as B
    mm = sys.modules["eagerad.backend.cuda.matmul"]
    try:
        import torch
        have_torch = torch.cuda.is_available()
    except ImportError:
        have_torch = False
    cp = mm.cupy_module()
    rng = np.random.default_rng(1)
    table, errors = {}, {}
    for n in sizes:
        a = rng.standard_normal((n, n), dtype=np.float32)
        b = rng.standard_normal((n, n), dtype=np.float32)
        da, db = B.from_numpy(a), B.from_numpy(b)
        fa, fb = da.reshape(n * n), db.reshape(n * n)
        out = cuda.device_array(n * n, np.float32)
        inner = 20 if n <= 1024 else 3
        row, results = {}, {}
        for cfg in mm.CONFIGS:
            row[f"kernel {cfg}"] = _per_call(
                lambda c=cfg: mm.launch(out, fa, fb, n, n, n, 1, 0, 0, config=c),
                cuda.synchronize, repeat, inner)
            results[f"kernel {cfg}"] = out.copy_to_host()
        if cp is not None:
            row["eagerad cuBLAS"] = _per_call(
                lambda: mm.cublas_launch(out, fa, fb, n, n, n, 1, 0, 0), cuda.synchronize,
                repeat, inner)
            results["eagerad cuBLAS"] = out.copy_to_host()
        else:
            row["eagerad cuBLAS"] = "not measured (CuPy unavailable)"
        ta, tb = eagerad.tensor(a, device="cuda"), eagerad.tensor(b, device="cuda")
        row["eagerad a @ b"] = _per_call(lambda: ta @ tb, cuda.synchronize, repeat, inner)
        results["eagerad a @ b"] = (ta @ tb).numpy().reshape(-1)
        if have_torch:
            xa, xb = torch.tensor(a, device="cuda"), torch.tensor(b, device="cuda")
            row["torch.matmul"] = _per_call(lambda: torch.matmul(xa, xb),
                                            torch.cuda.synchronize, repeat, inner)
            reference = torch.matmul(xa.double(), xb.double()).cpu().numpy().reshape(-1)
            results["torch.matmul"] = torch.matmul(xa, xb).cpu().numpy().reshape(-1)
        else:
            row["torch.matmul"] = "not measured (no PyTorch CUDA)"
            reference = (a.astype(np.float64) @ b.astype(np.float64)).reshape(-1) \
                if n <= 1024 else None
        if cp is not None:
            ca, cb = cp.asarray(a), cp.asarray(b)
            row["cupy.matmul"] = _per_call(lambda: cp.matmul(ca, cb),
                                           cp.cuda.Device().synchronize, repeat, inner)
        else:
            row["cupy.matmul"] = "not measured (CuPy unavailable)"
        if reference is not None:
            for name, got in results.items():
                errors[(n, name)] = float(np.linalg.norm(got - reference) /
                                          np.linalg.norm(reference))
        table[n] = row
    return table, errors


def print_matmul(table, errors):
    names = list(next(iter(table.values())))
    print("\nMM float32 n x n products: ms per call (TFLOP/s), ratio to torch.matmul")
    print(f"{'n':>6s}" + "".join(f"{c:>24s}" for c in names))
    for n, row in table.items():
        cells = []
        for name in names:
            v = row[name]
            if isinstance(v, float):
                tf = 2 * n ** 3 / v / 1e12
                ratio = v / row["torch.matmul"] if isinstance(row["torch.matmul"], float) \
                    else float("nan")
                cells.append(f"{v * 1e3:8.3f} ({tf:5.1f}) x{ratio:4.2f}")
            else:
                cells.append("n/a")
        print(f"{n:6d}" + "".join(f"{c:>24s}" for c in cells))
    for name in names:
        missing = [f"{n}: {row[name]}" for n, row in table.items() if not isinstance(row[name], float)]
        if missing:
            print(f"  {name}: {missing[0]}")
    bad = {k: e for k, e in errors.items() if not e < 1e-5}
    worst = max(errors.values()) if errors else float("nan")
    print(f"MM relative error vs float64: worst {worst:.1e}" +
          (f"; FAILED {sorted(bad)}" if bad else ""))
    assert not bad, f"matmul results differ from the float64 product: {bad}"

# ------------------------------------------------------------ seed tutorials


SEEDS_ON_CUDA = ("import sys, runpy, eagerad; eagerad.set_default_device('cuda'); "
                 "sys.argv = ['run_seeds.py']; "
                 "runpy.run_path({path!r}, run_name='__main__')")


def seeds_rows(timeout=300):
    """Wall seconds of every seed tutorial with CUDA as the default device: a first process
    (compiles what a cold cache lacks) and a second one (the target: < 2 s)."""
    import subprocess
    path = os.path.join(ROOT, "tutorials", "run_seeds.py")
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    rows = {}
    for name in ("first process", "second process"):
        start = time.perf_counter()
        try:
            proc = subprocess.run([sys.executable, "-c", SEEDS_ON_CUDA.format(path=path)],
                                  env=env, cwd=ROOT, capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired:
            rows[name] = f"timed out after {timeout} s"
            break
        wall = time.perf_counter() - start
        if proc.returncode:
            rows[name] = f"failed (rc={proc.returncode}): {proc.stderr.strip()[-600:]}"
            break
        tail = [ln for ln in proc.stdout.splitlines() if ln.startswith("ran ")]
        rows[name] = wall
        rows["ran"] = tail[-1] if tail else "?"
    return rows


def print_seeds(rows):
    print("\nSEEDS: tutorials/run_seeds.py with CUDA as the default device (wall, fresh process)")
    for name, v in rows.items():
        print(f"  {name:16s} " + (f"{v:8.2f} s" if isinstance(v, float) else str(v)))
    second = rows.get("second process")
    if isinstance(second, float):
        print(f"  target < 2 s: {'met' if second < 2 else 'MISSED'}")

# --------------------------------------------------------------------- main


def w2w3(d, repeat, smoke):
    """W2 and W3 for every library, printed, with the W3 gradient check."""
    results = {}
    for name, fn in (("eagerad", eagerad_rows), ("PyTorch CUDA", torch_rows), ("CuPy", cupy_rows)):
        results[name] = fn(d, repeat)
    print(f"GPU benchmarks ({'smoke sizes' if smoke else 'full sizes'}, median of {repeat})")
    print(f"{'':14s}{'W2 MLP step':>28s}{'W3 fwd+bwd':>28s}")
    for name, (rows, _) in results.items():
        cells = [f"{r * 1e3:10.3f} ms" if isinstance(r, float) else r for r in
                 (rows["W2"], rows["W3"])]
        print(f"{name:14s}" + "".join(f"{c:>28s}" if len(c) <= 27 else "  " + c for c in cells))
    ref = results["PyTorch CUDA"][0]
    for w in ("W2", "W3"):
        mine, theirs = results["eagerad"][0][w], ref[w]
        if isinstance(mine, float) and isinstance(theirs, float):
            print(f"{w} eagerad / PyTorch CUDA: {mine / theirs:.2f}x (target <= 2x)")
    reference = results["eagerad"][1]
    if reference is not None:
        x = d["v"].astype(np.float64)
        t = np.tanh(x)
        exact = (1 - t * t) * x + t - np.exp(-x)
        for name, (_, g) in results.items():
            if g is not None:
                err = float(np.max(np.abs(g - exact) / (1 + np.abs(exact))))
                print(f"W3 gradient check, {name}: max relative error {err:.2e}")
                assert err < 1e-4, f"{name}: W3 gradient differs from the exact one"


# ------------------------------------------------------------ W1-GPU (launch cost)


def w1_gpu_rows(repeat):
    """W1-GPU: benchmarks/run.py's 100-op chain (``tanh(sin(y) * 1.01 + 0.1)`` x25,
    forward and backward) on 16 float32 on the GPU, per op: the fixed cost of an eager
    op (allocation, launch) with no arithmetic to hide it.  eagerad next to PyTorch
    CUDA; also prints eagerad's allocator counters after the run."""
    from run import chain_step
    rows = {}
    import eagerad
    from eagerad import context
    problem = context.cuda_problem()
    if problem:
        rows["eagerad"] = f"not measured ({problem})"
    else:
        from numba import cuda
        before = eagerad.get_default_device()
        eagerad.set_default_device("cuda")
        try:
            step = chain_step(eagerad, np)
        finally:
            eagerad.set_default_device(before)
        rows["eagerad"] = timeit(step, cuda.synchronize, repeat * 10) / 100
        print(f"eagerad CUDA memory after W1-GPU: {eagerad.cuda.memory_stats()}")
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("PyTorch has no CUDA device")
        with torch.device("cuda"):
            step = chain_step(torch, np)
        rows["PyTorch CUDA"] = timeit(step, torch.cuda.synchronize, repeat * 10) / 100
    except ImportError as err:
        rows["PyTorch CUDA"] = f"not measured ({err})"
    print(f"{'':14s}{'W1-GPU 100-op chain, 16 floats, per op':>40s}")
    for name, r in rows.items():
        print(f"{name:14s}" + (f"{r * 1e6:>37.1f} us" if isinstance(r, float) else "  " + r))
    return rows


# part name -> runner(size, repeat, smoke); a part added later registers itself here
# (``PARTS["w1"] = ...`` beside its function) and --only, --list-parts and
# benchmarks/device_check.sh pick it up
PARTS = {
    "w2w3": lambda size, repeat, smoke: w2w3(data(size), repeat, smoke),
    "matmul": lambda size, repeat, smoke: print_matmul(
        *matmul_table(size["matmul"], 1 if smoke else max(3, repeat // 4))),
    "seeds": lambda size, repeat, smoke: None if smoke else print_seeds(seeds_rows()),
    "w1": lambda size, repeat, smoke: w1_gpu_rows(repeat),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (runs on the simulator)")
    parser.add_argument("--repeat", type=int, default=None)
    parser.add_argument("--only", default=None,
                        help=f"comma-separated parts to run, of {', '.join(PARTS)} (default all)")
    parser.add_argument("--list-parts", action="store_true",
                        help="print the parts, one a line, and stop (benchmarks/device_check.sh "
                             "runs each with its own time limit)")
    args = parser.parse_args()
    if args.list_parts:
        print("\n".join(PARTS))
        return
    parts = [p for p in (args.only or ",".join(PARTS)).split(",") if p]
    unknown = set(parts) - set(PARTS)
    if unknown:
        parser.error(f"--only: unknown parts {sorted(unknown)}; choose from {list(PARTS)}")
    size = SIZES["smoke" if args.smoke else "full"]
    if args.smoke:
        sys.setswitchinterval(1e-5)   # the simulator's block barrier polls between threads
    repeat = args.repeat or (1 if args.smoke else 20)
    for name in parts:
        PARTS[name](size, repeat, args.smoke)


if __name__ == "__main__":
    main()
