"""Numba kernels of float32 softmax along the last axis (attention's hot pass): forward
and first-order gradient.

numpy's softmax is five passes (max, subtract, exp, sum, divide), two of them reductions
over short rows, and numpy's float32 ``exp`` slows down on the ``-inf`` entries of a
causal mask: ~1 ms for a (16, 4, 64, 64) score tensor.  Here the row maxima, the shift,
one flat exp pass, the row sums and the scaling run in one call (~0.45 ms).

The exp is ``exp32``: ``2^n * p(r)`` with ``n = round(a / ln 2)``, ``r = a - n ln 2``
(Cody-Waite, two float32 constants) and ``p`` the degree-7 Taylor polynomial, all in
float32 lanes that LLVM vectorises (8 at a time with AVX2); ``2^n`` is built from its
bits (``_bits_f32``, a bit cast).  It is within 1 ulp of the exact exp over float32's
normal range (numpy's float32 exp: ~2.4 ulp), gives subnormals as a correctly scaled
product, 0 below -104, and NaN for NaN; arguments below -104 never reach the polynomial
(their lanes compute exp(0), so no subnormal arithmetic slows them down).  Softmax
values therefore agree with numpy's passes to within a few float32 ulps (tested), not
to the bit.  NaN and infinities behave as numpy's passes: a NaN or ``+inf`` entry, or a
row of ``-inf``, gives a row of NaN.

Rows are summed in float64 (vectorised partial sums), then scaled by the float32
reciprocal of the sum.  ``prange`` twins run above ``PARALLEL_MIN`` elements.  Imported at the
first call; compiled code is cached on disk.
"""
import math

import numpy as np
from llvmlite import ir
from numba import njit, prange, types
from numba.extending import intrinsic

PARALLEL_MIN = 1 << 16
_f32 = np.float32
_LOG2E = _f32(1.4426950408889634)
_SHIFT = _f32(12582912.0)              # 1.5 * 2**23: t + SHIFT - SHIFT rounds t to an integer
_LN2_HI = _f32(0.693359375)            # ln 2 in two parts (the first exact in 9 bits)
_LN2_LO = _f32(-2.12194440e-4)
_C2, _C3, _C4, _C5, _C6, _C7 = (_f32(1 / math.factorial(k)) for k in range(2, 8))
_ONE, _ZERO = _f32(1.0), _f32(0.0)
_LOW = _f32(-104.0)                    # exp(a) rounds to 0 in float32 below ~-103.97
_BIAS = _f32(127 + 64)                 # 2^n is built as 2^(n+64) (a normal number for
_MANTISSA = _f32(1 << 23)              # every n >= -150), then scaled by 2^-64
_UNSCALE = _f32(2.0 ** -64)


@intrinsic
def _bits_f32(typingctx, bits):
    """The float32 whose IEEE bits are the int32 ``bits`` (a bit cast, no conversion)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def exp32(a):
    """``exp(a)`` for a float32 ``a <= 0`` (or NaN), vectorisable (see the module doc)."""
    c = a if a >= _LOW else _ZERO
    n = (c * _LOG2E + _SHIFT) - _SHIFT
    r = (c - n * _LN2_HI) - n * _LN2_LO
    p = _ONE + r * (_ONE + r * (_C2 + r * (_C3 + r * (_C4 + r * (_C5 + r * (_C6 + r * _C7))))))
    e = p * _bits_f32(np.int32((n + _BIAS) * _MANTISSA)) * _UNSCALE
    return a if a != a else (e if a >= _LOW else _ZERO)


@njit(inline="always", error_model="numpy", fastmath={"reassoc", "contract"})
def _row_sum(row):
    s = 0.0
    for j in range(row.size):
        s += np.float64(row[j])
    return s


@njit(inline="always", error_model="numpy", fastmath={"reassoc", "contract"})
def _row_dot(a, b):
    s = 0.0
    for j in range(a.size):
        s += np.float64(a[j]) * np.float64(b[j])
    return s


@njit(cache=True, error_model="numpy", fastmath={"contract"})
def softmax_rows(x, out):
    """``out[i] = softmax(x[i])`` for C-contiguous float32 matrices ``x``, ``out``."""
    rows, cols = x.shape
    for i in range(rows):
        row, o = x[i], out[i]
        m = row[0]
        for j in range(1, cols):
            v = row[j]
            m = v if v > m else m
        for j in range(cols):
            o[j] = row[j] - m
    flat = out.ravel()
    for k in range(flat.size):
        flat[k] = exp32(flat[k])
    for i in range(rows):
        o = out[i]
        inv = np.float32(1.0 / _row_sum(o))
        for j in range(cols):
            o[j] *= inv


@njit(cache=True, error_model="numpy", fastmath={"contract"})
def softmax_rows_backward(g, ans, out):
    """``out[i] = ans[i] * (g[i] - <g[i], ans[i]>)``: softmax's gradient, float32 rows."""
    rows, cols = g.shape
    for i in range(rows):
        gi, ai, o = g[i], ans[i], out[i]
        s = np.float32(_row_dot(gi, ai))
        for j in range(cols):
            o[j] = ai[j] * (gi[j] - s)


_BLOCK = 1 << 14


@njit(cache=True, parallel=True, error_model="numpy")
def softmax_rows_parallel(x, out):
    """``softmax_rows`` over blocks of rows, one block per task."""
    step = max(1, _BLOCK // max(x.shape[1], 1))
    for b in prange((x.shape[0] + step - 1) // step):
        softmax_rows(x[b * step:(b + 1) * step], out[b * step:(b + 1) * step])


@njit(cache=True, parallel=True, error_model="numpy")
def softmax_rows_backward_parallel(g, ans, out):
    """``softmax_rows_backward`` over blocks of rows, one block per task."""
    step = max(1, _BLOCK // max(g.shape[1], 1))
    for b in prange((g.shape[0] + step - 1) // step):
        lo, hi = b * step, (b + 1) * step
        softmax_rows_backward(g[lo:hi], ans[lo:hi], out[lo:hi])


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
    (softmax_rows_parallel if x.size >= PARALLEL_MIN else softmax_rows)(
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
    (softmax_rows_backward_parallel if g.size >= PARALLEL_MIN else softmax_rows_backward)(
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
