"""Numba kernels of float32 softmax along the last axis (attention's hot pass): forward
and first-order gradient.

numpy's softmax is five passes (max, subtract, exp, sum, divide), two of them reductions
over short rows, and numpy's float32 ``exp`` slows down on the ``-inf`` entries of a
causal mask: ~1 ms for a (16, 4, 64, 64) score tensor.  Here the row maxima, the shift,
the exp pass, the row sums and the scaling run in one call (~0.30 ms; its
gradient ~0.08 ms).

The exp is ``fast_exp.exp32`` (float32 lanes, within 1 ulp; numpy's float32 exp is
~2.4 ulp), so softmax values agree with numpy's passes to within a few float32 ulps
(tested), not to the bit.  NaN and infinities behave as numpy's passes: a NaN or ``+inf`` entry, or a
row of ``-inf``, gives a row of NaN.

Rows are summed in float64 (vectorised partial sums), then scaled by the float32
reciprocal of the sum.  ``prange`` twins run above ``PARALLEL_MIN`` elements.  Imported at the
first call; compiled code is cached on disk.
"""
import numpy as np
from numba import njit, prange

from .fast_exp import exp32
from . import jit_cache, parallel

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs

PARALLEL_MIN = 1 << 16
_ONE, _ZERO = np.float32(1.0), np.float32(0.0)
# Numba compiles an ``inline="always"`` callee with its caller's fastmath flags, so the
# sums that may be reordered (vectorised) live in kernels of their own, called (not
# inlined) from the ones that must not be (exp32's range reduction needs exact IEEE
# arithmetic).  Rows are indexed as ``a[i, j]``: a row view ``a[i]`` per row kept LLVM
# from vectorising the short row loops (~4x slower).


@njit(cache=CACHE, error_model="numpy", fastmath={"reassoc", "contract"})
def _normalise_rows(out, lo, hi):
    """``out[i] /= sum(out[i])`` for rows ``lo <= i < hi``: float64 sums, scaled by the
    float32 reciprocal."""
    for i in range(lo, hi):
        s = 0.0
        for j in range(out.shape[1]):
            s += np.float64(out[i, j])
        inv = np.float32(1.0 / s)
        for j in range(out.shape[1]):
            out[i, j] *= inv


@njit(cache=CACHE, error_model="numpy", fastmath={"contract"})
def _shifted_exp(x, out, lo, hi):
    """``out[i] = exp(x[i] - max(x[i]))`` for rows ``lo <= i < hi``."""
    for i in range(lo, hi):
        m = x[i, 0]
        for j in range(1, x.shape[1]):
            v = x[i, j]
            m = v if v > m else m
        for j in range(x.shape[1]):
            out[i, j] = exp32(x[i, j] - m)


@njit(cache=CACHE, error_model="numpy", fastmath={"reassoc", "contract"})
def _row_dots(g, ans, dots, lo, hi):
    """``dots[i] = <g[i], ans[i]>`` summed in float64 (reordered), rounded to float32."""
    for i in range(lo, hi):
        s = 0.0
        for j in range(g.shape[1]):
            s += np.float64(g[i, j]) * np.float64(ans[i, j])
        dots[i] = np.float32(s)


@njit(cache=CACHE, error_model="numpy", fastmath={"contract"})
def _softmax_grad_rows(g, ans, dots, out, lo, hi):
    for i in range(lo, hi):
        s = dots[i]
        for j in range(g.shape[1]):
            out[i, j] = ans[i, j] * (g[i, j] - s)


@njit(cache=CACHE, error_model="numpy")
def softmax_rows(x, out):
    """``out[i] = softmax(x[i])`` for C-contiguous float32 matrices ``x``, ``out``."""
    _shifted_exp(x, out, 0, x.shape[0])
    _normalise_rows(out, 0, x.shape[0])


@njit(cache=CACHE, error_model="numpy")
def softmax_rows_backward(g, ans, out):
    """``out[i] = ans[i] * (g[i] - <g[i], ans[i]>)``: softmax's gradient, float32 rows."""
    dots = np.empty(g.shape[0], np.float32)
    _row_dots(g, ans, dots, 0, g.shape[0])
    _softmax_grad_rows(g, ans, dots, out, 0, g.shape[0])


_BLOCK = 1 << 14


# the parallel twins hand each task a range of rows of the whole (C-contiguous) arrays:
# slices of them would be typed as strided arrays, whose loops LLVM does not vectorise
@parallel.kernel(cache=CACHE, error_model="numpy")
def softmax_rows_parallel(x, out):
    """``softmax_rows`` over blocks of rows, one block per task."""
    rows = x.shape[0]
    step = max(1, _BLOCK // max(x.shape[1], 1))
    for b in prange((rows + step - 1) // step):
        lo, hi = b * step, min((b + 1) * step, rows)
        _shifted_exp(x, out, lo, hi)
        _normalise_rows(out, lo, hi)


@parallel.kernel(cache=CACHE, error_model="numpy")
def softmax_rows_backward_parallel(g, ans, out):
    """``softmax_rows_backward`` over blocks of rows, one block per task."""
    rows = g.shape[0]
    dots = np.empty(rows, np.float32)
    step = max(1, _BLOCK // max(g.shape[1], 1))
    for b in prange((rows + step - 1) // step):
        lo, hi = b * step, min((b + 1) * step, rows)
        _row_dots(g, ans, dots, lo, hi)
        _softmax_grad_rows(g, ans, dots, out, lo, hi)


def last_axis_rows(*arrays):
    """The arrays as (rows, last axis) C-contiguous float32 matrices, or None when any is
    not one (another dtype, a strided view, a 0-d or empty array): the caller then runs
    its numpy passes."""
    first = arrays[0]
    if first.ndim == 0 or first.size == 0:
        return None
    shape = first.shape
    out = []
    for a in arrays:
        if a.dtype != np.float32 or a.shape != shape or not a.flags.c_contiguous:
            return None
        out.append(a.reshape(-1, shape[-1]))
    return out


def softmax_last(x):
    """``softmax(x, -1)`` of a C-contiguous float32 array (see ``last_axis_rows``) into a
    pooled buffer, or None for other arrays."""
    from . import pool
    rows = last_axis_rows(x)
    if rows is None:
        return None
    out = pool.empty(x.shape, x.dtype)
    (softmax_rows_parallel if parallel.worth(x.size, PARALLEL_MIN) else softmax_rows)(
        rows[0], out.reshape(rows[0].shape))
    return out


def softmax_last_backward(g, ans):
    """Softmax's gradient along the last axis for C-contiguous float32 ``g`` and ``ans``
    of one shape, into a pooled buffer, or None for other arrays."""
    from . import pool
    rows = last_axis_rows(g, ans)
    if rows is None:
        return None
    out = pool.empty(g.shape, g.dtype)
    (softmax_rows_backward_parallel if parallel.worth(g.size, PARALLEL_MIN)
     else softmax_rows_backward)(
        rows[0], rows[1], out.reshape(rows[0].shape))
    return out


# ------------------------------------------------------------ scaled dot-product attention
#
# The backend calls of the composition (``ops/attention.py``): the same products, scaling,
# masking and softmax passes in the same order, so the same numbers, with no node between.


def _scores(q, k, scale, mask):
    """``q k^T * scale``, masked: False entries of a boolean ``mask`` become ``-inf``,
    a float ``mask`` is added (both broadcast to the scores)."""
    from . import matmul
    s = matmul(q, np.swapaxes(k, -1, -2))
    np.multiply(s, s.dtype.type(scale), out=s)
    if mask is not None:
        if mask.dtype == np.bool_:
            s = np.where(mask, s, s.dtype.type(-np.inf))
        else:
            np.add(s, mask, out=s)
    return s


def attention_forward(q, k, v, scale, mask):
    """``softmax(q k^T * scale + mask) v`` for float arrays of one dtype whose batch
    dimensions agree.

    >>> attention_forward(np.ones((1, 2)), np.ones((3, 2)), np.arange(3.0).reshape(3, 1), 1.0, None)
    array([[1.]])
    """
    from . import matmul
    from .fused import softmax_inplace
    return matmul(softmax_inplace(_scores(q, k, scale, mask), q.ndim - 1), v)


def attention_backward(g, q, k, v, scale, mask):
    """The gradients (dq, dk, dv) of ``attention_forward`` for the output gradient ``g``
    (the probabilities recomputed).

    >>> dq, dk, dv = attention_backward(np.ones((1, 1)), np.ones((1, 2)), np.ones((3, 2)), np.ones((3, 1)), 1.0, None)
    >>> dq.tolist(), dv.ravel().tolist()
    ([[0.0, 0.0]], [0.3333333333333333, 0.3333333333333333, 0.3333333333333333])
    """
    from . import matmul
    from .fused import softmax_backward, softmax_inplace
    axis = q.ndim - 1
    p = softmax_inplace(_scores(q, k, scale, mask), axis)
    dv = matmul(np.swapaxes(p, -1, -2), g)
    ds = softmax_backward(matmul(g, np.swapaxes(v, -1, -2)), p, axis)
    np.multiply(ds, ds.dtype.type(scale), out=ds)
    return matmul(ds, k), matmul(np.swapaxes(ds, -1, -2), q), dv
