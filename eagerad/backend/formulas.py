"""Scalar formulas shared by the CPU and CUDA kernels.

Each entry is a plain Python function of floats written with the ``math`` module,
so Numba compiles the same source for the CPU (``numba.vectorize``) and for CUDA
(``cuda.jit(device=True)``): one formula, two devices.  Unary formulas take
``(x, a, b)``, where ``a`` and ``b`` are the op's float parameters (alpha, beta,
...; ignored by the formulas without any); binary ones take ``(x, y)``.

Every formula is self-contained (it calls only ``math`` and reads module
constants), because a Numba-compiled function can only call compiled ones.  They
also guard each ``math`` call's domain themselves: under Numba's CUDA simulator
they run as Python, where ``math.log(0.0)`` raises instead of returning ``-inf``.
Edge values follow PyTorch (``lgamma`` at a pole is ``inf``, ``digamma(0)`` is
``-inf``, ``xlogy(0, 0)`` is 0).

>>> round(UNARY["digamma"](1.0, 0.0, 0.0), 14)        # -Euler's gamma
-0.57721566490153
>>> BINARY["xlogy"](0.0, 0.0)
0.0
"""
import math

INF = math.inf
NAN = math.nan
LN2 = 0.6931471805599453
SQRT1_2 = 0.7071067811865476
TWO_OVER_SQRT_PI = 1.1283791670955126
MACHEP = 1.11022302462515654042e-16
# (2j)! / B_2j: the Euler-Maclaurin tail of the Hurwitz zeta function (Cephes ``zeta``)
ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9,
          7.47242496e10, -2.950130727918164224e12, 1.1646782814350067249e14,
          -4.5979787224074726105e15, 1.8152105401943546773e17, -7.1661652561756670113e18)



# ------------------------------------------ derivatives of tanh, sigmoid and relu
# Written once for the differentiable rules (Tensors, ops/math.py), the CPU's numpy and
# Numba kernels (arrays and scalars) and the CUDA kernels (scalars).  ``one`` is 1 in
# the operands' dtype (a float literal would widen float32 to float64 in Numba);
# ``x > 0`` is a bool, which keeps ``g``'s dtype in numpy, Numba and eagerad alike.

def tanh_grad(g, t, one):
    """tanh's input gradient from ``g`` and the output ``t``.

    >>> tanh_grad(1.0, 0.5, 1.0)
    0.75
    """
    return g * (one - t * t)


def sigmoid_grad(g, s, one):
    """sigmoid's input gradient from ``g`` and the output ``s``.

    >>> sigmoid_grad(1.0, 0.5, 1.0)
    0.25
    """
    return g * s * (one - s)


def relu_grad(g, x, one):
    """relu's input gradient from ``g`` and the input ``x``: ``g`` where ``x > 0``, else
    0 (the subgradient 0 at 0, as PyTorch); ``one`` is unused, for the common signature.

    >>> relu_grad(2.0, 0.0, 1.0), relu_grad(2.0, 3.0, 1.0)
    (0.0, 2.0)
    """
    return g * (x > 0)


# ------------------------------------------------------------- special functions

def erf(x, a, b):
    return math.erf(x)


def erfc(x, a, b):
    return math.erfc(x)


def erfinv(x, a, b):
    """Giles' single-precision approximation, then Newton steps to float64 accuracy
    (on ``log(erfc(r)) = log(1 - |x|)`` for |x| > 0.5, where ``erf(r) - x`` would cancel
    and Giles' start is far off)."""
    if x != x or x < -1.0 or x > 1.0:
        return NAN
    if x == 1.0 or x == -1.0:
        return x * INF
    y = abs(x)
    w = -math.log((1.0 - y) * (1.0 + y))
    if w < 5.0:
        w = w - 2.5
        p = 2.81022636e-08
        p = 3.43273939e-07 + p * w
        p = -3.5233877e-06 + p * w
        p = -4.39150654e-06 + p * w
        p = 0.00021858087 + p * w
        p = -0.00125372503 + p * w
        p = -0.00417768164 + p * w
        p = 0.246640727 + p * w
        p = 1.50140941 + p * w
    else:
        w = math.sqrt(w) - 3.0
        p = -0.000200214257
        p = 0.000100950558 + p * w
        p = 0.00134934322 + p * w
        p = -0.00367342844 + p * w
        p = 0.00573950773 + p * w
        p = -0.0076224613 + p * w
        p = 0.00943887047 + p * w
        p = 1.00167406 + p * w
        p = 2.83297682 + p * w
    r = p * y
    tail = math.log(1.0 - y)
    for _ in range(6):
        if y > 0.5:    # Newton on log(erfc(r)) = log(1 - y): quick in the far tail too
            e = math.erfc(r)
            step = (math.log(e) - tail) * e / (TWO_OVER_SQRT_PI * math.exp(-r * r))
        else:
            step = (y - math.erf(r)) / (TWO_OVER_SQRT_PI * math.exp(-r * r))
        r = r + step
        if abs(step) <= 1e-16 * r:
            break
    return r if x > 0 else -r


def lgamma(x, a, b):
    """log|Gamma(x)|; ``inf`` at the poles 0, -1, -2, ... (as PyTorch)."""
    if x <= 0.0 and (x == -INF or x % 1.0 == 0.0):
        return INF
    if x > 1e17:     # Stirling; math.lgamma raises instead of overflowing under Python
        if x == INF:
            return INF
        return x * (math.log(x) - 1.0) - 0.5 * math.log(x) + 0.9189385332046728
    return math.lgamma(x)


def digamma(x, a, b):
    """psi(x): reflection for x < 0, recurrence up to 10, then the asymptotic series.
    ``digamma(+-0) = -+inf``, negative integers give nan (as PyTorch)."""
    if x == 0.0:
        return math.copysign(INF, -x)
    result = 0.0
    if x < 0.0:
        frac = x % 1.0 if x != -INF else 0.0
        if frac == 0.0:
            return NAN
        result = -math.pi / math.tan(math.pi * frac)
        x = 1.0 - x
    while x < 10.0:
        result -= 1.0 / x
        x += 1.0
    if x == INF:
        return INF
    z = 1.0 / (x * x)
    tail = z * (1.0 / 12 - z * (1.0 / 120 - z * (1.0 / 252 - z * (1.0 / 240 - z * (
        1.0 / 132 - z * (691.0 / 32760 - z / 12.0))))))
    return result + math.log(x) - 0.5 / x - tail


def polygamma(x, a, b):
    """The n-th derivative of digamma (``a`` = n >= 1): ``(-1)^(n+1) n! zeta(n+1, x)``
    with the Hurwitz zeta function summed as in Cephes (recurrence, then
    Euler-Maclaurin).  Poles give ``+-inf`` (as PyTorch)."""
    s = a + 1.0
    fact = 1.0
    k = 2.0
    while k <= a:
        fact *= k
        k += 1.0
    sign = 1.0 if a % 2.0 == 1.0 else -1.0
    q = x
    if q != q:
        return NAN
    if q <= 0.0 and (q == -INF or q % 1.0 == 0.0):
        return sign * INF
    if q == INF:
        return sign * 0.0
    if q > 1e8:
        return sign * fact * (1.0 / (s - 1.0) + 0.5 / q) * q ** (1.0 - s)
    total = q ** -s
    m = q
    i = 0
    term = 0.0
    while i < 9 or m <= 9.0:
        i += 1
        m += 1.0
        term = m ** -s
        total += term
        if abs(term / total) < MACHEP:
            return sign * fact * total
    w = m
    total += term * w / (s - 1.0)
    total -= 0.5 * term
    c = 1.0
    j = 0.0
    for i in range(12):
        c *= s + j
        term /= w
        t = c * term / ZETA_A[i]
        total += t
        if abs(t / total) < MACHEP:
            break
        j += 1.0
        c *= s + j
        term /= w
        j += 1.0
    return sign * fact * total


def logit(x, a, b):
    """log(x / (1 - x)), ``x`` first clamped to ``[a, 1 - a]`` when ``a >= 0`` (eps)."""
    if a >= 0.0:
        if x < a:
            x = a
        elif x > 1.0 - a:
            x = 1.0 - a
    if x > 0.0 and x < 1.0:
        return math.log(x / (1.0 - x))
    if x == 0.0:
        return -INF
    return INF if x == 1.0 else NAN


# ------------------------------------------------------------------ activations

def log_sigmoid(x, a, b):
    """min(x, 0) - log1p(exp(-|x|)): no overflow for any x."""
    low = x if x < 0.0 else 0.0
    return low - math.log1p(math.exp(-abs(x)))


def softplus(x, a, b):
    """log(1 + exp(a x)) / a, linear where ``a x > b`` (beta, threshold), stable elsewhere."""
    bx = x * a
    if bx > b:
        return x
    high = bx if bx > 0.0 else 0.0
    return (high + math.log1p(math.exp(-abs(bx)))) / a


def gelu(x, a, b):
    """x Phi(x) written with erfc, accurate for negative x too."""
    if x < -40.0:
        return -0.0
    return 0.5 * x * math.erfc(-x * SQRT1_2)


def gelu_tanh(x, a, b):
    if x < -40.0:
        return -0.0
    return 0.5 * x * (1.0 + math.tanh(0.7978845608028654 * (x + 0.044715 * x * x * x)))


def silu(x, a, b):
    if x >= 0.0:
        return x / (1.0 + math.exp(-x))
    if x < -750.0:
        return -0.0
    e = math.exp(x)
    return x * e / (1.0 + e)


def elu(x, a, b):
    """``b`` (scale) times x for x > 0, ``b a (exp(x) - 1)`` below: ELU and SELU."""
    if x > 0.0:
        return b * x
    return b * a * math.expm1(x)


def celu(x, a, b):
    if x > 0.0:
        return x
    return a * math.expm1(x / a)


def leaky_relu(x, a, b):
    return x if x > 0.0 else x * a


def hardtanh(x, a, b):
    if x < a:
        return a
    if x > b:
        return b
    return x


def hardsigmoid(x, a, b):
    if x <= -3.0:
        return 0.0
    if x >= 3.0:
        return 1.0
    return (x + 3.0) / 6.0


def hardswish(x, a, b):
    if x <= -3.0:
        return 0.0
    if x >= 3.0:
        return x
    return x * (x + 3.0) / 6.0


def mish(x, a, b):
    """x tanh(softplus(x)), softplus in its stable form."""
    if x < -750.0:
        return -0.0
    high = x if x > 0.0 else 0.0
    return x * math.tanh(high + math.log1p(math.exp(-abs(x))))


def softsign(x, a, b):
    if x == INF or x == -INF:
        return math.copysign(1.0, x)
    return x / (1.0 + abs(x))


# ------------------------------------------- numpy's ufuncs, for devices without numpy

def exp2(x, a, b):
    if x > 1024.0:
        return INF
    return 2.0 ** x


def log2(x, a, b):
    if x > 0.0:
        return math.log2(x)
    return -INF if x == 0.0 else NAN


def log10(x, a, b):
    if x > 0.0:
        return math.log10(x)
    return -INF if x == 0.0 else NAN


def sinc(x, a, b):
    if x == 0.0:
        return 1.0
    if x - x != 0.0:      # inf or nan
        return NAN
    if abs(x) >= 4503599627370496.0:      # an integer: sin(pi x) = 0
        return 0.0
    px = math.pi * x
    return math.sin(px) / px


# ------------------------------------------------------------------------ binary

def xlogy(x, y):
    """x log(y), 0 where x == 0 unless y is nan (as PyTorch)."""
    if y != y:
        return NAN
    if x == 0.0:
        return 0.0
    if y > 0.0:
        return x * math.log(y)
    return x * -INF if y == 0.0 else NAN


def xlog1py(x, y):
    """x log1p(y), 0 where x == 0 unless y is nan (as PyTorch)."""
    if y != y:
        return NAN
    if x == 0.0:
        return 0.0
    if y > -1.0:
        return x * math.log1p(y)
    return x * -INF if y == -1.0 else NAN


def hypot(x, y):
    return math.hypot(x, y)


def logaddexp(x, y):
    if x == y:
        return x + LN2
    d = x - y
    if d > 0.0:
        return x + math.log1p(math.exp(-d))
    if d <= 0.0:
        return y + math.log1p(math.exp(d))
    return d      # nan


def logaddexp2(x, y):
    if x == y:
        return x + 1.0
    d = x - y
    if d > 0.0:
        return x + math.log1p(2.0 ** -d) / LN2
    if d <= 0.0:
        return y + math.log1p(2.0 ** d) / LN2
    return d


def fmax(x, y):
    """The larger, ignoring a nan operand (numpy's ``fmax``)."""
    if x != x:
        return y
    return x if x >= y or y != y else y


def fmin(x, y):
    if x != x:
        return y
    return x if x <= y or y != y else y


def fmod(x, y):
    # C's fmod: the remainder of x / y rounded toward zero, with x's sign (numpy's and
    # PyTorch's fmod); nan for y == 0 or an infinite x, x itself for an infinite y
    if y == 0.0 or x != x or y != y or x == INF or x == -INF:
        return NAN
    if y == INF or y == -INF:
        return x
    return math.copysign(abs(x) % abs(y), x)   # % of positive floats is exact (and
    # compiles on both devices, where math.fmod does not on the CPU)


def copysign(x, y):
    return math.copysign(x, y)


UNARY = {f.__name__: f for f in (
    erf, erfc, erfinv, lgamma, digamma, polygamma, logit, log_sigmoid, softplus, gelu, gelu_tanh,
    silu, elu, celu, leaky_relu, hardtanh, hardsigmoid, hardswish, mish, softsign, exp2, log2,
    log10, sinc)}
BINARY = {f.__name__: f for f in (xlogy, xlog1py, hypot, logaddexp, logaddexp2, fmax, fmin,
                                  copysign, fmod)}

from .special_formulas import UNARY as _SPECIAL_UNARY  # noqa: E402  (Bessel, erfcx, ndtri)

UNARY.update(_SPECIAL_UNARY)
