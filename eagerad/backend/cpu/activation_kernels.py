"""Numba kernels of GELU: the forward and the first-order gradient, one pass each.

The forward is ``formulas.gelu``/``gelu_tanh`` (the very function the generic
``special_unary`` ufunc compiles) in float64 per element, rounded to the array's dtype, so
its numbers are the op's; it skips the float64 copies of the array that the generic path
makes.  The gradient ``g * gelu'(x)`` is one pass instead of ~8 array ops (erfc, exp and
products) of the differentiable rule; it computes in float64 and rounds once, so it is
within an ulp of that rule in float32.  ``prange`` twins run above ``PARALLEL_MIN``
elements.  Imported at the first call; compiled code is cached on disk.

Float32 arrays of the exact (erf) form take a vectorised float32 route instead (8 lanes;
Numba has no vectorised ``erfc``/``exp`` here, no SVML, and the scalar ones cost ~10x the
rest of the pass): ``Phi(-a) = sqrt(2) exp(-a*a/2) G(w) / (2 sqrt 2 + a)`` with
``w = a / (2 sqrt 2 + a)`` and ``G = 1 + w R(w)`` a polynomial (Estrin's scheme) fitted
to ``erfc(z) exp(z^2) (1 + z/2)``; ``a*a`` is split exactly into the product of its top 12
bits and a small rest, and ``exp`` is ``fast_exp.exp32_scaled``, kept times 2^64 so that
tails stay normal numbers until the last product.  Measured against the float64 formula
on 800,000 points of [-30, 30]: the value within 6 float32 ulps (mean 0.3), the slope
within 3 ``eps32 * max(|slope|, 0.2)`` (7 ulps away from its root at x = -0.75, where any
float32 evaluation cancels).  PyTorch's float32 GELU, ``0.5 x (1 + erf(x/sqrt 2))``, is
off by up to ~1e7 ulps for x < -2 (the cancellation in ``1 + erf``); here the tails keep
their relative accuracy down to the subnormals.  ~0.36 ms forward and backward on
262,144 elements (the float64 route took 0.95 ms).
"""
import math

import numpy as np
from numba import njit, prange

from .. import formulas
from . import pool
from .fast_exp import exp32_scaled
from .vector_math import _bits_float32, _float32_bits, estrin
from . import jit_cache, parallel

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs

PARALLEL_MIN = 1 << 16
_K = math.sqrt(2 / math.pi)
_C = 0.044715
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_gelu = njit(inline="always")(formulas.gelu)
_gelu_tanh = njit(inline="always")(formulas.gelu_tanh)


@njit(cache=CACHE, inline="always", error_model="numpy")
def _value(x, tanh_form):
    return _gelu_tanh(x, 0.0, 0.0) if tanh_form else _gelu(x, 0.0, 0.0)


@njit(cache=CACHE, inline="always", error_model="numpy")
def _slope(x, tanh_form):
    if tanh_form:
        t = math.tanh(_K * (x + _C * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _K * (1 + 3 * _C * x * x)
    return 0.5 * math.erfc(-x * formulas.SQRT1_2) + x * math.exp(-0.5 * x * x) * _INV_SQRT_2PI


@njit(cache=CACHE, error_model="numpy")
def _forward_serial(x, out, tanh_form):
    for i in range(x.size):
        out[i] = _value(np.float64(x[i]), tanh_form)


@parallel.kernel(cache=CACHE, error_model="numpy")
def _forward_parallel(x, out, tanh_form):
    for i in prange(x.size):
        out[i] = _value(np.float64(x[i]), tanh_form)


@njit(cache=CACHE, error_model="numpy")
def _backward_serial(g, x, out, tanh_form):
    for i in range(x.size):
        out[i] = np.float64(g[i]) * _slope(np.float64(x[i]), tanh_form)


@parallel.kernel(cache=CACHE, error_model="numpy")
def _backward_parallel(g, x, out, tanh_form):
    for i in prange(x.size):
        out[i] = np.float64(g[i]) * _slope(np.float64(x[i]), tanh_form)


# Phi(-a) = erfc(z)/2 at z = a/sqrt 2 is sqrt(2) exp(-a*a/2) G(w) / (2 sqrt 2 + a), where
# G(w) = erfc(z) exp(z^2) (2 + z) / 2 = 1 + w R(w), w = z / (2 + z) = a / (2 sqrt 2 + a) in
# [0, 0.84] for z <= 10.5 (a <= 14.85; beyond, float32's a Phi(-a) is 0).  R: numpy's
# Chebyshev.fit of degree 11 on 2001 Chebyshev points of w against mpmath, in powers of w;
# G's error in float32 arithmetic < 4 units of 2^-24 (measured)
_R = (-1.2567583339335076, 0.48648324666680187, 0.21170737439351395, -0.0992188144133397,
      -0.0918173421080083, -0.013716625658978271, 0.052864242124310054, -0.03751661348868299,
      0.08676715191978189, -0.07439614653996457, 0.014283469631517233, 0.003418416801877453)
_r32 = estrin(_R, np.float32)
_F = np.float32
_HALF, _ONE32, _ZERO32 = _F(0.5), _F(1.0), _F(0.0)
_SQRT2_32, _K32 = _F(math.sqrt(2.0)), _F(2.0 * math.sqrt(2.0))
_INV_SQRT_2PI_32 = _F(_INV_SQRT_2PI)
_XMAX = _F(14.5)                     # exp(-x*x/2) < 2^-151 beyond: a Phi(-a) is 0
_UNSCALE = _F(2.0 ** -64)


@njit(cache=CACHE, inline="always", error_model="numpy", fastmath={"contract"})
def _tail32(x):
    """For a float32 ``x``: ``(a, e, h)``, ``a = min(|x|, _XMAX)``, ``e = exp(-a*a/2)`` and
    ``h = Phi(-a)``, both times 2^64 (normal numbers however small the result)."""
    a = min(abs(x), _XMAX)
    ah = _bits_float32(_float32_bits(a) & np.int32(-4096))      # top 12 significant bits
    al = a - ah                                                  # exact; a*a = ah*ah + al*(a+ah)
    e = exp32_scaled(-_HALF * (ah * ah), -_HALF * (al * (a + ah)))   # hi exact (24 bits)
    s = _ONE32 / (_K32 + a)
    w = a * s
    return a, e, (_SQRT2_32 * s) * (e * (_ONE32 + w * _r32(w)))


@njit(cache=CACHE, error_model="numpy", fastmath={"contract"})
def _forward32(x, out):
    for i in range(x.size):
        v = x[i]
        a, e, h = _tail32(v)
        y = v - v * (h * _UNSCALE) if v > 0 else (v * h) * _UNSCALE       # +-0 kept
        out[i] = (v if v > 0 else -_ZERO32) if a >= _XMAX else y  # NaN: y is NaN


@njit(cache=CACHE, error_model="numpy", fastmath={"contract"})
def _backward32(g, x, out):
    for i in range(x.size):
        v = x[i]
        a, e, h = _tail32(v)
        d = a * e * _INV_SQRT_2PI_32                             # |v| phi(v) 2^64
        s = _ONE32 - (h - d) * _UNSCALE if v >= 0 else (h - d) * _UNSCALE
        s = (_ONE32 if v > 0 else _ZERO32) if a >= _XMAX else s
        out[i] = g[i] * (s + (v - v))                            # NaN at NaN and +-inf


_BLOCK = 1 << 14


@parallel.kernel(cache=CACHE, error_model="numpy")
def _forward32_parallel(x, out):
    for b in prange((x.size + _BLOCK - 1) // _BLOCK):     # vectorised blocks per thread
        _forward32(x[b * _BLOCK:(b + 1) * _BLOCK], out[b * _BLOCK:(b + 1) * _BLOCK])


@parallel.kernel(cache=CACHE, error_model="numpy")
def _backward32_parallel(g, x, out):
    for b in prange((x.size + _BLOCK - 1) // _BLOCK):
        lo, hi = b * _BLOCK, (b + 1) * _BLOCK
        _backward32(g[lo:hi], x[lo:hi], out[lo:hi])


def gelu(x, tanh_form):
    """GELU of the flat contiguous float array ``x``."""
    out = pool.empty_like(x)
    if x.dtype == np.float32 and not tanh_form:
        (_forward32_parallel if parallel.worth(x.size, PARALLEL_MIN) else _forward32)(x, out)
        return out
    kernel = _forward_parallel if parallel.worth(x.size, PARALLEL_MIN) else _forward_serial
    kernel(x, out, tanh_form)
    return out


def gelu_backward(g, x, tanh_form):
    """``g * gelu'(x)`` for flat contiguous float arrays of one dtype."""
    out = pool.empty_like(x)
    if x.dtype == np.float32 and not tanh_form:
        (_backward32_parallel if parallel.worth(x.size, PARALLEL_MIN) else _backward32)(g, x, out)
        return out
    kernel = _backward_parallel if parallel.worth(x.size, PARALLEL_MIN) else _backward_serial
    kernel(g, x, out, tanh_form)
    return out
