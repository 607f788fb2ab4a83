"""Shape and indexing ops on Numba's CUDA simulator against the CPU: gather,
scatter_add, scatter, flip, roll, pad (constant and reflect), tril/triu and
repeat_interleave, forward values and first and second derivatives (the first
gradcheck case of every stanza also runs there, in test_cuda_sim.py).
The checks run in one subprocess with ``NUMBA_ENABLE_CUDASIM=1`` (it must be set
before numba is imported); skipped when numba-cuda is not installed."""
import importlib.util
import os
import subprocess
import sys
import traceback

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _cases():
    from eagerad import ops
    idx = np.array([[0, 2, 2], [1, 1, 0]])
    return {
        "gather": (lambda x: ops.gather(x, 1, _t(idx, x)), (2, 3)),
        "scatter_add": (lambda x: ops.scatter_add(x, 1, _t(idx, x), x * 2), (2, 3)),
        "scatter": (lambda x: ops.scatter(x, 0, _t(np.array([[1, 0, 1]]), x), x[:1] * 3), (2, 3)),
        "flip": (lambda x: ops.flip(x, (0, 1)), (2, 3)),
        "roll": (lambda x: ops.roll(x, (1, -2), (0, 1)), (2, 3)),
        "pad": (lambda x: ops.pad(x, (1, 2, 0, 1), value=0.5), (2, 3)),
        "pad_reflect": (lambda x: ops.pad(x, pad_width=((1, 1), (2, 0)), mode="reflect"), (2, 3)),
        "tril": (lambda x: ops.tril(x, -1) + ops.triu(x, 1) * 2, (3, 3)),
        "repeat_interleave": (lambda x: ops.repeat_interleave(x, [2, 0, 1], dim=1), (2, 3)),
    }


def _t(a, like):
    import eagerad
    return eagerad.tensor(a, device=like.device)


def _run(fn, x):
    import eagerad
    out = fn(x)
    loss = (out * out.sin()).sum()
    g, = eagerad.autograd.grad(loss, x, create_graph=True)
    gg, = eagerad.autograd.grad((g * g).sum(), x)
    assert out.device == x.device and g.device == x.device
    return [out.numpy(), g.numpy(), gg.numpy()]


def _script():
    """Simulator side: compare every case, print the failures, exit 1 if there are any."""
    import eagerad
    failures = []
    for name, (fn, shape) in _cases().items():
        try:
            data = np.random.default_rng(len(name)).uniform(-1, 1, shape)
            cpu = _run(fn, eagerad.tensor(data, requires_grad=True))
            gpu = _run(fn, eagerad.tensor(data, requires_grad=True, device="cuda"))
            for a, b in zip(cpu, gpu):
                np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
        except Exception:
            failures.append(f"{name}:\n{traceback.format_exc()}")
    print("\n".join(failures) or f"all {len(_cases())} cases match")
    sys.exit(1 if failures else 0)


def test_shape_ops_match_the_cpu_on_the_cuda_simulator():
    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed: no CUDA simulator")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-6000:] + proc.stderr[-3000:]
    assert f"all {len(_cases())} cases match" in proc.stdout


if __name__ == "__main__":
    _script()
