"""cpu backend: 2-D convolution (groups of 1) as im2col + one batched GEMM each way.

The op-by-op convolution (``unfold``, a reshape, a broadcast ``matmul``, a reshape, a
bias add) records five nodes; here the forward is one call (the column buffer from
``pool``, the bias added into a pooled output) and each gradient one call: the input's
``W^T @ g`` per image then col2im, the weight's ``g @ cols^T`` per image (columns
recomputed: one im2col pass, instead of keeping 9x the input alive from forward to
backward) summed over the batch.  The products are the ones the op-by-op path makes (the
same BLAS calls on the same operands), so the numbers are the same.  (Writing the
products into pooled buffers too, with ``out=``, measured ~25 % slower for the CNN
benchmark's step: the next ops then read colder memory.)  ``fused.py`` exposes them as
``B.conv2d_gemm*``.

>>> x, w = np.ones((1, 1, 3, 3)), np.ones((2, 1, 2, 2))
>>> conv2d_gemm(x, w, None, ((1, 1), (1, 1), (0, 0, 0, 0)))[0, 0].tolist()
[[4.0, 4.0], [4.0, 4.0]]
"""
import numpy as np

from . import pool
from .nn import fold, unfold


def _columns(x, kernel, geometry):
    """(N, C*kh*kw, L) columns of ``x`` and the output's (oh, ow)."""
    stride, dilation, pads = geometry
    cols = unfold(x, kernel, stride, dilation, pads, 0.0)
    n, k = x.shape[0], x.shape[1] * kernel[0] * kernel[1]
    return cols.reshape(n, k, -1), cols.shape[-2:]


def conv2d_gemm(x, w, b, geometry):
    """Cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C, kh, kw) plus ``b`` (O,)
    or None; ``geometry`` is (stride, dilation, (top, bottom, left, right) pads)."""
    o = w.shape[0]
    cols, (oh, ow) = _columns(x, w.shape[2:], geometry)
    out = np.matmul(w.reshape(1, o, -1), cols).reshape(x.shape[0], o, oh, ow)
    if b is not None:
        out = np.add(out, b.reshape(1, o, 1, 1), out=pool.empty(out.shape, out.dtype))
    return out


def conv2d_gemm_grad_input(g, w, size, geometry):
    """The gradient of ``conv2d_gemm`` for its input: ``W^T @ g`` per image, col2im.

    >>> conv2d_gemm_grad_input(np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2)), (3, 3), ((1, 1), (1, 1), (0, 0, 0, 0)))[0, 0].tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    stride, dilation, pads = geometry
    n, o, oh, ow = g.shape
    kernel = tuple(w.shape[2:])
    k = w.shape[1] * kernel[0] * kernel[1]
    dcols = np.matmul(w.reshape(1, o, k).swapaxes(-1, -2), g.reshape(n, o, oh * ow))
    return fold(dcols.reshape((n, w.shape[1]) + kernel + (oh, ow)), size, kernel, stride,
                dilation, pads)


def conv2d_gemm_grad_weight(g, x, shape, geometry):
    """The gradient of ``conv2d_gemm`` for its weight (of ``shape``): ``g @ cols^T`` per
    image, summed over the images.

    >>> conv2d_gemm_grad_weight(np.ones((1, 1, 2, 2)), np.ones((1, 1, 3, 3)), (1, 1, 2, 2), ((1, 1), (1, 1), (0, 0, 0, 0)))[0, 0].tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    cols, _ = _columns(x, tuple(shape[2:]), geometry)
    n, o = g.shape[:2]
    per_image = np.matmul(g.reshape(n, 1, o, -1), cols.reshape(n, 1, cols.shape[1], -1)
                          .swapaxes(-1, -2))
    return per_image.sum(axis=0).reshape(shape)
