"""The recurrent scans' Numba step kernels (issue 23): the float32 LSTM and GRU steps
(vectorised exp/tanh) and the GRU's backward kernel give the numpy passes' numbers within
float rounding, both checked against a float64 run of the same inputs."""
import numpy as np
import pytest

from eagerad.backend.cpu import recurrent_scan as rs


def _gru_args(rng, dtype, steps=5, n=3, size=6):
    shapes = ((steps, n, 3 * size), (n, size), (3 * size, size), (3 * size,))
    return [(1.5 * rng.standard_normal(s)).astype(dtype) for s in shapes]


def _gru_run(args, g_h, reverse):
    hs = rs.gru_scan(*args, reverse=reverse)
    return [hs.copy()] + [a.copy() for a in rs.gru_scan_backward(g_h, hs, *args, reverse)]


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_gru_kernels_equal_the_numpy_passes(dtype, reverse, monkeypatch):
    rng = np.random.default_rng(0)
    args = _gru_args(rng, dtype)
    args[0][0, 0, :2] = -300.0                    # a saturated gate: sigmoid 0, no NaN
    g_h = rng.standard_normal((5, 3, 6)).astype(dtype)
    exact = _gru_run([a.astype(np.float64) for a in args], g_h.astype(np.float64), reverse)
    fast = _gru_run(args, g_h, reverse)
    monkeypatch.setattr(rs, "_kernels", lambda *a: None)
    slow = _gru_run(args, g_h, reverse)
    tol = dict(rtol=2e-5, atol=2e-5) if dtype == "float32" else dict(rtol=1e-12, atol=1e-13)
    for a, b, e in zip(fast, slow, exact):
        assert a.dtype == b.dtype == np.dtype(dtype)
        np.testing.assert_allclose(a, b, **tol)
        if dtype == "float32":                    # both near the float64 run
            np.testing.assert_allclose(a, e, rtol=2e-5, atol=2e-5)
