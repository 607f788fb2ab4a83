"""Numba kernels of GELU: the forward and the first-order gradient, one pass each.

The forward is ``formulas.gelu``/``gelu_tanh`` (the very function the generic
``special_unary`` ufunc compiles) in float64 per element, rounded to the array's dtype, so
its numbers are the op's; it skips the float64 copies of the array that the generic path
makes.  The gradient ``g * gelu'(x)`` is one pass instead of ~8 array ops (erfc, exp and
products) of the differentiable rule; it computes in float64 and rounds once, so it is
within an ulp of that rule in float32.  ``prange`` twins run above ``PARALLEL_MIN``
elements.  Imported at the first call; compiled code is cached on disk.
"""
import math

import numpy as np
from numba import njit, prange

from .. import formulas

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


def gelu(x, tanh_form):
    """GELU of the flat contiguous float array ``x``."""
    out = np.empty_like(x)
    (_forward_parallel if x.size >= PARALLEL_MIN else _forward_serial)(x, out, tanh_form)
    return out


def gelu_backward(g, x, tanh_form):
    """``g * gelu'(x)`` for flat contiguous float arrays of one dtype."""
    out = np.empty_like(x)
    (_backward_parallel if x.size >= PARALLEL_MIN else _backward_serial)(g, x, out, tanh_form)
    return out
