"""``conv_kernels``: the Numba kernels of ``conv_gemm``'s three calls give the numpy
path's bits (the same GEMM per image, the same col2im adds, the same batch sum) under
one thread and several, for strides, dilations and uneven padding."""
import numpy as np
import pytest

import eagerad
from eagerad.backend.cpu import conv_gemm, openblas, parallel, threads

pytestmark = pytest.mark.skipif(not openblas.gemm_address("f"),
                                reason="numpy's BLAS is not an OpenBLAS with 64-bit integers")

CASES = [((6, 1, 28, 28), (8, 1, 3, 3), ((1, 1), (1, 1), (1, 1, 1, 1))),
         ((5, 8, 14, 14), (16, 8, 3, 3), ((1, 1), (1, 1), (1, 1, 1, 1))),
         ((3, 4, 11, 9), (5, 4, 3, 2), ((2, 1), (1, 2), (0, 2, 1, 0))),
         ((2, 3, 8, 8), (4, 3, 3, 3), ((1, 1), (2, 2), (2, 2, 2, 2))),
         ((2, 2, 7, 7), (3, 2, 5, 5), ((3, 2), (1, 1), (0, 0, 0, 0)))]


def _numpy_path(monkeypatch, fn, *args):
    with monkeypatch.context() as patch:
        patch.setattr(conv_gemm, "_kernels", lambda key, *arrays: (None, None))
        return fn(*args)


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_kernels_give_the_numpy_paths_bits(monkeypatch, case, dtype, count):
    x_shape, w_shape, geometry = CASES[case]
    rng = np.random.default_rng(case)
    x = rng.standard_normal(x_shape).astype(dtype)
    w = rng.standard_normal(w_shape).astype(dtype)
    b = rng.standard_normal(w_shape[0]).astype(dtype)
    old = threads.get_num_threads()
    eagerad.set_num_threads(count)
    monkeypatch.setattr(parallel, "unmeasured", lambda key: False)   # the kernels, every call
    monkeypatch.setattr(parallel, "paused", lambda: False)
    try:
        out = conv_gemm.conv2d_gemm(x, w, b, geometry)
        g = rng.standard_normal(out.shape).astype(dtype)
        got = (out, conv_gemm.conv2d_gemm(x, w, None, geometry),
               conv_gemm.conv2d_gemm_grad_input(g, w, x_shape[2:], geometry),
               conv_gemm.conv2d_gemm_grad_weight(g, x, w_shape, geometry))
    finally:
        eagerad.set_num_threads(old)
    want = (_numpy_path(monkeypatch, conv_gemm.conv2d_gemm, x, w, b, geometry),
            _numpy_path(monkeypatch, conv_gemm.conv2d_gemm, x, w, None, geometry),
            _numpy_path(monkeypatch, conv_gemm.conv2d_gemm_grad_input, g, w, x_shape[2:], geometry),
            _numpy_path(monkeypatch, conv_gemm.conv2d_gemm_grad_weight, g, x, w_shape, geometry))
    for a, e in zip(got, want):
        assert a.shape == e.shape and a.dtype == e.dtype
        np.testing.assert_array_equal(a, e)


def test_kernels_match_a_direct_sum():
    """A closed check independent of both paths: each output is the windowed sum."""
    rng = np.random.default_rng(7)
    x = rng.standard_normal((2, 3, 6, 5))
    w = rng.standard_normal((4, 3, 3, 2))
    geometry = ((2, 1), (1, 2), (1, 0, 2, 1))
    out = conv_gemm.conv2d_gemm(x, w, None, geometry)
    xp = np.pad(x, ((0, 0), (0, 0), (1, 0), (2, 1)))
    for oy in range(out.shape[2]):
        for ox in range(out.shape[3]):
            patch = xp[:, :, oy * 2:oy * 2 + 3, ox:ox + 4:2]
            np.testing.assert_allclose(out[:, :, oy, ox], np.einsum("nchw,ochw->no", patch, w),
                                       rtol=1e-12, atol=1e-12)


def test_other_dtypes_keep_the_numpy_path():
    x = np.ones((1, 1, 4, 4), np.float16)
    w = np.ones((1, 1, 2, 2), np.float16)
    assert conv_gemm._kernels("k", x, w) == (None, None)
    assert conv_gemm._kernels("k", x.astype(np.float32), w.astype(np.float64)) == (None, None)
    out = conv_gemm.conv2d_gemm(x, w, None, ((1, 1), (1, 1), (0, 0, 0, 0)))
    assert out.dtype == np.float16 and (out == 4).all()
