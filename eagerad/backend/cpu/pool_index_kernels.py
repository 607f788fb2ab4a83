"""Numba kernels of max-pooling by indices (``fused.max_pool_argmax``, ``pool_take``,
``pool_put``): the forward finds each window's first maximum once and keeps its flat
position in the (H, W) plane, so the backward is a plain scatter of the gradient to those
positions instead of a second search of every window.

The maximum is ``window_kernels._first_max``'s (first largest in row-major window order, NaN winning,
padding skipped; -1 where a window holds no image cell).  ``pool_put`` adds in window
order, as ``window_kernels.route`` does, so gradients are the same to the bit.  Imported
at the first call; compiled code is cached on disk.

The kernels release the GIL, and the functions of the same names without the leading
underscore split large calls over the backend's thread pool by images (or planes):
windows and planes are independent, so the bits do not depend on the split.
"""
import numpy as np
from numba import njit

from . import threads
from .window_copy_kernels import _inside
from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs

# elements (of the largest array) from which a call is split over the pool
SPLIT_MIN = 1 << 18


def _over_rows(kernel, arrays, *args):
    """``kernel(*arrays, *args)``, split along the arrays' first axis over the pool
    when they are large."""
    rows = arrays[0].shape[0]
    if rows < 2 or max(a.size for a in arrays) < SPLIT_MIN or threads.shares() < 2:
        kernel(*arrays, *args)
        return
    chunks = threads.row_chunks(rows)
    threads.share(lambda i: kernel(*(a[chunks[i][0]:chunks[i][1]] for a in arrays), *args),
                  len(chunks))


def argmax(x, idx, kh, kw, sh, sw, dh, dw, pt, pl):
    """``_argmax`` over the pool.

    >>> idx = np.empty((1, 1, 1, 1), np.int64); argmax(np.arange(4.0).reshape(1, 1, 2, 2), idx, 2, 2, 2, 2, 1, 1, 0, 0); idx.item()
    3
    """
    _over_rows(_argmax, (x, idx), kh, kw, sh, sw, dh, dw, pt, pl)


def argmax_2x2(x, idx):
    """``_argmax_2x2`` over the pool.

    >>> idx = np.empty((1, 1, 1, 1), np.int64); argmax_2x2(np.array([[[[1.0, 4.0], [3.0, 2.0]]]]), idx); idx.item()
    1
    """
    _over_rows(_argmax_2x2, (x, idx))


def take(src, idx, out, fill):
    """``_take`` over the pool.

    >>> out = np.empty((1, 2)); take(np.array([[5.0, 6.0]]), np.array([[1, -1]]), out, 0.0); out.tolist()
    [[6.0, 0.0]]
    """
    _over_rows(_take, (src, idx, out), fill)


def put(src, idx, out):
    """``_put`` over the pool.

    >>> out = np.zeros((1, 2)); put(np.array([[5.0, 6.0]]), np.array([[1, 1]]), out); out.tolist()
    [[0.0, 11.0]]
    """
    _over_rows(_put, (src, idx, out))


@njit(cache=CACHE, error_model="numpy", nogil=True)
def _argmax(x, idx, kh, kw, sh, sw, dh, dw, pt, pl):
    """``idx[n, c, oy, ox]``: the flat (y * W + x) position of each window's maximum.

    A row of windows at a time: for each kernel offset (i, j) in row-major order, every
    window of the row compares its cell with its best so far, so each window sees its
    cells in ``_first_max``'s order (the same maxima), with the bounds worked out once
    per offset instead of per cell."""
    nb, ch, h, w = x.shape
    oh, ow = idx.shape[2], idx.shape[3]
    src = x.reshape(-1)
    out = idx.reshape(-1)
    best = np.empty(ow, x.dtype)
    k = 0
    for plane in range(nb * ch):
        base = plane * h * w
        for oy in range(oh):
            where = out[k:k + ow]
            where[:] = -1
            for i in range(kh):
                y = oy * sh - pt + i * dh
                if y < 0 or y >= h:
                    continue
                row = base + y * w
                for j in range(kw):
                    lo, hi = _inside(j, dw, pl, sw, ow, w)
                    off = j * dw - pl
                    for ox in range(lo, hi):
                        col = ox * sw + off
                        v = src[row + col]
                        b = best[ox]
                        if where[ox] < 0 or v > b or (v != v and b == b):
                            best[ox] = v
                            where[ox] = y * w + col
            k += ow


@njit(cache=CACHE, error_model="numpy", nogil=True)
def _argmax_2x2(x, idx):
    """``argmax`` for 2x2 windows with stride 2, no padding or dilation, and no NaN in
    ``x`` (so a plain ``>`` decides, which LLVM vectorises: ~10x faster)."""
    w = x.shape[3]
    for n in range(idx.shape[0]):
        for c in range(idx.shape[1]):
            for oy in range(idx.shape[2]):
                y = 2 * oy
                for ox in range(idx.shape[3]):
                    xx = 2 * ox
                    best = x[n, c, y, xx]
                    where = y * w + xx
                    v = x[n, c, y, xx + 1]
                    if v > best:
                        best = v
                        where = y * w + xx + 1
                    v = x[n, c, y + 1, xx]
                    if v > best:
                        best = v
                        where = (y + 1) * w + xx
                    if x[n, c, y + 1, xx + 1] > best:
                        where = (y + 1) * w + xx + 1
                    idx[n, c, oy, ox] = where


@njit(cache=CACHE, error_model="numpy", nogil=True)
def _take(src, idx, out, fill):
    """``out[p, k] = src[p, idx[p, k]]`` per plane ``p`` (``fill`` where ``idx`` < 0)."""
    for p in range(idx.shape[0]):
        for k in range(idx.shape[1]):
            i = idx[p, k]
            out[p, k] = src[p, i] if i >= 0 else fill


@njit(cache=CACHE, error_model="numpy", nogil=True)
def _put(src, idx, out):
    """``out[p, idx[p, k]] += src[p, k]`` per plane ``p``, in ``k`` order (``idx`` < 0
    dropped)."""
    for p in range(idx.shape[0]):
        for k in range(idx.shape[1]):
            i = idx[p, k]
            if i >= 0:
                out[p, i] += src[p, k]
