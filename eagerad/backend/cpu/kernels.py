"""Numba kernels for multi-pass elementwise work.

Imported at the first call that needs one (importing numba costs ~0.3 s).  One
generic kernel pair covers every fused gradient: the op is an integer code
switched inside the loop (LLVM unswitches the invariant branch), the buffers are
flat and contiguous, so one compiled version per dtype serves every shape and
op.  The ``prange`` twin takes over above ``PARALLEL_MIN`` elements, where the
thread start-up pays for itself.  ``unary_parallel`` runs float64 exp/sin/cos
on every core (numpy's loops for those are scalar and single threaded).
Compiled code is cached on disk.
"""
import math

import numpy as np
from numba import njit, prange

PARALLEL_MIN = 1 << 16

# op name -> code of its gradient formula in ``_grad_of``; operands (g, saved)
CODES = {"tanh": 0, "sigmoid": 1, "relu": 2}


@njit(cache=True, inline="always")
def _grad_of(code, g, s, one):
    # ``one`` has the arrays' dtype: an integer literal would widen float32 math to
    # float64 and round differently from the differentiable rule
    if code == 0:          # tanh: saved = output t,   dt = g (1 - t^2)
        return g * (one - s * s)
    if code == 1:          # sigmoid: saved = output s, ds = g s (1 - s)
        return g * s * (one - s)
    return g if s > 0 else g * (one - one)   # relu: saved = input x


@njit(cache=True)
def _fused_serial(code, out, g, s, one):
    for i in range(out.size):
        out[i] = _grad_of(code, g[i], s[i], one)


@njit(cache=True, parallel=True)
def _fused_parallel(code, out, g, s, one):
    for i in prange(out.size):
        out[i] = _grad_of(code, g[i], s[i], one)


_NUMBA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def fused_grad(op, g, saved):
    """``op``'s first-order input gradient from ``g`` and its saved array, in one pass."""
    code = CODES.get(op)
    if code is None or g.dtype != saved.dtype or g.dtype not in _NUMBA_DTYPES \
            or g.shape != saved.shape:
        return None
    gf = np.ascontiguousarray(g).reshape(-1)
    sf = np.ascontiguousarray(saved).reshape(-1)
    out = np.empty_like(gf)
    (_fused_parallel if out.size >= PARALLEL_MIN else _fused_serial)(code, out, gf, sf,
                                                                      gf.dtype.type(1))
    return out.reshape(g.shape)


# op name -> code of the function in ``_unary_of`` (float64 transcendental ops, where
# Numba's libm calls on every core beat numpy's scalar loops)
UNARY_CODES = {"exp": 0, "sin": 1, "cos": 2}


@njit(cache=True, inline="always")
def _unary_of(code, x):
    if code == 0:
        return math.exp(x)
    if code == 1:
        return math.sin(x)
    return math.cos(x)


@njit(cache=True, parallel=True)
def _unary_parallel(code, out, x):
    for i in prange(out.size):
        out[i] = _unary_of(code, x[i])


def unary_parallel(op, x):
    """``op`` in UNARY_CODES of a contiguous array, on every core."""
    out = np.empty_like(x)
    _unary_parallel(UNARY_CODES[op], out.reshape(-1), x.reshape(-1))
    return out
