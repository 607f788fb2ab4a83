"""Modified Bessel functions of the first kind: ``i0``, ``i1`` and their exponentially
scaled forms ``i0e = exp(-|x|) i0``, ``i1e = exp(-|x|) i1`` (PyTorch's ``torch.special``,
MindSpore's ``ops.bessel_i0`` ...).

One op of integer order ``n`` (``backend/special_formulas.bessel_i``) computes all four;
its derivative is written with the op itself, ``I_n' = (I_(n-1) + I_(n+1)) / 2`` (and
``-sign(x)`` times the scaled function more for the scaled ones), so every order of
derivative is right, at 0 too (PyTorch's ``i0 - i1 / x`` needs a patch there).

>>> import eagerad
>>> x = eagerad.tensor([1.0], dtype=eagerad.float64, requires_grad=True)
>>> (g,) = eagerad.autograd.grad(i0(x), x, create_graph=True)
>>> round(g.item(), 9), round(eagerad.autograd.grad(g, x)[0].item(), 9)   # I1(1), I0(1) - I1(1)
(0.565159104, 0.700906774)
"""
from .math import sign
from .registry import Case, U, defop, export
from .special import float_tensor


def _forward(B, x, n, scaled):
    return B.special_unary("bessel_i", x, float(n), float(scaled))


def _derivative(g, ans, x, n, scaled):
    # I_n' = (I_(n-1) + I_(n+1)) / 2 with I_(-1) = I_1: no division by x, so every order is
    # right at 0 too; exp(-|x|) I_n adds -sign(x) times itself
    d = _bessel(x, 1, scaled) if n == 0 else 0.5 * (_bessel(x, n - 1, scaled)
                                                   + _bessel(x, n + 1, scaled))
    return g * (d - sign(x) * ans if scaled else d)


_SIGNED = dict(low=0.1, high=3.0, signed=True)
_bessel_i = defop("bessel_i", _forward, vjp=_derivative, jvp=_derivative, save_output=True,
                  elementwise=True,
                  cases=[Case(U(2, 3, **_SIGNED), n=0, scaled=False),
                         Case(U(**_SIGNED), n=1, scaled=False), Case(U(0, 2), n=1, scaled=True),
                         Case(U(4, **_SIGNED), n=2, scaled=True),
                         Case(U(3, low=20.0, high=30.0), n=1, scaled=False),
                         Case(U(3, low=20.0, high=30.0), n=3, scaled=True)])


def _bessel(x, n, scaled):
    return _bessel_i(x, n=n, scaled=scaled)


@export(methods=("i0",), aliases=("bessel_i0",))
def i0(input):
    """``I0(x)``, the modified Bessel function of the first kind of order 0 (e.g. the
    Kaiser window); even, ``I0(0) = 1``.

    >>> import eagerad
    >>> print(i0(eagerad.tensor([0.0, 1.0])))
    [1.     1.2661]
    """
    return _bessel(float_tensor(input), 0, False)


@export(aliases=("bessel_i1",))
def i1(input):
    """``I1(x)``, the modified Bessel function of the first kind of order 1; odd.

    >>> import eagerad
    >>> print(i1(eagerad.tensor([-1.0, 0.0])))
    [-0.5652  0.    ]
    """
    return _bessel(float_tensor(input), 1, False)


@export(aliases=("bessel_i0e",))
def i0e(input):
    """``exp(-|x|) I0(x)``: finite where ``I0`` overflows (``|x|`` beyond about 713).

    >>> import eagerad
    >>> print(i0e(eagerad.tensor([0.0, 1000.0], dtype=eagerad.float64)))
    [1.     0.0126]
    """
    return _bessel(float_tensor(input), 0, True)


@export(aliases=("bessel_i1e",))
def i1e(input):
    """``exp(-|x|) I1(x)``: finite where ``I1`` overflows.

    >>> import eagerad
    >>> print(i1e(eagerad.tensor([1.0])))
    [0.2079]
    """
    return _bessel(float_tensor(input), 1, True)
