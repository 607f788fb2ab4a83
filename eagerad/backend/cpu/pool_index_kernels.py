"""Numba kernels of max-pooling by indices (``fused.max_pool_argmax``, ``pool_take``,
``pool_put``): the forward finds each window's first maximum once and keeps its flat
position in the (H, W) plane, so the backward is a plain scatter of the gradient to those
positions instead of a second search of every window.

The maximum is ``window_kernels``' (first largest in row-major window order, NaN winning,
padding skipped; -1 where a window holds no image cell).  ``pool_put`` adds in window
order, as ``window_kernels.route`` does, so gradients are the same to the bit.  Imported
at the first call; compiled code is cached on disk.
"""
from numba import njit

from .window_kernels import _first_max


@njit(cache=True, error_model="numpy")
def argmax(x, idx, kh, kw, sh, sw, dh, dw, pt, pl):
    """``idx[n, c, oy, ox]``: the flat (y * W + x) position of each window's maximum."""
    for n in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            for oy in range(idx.shape[2]):
                for ox in range(idx.shape[3]):
                    idx[n, c, oy, ox] = _first_max(x, n, c, oy, ox, kh, kw, sh, sw, dh, dw,
                                                   pt, pl)[1]


@njit(cache=True, error_model="numpy")
def take(src, idx, out, fill):
    """``out[p, k] = src[p, idx[p, k]]`` per plane ``p`` (``fill`` where ``idx`` < 0)."""
    for p in range(idx.shape[0]):
        for k in range(idx.shape[1]):
            i = idx[p, k]
            out[p, k] = src[p, i] if i >= 0 else fill


@njit(cache=True, error_model="numpy")
def put(src, idx, out):
    """``out[p, idx[p, k]] += src[p, k]`` per plane ``p``, in ``k`` order (``idx`` < 0
    dropped)."""
    for p in range(idx.shape[0]):
        for k in range(idx.shape[1]):
            i = idx[p, k]
            if i >= 0:
                out[p, i] += src[p, k]
