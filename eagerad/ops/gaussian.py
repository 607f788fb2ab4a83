"""The standard normal distribution's functions and the scaled complementary error
function: ``ndtr`` (the distribution function), ``log_ndtr``, ``ndtri`` (its inverse) and
``erfcx(x) = exp(x^2) erfc(x)`` (PyTorch's ``torch.special`` names, as scipy's).

Each forward is one backend formula (``backend/special_formulas``) that keeps full
relative precision in the tails (``log_ndtr(-40)``, ``ndtri(1e-300)``); the derivatives
are written with eagerad ops: ``ndtr' = phi``, ``log_ndtr' = phi / ndtr``,
``ndtri' = 1 / phi(ndtri)``, ``erfcx' = 2 x erfcx - 2 / sqrt(pi)``.

>>> import eagerad
>>> p = eagerad.tensor([0.975], dtype=eagerad.float64, requires_grad=True)
>>> round(ndtri(p).item(), 6), round(eagerad.autograd.grad(ndtri(p), p)[0].item(), 4)
(1.959964, 17.1101)
"""
import math

from ..backend.special_formulas import ERFCX, LOG_NDTR, NDTR
from .math import exp
from .registry import Case, U, export
from .special import float_tensor, unary, unary_cases

_SQRT_2PI = math.sqrt(2 * math.pi)
_WIDE = unary_cases(dict(low=-3.0, high=3.0)) + [Case(U(3, low=-30.0, high=-5.0))]


def _tail(which):
    return lambda B, x: B.special_unary("normal_tail", x, which, 0.0)


_erfcx = unary("erfcx", _tail(ERFCX), lambda x, ans: 2 * x * ans - 2 / math.sqrt(math.pi),
               cases=_WIDE[:-1] + [Case(U(3, low=11.0, high=30.0))], save_output=True)
_ndtr = unary("ndtr", _tail(NDTR), lambda x, ans: exp(-0.5 * x * x) / _SQRT_2PI, cases=_WIDE)
_log_ndtr = unary("log_ndtr", _tail(LOG_NDTR),
                  lambda x, ans: exp(-0.5 * x * x - ans) / _SQRT_2PI, cases=_WIDE,
                  save_output=True)
_ndtri = unary("ndtri", lambda B, x: B.special_unary("ndtri", x),
               lambda x, ans: _SQRT_2PI * exp(0.5 * ans * ans),
               cases=unary_cases(dict(low=0.02, high=0.98)), saves=(), save_output=True)


@export
def erfcx(input):
    """``exp(x^2) erfc(x)``, finite where ``erfc`` underflows (``x`` beyond about 26).

    >>> import eagerad
    >>> print(erfcx(eagerad.tensor([0.0, 30.0], dtype=eagerad.float64)))
    [1.     0.0188]
    """
    return _erfcx(float_tensor(input))


@export
def ndtr(input):
    """The standard normal distribution function ``P(Z <= x)``.

    >>> import eagerad
    >>> print(ndtr(eagerad.tensor([0.0, 1.959964])))
    [0.5   0.975]
    """
    return _ndtr(float_tensor(input))


@export
def log_ndtr(input):
    """``log(ndtr(x))``, accurate far into the lower tail where ``ndtr`` underflows.

    >>> import eagerad
    >>> print(log_ndtr(eagerad.tensor([0.0, -40.0], dtype=eagerad.float64)))
    [-6.93147181e-01 -8.04608442e+02]
    """
    return _log_ndtr(float_tensor(input))


@export
def ndtri(input):
    """The inverse of ``ndtr`` (the normal quantile): ``-inf`` at 0, ``inf`` at 1, nan
    outside ``[0, 1]``.

    >>> import eagerad
    >>> print(ndtri(eagerad.tensor([0.5, 0.975])))
    [0.    1.96]
    """
    return _ndtri(float_tensor(input))
