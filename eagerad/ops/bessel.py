"""Modified Bessel functions of the first kind: ``i0``, ``i1`` and their exponentially
scaled forms ``i0e = exp(-|x|) i0``, ``i1e = exp(-|x|) i1`` (PyTorch's ``torch.special``,
MindSpore's ``ops.bessel_i0`` ...).

One backend formula (``backend/special_formulas.bessel_i``) computes all four; the
derivatives are written with the four ops themselves, so every order works:
``i0' = i1``, ``i1' = i0 - i1 / x`` (1/2 at 0), ``i0e' = i1e - sign(x) i0e`` and
``i1e' = i0e - i1e (sign(x) + 1/x)`` (1/2 at 0), as PyTorch's rules.

>>> import eagerad
>>> x = eagerad.tensor([1.0], dtype=eagerad.float64, requires_grad=True)
>>> (g,) = eagerad.autograd.grad(i0(x), x, create_graph=True)
>>> round(g.item(), 9), round(eagerad.autograd.grad(g, x)[0].item(), 9)   # I1(1), I0(1) - I1(1)
(0.565159104, 0.700906774)
"""
from .math import sign, where
from .registry import Case, U, export
from .special import float_tensor, unary, unary_cases

_CASES = unary_cases(dict(low=0.1, high=3.0, signed=True)) + [Case(U(3, low=20.0, high=30.0))]


def _bessel(order, scaled):
    return lambda B, x: B.special_unary("bessel_i", x, float(order), float(scaled))


def _safe_reciprocal(x):
    """``1/x`` away from 0 and 0 at 0, so that no inf reaches a later derivative."""
    return where(x == 0, 0.0, 1 / where(x == 0, 1.0, x))


def _i1_derivative(x, ans):
    return where(x == 0, 0.5, i0(x) - ans * _safe_reciprocal(x))


def _i1e_derivative(x, ans):
    return where(x == 0, 0.5, i0e(x) - ans * (sign(x) + _safe_reciprocal(x)))


_i0 = unary("i0", _bessel(0, False), lambda x, ans: i1(x), cases=_CASES)
_i1 = unary("i1", _bessel(1, False), _i1_derivative, cases=_CASES, save_output=True)
_i0e = unary("i0e", _bessel(0, True), lambda x, ans: i1e(x) - sign(x) * ans, cases=_CASES,
             save_output=True)
_i1e = unary("i1e", _bessel(1, True), _i1e_derivative, cases=_CASES, save_output=True)


@export(methods=("i0",), aliases=("bessel_i0",))
def i0(input):
    """``I0(x)``, the modified Bessel function of the first kind of order 0 (e.g. the
    Kaiser window); even, ``I0(0) = 1``.

    >>> import eagerad
    >>> print(i0(eagerad.tensor([0.0, 1.0])))
    [1.     1.2661]
    """
    return _i0(float_tensor(input))


@export(aliases=("bessel_i1",))
def i1(input):
    """``I1(x)``, the modified Bessel function of the first kind of order 1; odd.

    >>> import eagerad
    >>> print(i1(eagerad.tensor([-1.0, 0.0])))
    [-0.5652  0.    ]
    """
    return _i1(float_tensor(input))


@export(aliases=("bessel_i0e",))
def i0e(input):
    """``exp(-|x|) I0(x)``: finite where ``I0`` overflows (``|x|`` beyond about 713).

    >>> import eagerad
    >>> print(i0e(eagerad.tensor([0.0, 1000.0], dtype=eagerad.float64)))
    [1.     0.0126]
    """
    return _i0e(float_tensor(input))


@export(aliases=("bessel_i1e",))
def i1e(input):
    """``exp(-|x|) I1(x)``: finite where ``I1`` overflows.

    >>> import eagerad
    >>> print(i1e(eagerad.tensor([1.0])))
    [0.2079]
    """
    return _i1e(float_tensor(input))
