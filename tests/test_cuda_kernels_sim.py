"""The CUDA kernels of matmul.py, reduction.py, rows.py and fused.py on Numba's CUDA
simulator, against float64 numpy and the CPU backend.

Under the simulator the blockings shrink (matmul: 8x8 and 4x4 block tiles, 2x2 per
thread, K slices of 4 and 2; rows: 4/8-thread blocks; reductions: 128-element chunks),
so small shapes cross every tile, slice and chunk edge: 1-row and 1-column products,
primes, K shorter than a slice, batches with a shared operand, transposed operands.
Run as a script (``python tests/test_cuda_kernels_sim.py``) it executes every check on
whatever numba.cuda is (the real GPU when ``NUMBA_ENABLE_CUDASIM`` is unset), which is
what ``benchmarks/device_check.sh`` does; under pytest the checks run in one simulator
subprocess and each is reported as its own test.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))] + ([ROOT] if __name__ == "__main__" else [])
from simulator_run import checks_on_simulator, run_checks  # noqa: E402
from test_cuda_sim import HAVE_NUMBA_CUDA, _close  # noqa: E402


def _modules():
    import eagerad.backend.cuda as B
    return B, sys.modules["eagerad.backend.cuda.matmul"]


def _exact(a, b):
    return np.matmul(a.astype(np.float64), b.astype(np.float64))

# ------------------------------------------------------------------- checks


def check_matmul_every_edge_both_blockings_and_layouts():
    """Every (transposed a, transposed b, blocking) on shapes around the tile sizes; the
    output is poisoned first, so an unwritten element shows."""
    B, mm = _modules()
    from numba import cuda
    rng = np.random.default_rng(10)
    shapes = [(1, 1, 1), (1, 5, 3), (7, 9, 11), (17, 3, 8), (8, 8, 8), (9, 17, 5), (4, 1, 20),
              (3, 2, 1)]
    if not mm.SIMULATOR:
        shapes += [(129, 67, 130), (256, 9, 1), (1, 300, 257), (300, 128, 64)]
    for M, K, N in shapes:
        for dt, tol in ((np.float32, 1e-5), (np.float64, 1e-12), (np.int32, 0))[:3 if M < 9 else 2]:
            a = (rng.standard_normal((M, K)) * 3).astype(dt)
            b = (rng.standard_normal((K, N)) * 3).astype(dt)
            for ta in (False, True):
                for tb in (False, True):
                    for cfg in mm.CONFIGS:
                        A = B.from_numpy(a.T.copy() if ta else a)
                        Bm = B.from_numpy(b.T.copy() if tb else b)
                        out = cuda.to_device(np.full(M * N, 7777, np.result_type(dt)))
                        mm.launch(out, A.reshape(A.size), Bm.reshape(Bm.size), M, N, K, 1, 0, 0,
                                  ta, tb, cfg)
                        got = out.copy_to_host().reshape(M, N).astype(np.float64)
                        ref = _exact(a, b)
                        err = np.max(np.abs(got - ref) / (1 + np.abs(ref)))
                        assert err <= tol, (M, K, N, dt, ta, tb, cfg, err)


def check_matmul_batches_broadcast_vectors_and_dtypes():
    B, mm = _modules()
    rng = np.random.default_rng(11)
    cases = [((3, 5, 7), (7, 6)), ((5,), (2, 5, 6)), ((2, 1, 4, 3), (5, 3, 2)), ((4, 3), (3,)),
             ((6,), (6,)), ((2, 0, 3), (3, 4)), ((2, 3, 0), (0, 4))]
    for sa, sb in cases:
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        _close(mm.product(B.from_numpy(a), B.from_numpy(b)).copy_to_host(), a @ b, 1e-12)
    a16 = rng.standard_normal((5, 9)).astype(np.float16)
    b16 = rng.standard_normal((9, 3)).astype(np.float16)
    got = mm.product(B.from_numpy(a16), B.from_numpy(b16)).copy_to_host()
    assert got.dtype == np.float16
    ref = (a16.astype(np.float32) @ b16.astype(np.float32)).astype(np.float16)
    np.testing.assert_allclose(got.astype(np.float32), ref.astype(np.float32), rtol=2e-3, atol=2e-3)
    ab = rng.random((4, 5)) > 0.5
    got = mm.product(B.from_numpy(ab), B.from_numpy(ab.T.copy())).copy_to_host()
    assert got.dtype == np.bool_ and (got == (ab @ ab.T)).all()
    with pytest.raises(ValueError, match="not aligned"):
        mm.product(B.from_numpy(a), B.from_numpy(rng.standard_normal((4, 2))))


def check_matmul_transposed_products_and_views():
    B, mm = _modules()
    rng = np.random.default_rng(12)
    x, w = rng.standard_normal((5, 9)), rng.standard_normal((6, 9))
    _close(mm.matmul_nt(B.from_numpy(x), B.from_numpy(w)).copy_to_host(), x @ w.T, 1e-12)
    _close(mm.matmul_tn(B.from_numpy(x), B.from_numpy(x[:, :4].copy())).copy_to_host(),
           x.T @ x[:, :4], 1e-12)
    column_major = B.from_numpy(x.T.copy()).T                 # a transposed device view
    assert not column_major.is_c_contiguous()
    _close(mm.product(column_major, B.from_numpy(w.T.copy())).copy_to_host(), x @ w.T, 1e-12)
    with pytest.raises(ValueError, match="matrices"):
        mm.matmul_nt(B.from_numpy(rng.standard_normal((2, 3, 4))), B.from_numpy(w))


def check_matmul_ops_and_gradients_match_cpu():
    import eagerad
    from eagerad.ops import matrix_products as P
    rng = np.random.default_rng(13)
    for fn, sa, sb in ((P.matmul_nt, (5, 7), (3, 7)), (P.matmul_tn, (7, 5), (7, 3)),
                       (lambda a, b: a @ b, (2, 5, 7), (7, 3))):
        a, b = rng.standard_normal(sa), rng.standard_normal(sb)
        res = []
        for dev in ("cpu", "cuda"):
            ta = eagerad.tensor(a, requires_grad=True, device=dev)
            tb = eagerad.tensor(b, requires_grad=True, device=dev)
            out = fn(ta, tb)
            (out * out).sum().backward()
            res.append((out, ta.grad, tb.grad))
        for c, g in zip(*res):
            assert g.device.type == "cuda"
            _close(g, c, 1e-10)


def check_cublas_route_layouts_with_numpy_standing_in():
    """``cublas_launch``'s views, transposes, batch strides and ``out`` handling, with numpy
    standing in for CuPy over the simulator's host-backed arrays (the cuBLAS call itself
    runs in benchmarks/device_check.sh)."""
    B, mm = _modules()
    if not mm.SIMULATOR:
        return
    from numba import cuda
    rng = np.random.default_rng(19)
    saved = mm.cupy_module, mm._cupy_view
    mm.cupy_module, mm._cupy_view = (lambda: np), (lambda cp, x: x._ary.reshape(-1))
    try:
        for n_batch, sa, sb in ((1, 1, 1), (3, 1, 0), (3, 0, 1), (2, 1, 1), (3, 0, 0)):
            for ta in (False, True):
                for tb in (False, True):
                    M, K, N = 4, 5, 3
                    a = rng.standard_normal((n_batch if sa else 1, M, K))
                    b = rng.standard_normal((n_batch if sb else 1, K, N))
                    sa_ = np.swapaxes(a, 1, 2).copy() if ta else a
                    sb_ = np.swapaxes(b, 1, 2).copy() if tb else b
                    out = cuda.to_device(np.full(n_batch * M * N, np.nan))
                    da, db = B.from_numpy(sa_.reshape(-1)), B.from_numpy(sb_.reshape(-1))
                    mm.cublas_launch(out, da, db,
                                     M, N, K, n_batch, sa * M * K, sb * K * N, ta, tb)
                    _close(out.copy_to_host().reshape(n_batch, M, N),
                           np.broadcast_to(a @ b, (n_batch, M, N)), 1e-12)
    finally:
        mm.cupy_module, mm._cupy_view = saved


def check_reductions_one_launch_split_rows():
    """Rows longer than a chunk, with fewer rows than the split limit, finish in one launch;
    the row counters end at zero."""
    B, _ = _modules()
    red = sys.modules["eagerad.backend.cuda.reduction"]
    rng = np.random.default_rng(14)
    for shape, axis in [((600,), None), ((3, 300), 1), ((300, 3), 0), ((2, 5, 30), (0, 2)),
                        ((129,), 0), ((0, 3), 0), ((4, 0), 1)]:
        x = rng.standard_normal(shape)
        for op in ("sum", "max", "prod", "mean") if x.size < 400 else ("sum", "min"):
            if x.size == 0 and op in ("max", "min", "mean"):
                continue
            xx = x * 0.01 + 1 if op == "prod" else x
            got = B.reduce(op, B.from_numpy(xx), axis, False).copy_to_host()
            _close(got, getattr(np, op)(xx, axis=axis), 1e-12)
        bits = x > 0.5
        for op in ("any", "all"):
            got = B.reduce(op, B.from_numpy(bits), axis, True).copy_to_host()
            assert (got == getattr(np, op)(bits, axis=axis, keepdims=True)).all(), (op, shape)
    nan = np.arange(1000.0)
    nan[517] = np.nan
    assert np.isnan(B.reduce("max", B.from_numpy(nan), None, False).copy_to_host())
    assert int(B.reduce("sum", B.from_numpy(np.ones(999, np.int32)), None, False)
               .copy_to_host()) == 999
    assert not any(c.copy_to_host().any() for c in red._counters.values())


def check_softmax_family_rows_and_strided_axes():
    B, _ = _modules()
    from eagerad.backend import cpu
    rng = np.random.default_rng(15)
    cases = [((3, 5), 0, np.float64), ((3, 5), 1, np.float32), ((2, 20, 3), 1, np.float64),
             ((1, 1), 1, np.float32), ((7,), 0, np.float32), ((2, 0, 3), 1, np.float64)]
    for shape, axis, dt in cases:
        x = rng.standard_normal(shape) * 4
        if True:
            for arr, tol in ((x.astype(dt), 1e-12 if dt == np.float64 else 1e-5),):
                d = B.from_numpy(arr)
                _close(B.softmax(d, axis).copy_to_host(), cpu.softmax(arr, axis), tol)
                _close(B.log_softmax(d, axis).copy_to_host(), cpu.log_softmax(arr, axis), tol)
                for keep in (False, True):
                    _close(B.logsumexp(d, axis, keep).copy_to_host(),
                           cpu.logsumexp(arr, axis, keep), tol)
                g = rng.standard_normal(shape).astype(arr.dtype)
                ans = cpu.softmax(arr, axis)
                _close(B.softmax_backward(B.from_numpy(g), B.from_numpy(ans), axis).copy_to_host(),
                       ans * (g - (g * ans).sum(axis, keepdims=True)), tol)
                lans = cpu.log_softmax(arr, axis)
                _close(B.log_softmax_backward(B.from_numpy(g), B.from_numpy(lans), axis)
                       .copy_to_host(), g - np.exp(lans) * g.sum(axis, keepdims=True), tol)
    if True:      # several axes at once, and extreme rows
        x = rng.standard_normal((3, 4, 5))
        _close(B.logsumexp(B.from_numpy(x), (0, 2), False).copy_to_host(),
               cpu.logsumexp(x, (0, 2), False), 1e-12)
        rows = np.array([[1000.0, -1000.0, 0.0], [-np.inf, -np.inf, -np.inf],
                         [np.inf, 0.0, 1.0], [np.nan, 0.0, 1.0]])
        for fn in ("softmax", "log_softmax"):
            with np.errstate(invalid="ignore"):
                ref = getattr(cpu, fn)(rows, 1)
            np.testing.assert_array_equal(getattr(B, fn)(B.from_numpy(rows), 1).copy_to_host(),
                                          ref)
        with np.errstate(invalid="ignore"):
            np.testing.assert_array_equal(B.logsumexp(B.from_numpy(rows), 1, False).copy_to_host(),
                                          cpu.logsumexp(rows, 1, False))
    h = rng.standard_normal((3, 20)).astype(np.float16)
    got = B.softmax(B.from_numpy(h), 1).copy_to_host()
    assert got.dtype == np.float16
    _close(got, cpu.softmax(h, 1), 1e-3)


def check_cross_entropy_and_softmax_gradients_match_cpu():
    import eagerad
    from eagerad import ops
    rng = np.random.default_rng(16)
    logits = rng.standard_normal((6, 5, 3))
    labels = rng.integers(0, 5, (6, 3))
    res = []
    for dev in ("cpu", "cuda"):
        x = eagerad.tensor(logits, requires_grad=True, device=dev)
        loss = ops.cross_entropy(x, eagerad.tensor(labels, device=dev))
        s = (ops.softmax(x, 1) * eagerad.tensor(logits, device=dev)).sum() + \
            ops.logsumexp(x, 2).sum()
        (loss + s).backward()
        res.append((loss, s, x.grad))
    for c, g in zip(*res):
        _close(g, c, 1e-10)


def check_fused_derivatives_same_bits_as_the_rules():
    """fused_deriv/gelu_backward in one kernel against the rules' separate kernels."""
    B, _ = _modules()
    rng = np.random.default_rng(17)
    for dt in (np.float32, np.float64):
        x = B.from_numpy(rng.uniform(0.5, 2, 37).astype(dt))
        g = B.from_numpy(rng.standard_normal(37).astype(dt))
        np.testing.assert_array_equal(B.fused_deriv("sin", g, x).copy_to_host(),
                                      B.binary("mul", B.unary("cos", x), g).copy_to_host())
        np.testing.assert_array_equal(B.fused_deriv("cos", g, x).copy_to_host(),
                                      B.binary("mul", B.unary("neg", g), B.unary("sin", x))
                                      .copy_to_host())
        for n in (2, 3, 0.5, -1.5):
            np.testing.assert_array_equal(
                B.fused_deriv("pow", g, x, n).copy_to_host(),
                B.binary("mul", B.binary("mul", g, n), B.binary("pow", x, n - 1)).copy_to_host())
        assert B.fused_deriv("pow", g, x, True) is None and B.fused_deriv("tan", g, x) is None
    from eagerad.backend import cpu
    xv = rng.standard_normal(41) * 3
    gv = rng.standard_normal(41)
    for approx in ("none", "tanh"):
        got = B.gelu_backward(B.from_numpy(gv), B.from_numpy(xv), approx).copy_to_host()
        _close(got, cpu.gelu_backward(gv, xv, approx), 1e-12)
    assert B.gelu_backward(B.from_numpy(gv), B.from_numpy(xv.astype(np.float32)), "none") is None


def check_op_level_gradients_through_fused_paths():
    import eagerad
    from eagerad import ops
    rng = np.random.default_rng(18)
    x0 = rng.uniform(0.5, 2, (4, 3))
    res = []
    for dev in ("cpu", "cuda"):
        x = eagerad.tensor(x0, requires_grad=True, device=dev)
        y = (ops.sin(x) * ops.cos(x) + x ** 3 + ops.gelu(x) + ops.log_softmax(x, 0)).sum()
        (gx,) = eagerad.autograd.grad(y, [x], create_graph=True)
        (ggx,) = eagerad.autograd.grad(gx.sum(), [x])           # second order through the rules
        res.append((y, gx, ggx))
    for c, g in zip(*res):
        _close(g, c, 1e-10)


def check_module_doctests():
    """The doctests of the kernel modules (the suite's doctest run skips backend/cuda, which
    needs numba.cuda)."""
    import doctest
    import eagerad.backend.cuda  # noqa: F401
    for name in ("matmul", "reduction", "rows", "launch"):
        mod = sys.modules[f"eagerad.backend.cuda.{name}"]
        failed, _ = doctest.testmod(mod, optionflags=doctest.ELLIPSIS)
        assert failed == 0, f"{failed} doctest(s) of {name} failed"


CHECKS = sorted(name for name in list(globals()) if name.startswith("check_"))



@pytest.fixture(scope="module")
def sim_results():
    return checks_on_simulator(__file__, "CUDAKERN-RESULTS")


@pytest.mark.parametrize("name", CHECKS)
def test_on_cuda_simulator(sim_results, name):
    assert sim_results[name] == "ok", sim_results[name]


def test_matmul_mode_is_checked():
    """A wrong EAGERAD_CUDA_MATMUL is an error naming the variable (no CUDA needed)."""
    if not HAVE_NUMBA_CUDA:
        pytest.skip("numba-cuda is not installed")
    script = ("import os, sys; os.environ['EAGERAD_CUDA_MATMUL'] = 'fast'\n"
              "import eagerad.backend.cuda, numpy as np\n"
              "mm = sys.modules['eagerad.backend.cuda.matmul']\n"
              "try:\n    mm.use_cublas(np.float32, 64, 64, 64)\nexcept ValueError as e:\n"
              "    print('RAISED', 'EAGERAD_CUDA_MATMUL' in str(e))\n"
              "os.environ['EAGERAD_CUDA_MATMUL'] = 'cublas'\n"
              "print('SIMULATOR_NEVER_CUBLAS', not mm.use_cublas(np.float32, 4096, 4096, 4096))")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert "RAISED True" in proc.stdout, proc.stderr[-2000:]
    assert "SIMULATOR_NEVER_CUBLAS True" in proc.stdout, proc.stderr[-2000:]


if __name__ == "__main__":
    sys.exit(0 if run_checks(globals(), "CUDAKERN-RESULTS") else 1)
