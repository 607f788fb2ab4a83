"""Numba kernel of col2im (``nn.fold``): one pass over the column array instead of
``kh * kw`` strided numpy adds into a padded sum buffer (and a strided view of it).

For each kernel offset (i, j) and output row, the window positions whose column lies
inside the image are a contiguous range of ``ox`` (``_inside``, also used by the
max-pool kernels), worked out once; the rest is skipped.  ``col2im`` adds the offsets
into each pixel in the same (i, j) order as the numpy loop, from zero, so both give the
same sums to the bit.
``col2im`` releases the GIL, so ``conv_gemm`` runs it on chunks of images in the
backend's thread pool.  Imported at the first call; compiled code is cached on disk.
"""
import numpy as np
from numba import njit

from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


@njit(cache=CACHE, inline="always")
def _inside(j, dw, pl, sw, ow, w):
    """The ``ox`` range whose column ``ox * sw - pl + j * dw`` lies in ``[0, w)``."""
    off = j * dw - pl
    lo = 0 if off >= 0 else (-off + sw - 1) // sw
    hi = 0 if off >= w else (w - 1 - off) // sw + 1
    return min(lo, ow), max(min(hi, ow), min(lo, ow))


@njit(cache=CACHE, error_model="numpy", nogil=True)
def col2im(cols, out, sh, sw, dh, dw, pt, pl):
    """The adjoint of ``im2col``: ``out`` (zeros, (N, C, H, W)) gains every column entry
    at the pixel it was read from; entries in the padding are dropped."""
    nb, ch, h, w = out.shape
    kh, kw, oh, ow = cols.shape[2], cols.shape[3], cols.shape[4], cols.shape[5]
    src = cols.reshape(-1)
    dst = out.reshape(-1)
    k = 0
    for plane in range(nb * ch):
        base = plane * h * w
        for i in range(kh):
            for j in range(kw):
                lo, hi = _inside(j, dw, pl, sw, ow, w)
                off = j * dw - pl
                for oy in range(oh):
                    y = oy * sh - pt + i * dh
                    if y >= 0 and y < h:
                        # unsigned offsets: no wraparound checks (~2x faster adds)
                        row = np.uintp(base + y * w + off + lo * sw)
                        at = np.uintp(k + lo)
                        for ox in range(np.uintp(hi - lo)):
                            dst[row + ox * np.uintp(sw)] += src[at + ox]
                    k += ow
