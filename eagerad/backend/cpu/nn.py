"""cpu backend: the sliding-window kernels of convolution and pooling.

``unfold`` (im2col) copies every kernel-sized window of an NCHW batch into a
column array, so a convolution becomes one BLAS matmul and a pooling one
reduction; ``fold`` (col2im) is its exact adjoint, adding each column entry
back where it came from.  ``unfold`` is ``kh * kw`` strided slice copies in numpy
(a Numba loop measured ~2x slower: numpy's copy loops beat its per-row code);
large outputs come from ``pool`` (no page faults of fresh memory); ``fold`` of
float32/float64 arrays is one Numba pass (``window_copy_kernels.py``,
compiled at the first call; 1.6x faster than the numpy adds into a padded buffer),
other dtypes the numpy loop.  Both give the same numbers to the bit.  Every name in
``__all__`` becomes ``B.<name>``.

>>> x = np.arange(9.0).reshape(1, 1, 3, 3)
>>> unfold(x, (2, 2), (1, 1), (1, 1), (0, 0, 0, 0), 0.0).shape
(1, 1, 2, 2, 2, 2)
"""
import numpy as np

from . import pool

__all__ = ["unfold", "fold"]


def _window(k, out, stride, dilation):
    """The slice that picks kernel offset ``k``'s entries of every window."""
    start = k * dilation
    return slice(start, start + stride * (out - 1) + 1, stride)


def windows(size, kernel, stride, dilation, pads):
    """Number of window positions along each spatial axis.

    >>> windows((5, 5), (3, 3), (2, 1), (1, 1), (0, 0, 1, 1))
    (2, 5)
    """
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1
                 for n, k, s, d, lo, hi in zip(size, kernel, stride, dilation, pads[::2], pads[1::2]))


def _compiled(a):
    """Whether ``a`` goes through the Numba kernels (float32/float64, non-empty)."""
    return a.dtype.char in "fd" and a.size > 0


def unfold(x, kernel, stride, dilation, pads, fill):
    """Windows of ``x`` (N, C, H, W) as (N, C, kh, kw, oh, ow); ``pads`` is (top,
    bottom, left, right) of ``fill`` around the image.

    >>> unfold(np.ones((1, 1, 2, 2)), (2, 2), (1, 1), (1, 1), (0, 0, 0, 1), -1.0)[0, 0, :, 1, 0, 1]
    array([-1., -1.])
    """
    oh, ow = windows(x.shape[2:], kernel, stride, dilation, pads)
    pt, pb, pl, pr = pads
    if any(pads):
        xp = np.full(x.shape[:2] + (x.shape[2] + pt + pb, x.shape[3] + pl + pr), fill, x.dtype)
        xp[:, :, pt:pt + x.shape[2], pl:pl + x.shape[3]] = x
    else:
        xp = x
    out = pool.empty(x.shape[:2] + tuple(kernel) + (oh, ow), x.dtype)
    for i in range(kernel[0]):
        rows = _window(i, oh, stride[0], dilation[0])
        for j in range(kernel[1]):
            out[:, :, i, j] = xp[:, :, rows, _window(j, ow, stride[1], dilation[1])]
    return out


def fold(cols, size, kernel, stride, dilation, pads):
    """The adjoint of ``unfold``: column entries of (N, C, kh, kw, oh, ow) summed back
    into an (N, C, *size) image (padding dropped).

    >>> fold(np.ones((1, 1, 2, 2, 2, 2)), (3, 3), (2, 2), (1, 1), (1, 1), (0, 0, 0, 0))[0, 0]
    array([[1., 2., 1.],
           [2., 4., 2.],
           [1., 2., 1.]])
    """
    pt, pb, pl, pr = pads
    oh, ow = cols.shape[-2:]
    if _compiled(cols):
        from .window_copy_kernels import col2im
        out = pool.empty(cols.shape[:2] + tuple(size), cols.dtype)
        out.fill(0)
        col2im(np.ascontiguousarray(cols), out, stride[0], stride[1], dilation[0], dilation[1],
               pt, pl)
        return out
    xp = np.zeros(cols.shape[:2] + (size[0] + pt + pb, size[1] + pl + pr), cols.dtype)
    for i in range(kernel[0]):
        rows = _window(i, oh, stride[0], dilation[0])
        for j in range(kernel[1]):
            xp[:, :, rows, _window(j, ow, stride[1], dilation[1])] += cols[:, :, i, j]
    return xp[:, :, pt:pt + size[0], pl:pl + size[1]]
