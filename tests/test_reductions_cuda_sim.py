"""The reductions family (scans, sorting, statistics, norms) on Numba's CUDA simulator,
compared with the CPU: values, indices, first and second derivatives, results on the
device.  The simulator must be switched on before numba is imported, so
``test_checks_pass_under_the_simulator`` runs this file's ``test_sim_*`` checks in a
pytest subprocess with ``NUMBA_ENABLE_CUDASIM=1`` (they skip in the outer run);
skipped without numba-cuda.  Shapes are tiny."""
import os
import subprocess
import sys

import numpy as np
import pytest

from test_cuda_sim import HAVE_NUMBA_CUDA, ROOT, _close, _pair

INSIDE = os.environ.get("NUMBA_ENABLE_CUDASIM") == "1"
inside_only = pytest.mark.skipif(not INSIDE, reason="runs in the simulator subprocess")
if INSIDE:
    sys.setswitchinterval(1e-5)      # the simulator's barriers poll: switch threads often


@inside_only
def test_sim_scans_forward_both_directions():
    from eagerad import ops
    from eagerad.ops import OPS
    rng = np.random.default_rng(0)
    c, g = _pair(rng.uniform(0.5, 1.5, (3, 4)).astype(np.float32))
    for name, axis, reverse in (("cumsum", 0, True), ("cumprod", 1, True), ("cumprod", 0, False),
                                ("logcumsumexp", 1, True)):
        _close(OPS[name](g, axis=axis, reverse=reverse), OPS[name](c, axis=axis, reverse=reverse))
    _close(OPS["linear_scan"](g, g * 2, axis=0, reverse=True),
           OPS["linear_scan"](c, c * 2, axis=0, reverse=True))
    ci, gi = _pair(np.array([[1, 5, 2], [3, 3, 0]], dtype=np.int32))
    _close(ops.cumsum(gi, 1), ops.cumsum(ci, 1))
    _close(ops.cumprod(gi), ops.cumprod(ci))
    c, g = _pair(np.array([[1.0, 3.0, 2.0, 3.0], [np.nan, 0.0, -1.0, np.nan]]))
    for fn in (ops.cummax, ops.cummin):
        for a, b in zip(fn(g, 1), fn(c, 1)):
            _close(a, b)
    c, g = _pair(np.zeros((0, 3)))
    _close(ops.cumsum(g, 0), ops.cumsum(c, 0))
    c, g = _pair(np.array([[2.0, 0.5, 3.0]], dtype=np.float16))     # computed in float32
    _close(ops.logcumsumexp(g, 1), ops.logcumsumexp(c, 1), 1e-3)
    _close(OPS["linear_scan"](g, g, axis=1, reverse=False), OPS["linear_scan"](c, c, axis=1, reverse=False))
    c, g = _pair(np.array([True, False, True]))
    _close(ops.cummax(g, 0).indices, ops.cummax(c, 0).indices)
    _close(ops.cumsum(g), ops.cumsum(c))


@inside_only
def test_sim_sorting_and_order_statistics():
    import eagerad
    from eagerad import ops
    rng = np.random.default_rng(1)
    c, g = _pair(rng.normal(size=(3, 5)), requires_grad=True)
    w = rng.normal(size=(3, 5))
    results = []
    for x in (c, g):
        assert ops.sort(x, 0).device == x.device
        outs = [ops.sort(x, 1, descending=True), ops.argsort(x, 0), *ops.topk(x, 2),
                x.median(1).values, ops.quantile(x, [0.2, 0.5], 1), ops.median(x)]
        loss = sum((o * o).sum() for o in outs if o.dtype.kind == "f") + (ops.sort(x, 0) * w).sum()
        results.append(outs + [eagerad.autograd.grad(loss, x)[0]])
    for a, b in zip(*results):
        _close(b, a, 1e-10)


@inside_only
def test_sim_statistics_norms_second_order():
    import eagerad
    from eagerad import ops
    # zeros (one and two per row) for prod/cumprod; the gradcheck table of test_cuda_sim
    # covers each op's first case
    x0 = np.array([[2.0, 0.0, 3.0], [0.0, 0.0, 1.5]])
    fns = [lambda x: ops.prod(x, 1), lambda x: ops.cumprod(x, 1), lambda x: x.std(dim=0, correction=1),
           lambda x: ops.cummax(x, 1).values]
    for fn in fns:
        rows = []
        for x in _pair(x0, requires_grad=True):
            out = fn(x)
            first, = eagerad.autograd.grad((out * out * out).sum(), x, create_graph=True)
            second, = eagerad.autograd.grad((first * first).sum(), x)
            assert second.device == x.device
            rows.append((out, first, second))
        for a, b in zip(*rows):
            _close(b, a, 1e-10)


@pytest.mark.skipif(INSIDE or not HAVE_NUMBA_CUDA, reason="needs numba-cuda's simulator")
def test_checks_pass_under_the_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                           os.path.abspath(__file__)], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=600)
    checks = sum(name.startswith("test_sim_") for name in globals())
    assert proc.returncode == 0 and f"{checks} passed" in proc.stdout, \
        proc.stdout[-6000:] + proc.stderr[-2000:]
