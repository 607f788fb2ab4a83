"""Vectorisable exp for Numba loops: ``2^n * p(r)`` with the power of two built from its
bits.

Numba calls libm's scalar ``exp`` per element (no SVML here), which keeps a loop scalar.
These are straight-line arithmetic LLVM vectorises: ``n = round(a / ln 2)`` by the
shifter trick (adding ``1.5 * 2^m`` rounds to an integer held in the low mantissa bits),
``r = a - n ln 2`` (Cody-Waite, ln 2 in two parts), ``p`` a Taylor polynomial on
``|r| <= ln(2) / 2``, and ``2^n`` a bit cast of ``n + bias`` shifted into the exponent
field (``vector_math.exp_nonpositive`` instead squares ten times: ~24 dependent steps).

- ``exp32(a)``: float32 lanes (8 at a time with AVX2), degree 7; within 1 ulp of the
  exact exp over float32's normal range, subnormal results as one correctly scaled
  product, 0 below -104, NaN for NaN.  Arguments below -104 never reach the polynomial
  (their lanes compute exp(0): no slow subnormal arithmetic on masked entries).
- ``exp64(a)``: float64 lanes, degree 9 (relative error < 1e-11: for float32 results,
  rounded once), for ``-700 <= a <= 0`` (0 below -700, NaN for NaN).

- ``exp32_scaled(hi, lo)``: ``exp(hi + lo) * 2^64`` in float32 lanes for
  ``-104 <= hi + lo <= 0`` with ``|lo| < 2``, never subnormal (so a later product rounds
  once), within ~1 ulp plus ``lo``'s own error.  For a Gaussian ``exp(-x*x/2)``, with
  ``x*x`` split exactly into ``hi + lo`` (float32's ``x*x`` alone would cost up to ~40 ulps
  at ``|x| = 13``, where ``x*x/2`` is ~85 and its rounding error ~2.5e-6).

All are for ``a <= 0`` (softmax shifts, Gaussian tails).

>>> from numba import njit
>>> njit(lambda a: exp64(a))(-1.0)
0.36787944117...
"""
import math

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

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

_SHIFT64 = 6755399441055744.0          # 1.5 * 2**52
_SHIFT64_BITS = int(np.float64(_SHIFT64).view(np.int64))
_LN2_HI64 = 6.93147180369123816490e-01     # fdlibm's split of ln 2
_LN2_LO64 = 1.90821492927058770002e-10
_LOW64 = -700.0


@intrinsic
def _bits_f32(typingctx, bits):
    """The float32 whose IEEE bits are the int32 ``bits`` (a bit cast, no conversion)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.FloatType())
    return types.float32(types.int32), codegen


@intrinsic
def _bits_f64(typingctx, bits):
    """The float64 whose IEEE bits are the int64 ``bits``."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.DoubleType())
    return types.float64(types.int64), codegen


@intrinsic
def _f64_bits(typingctx, x):
    """The IEEE bits of the float64 ``x`` as an int64."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(types.float64), codegen


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def exp32(a):
    """``exp(a)`` for a float32 ``a <= 0`` (or NaN), vectorisable (see the module doc)."""
    c = a if a >= _LOW else _ZERO
    n = (c * _LOG2E + _SHIFT) - _SHIFT
    r = (c - n * _LN2_HI) - n * _LN2_LO
    p = _ONE + r * (_ONE + r * (_C2 + r * (_C3 + r * (_C4 + r * (_C5 + r * (_C6 + r * _C7))))))
    e = p * _bits_f32(np.int32((n + _BIAS) * _MANTISSA)) * _UNSCALE
    return a if a != a else (e if a >= _LOW else _ZERO)


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def exp32_scaled(hi, lo):
    """``exp(hi + lo) * 2**64`` for float32 ``-104 <= hi + lo <= 0``, ``|lo| < 2`` (see the
    module doc): ``hi - n ln2`` is exact where ``|hi| >= 1`` (Sterbenz), else rounds once
    near ``ln 2``; ``lo`` joins the reduced argument."""
    n = ((hi + lo) * _LOG2E + _SHIFT) - _SHIFT
    r = ((hi - n * _LN2_HI) - n * _LN2_LO) + lo
    r2 = r * r                                  # Estrin's scheme: a short dependency chain
    p = (_ONE + r) + (_C2 + _C3 * r) * r2 + ((_C4 + _C5 * r) + (_C6 + _C7 * r) * r2) * (r2 * r2)
    return p * _bits_f32(np.int32((n + _BIAS) * _MANTISSA))


@njit(inline="always", error_model="numpy", fastmath={"contract"})
def exp64(a):
    """``exp(a)`` for a float64 ``a <= 0`` (or NaN), vectorisable (see the module doc)."""
    c = a if a >= _LOW64 else 0.0
    t = c * 1.4426950408889634 + _SHIFT64
    n = t - _SHIFT64
    r = (c - n * _LN2_HI64) - n * _LN2_LO64
    p = 1.0 + r * (1.0 + r * (0.5 + r * (1 / 6 + r * (1 / 24 + r * (1 / 120 + r * (
        1 / 720 + r * (1 / 5040 + r * (1 / 40320 + r * (1 / 362880)))))))))
    e = p * _bits_f64((_f64_bits(t) - _SHIFT64_BITS + 1023) << 52)
    return a if a != a else (e if a >= _LOW64 else 0.0)
