"""eagerad.linalg on the CUDA backend (Numba's simulator, in a subprocess as in
test_cuda_sim.py): results and gradients equal the CPU's, and stay on the device.
Factorisations are host round trips there; products and norms run as kernels."""
import importlib.util
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _script():
    """Inside the simulator: each public function on 'cpu' and 'cuda', value and gradient."""
    import eagerad
    from eagerad import linalg, ops
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 3))
    spd = x @ np.swapaxes(x, -1, -2) + 3 * np.eye(3)
    b = rng.standard_normal((2, 3, 2))
    cases = {
        "inv": (linalg.inv, [spd]), "solve": (linalg.solve, [spd, b]),
        "det": (linalg.det, [spd]), "logdet": (linalg.logdet, [spd]),
        "cholesky": (linalg.cholesky, [spd]), "eigvalsh": (linalg.eigvalsh, [spd]),
        "eigh": (lambda m: linalg.eigh(m)[1] ** 2, [spd]),
        "svd": (lambda m: linalg.svd(m)[1], [b]), "qr": (lambda m: linalg.qr(m)[1] ** 2, [b]),
        "matrix_exp": (linalg.matrix_exp, [x * 0.3]),
        "solve_triangular": (lambda m, r: linalg.solve_triangular(m, r, upper=True), [spd, b]),
        "matrix_norm": (lambda m: linalg.matrix_norm(m, "nuc"), [b]),
        "vector_norm": (lambda m: linalg.vector_norm(m, 3, dim=1), [b]),
        "einsum": (lambda m, r: ops.einsum("bij,bjk->bik", m, r), [x, b]),
        "kron": (ops.kron, [x[0], b[0]]), "trace": (lambda m: ops.trace(m, 1, 1, 2), [x]),
    }
    failures = []
    for name, (fn, arrays) in cases.items():
        got = {}
        for dev in ("cpu", "cuda"):
            xs = [eagerad.tensor(a, requires_grad=True, device=dev) for a in arrays]
            try:
                out = fn(*xs)
                out.sum().backward()
            except Exception as err:     # report every function, not the first failure
                failures.append(f"{name} ({dev}: {type(err).__name__}: {err})")
                break
            if not str(out.device).startswith(dev):
                failures.append(f"{name} (result on {out.device})")
            got[dev] = [out.numpy()] + [t.grad.numpy() for t in xs]
        if len(got) < 2:
            continue
        for c, g in zip(got["cpu"], got["cuda"]):
            if c.shape != g.shape or not np.allclose(c, g, rtol=1e-9, atol=1e-11):
                failures.append(name)
                break
    print("LINALG-SIM " + ",".join(failures) if failures else "LINALG-SIM ok")


@pytest.mark.skipif(importlib.util.find_spec("numba_cuda") is None,
                    reason="numba-cuda is not installed: no CUDA simulator")
def test_linalg_on_cuda_simulator_matches_cpu():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("LINALG-SIM ")), None)
    assert line is not None, proc.stderr[-3000:]
    assert line == "LINALG-SIM ok", f"differ from the CPU on the simulator: {line}"


if __name__ == "__main__":
    sys.setswitchinterval(1e-5)      # the simulator's barrier loop polls: switch often
    _script()
