"""Numba kernels of the fused max-pooling ops (``fused.py``): each window's first maximum
found in one pass over the image, instead of an im2col copy, an argmax, a one-hot mask
and a sum (and their backward: a mask, a sum and a col2im).

A window's maximum is its first largest element in row-major window order, NaN winning
as in numpy's ``argmax`` (so the gradient goes where ``ops.max_pool2d`` sends it);
positions in the padding are skipped.  Imported at the first call; compiled code is
cached on disk.
"""
import math

from numba import njit

from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


@njit(cache=CACHE, inline="always", error_model="numpy")
def _first_max(x, n, c, oy, ox, kh, kw, sh, sw, dh, dw, pt, pl):
    h, w = x.shape[2], x.shape[3]
    best = -math.inf
    where = -1
    for i in range(kh):
        y = oy * sh - pt + i * dh
        if y < 0 or y >= h:
            continue
        for j in range(kw):
            xx = ox * sw - pl + j * dw
            if xx < 0 or xx >= w:
                continue
            v = x[n, c, y, xx]
            if where < 0 or v > best or (v != v and best == best):
                best = v
                where = y * w + xx
    return best, where


@njit(cache=CACHE, error_model="numpy")
def max_pool(x, out, kh, kw, sh, sw, dh, dw, pt, pl):
    """``out[n, c, oy, ox]``: the maximum of each window of ``x`` (N, C, H, W)."""
    for n in range(out.shape[0]):
        for c in range(out.shape[1]):
            for oy in range(out.shape[2]):
                for ox in range(out.shape[3]):
                    out[n, c, oy, ox] = _first_max(x, n, c, oy, ox, kh, kw, sh, sw, dh, dw,
                                                   pt, pl)[0]


@njit(cache=CACHE, error_model="numpy")
def route(src, x, out, scatter, kh, kw, sh, sw, dh, dw, pt, pl):
    """Per window of ``x``, between its maximum's position and the window's cell:
    ``scatter`` adds ``src[n, c, oy, ox]`` into ``out`` (zeros shaped as ``x``) at the
    maximum, in row-major window order; otherwise ``out[n, c, oy, ox]`` reads ``src``
    (shaped as ``x``) there."""
    w = x.shape[3]
    pooled = src if scatter else out
    for n in range(pooled.shape[0]):
        for c in range(pooled.shape[1]):
            for oy in range(pooled.shape[2]):
                for ox in range(pooled.shape[3]):
                    where = _first_max(x, n, c, oy, ox, kh, kw, sh, sw, dh, dw, pt, pl)[1]
                    if where < 0:
                        if not scatter:
                            out[n, c, oy, ox] = 0.0
                    elif scatter:
                        out[n, c, where // w, where % w] += src[n, c, oy, ox]
                    else:
                        out[n, c, oy, ox] = src[n, c, where // w, where % w]
