"""Numba kernels of ``conv_gemm``'s three calls: per image an im2col into a scratch
buffer and one BLAS call (numpy's own ``cblas_?gemm``, as ``gemm_split`` calls it),
blocks of images over Numba's threads.

Why: ``conv_gemm``'s numpy path builds an image chunk's columns with ``kh * kw``
strided slice copies and a padded copy, holding the GIL between them, and hands
chunks to the Python pool; on 2 cores the second thread bought nothing (a small
CNN's step took as long with two threads as with one).  Here a whole call is one
parallel kernel (``parallel.kernel``): the columns are written in one pass per image
(zeros where a window meets the padding) and each block of images runs on its own
thread with its own scratch columns.

The products are the numpy path's -- the same ``(O, K) @ (K, L)`` GEMM per image,
``W^T @ g`` per image then col2im (``window_copy_kernels.col2im``'s adds, in its
order), ``g @ cols^T`` per image summed over the batch afterwards in image order --
so results are bit-identical to it under any thread count (tested).  Imported at the
first convolution with float32 / float64 operands; compiled code is cached on disk.
"""
import numpy as np
from numba import njit, prange

from . import jit_cache, parallel
from .gemm_split import _PLAIN, _TRANSPOSED, _gemm
from .window_copy_kernels import _inside, col2im

CACHE = jit_cache.enabled()


@njit(cache=CACHE, nogil=True)
def _im2col(x, i, cols, g):
    """Columns (C*kh*kw, oh*ow) of image ``i`` of ``x`` (N, C, H, W) into ``cols``;
    ``g`` is (kh, kw, sh, sw, dh, dw, pt, pl, oh, ow).  Row by row: zeros where the
    window meets the padding, else a gather from the image row."""
    kh, kw, sh, sw, dh, dw, pt, pl, oh, ow = g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9]
    channels, h, w = x.shape[1], x.shape[2], x.shape[3]
    src = x[i].reshape(-1)
    dst = cols.reshape(-1)
    for c in range(channels):
        for a in range(kh):
            for b in range(kw):
                lo, hi = _inside(b, dw, pl, sw, ow, w)
                start = ((c * kh + a) * kw + b) * oh * ow
                for oy in range(oh):
                    y = oy * sh - pt + a * dh
                    row = np.uintp(start + oy * ow)     # (unsigned: no wraparound checks,
                    if y < 0 or y >= h:                 # 2x faster copies)
                        for ox in range(np.uintp(ow)):
                            dst[row + ox] = 0
                        continue
                    for ox in range(np.uintp(lo)):
                        dst[row + ox] = 0
                    at = np.uintp((c * h + y) * w + b * dw - pl + lo * sw)
                    for ox in range(np.uintp(hi - lo)):
                        dst[row + np.uintp(lo) + ox] = src[at + ox * np.uintp(sw)]
                    for ox in range(np.uintp(hi), np.uintp(ow)):
                        dst[row + ox] = 0


@parallel.kernel(cache=CACHE)
def column_products(addr, x, g, scratch, bounds, lhs, bias, out, weight_grad):
    """For every image ``i``, with ``cols = im2col(x[i])`` in ``scratch`` (blocks, K,
    L): the forward ``out[i] = lhs[0] @ cols (+ bias)`` (``lhs`` (1, O, K) the weights,
    ``out`` (N, O, L), ``bias`` (O,) or empty), or with ``weight_grad`` the weight's
    per-image gradient ``out[i] = lhs[i] @ cols^T`` (``lhs`` (N, O, L) the output
    gradients, ``out`` (N, O, K))."""
    o = lhs.shape[1]
    k, size = scratch.shape[1], scratch.shape[2]
    one = out.dtype.type(1)
    for t in prange(bounds.shape[0] - 1):
        cols = scratch[t]
        for i in range(bounds[t], bounds[t + 1]):
            _im2col(x, i, cols, g)
            if weight_grad:
                _gemm(addr, _PLAIN, _TRANSPOSED, o, k, size, lhs[i].ctypes.data, size,
                      cols.ctypes.data, size, out[i].ctypes.data, k, one)
                continue
            _gemm(addr, _PLAIN, _PLAIN, o, size, k, lhs[0].ctypes.data, k, cols.ctypes.data,
                  size, out[i].ctypes.data, size, one)
            if bias.shape[0]:
                for oc in range(o):
                    for j in range(size):
                        out[i, oc, j] += bias[oc]


@parallel.kernel(cache=CACHE)
def grad_input(addr, gm, wm, out, g, scratch, bounds):
    """``out[i] = col2im(wm^T @ gm[i])`` for every image ``i``: ``gm`` (N, O, L)
    C-contiguous, ``wm`` (O, K), ``out`` (N, C, H, W), ``scratch`` (blocks, C, kh, kw,
    oh, ow)."""
    o, k = wm.shape
    size = gm.shape[2]
    one = out.dtype.type(1)
    for t in prange(bounds.shape[0] - 1):
        dcols = scratch[t:t + 1]
        for i in range(bounds[t], bounds[t + 1]):
            image = out[i]
            for c in range(image.shape[0]):
                for y in range(image.shape[1]):
                    for x in range(image.shape[2]):
                        image[c, y, x] = 0
            _gemm(addr, _TRANSPOSED, _PLAIN, k, size, o, wm.ctypes.data, k, gm[i].ctypes.data,
                  size, dcols.ctypes.data, size, one)
            col2im(dcols, out[i:i + 1], g[2], g[3], g[4], g[5], g[6], g[7])
