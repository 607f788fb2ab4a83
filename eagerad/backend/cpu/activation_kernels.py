"""Numba kernels of GELU: the forward and the first-order gradient, one pass each.

The forward is ``formulas.gelu``/``gelu_tanh`` (the very function the generic
``special_unary`` ufunc compiles) in float64 per element, rounded to the array's dtype, so
its numbers are the op's; it skips the float64 copies of the array that the generic path
makes.  The gradient ``g * gelu'(x)`` is one pass instead of ~8 array ops (erfc, exp and
products) of the differentiable rule; it computes in float64 and rounds once, so it is
within an ulp of that rule in float32.  ``prange`` twins run above ``PARALLEL_MIN``
elements.  Imported at the first call; compiled code is cached on disk.

Float32 arrays of the exact (erf) form take a vectorised route instead: Numba has no
vectorised ``erfc``/``exp`` here (no SVML), and the scalar ones cost ~10x the rest of the
pass.  ``erfc(z) = exp(-z*z) * F(t)``, ``t = 1 / (1 + z/2)`` for ``z >= 0``, where ``F``
(``erfc(z) exp(z^2)``, smooth in ``t``) is a degree-12 polynomial fitted on
``z <= 14`` (``_ERFCX``, relative error < 4e-10), and ``exp(-x*x/2)`` is
``fast_exp.exp64`` (relative error < 1e-11; 0 below -700, where float32's results are 0).
All of it is float64 arithmetic in one loop that LLVM vectorises, rounded once: within
an ulp or so of the float64 formula (tested).
"""
import math

import numpy as np
from numba import njit, prange

from .. import formulas
from . import pool
from .fast_exp import exp64
from .vector_math import unrolled

PARALLEL_MIN = 1 << 16
_K = math.sqrt(2 / math.pi)
_C = 0.044715
_INV_SQRT_2PI = 1 / math.sqrt(2 * math.pi)
_gelu = njit(inline="always")(formulas.gelu)
_gelu_tanh = njit(inline="always")(formulas.gelu_tanh)


@njit(cache=True, inline="always", error_model="numpy")
def _value(x, tanh_form):
    return _gelu_tanh(x, 0.0, 0.0) if tanh_form else _gelu(x, 0.0, 0.0)


@njit(cache=True, inline="always", error_model="numpy")
def _slope(x, tanh_form):
    if tanh_form:
        t = math.tanh(_K * (x + _C * x * x * x))
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _K * (1 + 3 * _C * x * x)
    return 0.5 * math.erfc(-x * formulas.SQRT1_2) + x * math.exp(-0.5 * x * x) * _INV_SQRT_2PI


@njit(cache=True, error_model="numpy")
def _forward_serial(x, out, tanh_form):
    for i in range(x.size):
        out[i] = _value(np.float64(x[i]), tanh_form)


@njit(cache=True, parallel=True, error_model="numpy")
def _forward_parallel(x, out, tanh_form):
    for i in prange(x.size):
        out[i] = _value(np.float64(x[i]), tanh_form)


@njit(cache=True, error_model="numpy")
def _backward_serial(g, x, out, tanh_form):
    for i in range(x.size):
        out[i] = np.float64(g[i]) * _slope(np.float64(x[i]), tanh_form)


@njit(cache=True, parallel=True, error_model="numpy")
def _backward_parallel(g, x, out, tanh_form):
    for i in prange(x.size):
        out[i] = np.float64(g[i]) * _slope(np.float64(x[i]), tanh_form)


# F(t) = erfc(z) exp(z^2), t = 1 / (1 + z/2), as a polynomial in w = (16 t - 9) / 7 (t in
# [1/8, 1] -> w in [-1, 1]; z <= 14, beyond which float32's exp(-z*z) is 0): numpy's
# Chebyshev.fit of degree 12 on 2001 Chebyshev points against mpmath's erfc, rewritten in
# powers of w for Horner's rule; relative error < 4e-10
_ERFCX = (0.31272476663464616, 0.4299076330347998, 0.20785645092785102, 0.05341086657235925,
          -0.00045239586173802086, -0.003749938854518294, 1.6566306972867234e-06,
          0.00036782530362956367, -4.2552049864264446e-05, -3.749468666335465e-05,
          1.2317342136308048e-05, 2.494292777762137e-06, -1.629326144911695e-06)


_horner = unrolled(_ERFCX)


@njit(cache=True, inline="always", error_model="numpy", fastmath={"contract"})
def _phi_parts(x):
    """(Phi(x), exp(-x*x/2)) in float64."""
    e = exp64(-0.5 * x * x)
    z = abs(x) * formulas.SQRT1_2
    u = max(32.0 / (14.0 + 7.0 * z) - 9.0 / 7.0, -1.0)  # t = 2/(2 + z) mapped to [-1, 1]
    half = 0.5 * e * _horner(u)                       # erfc(|x|/sqrt 2) / 2
    return (1.0 - half if x >= 0 else half), e


@njit(cache=True, error_model="numpy", fastmath={"contract"})
def _forward32(x, out):
    for i in range(x.size):
        v = np.float64(x[i])
        phi = _phi_parts(v)[0]
        out[i] = v * phi if phi > 0 or v != v else -0.0    # gelu(-inf) = -0, as the formula


@njit(cache=True, error_model="numpy", fastmath={"contract"})
def _backward32(g, x, out):
    for i in range(x.size):
        v = np.float64(x[i])
        phi, ev = _phi_parts(v)
        out[i] = np.float64(g[i]) * (phi + v * ev * _INV_SQRT_2PI)


_BLOCK = 1 << 14


@njit(cache=True, parallel=True, error_model="numpy")
def _forward32_parallel(x, out):
    for b in prange((x.size + _BLOCK - 1) // _BLOCK):     # vectorised blocks per thread
        _forward32(x[b * _BLOCK:(b + 1) * _BLOCK], out[b * _BLOCK:(b + 1) * _BLOCK])


@njit(cache=True, parallel=True, error_model="numpy")
def _backward32_parallel(g, x, out):
    for b in prange((x.size + _BLOCK - 1) // _BLOCK):
        lo, hi = b * _BLOCK, (b + 1) * _BLOCK
        _backward32(g[lo:hi], x[lo:hi], out[lo:hi])


def gelu(x, tanh_form):
    """GELU of the flat contiguous float array ``x``."""
    out = pool.empty_like(x)
    if x.dtype == np.float32 and not tanh_form:
        (_forward32_parallel if x.size >= PARALLEL_MIN else _forward32)(x, out)
        return out
    (_forward_parallel if x.size >= PARALLEL_MIN else _forward_serial)(x, out, tanh_form)
    return out


def gelu_backward(g, x, tanh_form):
    """``g * gelu'(x)`` for flat contiguous float arrays of one dtype."""
    out = pool.empty_like(x)
    if x.dtype == np.float32 and not tanh_form:
        (_backward32_parallel if x.size >= PARALLEL_MIN else _backward32)(g, x, out)
        return out
    (_backward_parallel if x.size >= PARALLEL_MIN else _backward_serial)(g, x, out, tanh_form)
    return out
