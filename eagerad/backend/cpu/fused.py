"""cpu backend: fused kernels of whole layers (``ops/recurrent.py``'s LSTM, GRU and RNN scans,
``ops/pooling.py``'s max-pooling, GELU's forward and gradient).

An LSTM layer run as separate ops costs ~30 recorded ops per time step, and its backward
as many nodes; here the whole sequence is one forward call and one backward call
(``recurrent_scan.py``: one BLAS product and numpy's SIMD passes per step, the LSTM's
remaining arithmetic one Numba pass per step each way).  Every name in ``__all__`` becomes ``B.<name>``.

>>> xw, h0 = np.zeros((3, 2, 8)), np.zeros((2, 2))
>>> lstm_scan(xw, h0, h0, np.zeros((8, 2)), np.zeros(8)).shape
(3, 2, 2)
"""
import numpy as np

from . import pool, recurrent_scan as _lstm

__all__ = ["lstm_scan", "lstm_scan_backward", "max_pool", "max_pool_gather", "max_pool_scatter",
           "gelu", "gelu_backward", "max_pool_argmax", "pool_take", "pool_put", "layer_norm",
           "layer_norm_backward", "softmax_inplace", "softmax_backward", "conv2d_gemm",
           "conv2d_gemm_grad_input", "conv2d_gemm_grad_weight", "log_softmax_backward"]


def lstm_scan(xw, h0, c0, w_hh, b_hh, reverse=False):
    """The LSTM layer's hidden states (L, N, H) over the sequence, its gates kept behind
    them for the backward (``recurrent_scan.scan``).

    >>> out = lstm_scan(np.ones((1, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((4, 1)), np.zeros(4))
    >>> np.round(out[0, 0], 4).tolist()    # o * tanh(i * g), i = o = sigmoid(1), g = tanh(1)
    [0.3696]
    """
    return _lstm.scan(xw, h0, c0, w_hh, b_hh, reverse)


def lstm_scan_cell(hs, xw, h0, c0, w_hh, b_hh, reverse=False):
    """The final cell state (N, H) of the scan whose output is ``hs``
    (``recurrent_scan.last_cell``).

    >>> args = np.ones((1, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((4, 1)), np.zeros(4)
    >>> np.round(lstm_scan_cell(lstm_scan(*args), *args), 4).tolist()
    [[0.5568]]
    """
    return _lstm.last_cell(hs, xw, h0, c0, w_hh, b_hh, reverse)


def lstm_scan_backward(g_h, g_c, hs, xw, h0, c0, w_hh, b_hh, reverse=False):
    """Gradients ``(d xw, d h0, d c0, d w_hh, d b_hh)`` of the scan from those of its
    output ``hs`` and/or its final cell state (``recurrent_scan.scan_backward``).

    >>> args = np.ones((2, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.ones((4, 1)), np.zeros(4)
    >>> [a.shape for a in lstm_scan_backward(np.ones((2, 1, 1)), None, lstm_scan(*args), *args)]
    [(2, 1, 4), (1, 1), (1, 1), (4, 1), (4,)]
    """
    return _lstm.scan_backward(g_h, g_c, hs, xw, h0, c0, w_hh, b_hh, reverse)


def rnn_scan(xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """An Elman layer's hidden states (L, N, H) over the sequence
    (``recurrent_scan.rnn_scan``).

    >>> rnn_scan(np.ones((1, 1, 1)), np.zeros((1, 1)), np.ones((1, 1)), np.zeros(1)).round(4).tolist()
    [[[0.7616]]]
    """
    return _lstm.rnn_scan(xw, h0, w_hh, b_hh, relu, reverse)


def rnn_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """Gradients ``(d xw, d h0, d w_hh, d b_hh)`` of ``rnn_scan``
    (``recurrent_scan.rnn_scan_backward``).

    >>> args = np.ones((1, 1, 1)), np.zeros((1, 1)), np.ones((1, 1)), np.zeros(1)
    >>> [a.shape for a in rnn_scan_backward(np.ones((1, 1, 1)), rnn_scan(*args), *args)]
    [(1, 1, 1), (1, 1), (1, 1), (1,)]
    """
    return _lstm.rnn_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, relu, reverse)


def gru_scan(xw, h0, w_hh, b_hh, reverse=False):
    """A GRU layer's hidden states (L, N, H), its gates kept behind them
    (``recurrent_scan.gru_scan``).

    >>> gru_scan(np.zeros((1, 1, 3)), np.ones((1, 1)), np.zeros((3, 1)), np.zeros(3)).tolist()
    [[[0.5]]]
    """
    return _lstm.gru_scan(xw, h0, w_hh, b_hh, reverse)


def gru_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, reverse=False):
    """Gradients ``(d xw, d h0, d w_hh, d b_hh)`` of ``gru_scan``
    (``recurrent_scan.gru_scan_backward``).

    >>> args = np.zeros((1, 1, 3)), np.ones((1, 1)), np.zeros((3, 1)), np.zeros(3)
    >>> [a.shape for a in gru_scan_backward(np.ones((1, 1, 1)), gru_scan(*args), *args)]
    [(1, 1, 3), (1, 1), (3, 1), (3,)]
    """
    return _lstm.gru_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, reverse)


__all__ += ["lstm_scan_cell", "rnn_scan", "rnn_scan_backward", "gru_scan", "gru_scan_backward"]


def _window_args(x, geometry):
    """The kernel's arguments for ``geometry`` = (kernel, stride, dilation, pads)."""
    (kh, kw), (sh, sw), (dh, dw), pads = geometry
    return kh, kw, sh, sw, dh, dw, pads[0], pads[2]


def _out_shape(x, geometry):
    from .nn import windows
    kernel, stride, dilation, pads = geometry
    return x.shape[:2] + windows(x.shape[2:], kernel, stride, dilation, pads)


def _contiguous_float(*arrays):
    from numpy import ascontiguousarray
    return tuple(ascontiguousarray(a) for a in arrays)


def max_pool(x, geometry):
    """Window maxima of ``x`` (N, C, H, W), ``geometry`` = (kernel, stride, dilation,
    (top, bottom, left, right) pads); the padding never wins.

    >>> max_pool(np.arange(16.0).reshape(1, 1, 4, 4), ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)))[0, 0]
    array([[ 5.,  7.],
           [13., 15.]])
    """
    from .window_kernels import max_pool as kernel
    x, = _contiguous_float(x)
    out = np.empty(_out_shape(x, geometry), x.dtype)
    kernel(x, out, *_window_args(x, geometry))
    return out


def max_pool_gather(t, x, geometry):
    """``t`` (shaped as ``x``) read at each window's maximum of ``x``: the tangent of
    ``max_pool`` (and the vjp of ``max_pool_scatter``).

    >>> x = np.array([[[[1.0, 4.0], [3.0, 2.0]]]])
    >>> max_pool_gather(np.arange(4.0).reshape(1, 1, 2, 2), x, ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)))
    array([[[[1.]]]])
    """
    from .window_kernels import route
    t, x = _contiguous_float(t, x)
    out = np.empty(_out_shape(x, geometry), t.dtype)
    route(t, x, out, False, *_window_args(x, geometry))
    return out


def max_pool_scatter(g, x, geometry):
    """Zeros shaped as ``x`` with ``g`` (the pooled shape) added at each window's
    maximum of ``x``: the gradient of ``max_pool``.

    >>> x = np.array([[[[1.0, 4.0], [3.0, 2.0]]]])
    >>> max_pool_scatter(np.ones((1, 1, 1, 1)), x, ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)))[0, 0]
    array([[0., 1.],
           [0., 0.]])
    """
    from .window_kernels import route
    g, x = _contiguous_float(g, x)
    out = np.zeros(x.shape, g.dtype)
    route(g, x, out, True, *_window_args(x, geometry))
    return out


_TWO_BY_TWO = ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0))


def max_pool_argmax(x, geometry):
    """Flat (y * W + x) position in its (H, W) plane of each window's first maximum of
    ``x`` (N, C, H, W), as int64 (N, C, oh, ow); -1 for a window wholly in the padding.

    >>> max_pool_argmax(np.array([[[[1.0, 4.0], [3.0, 2.0]]]]), ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)))
    array([[[[1]]]])
    """
    from .pool_index_kernels import argmax, argmax_2x2
    x, = _contiguous_float(x)
    idx = np.empty(_out_shape(x, geometry), np.int64)
    if geometry == _TWO_BY_TWO and not np.isnan(x).any():
        argmax_2x2(x, idx)
    else:
        argmax(x, idx, *_window_args(x, geometry))
    return idx


def _planes(a, n_planes):
    return np.ascontiguousarray(a).reshape(n_planes, -1)


def pool_take(src, idx, fill):
    """``src`` (N, C, H, W) read at the plane positions ``idx`` (N, C, oh, ow); ``fill``
    where ``idx`` is -1.

    >>> pool_take(np.arange(4.0).reshape(1, 1, 2, 2), np.array([[[[3, -1]]]]), -np.inf)
    array([[[[  3., -inf]]]])
    """
    from .pool_index_kernels import take
    planes = idx.shape[0] * idx.shape[1]
    out = np.empty(idx.shape, src.dtype)
    if out.size:
        take(_planes(src, planes), _planes(idx, planes), out.reshape(planes, -1), fill)
    return out


def pool_put(src, idx, size):
    """Zeros (N, C, *size) with ``src`` (N, C, oh, ow) added at the plane positions
    ``idx`` (the adjoint of ``pool_take``; -1 dropped).

    >>> pool_put(np.ones((1, 1, 1, 2)), np.array([[[[3, 3]]]]), (2, 2))[0, 0]
    array([[0., 0.],
           [0., 2.]])
    """
    from .pool_index_kernels import put
    planes = idx.shape[0] * idx.shape[1]
    out = pool.empty(idx.shape[:2] + tuple(size), src.dtype)
    out.fill(0)
    if src.size:
        put(_planes(src, planes), _planes(idx, planes), out.reshape(planes, -1))
    return out


def layer_norm(x, w, b, eps):
    """Each row of ``x`` (R, D) normalised (biased variance, ``eps`` inside the root),
    scaled by ``w`` (D,) and shifted by ``b`` (D,), one Numba pass per row.

    >>> layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2), 0.0)
    array([[-1.,  1.]])
    """
    from .norm_kernels import forward
    x, w, b = _contiguous_float(x, w, b)
    out = np.empty(x.shape, x.dtype)
    if x.size:
        forward(x, w, b, out, float(eps))
    return out


def layer_norm_backward(g, x, w, eps):
    """Gradients of ``layer_norm`` for the output gradient ``g``: (dx, dw, db).

    >>> dx, dw, db = layer_norm_backward(np.array([[1.0, 0.0]]), np.array([[1.0, 3.0]]), np.ones(2), 0.0)
    >>> dx.tolist(), dw.tolist(), db.tolist()
    ([[0.0, 0.0]], [-1.0, 0.0], [1.0, 0.0])
    """
    from .norm_kernels import backward
    g, x, w = _contiguous_float(g, x, w)
    dx = np.empty(x.shape, x.dtype)
    dw = np.zeros(x.shape[1], np.float64)
    db = np.zeros(x.shape[1], np.float64)
    if x.size:
        backward(g, x, w, float(eps), dx, dw, db)
    return dx, dw.astype(x.dtype), db.astype(x.dtype)


def softmax_inplace(x, axis):
    """``softmax(x, axis)`` with the shift, exp and division done in one pooled output
    buffer instead of three fresh arrays (the same numbers to the bit); float32 rows along
    the last axis run ``attention_kernels.softmax_last`` instead (within a few ulps).

    >>> softmax_inplace(np.array([0.0, np.log(3.0)]), 0)
    array([0.25, 0.75])
    """
    if x.dtype.char not in "fd" or x.size == 0:      # (an empty axis: nothing to normalise)
        from . import softmax
        return softmax(x, axis)
    if axis == x.ndim - 1 and x.dtype.char == "f":   # float32 rows: one Numba call
        from .attention_kernels import softmax_last
        out = softmax_last(x)
        if out is not None:
            return out
    out = pool.empty(x.shape, x.dtype)
    np.subtract(x, np.max(x, axis=axis, keepdims=True), out=out)
    np.exp(out, out=out)
    return np.divide(out, np.sum(out, axis=axis, keepdims=True), out=out)


def softmax_backward(g, ans, axis):
    """``ans * (g - sum(g * ans, axis))``, the gradient of ``softmax``, in one pooled
    buffer (the same operations as the differentiable rule, so the same numbers).

    >>> softmax_backward(np.array([1.0, 0.0]), np.array([0.25, 0.75]), 0)
    array([ 0.1875, -0.1875])
    """
    if g.dtype != ans.dtype or g.dtype.char not in "fd":
        from . import binary, reduce
        return binary("mul", ans, binary("sub", g, reduce("sum", binary("mul", g, ans), (axis,),
                                                           True)))
    if axis == ans.ndim - 1 and g.dtype.char == "f":  # float32 rows: one Numba call
        from .attention_kernels import softmax_last_backward
        out = softmax_last_backward(g, ans)
        if out is not None:
            return out
    out = pool.empty(np.broadcast_shapes(g.shape, ans.shape), g.dtype)
    np.multiply(g, ans, out=out)
    total = np.sum(out, axis=axis, keepdims=True)
    np.subtract(g, total, out=out)
    return np.multiply(ans, out, out=out)


def conv2d_gemm(x, w, b, geometry):
    """``conv_gemm.conv2d_gemm``: a 2-D convolution as im2col + one batched GEMM.

    >>> conv2d_gemm(np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2)), np.ones(1), ((1, 1), (1, 1), (0, 0, 0, 0))).tolist()
    [[[[5.0]]]]
    """
    from . import conv_gemm
    return conv_gemm.conv2d_gemm(x, w, b, geometry)


def conv2d_gemm_grad_input(g, w, size, geometry):
    """``conv_gemm.conv2d_gemm_grad_input``: the convolution's input gradient.

    >>> conv2d_gemm_grad_input(np.ones((1, 1, 1, 1)), np.ones((1, 1, 2, 2)), (2, 2), ((1, 1), (1, 1), (0, 0, 0, 0))).shape
    (1, 1, 2, 2)
    """
    from . import conv_gemm
    return conv_gemm.conv2d_gemm_grad_input(g, w, size, geometry)


def conv2d_gemm_grad_weight(g, x, shape, geometry):
    """``conv_gemm.conv2d_gemm_grad_weight``: the convolution's weight gradient.

    >>> conv2d_gemm_grad_weight(np.ones((1, 1, 1, 1)), np.ones((1, 1, 2, 2)), (1, 1, 2, 2), ((1, 1), (1, 1), (0, 0, 0, 0))).shape
    (1, 1, 2, 2)
    """
    from . import conv_gemm
    return conv_gemm.conv2d_gemm_grad_weight(g, x, shape, geometry)


def _flat_floats(*arrays):
    """Whether ``arrays`` are C-contiguous float32/float64 arrays of one dtype and shape."""
    a = arrays[0]
    return a.dtype.char in "fd" and all(
        b.dtype == a.dtype and b.shape == a.shape and b.flags.c_contiguous for b in arrays)


def gelu(x, approximate):
    """GELU (``approximate`` 'none': exact through erfc, or 'tanh'): one Numba pass for
    contiguous float32/float64 arrays, the generic formula ufunc otherwise; the same
    numbers either way.

    >>> gelu(np.array([-1.0, 0.0, 1.0]), "none")
    array([-0.15865525,  0.        ,  0.84134475])
    """
    if not _flat_floats(x) or x.size == 0:
        from .special import special_unary
        return special_unary("gelu" if approximate == "none" else "gelu_tanh", x)
    from .activation_kernels import gelu as kernel
    return kernel(x.reshape(-1), approximate != "none").reshape(x.shape)


def gelu_backward(g, x, approximate):
    """``g * gelu'(x)`` in one pass (float64 inside, rounded once), or None where no
    kernel applies (other dtypes, layouts or shapes): the caller runs the rule.

    >>> gelu_backward(np.ones(2), np.array([0.0, 1.0]), "none")
    array([0.5       , 1.08331547])
    """
    if not _flat_floats(g, x) or x.size == 0:
        return None
    from .activation_kernels import gelu_backward as kernel
    return kernel(g.reshape(-1), x.reshape(-1), approximate != "none").reshape(x.shape)


def attention_forward(q, k, v, scale, mask):
    """``attention_kernels.attention_forward``: scaled dot-product attention in one call.

    >>> attention_forward(np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, None).tolist()
    [[1.0]]
    """
    from .attention_kernels import attention_forward
    return attention_forward(q, k, v, scale, mask)


def attention_backward(g, q, k, v, scale, mask):
    """``attention_kernels.attention_backward``: (dq, dk, dv) of the attention.

    >>> [a.shape for a in attention_backward(np.ones((1, 1)), np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, None)]
    [(1, 2), (3, 2), (3, 1)]
    """
    from .attention_kernels import attention_backward
    return attention_backward(g, q, k, v, scale, mask)


__all__ += ["attention_forward", "attention_backward"]


def log_softmax_backward(g, ans, axis):
    """``g - exp(ans) * sum(g, axis)``, the gradient of ``log_softmax``, by the backend
    calls of the differentiable rule (so its numbers); the CUDA backend has one kernel.

    >>> log_softmax_backward(np.array([1.0, 0.0]), np.log(np.array([0.25, 0.75])), 0)
    array([ 0.75, -0.75])
    """
    from . import binary, reduce, unary
    return binary("sub", g, binary("mul", unary("exp", ans), reduce("sum", g, (axis,), True)))
