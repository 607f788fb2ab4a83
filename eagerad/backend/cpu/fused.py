"""cpu backend: fused kernels of whole layers (``ops/recurrent.py``'s LSTM scan,
``ops/pooling.py``'s max-pooling, GELU's forward and gradient).

An LSTM layer run as separate ops costs ~30 recorded ops per time step, and its backward
as many nodes; here the whole sequence is one forward call and one backward call.  Each
step is one BLAS product plus vectorised numpy passes over (N, H) arrays (numpy's SIMD
``exp``/``tanh``, not Numba's scalar ``math.exp``), with the arithmetic of the op-by-op
cell up to rounding (the biases are added to the input projections once, the sigmoid is
``1 / (1 + exp(-z))``, accurate in both tails); a Numba cell with scalar ``exp``/``tanh``
measured 1.4x slower than these numpy passes in float32, but float32 steps now run one
Numba pass with vectorisable float64 sigmoid/tanh (``vector_math``), one call per step.  The backward's pure arithmetic is one
Numba pass per step (``recurrent_kernels.py``, compiled at its first use).  Every name in
``__all__`` becomes ``B.<name>``.

>>> xw, h0 = np.zeros((3, 2, 8)), np.zeros((2, 2))
>>> lstm_scan(xw, h0, h0, np.zeros((8, 2)), np.zeros(8)).shape
(3, 2, 12)
"""
import numpy as np

from . import pool

__all__ = ["lstm_scan", "lstm_scan_backward", "max_pool", "max_pool_gather", "max_pool_scatter",
           "gelu", "gelu_backward", "max_pool_argmax", "pool_take", "pool_put", "layer_norm",
           "layer_norm_backward", "softmax_inplace", "softmax_backward", "conv2d_gemm",
           "conv2d_gemm_grad_input", "conv2d_gemm_grad_weight", "log_softmax_backward"]


def _kernels(*arrays):
    """The Numba cell kernel for float32/float64 operands of one dtype, else None (the
    numpy passes then run)."""
    dtype = arrays[0].dtype
    if dtype.char not in "fd" or any(a.dtype != dtype for a in arrays):
        return None
    from . import recurrent_kernels
    return recurrent_kernels


def lstm_scan(xw, h0, c0, w_hh, b_hh):
    """The LSTM recurrence over a sequence: ``xw`` (L, N, 4H) holds ``x_t @ W_ih.T +
    b_ih`` for every step, gates (input, forget, cell, output) as PyTorch orders them;
    returns (L, N, 6H): per step ``[h, c, i, f, g, o]`` (the gates after their
    sigmoid/tanh, kept for the backward).

    >>> out = lstm_scan(np.ones((1, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((4, 1)), np.zeros(4))
    >>> np.round(out[0, 0], 4).tolist()    # i = f = o = sigmoid(1), g = tanh(1)
    [0.3696, 0.5568, 0.7311, 0.7311, 0.7616, 0.7311]
    """
    steps, n, four = xw.shape
    size = four // 4
    out = np.empty((steps, n, 6 * size), np.result_type(xw, h0, c0, w_hh, b_hh))
    w_t = w_hh.T
    xwb = xw + b_hh                  # both biases added once for the whole sequence
    z = np.empty((n, four), out.dtype)
    h = h0
    with np.errstate(over="ignore"):     # exp(-z) = inf for z < -88 (float32): sigmoid 0
        for t in range(steps):
            row = out[t]
            np.matmul(h, w_t, out=z)
            z += xwb[t]
            gates = row[:, 2 * size:]
            np.negative(z, out=gates)        # sigmoid(z) = 1 / (1 + exp(-z)), 4 passes
            np.exp(gates, out=gates)
            gates += 1
            np.reciprocal(gates, out=gates)
            i, f, g, o = (row[:, k * size:(k + 1) * size] for k in range(2, 6))
            np.tanh(z[:, 2 * size:3 * size], out=g)
            c = row[:, size:2 * size]
            np.multiply(f, c0 if t == 0 else out[t - 1, :, size:2 * size], out=c)
            c += i * g
            h = row[:, :size]
            np.tanh(c, out=h)
            h *= o
    return out


def lstm_scan_backward(grad, out, h0, c0, w_hh):
    """Gradients of ``lstm_scan`` from the gradient ``grad`` of its output (L, N, 6H)
    and the output ``out`` itself: ``(d xw, d h0, d c0, d w_hh, d b_hh)``, one pass back
    through time (one (N, 4H) @ (4H, H) product per step).

    >>> out = lstm_scan(np.ones((2, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.ones((4, 1)), np.zeros(4))
    >>> [a.shape for a in lstm_scan_backward(np.ones_like(out), out, np.zeros((1, 1)), np.zeros((1, 1)), np.ones((4, 1)))]
    [(2, 1, 4), (1, 1), (1, 1), (4, 1), (4,)]
    """
    steps, n, six = out.shape
    size = six // 6
    dtype = out.dtype
    dz = np.empty((steps, n, 4 * size), dtype)
    dh = np.zeros((n, size), dtype)
    dc = np.zeros((n, size), dtype)
    tanh_c = np.tanh(out[:, :, size:2 * size])
    kernels = _kernels(grad, out, h0, c0, w_hh)
    for t in range(steps - 1, -1, -1):
        row, g_row, z = out[t], grad[t], dz[t]
        c_prev = c0 if t == 0 else out[t - 1, :, size:2 * size]
        if kernels is not None:
            kernels.cell_backward(g_row, row, tanh_c[t], c_prev, dh, dc, z)
        else:
            i, f, g, o = (row[:, k * size:(k + 1) * size] for k in range(2, 6))
            tc = tanh_c[t]
            dh = dh + g_row[:, :size]
            d_o = dh * tc + g_row[:, 5 * size:]
            dc = dc + g_row[:, size:2 * size] + dh * o * (1 - tc * tc)
            d_i = dc * g + g_row[:, 2 * size:3 * size]
            d_f = dc * c_prev + g_row[:, 3 * size:4 * size]
            d_g = dc * i + g_row[:, 4 * size:5 * size]
            dc = dc * f
            z[:, :size] = d_i * i * (1 - i)
            z[:, size:2 * size] = d_f * f * (1 - f)
            z[:, 2 * size:3 * size] = d_g * (1 - g * g)
            z[:, 3 * size:] = d_o * o * (1 - o)
        dh = np.matmul(z, w_hh, out=dh) if kernels is not None else z @ w_hh
    rows = steps * n
    h_prev = np.concatenate([h0[None], out[:-1, :, :size]]) if steps else out[:, :, :size]
    d_w = dz.reshape(rows, 4 * size).T @ h_prev.reshape(rows, size)
    return dz, dh, dc, d_w.astype(dtype, copy=False), dz.reshape(rows, 4 * size).sum(0)


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
    """``softmax(x, axis)`` (the same numbers to the bit) with the shift, exp and division
    done in one pooled output buffer instead of three fresh arrays.

    >>> softmax_inplace(np.array([0.0, np.log(3.0)]), 0)
    array([0.25, 0.75])
    """
    if x.dtype.char not in "fd" or x.size == 0:      # (an empty axis: nothing to normalise)
        from . import softmax
        return softmax(x, axis)
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



def log_softmax_backward(g, ans, axis):
    """``g - exp(ans) * sum(g, axis)``, the gradient of ``log_softmax``, by the backend
    calls of the differentiable rule (so its numbers); the CUDA backend has one kernel.

    >>> log_softmax_backward(np.array([1.0, 0.0]), np.log(np.array([0.25, 0.75])), 0)
    array([ 0.75, -0.75])
    """
    from . import binary, reduce, unary
    return binary("sub", g, binary("mul", unary("exp", ans), reduce("sum", g, (axis,), True)))
