"""Scalar formulas of the Bessel, scaled-error-function and normal-distribution ops.

Written as ``backend/formulas.py`` asks (plain ``math`` code of floats, one function per
kernel, each guarding its own domain), so the CPU compiles them with ``numba.vectorize``
and CUDA with ``cuda.jit(device=True)``; ``formulas.UNARY`` takes them in.  Unary formulas
take ``(x, a, b)``: here ``a`` picks the function of a family (the Bessel order, which
normal-tail function) and ``b`` the exponential scaling.

Methods (no tables: series and expansions that converge to double precision):

- ``bessel_i``: the power series ``sum (x/2)^(2k+n) / (k! (k+n)!)`` (positive terms, no
  cancellation) up to ``|x| = 25``; Hankel's expansion
  ``e^|x| / sqrt(2 pi |x|) * sum_k (-1)^k a_k(n) / |x|^k`` above, whose smallest term there
  is below 1e-20.
- ``normal_tail``: ``erfcx(x) = exp(x^2) erfc(x)`` directly where that is exact to
  round-off (``x < 10``), else its asymptotic series ``1/(x sqrt(pi)) sum (-1)^k
  (2k-1)!! / (2x^2)^k``; ``log_ndtr`` through ``erfcx`` below -1 (no underflow), through
  ``log1p(-erfc/2)`` above; ``ndtr`` through ``erfc``.
- ``ndtri``: a rational first guess (Abramowitz and Stegun 26.2.23), then Halley steps on
  ``ndtr(x) - p`` in the smaller tail, so tiny probabilities keep their relative precision.

>>> round(UNARY["bessel_i"](1.0, 0.0, 0.0), 12), round(UNARY["bessel_i"](1.0, 1.0, 0.0), 12)
(1.266065877752, 0.565159103992)
>>> round(UNARY["ndtri"](0.975, 0.0, 0.0), 9)
1.959963985
"""
import math

INF = math.inf
NAN = math.nan
SQRT1_2 = 0.7071067811865476
SQRT_2PI = 2.5066282746310002
INV_SQRT_PI = 0.5641895835477563
LOG_2PI_HALF = 0.9189385332046728          # log(2 pi) / 2
SERIES_UP_TO = 25.0                        # |x| where bessel_i leaves its power series
EXP_SQUARE_UP_TO = 10.0                    # x where erfcx leaves exp(x^2) erfc(x)
EXP_SQUARE_FROM = -26.6                    # below, exp(x^2) overflows: erfcx is inf
# which function of ``normal_tail`` (its parameter ``a``)
ERFCX, LOG_NDTR, NDTR = 0.0, 1.0, 2.0


def bessel_i(x, a, b):
    """``I_a(x)`` (modified Bessel function of the first kind of integer order ``a`` >= 0),
    times ``exp(-|x|)`` when ``b`` is not 0 (``i0e``, ``i1e``)."""
    if x != x:
        return NAN
    ax = abs(x)
    if ax <= SERIES_UP_TO:
        half = 0.5 * ax
        q = half * half
        term = 1.0
        k = 1.0
        while k <= a:                           # (x/2)^a / a!
            term *= half / k
            k += 1.0
        total = term
        k = 1.0
        while k < 500.0 and term > 1e-17 * total:
            term *= q / (k * (k + a))
            total += term
            k += 1.0
        if b != 0.0:
            total *= math.exp(-ax)
    elif ax == INF:
        total = 0.0 if b != 0.0 else INF
    else:
        mu = 4.0 * a * a
        term = 1.0
        total = 1.0
        k = 1.0
        while k < 100.0 and abs(term) > 1e-17 * abs(total):
            odd = 2.0 * k - 1.0
            term *= -(mu - odd * odd) / (8.0 * k * ax)
            total += term
            k += 1.0
        if b != 0.0:
            total /= math.sqrt(2.0 * math.pi * ax)
        elif ax - 0.5 * math.log(ax) - LOG_2PI_HALF > 709.0:
            return -INF if a % 2.0 == 1.0 and x < 0.0 else INF     # beyond float64's range
        else:
            total *= math.exp(ax - 0.5 * math.log(ax) - LOG_2PI_HALF)
    return -total if a % 2.0 == 1.0 and x < 0.0 else total      # I_a(-x) = (-1)^a I_a(x)


def normal_tail(x, a, b):
    """``erfcx(x) = exp(x^2) erfc(x)`` (``a`` = 0), ``log_ndtr(x)`` (``a`` = 1) or
    ``ndtr(x)`` (``a`` = 2), the standard normal's distribution function and its log."""
    if x != x:
        return NAN
    if a == NDTR:
        return 0.5 * math.erfc(-x * SQRT1_2)
    if a == LOG_NDTR:
        if x >= -1.0:
            return math.log1p(-0.5 * math.erfc(x * SQRT1_2))
        if x == -INF:
            return -INF
        t = -x * SQRT1_2          # log(erfcx(t) / 2) - t^2, the erfcx of t computed below
        x = t
    if x < EXP_SQUARE_FROM:
        r = INF
    elif x < EXP_SQUARE_UP_TO:
        r = math.exp(x * x) * math.erfc(x)
    elif x == INF:
        r = 0.0
    else:
        w = 0.5 / (x * x)
        term = 1.0
        total = 1.0
        k = 1.0
        while k < 40.0 and abs(term) > 1e-17:
            term *= -(2.0 * k - 1.0) * w
            total += term
            k += 1.0
        r = total * INV_SQRT_PI / x
    if a == LOG_NDTR:
        return math.log(0.5 * r) - x * x
    return r


def ndtri(x, a, b):
    """The inverse of ``ndtr``: ``-inf`` at 0, ``inf`` at 1, nan outside [0, 1]."""
    if not 0.0 <= x <= 1.0:
        return NAN
    if x == 0.0:
        return -INF
    if x == 1.0:
        return INF
    if x == 0.5:
        return 0.0
    q = x if x <= 0.5 else 1.0 - x           # exact for x >= 0.5 (Sterbenz)
    t = math.sqrt(-2.0 * math.log(q))
    z = -(t - (2.515517 + t * (0.802853 + t * 0.010328))
          / (1.0 + t * (1.432788 + t * (0.189269 + t * 0.001308))))
    for _ in range(4):
        density = math.exp(-0.5 * z * z) / SQRT_2PI
        if density == 0.0:
            break
        u = (0.5 * math.erfc(-z * SQRT1_2) - q) / density
        z -= u / (1.0 + 0.5 * z * u)
    return z if x <= 0.5 else -z


def entr(x, a, b):
    """``-x log(x)``: 0 at 0, ``-inf`` below 0 (as PyTorch)."""
    if x != x:
        return NAN
    if x > 0.0:
        return -INF if x == INF else -x * math.log(x)
    return 0.0 if x == 0.0 else -INF


UNARY = {f.__name__: f for f in (bessel_i, normal_tail, ndtri, entr)}
