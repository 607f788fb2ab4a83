"""Numba kernels for multi-pass elementwise work.

Imported at the first call that needs one (importing numba costs ~0.3 s).  One
generic kernel pair covers every fused gradient: the op is an integer code
switched inside the loop (LLVM unswitches the invariant branch), the buffers are
flat and contiguous, so one compiled version per dtype serves every shape and
op.  Its ``prange`` twin takes over only above ``FUSED_PARALLEL_MIN`` elements: a
gradient pass reads two arrays and writes one with a multiply or two per element, so it
is bound by memory bandwidth, which one core nearly fills (on a 2-core machine the
twin was never faster, 0.26M-4M float32 elements); compute-bound kernels (exp, tanh,
sin/cos) go parallel above ``PARALLEL_MIN``, where the thread start-up pays for itself.  ``unary_parallel`` runs float64 exp/sin/cos
on every core (numpy's loops for those are scalar and single threaded), sin/cos as a
vectorised polynomial; ``tanh_f32`` and ``exp_f32`` are vectorised float32 tanh and exp.
Compiled code is cached on disk.
"""
import math

import numpy as np
from numba import njit, prange

from .. import formulas
from . import jit_cache, parallel, pool
from .vector_math import exp_float32

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs
PARALLEL_MIN = 1 << 16
FUSED_PARALLEL_MIN = 1 << 22

# op name -> code of its gradient formula in ``_grad_of``; operands (g, saved)
CODES = {"tanh": 0, "sigmoid": 1, "relu": 2}
_tanh_grad = njit(inline="always")(formulas.tanh_grad)
_sigmoid_grad = njit(inline="always")(formulas.sigmoid_grad)
_relu_grad = njit(inline="always")(formulas.relu_grad)


@njit(cache=CACHE, inline="always")
def _grad_of(code, g, s, one):
    # ``one`` has the arrays' dtype: an integer literal would widen float32 math to
    # float64 and round differently from the differentiable rule
    if code == 0:          # tanh: saved = output t
        return _tanh_grad(g, s, one)
    if code == 1:          # sigmoid: saved = output s
        return _sigmoid_grad(g, s, one)
    return _relu_grad(g, s, one)             # relu: saved = input x


@njit(cache=CACHE)
def _fused_serial(code, out, g, s, one):
    for i in range(out.size):
        out[i] = _grad_of(code, g[i], s[i], one)


@parallel.kernel(cache=CACHE)
def _fused_parallel(code, out, g, s, one):
    for i in prange(out.size):
        out[i] = _grad_of(code, g[i], s[i], one)


_NUMBA_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))


def fused_grad(op, g, saved):
    """None when no kernel covers the case (unknown op, mixed dtypes, other shapes), so
    the caller runs the differentiable rule instead.

    >>> fused_grad("relu", np.ones(2), np.ones(2, np.float32)) is None   # mixed dtypes
    True
    """
    code = CODES.get(op)
    if code is None or g.dtype != saved.dtype or g.dtype not in _NUMBA_DTYPES \
            or g.shape != saved.shape:
        return None
    gf = np.ascontiguousarray(g).reshape(-1)
    sf = np.ascontiguousarray(saved).reshape(-1)
    out = pool.empty_like(gf)
    kernel = _fused_parallel if parallel.worth(out.size, FUSED_PARALLEL_MIN) else _fused_serial
    kernel(code, out, gf, sf, gf.dtype.type(1))
    return out.reshape(g.shape)


# float64 exp runs Numba's libm call on every core (numpy's loop is scalar too);
# sin/cos run ``_sincos``, a polynomial kernel that LLVM vectorises.
@parallel.kernel(cache=CACHE)
def _exp_parallel(out, x):
    for i in prange(out.size):
        out[i] = math.exp(x[i])


# Cody-Waite split of pi/2: P1 and P2 carry 33 significant bits, so k * P1 and
# k * P2 are exact for |k| < 2**20, and x - k*(P1 + P2 + P3) keeps ~118 bits of pi/2.
# The sin/cos kernels contract a*b + c into fused multiply-adds (1.6x faster here, and
# as accurate: within an ulp of numpy's sin/cos, as without).
_P1, _P2, _P3 = 1.5707963267341256, 6.077100506303966e-11, 2.0222662487959506e-21
_TWO_OVER_PI = 0.6366197723675814
_ROUND = 6755399441055744.0       # 1.5 * 2**52: (v + _ROUND) - _ROUND rounds v to an integer
# above this |x| the reduction's error could exceed an ulp; numpy takes those elements
SINCOS_LIMIT = 1e5
# Taylor coefficients (-1)^i / (2i+1)! and (-1)^i / (2i)!: on |r| <= pi/4 the first
# omitted terms (r^19/19!, r^18/18!) are below 1e-18
_S = [(-1.0) ** i / math.factorial(2 * i + 1) for i in range(1, 9)]
_C = [(-1.0) ** i / math.factorial(2 * i) for i in range(1, 9)]
_S1, _S2, _S3, _S4, _S5, _S6, _S7, _S8 = _S
_C1, _C2, _C3, _C4, _C5, _C6, _C7, _C8 = _C


@njit(cache=CACHE, inline="always", fastmath={"contract"})
def _sincos(x, quarter):
    """sin(x + quarter * pi/2) for quarter 0 (sin) or 1 (cos), branch free so that
    the loop around it vectorises; exact for NaN, +-0 and tiny x."""
    k = (x * _TWO_OVER_PI + _ROUND) - _ROUND
    r = ((x - k * _P1) - k * _P2) - k * _P3           # |r| <= pi/4
    z = r * r
    s = r + r * z * (_S1 + z * (_S2 + z * (_S3 + z * (_S4 + z * (_S5 + z * (_S6 + z * (
        _S7 + z * _S8)))))))
    s = r if z == 0.0 else s                          # sin(-0) = -0
    c = 1.0 + z * (_C1 + z * (_C2 + z * (_C3 + z * (_C4 + z * (_C5 + z * (_C6 + z * (
        _C7 + z * _C8)))))))
    q = k + quarter
    q = q - 4.0 * np.floor(q * 0.25)                  # quadrant 0..3
    v = c if (q == 1.0) | (q == 3.0) else s
    return -v if q >= 2.0 else v


@parallel.kernel(cache=CACHE, fastmath={"contract"})
def _sincos_parallel(out, x, quarter):
    far = 0
    for i in prange(out.size):
        xi = x[i]
        out[i] = _sincos(xi, quarter)
        far += abs(xi) > SINCOS_LIMIT
    return far


# Input gradients ``g * f'(x)`` in one pass, with the differentiable rules'
# arithmetic: "sin" with quarter n: g * sin(x + n pi/2) (n = 1: sin's rule g * cos(x);
# n = 2: cos's rule (-g) * sin(x), the same bits as g * -sin(x)); pow: (g * n) * x**(n - 1)
# for a small integer n, where x**0 = 1, x**1 = x, x**2 = x * x exactly as numpy's
# ``**`` (the backend's ``_POWERS``).  sin/cos use ``_sincos``, as ``unary_parallel``.
DERIV_CODES = {"sin": 0, "pow": 1}


@njit(cache=CACHE, inline="always", fastmath={"contract"})
def _deriv(code, g, x, n):
    if code == 0:
        return g * _sincos(x, n)
    p = n - n / n                             # n - 1 in the arrays' dtype
    xp = x * x if p == 2 else (x if p == 1 else n / n)
    return (g * n) * xp


@parallel.kernel(cache=CACHE, fastmath={"contract"})
def _deriv_array(code, out, g, x, n):
    far = 0
    for i in prange(out.size):
        xi = x[i]
        out[i] = _deriv(code, g[i], xi, n)
        far += abs(xi) > SINCOS_LIMIT
    return far


@parallel.kernel(cache=CACHE, fastmath={"contract"})
def _deriv_scalar(code, out, g, x, n):
    far = 0
    for i in prange(out.size):
        xi = x[i]
        out[i] = _deriv(code, g, xi, n)
        far += abs(xi) > SINCOS_LIMIT
    return far


def _shifted_sin(x, quarter):
    """numpy's ``sin(x + quarter pi/2)`` for an integer quarter in 0..3 (exact shifts)."""
    v = (np.cos if quarter % 2 else np.sin)(x)
    return -v if quarter >= 2 else v


def deriv(op, g, x, n=0):
    """``g * op'(x)`` (``op`` a key of DERIV_CODES; ``n`` the quarter of "sin" or the
    power of "pow") in one pass on every core, for a contiguous float array ``x`` and a
    ``g`` of its dtype that is contiguous of its shape or a broadcast scalar (all strides
    0, as the gradient of a sum is).

    >>> import numpy as np
    >>> deriv("pow", np.float64(1.5), np.float64([3.0, 4.0]), 2).tolist()
    [9.0, 12.0]
    >>> deriv("sin", np.float64([2.0]), np.float64([0.0]), 1).tolist()   # 2 cos(0)
    [2.0]
    """
    code = DERIV_CODES[op]
    out = pool.empty_like(x)
    of, xf = out.reshape(-1), x.reshape(-1)
    one = x.dtype.type
    if g.ndim and g.strides.count(0) < g.ndim:
        gf = gm = g.reshape(-1)
        far = _deriv_array(code, of, gf, xf, one(n))
    else:
        gf, gm = None, one(g.flat[0] if g.size else 0)
        far = _deriv_scalar(code, of, gm, xf, one(n))
    if far and code == 0:
        # beyond SINCOS_LIMIT numpy computes sin/cos (as ``unary_parallel``)
        mask = np.abs(xf) > SINCOS_LIMIT
        gm = gm[mask] if gf is not None else gm
        with np.errstate(all="ignore"):
            of[mask] = gm * _shifted_sin(xf[mask], int(n))
    return out


# float32 tanh.  numpy's SIMD loop costs ~2.9 ns per element here; this one is
# branch free float32 arithmetic (LLVM vectorises it 8 wide, ~1.3 ns), within 2 ulp of the
# correctly rounded result (numpy: 1).  tanh(a) = -m / (2 + m) with
# m = exp(-2a) - 1 = 2^-k (exp(r) - 1) + (2^-k - 1), k = round(2a / ln 2), |r| <= ln(2)/2:
# no cancellation for small a (k = 0), and 2^-k comes from k's bits by selects.
_F32 = np.float32
_LN2_HI = _F32(0.693145751953125)              # 16 bits: k * _LN2_HI is exact
_LN2_LO = _F32(math.log(2.0) - 0.693145751953125)
_TWO_OVER_LN2 = _F32(2.0 / math.log(2.0))
# exp(r) - 1 to r^8 (Taylor; first omitted term < 6e-9 relative)
_Q2, _Q3, _Q4, _Q5, _Q6, _Q7, _Q8 = [_F32(1.0 / math.factorial(i)) for i in range(2, 9)]
_ONE, _TWO, _HALF, _CAP = _F32(1.0), _F32(2.0), _F32(0.5), _F32(9.5)
_BITS = [_F32(2.0 ** -(1 << j)) for j in range(5)]     # 2^-1, 2^-2, 2^-4, 2^-8, 2^-16
_B0, _B1, _B2, _B3, _B4 = _BITS


@njit(cache=CACHE, inline="always", fastmath={"contract"})
def _tanh32(x):
    a = abs(x)
    a = a if a < _CAP else _CAP               # float32 tanh is +-1 from 9.1; NaN -> _CAP
    k = np.int32(a * _TWO_OVER_LN2 + _HALF)   # 0 <= k <= 28
    kf = _F32(k)
    r = (kf * _LN2_HI - _TWO * a) + kf * _LN2_LO
    q = r + r * r * (_Q2 + r * (_Q3 + r * (_Q4 + r * (_Q5 + r * (_Q6 + r * (_Q7 + r * _Q8))))))
    s = _B0 if k & 1 else _ONE
    s = s * _B1 if k & 2 else s
    s = s * _B2 if k & 4 else s
    s = s * _B3 if k & 8 else s
    s = s * _B4 if k & 16 else s
    m = q * s + (s - _ONE)
    t = -m / (_TWO + m)
    t = -t if x < 0 else t
    t = x if a == 0 else t                    # keeps tanh(-0) = -0
    return t if x == x else x


@parallel.kernel(cache=CACHE, fastmath={"contract"})
def _tanh32_parallel(out, x):
    for i in prange(out.size):
        out[i] = _tanh32(x[i])


@njit(cache=CACHE, error_model="numpy", fastmath={"contract"})   # (no division check:
def _tanh32_serial(out, x):                                         # the loop vectorises)
    for i in range(out.size):
        out[i] = _tanh32(x[i])


def tanh_f32(x):
    """tanh of a contiguous float32 array, on every core above ``PARALLEL_MIN`` elements.

    >>> import numpy as np
    >>> float(tanh_f32(np.float32([0.0, 20.0]))[1])
    1.0
    """
    out = pool.empty_like(x)
    kernel = _tanh32_parallel if parallel.worth(x.size, PARALLEL_MIN) else _tanh32_serial
    kernel(out.reshape(-1), x.reshape(-1))
    return out


@njit(cache=CACHE, error_model="numpy", fastmath={"contract"})
def _exp32_serial(out, x):
    for i in range(out.size):
        out[i] = exp_float32(x[i])


@parallel.kernel(cache=CACHE, error_model="numpy", fastmath={"contract"})
def _exp32_parallel(out, x):
    for i in prange(out.size):
        out[i] = exp_float32(x[i])


def exp_f32(x):
    """exp of a contiguous float32 array (``vector_math.exp_float32``: within an ulp, ~3x
    numpy's loop per core), on every core above ``PARALLEL_MIN`` elements.

    >>> import numpy as np
    >>> exp_f32(np.float32([0.0, 1.0, -np.inf])).tolist()
    [1.0, 2.7182817459106445, 0.0]
    """
    out = pool.empty_like(x)
    kernel = _exp32_parallel if parallel.worth(x.size, PARALLEL_MIN) else _exp32_serial
    kernel(out.reshape(-1), x.reshape(-1))
    return out


_QUARTER = {"sin": 0.0, "cos": 1.0}


def unary_parallel(op, x):
    """``op`` (exp, sin or cos) of a contiguous float64 array, on every core.

    >>> import numpy as np
    >>> float(unary_parallel("cos", np.zeros(3))[0])
    1.0
    """
    out = pool.empty_like(x)
    of, xf = out.reshape(-1), x.reshape(-1)
    if op == "exp":
        _exp_parallel(of, xf)
    elif _sincos_parallel(of, xf, _QUARTER[op]):
        far = np.abs(xf) > SINCOS_LIMIT
        with np.errstate(all="ignore"):
            of[far] = (np.sin if op == "sin" else np.cos)(xf[far])
    return out
