"""Numba kernels of the fused layer normalisation (``fused.layer_norm``): one pass over
each row for the statistics and one for the output, instead of ~10 numpy passes (mean,
subtraction, square, mean, add, sqrt, divide, scale, shift) forward and ~20 backward.

Rows are (R, D) C-contiguous; the mean and variance are accumulated in float64 (the
variance from the centred values, biased) and each output rounded once.  The sums may be
reordered (``fastmath`` reassociation only, so LLVM vectorises them: 2.5x faster; NaN
and inf keep their meaning).  Imported at
the first call; compiled code is cached on disk.
"""
import math

from numba import njit

from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs

# sums may be reordered (vectorised reductions); NaN and inf keep their IEEE meaning
_REASSOC = {"reassoc", "contract"}


@njit(cache=CACHE, inline="always", error_model="numpy", fastmath=_REASSOC)
def _row_stats(x, r, eps):
    d = x.shape[1]
    s = 0.0
    for j in range(d):
        s += x[r, j]
    mean = s / d
    v = 0.0
    for j in range(d):
        c = x[r, j] - mean
        v += c * c
    return mean, 1.0 / math.sqrt(v / d + eps)


@njit(cache=CACHE, error_model="numpy", fastmath=_REASSOC)
def forward(x, w, b, out, eps):
    """``out[r] = (x[r] - mean) / sqrt(var + eps) * w + b`` per row ``r``."""
    for r in range(x.shape[0]):
        mean, rstd = _row_stats(x, r, eps)
        for j in range(x.shape[1]):
            out[r, j] = (x[r, j] - mean) * rstd * w[j] + b[j]


@njit(cache=CACHE, error_model="numpy", fastmath=_REASSOC)
def backward(g, x, w, eps, dx, dw, db):
    """Gradients of ``forward`` for the output gradient ``g``: ``dx`` per row, ``dw`` and
    ``db`` (float64, zeros in) summed over the rows."""
    d = x.shape[1]
    for r in range(x.shape[0]):
        mean, rstd = _row_stats(x, r, eps)
        s1 = 0.0
        s2 = 0.0
        for j in range(d):
            xhat = (x[r, j] - mean) * rstd
            gw = g[r, j] * w[j]
            s1 += gw
            s2 += gw * xhat
            dw[j] += g[r, j] * xhat
            db[j] += g[r, j]
        s1 /= d
        s2 /= d
        for j in range(d):
            xhat = (x[r, j] - mean) * rstd
            dx[r, j] = rstd * (g[r, j] * w[j] - s1 - xhat * s2)
