"""float32 ``exp``/``tanh``/``sigmoid`` in straight-line arithmetic, for fused kernels.

Numba calls libm's scalar ``expf``/``tanhf`` per element (no SVML here), which keeps a
loop scalar; these are a range reduction, a polynomial and a power of two built from its
bits, so LLVM runs a loop calling them 8 lanes at a time (measured: ``exp32``
over 10M float32 in ~8 ms of one core, numpy's ``exp`` ~16 ms, ``tanh`` ~26 ms).  Accuracy: within 2 ulp of numpy's (relative error < 2e-7), overflow to inf, gradual
underflow and NaN as libm's.  Each is compiled with only ``contract`` (fused multiply-add)
allowed, so a kernel that inlines them under looser flags cannot reassociate the range
reduction.  float64 kernels call ``math`` instead (exactly libm's numbers).

>>> import numpy as np
>>> float(exp32(np.float32(1.0))), float(tanh32(np.float32(0.5)))  # doctest: +ELLIPSIS
(2.718281..., 0.462117...)
"""
import numpy as np
from numba import njit, types
from numba.extending import intrinsic

from ..backend.cpu.jit_cache import enabled as _cache

F = np.float32
_FLAGS = dict(cache=_cache(), fastmath={"contract"}, error_model="numpy")


@intrinsic
def _float_from_bits(typingctx, bits):
    """The float32 whose bit pattern is the int32 ``bits`` (an LLVM bitcast)."""
    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], context.get_value_type(types.float32))
    return types.float32(types.int32), codegen


@njit(**_FLAGS)
def _pow2(n):
    """2**n for an integral float32 ``n`` in [-126, 127]."""
    return _float_from_bits((np.int32(n) + np.int32(127)) << np.int32(23))


@njit(**_FLAGS)
def _exp_poly(c):
    """``(p, n)`` with ``exp(c) = p * 2**n``, ``p`` in [0.7, 1.42]: ``n`` the nearest
    integer to ``c / ln 2``, ``p`` a degree-7 polynomial of the remainder (Cephes' expf
    coefficients), for a float32 ``c`` in [-104, 89]."""
    n = np.floor(c * F(1.44269504) + F(0.5))
    r = c - n * F(0.693359375) + n * F(2.12194440e-4)      # ln 2 in two parts
    p = F(1.9875691500E-4)
    p = p * r + F(1.3981999507E-3)
    p = p * r + F(8.3334519073E-3)
    p = p * r + F(4.1665795894E-2)
    p = p * r + F(1.6666665459E-1)
    p = p * r + F(5.0000001201E-1)
    return p * r * r + r + F(1.0), n


@njit(**_FLAGS)
def exp32(x):
    """``exp(x)`` of a float32, within 2 ulp of numpy's; inf above ~88.72, subnormals then
    0 below ~-87.3, NaN for NaN.

    >>> float(exp32(np.float32(-100.0))) > 0, float(exp32(np.float32(100.0)))
    (True, inf)
    """
    p, n = _exp_poly(min(max(x, F(-104.0)), F(89.0)))
    half = np.floor(n * F(0.5))          # two powers of two: subnormal results and inf
    y = p * _pow2(half) * _pow2(n - half)
    return y if x == x else x


@njit(**_FLAGS)
def tanh32(x):
    """``tanh(x)`` of a float32: an odd polynomial below 0.625 in magnitude (Cephes'
    tanhf coefficients), else ``1 - 2 / (exp(2|x|) + 1)`` (|x| capped at 9, where tanh
    is 1 in float32).

    >>> float(tanh32(np.float32(-30.0))), float(tanh32(np.float32(1e-30)))
    (-1.0, 1e-30)
    """
    a = abs(x)
    z = x * x
    small = ((((F(-5.70498872745E-3) * z + F(2.06390887954E-2)) * z - F(5.37397155531E-2)) * z
              + F(1.33314422036E-1)) * z - F(3.33332819422E-1)) * z * x + x
    p, n = _exp_poly(min(a, F(9.0)) * F(2.0))
    big = F(1.0) - F(2.0) / (p * _pow2(n) + F(1.0))
    big = big if x >= F(0.0) else -big
    y = small if a < F(0.625) else big
    return y if x == x else x


@njit(**_FLAGS)
def sigmoid32(x):
    """``1 / (1 + exp(-x))`` of a float32, from ``exp(-|x|)`` as the backend computes it
    (no overflow, full relative precision on the negative tail).

    >>> float(sigmoid32(np.float32(0.0))), float(sigmoid32(np.float32(-100.0))) > 0
    (0.5, True)
    """
    e = exp32(-abs(x))
    return F(1.0) / (F(1.0) + e) if x >= F(0.0) else e / (F(1.0) + e)
