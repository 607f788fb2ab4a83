"""Elementwise extras and special functions: exp2 ... xlog1py, erf ... logit.

Each op is one stanza: the forward is a backend call (numpy's ufunc or a shared
scalar formula, ``backend/formulas.py``, on the CPU; a CUDA kernel of the same
formula on the GPU), the derivative is written in eagerad ops, so every order
works (``digamma``'s derivative is ``polygamma(1, x)``, ``polygamma(n)``'s is
``polygamma(n + 1)``), and the same linear rule serves vjp and jvp.  Edge values
and subgradients follow PyTorch: ``xlogy(0, 0) = 0``, ``lgamma`` is ``inf`` at its
poles, ``fmax``/``fmin`` send the whole gradient to the operand they return.

>>> import eagerad
>>> from eagerad import ops
>>> x = eagerad.tensor([1.0], dtype=eagerad.float64, requires_grad=True)
>>> (g,) = eagerad.autograd.grad(ops.lgamma(x), x, create_graph=True)
>>> round(g.item(), 6), round(eagerad.autograd.grad(g, x)[0].item(), 6)   # -gamma, pi^2/6
(-0.577216, 1.644934)
"""
import math

import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .math import (as_tensor, broadcastable, cos, exp, isfinite, isnan, log, logical_and,
                   logical_not, logical_or, operands, sigmoid, sign, where)
from .decompositions import configured_primitive
from .registry import METHODS, OPS, Case, U, defop, export

LN2, LN10 = math.log(2.0), math.log(10.0)
SQRT_PI = math.sqrt(math.pi)
SHAPES = ((2, 3), (), (0, 2))
PAIRS = (((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((0, 3), (3,)))


def float_tensor(x):
    """``x`` as a floating Tensor (integers and bools become the default float).

    >>> float_tensor([1, 2]).dtype
    dtype('float32')
    """
    x = as_tensor(x)
    return x if x.dtype.kind == "f" else x.astype(dt.default_float)


def unary_cases(domain=None, **kw):
    """Gradcheck cases of an elementwise op: a matrix, a scalar and an empty array, with
    inputs drawn from ``domain`` (keywords of ``U``) and the op's keywords ``kw``.

    >>> unary_cases(dict(low=0.5), beta=2.0)[0]
    Case((2, 3),){'beta': 2.0}
    """
    return [Case(U(*shape, **(domain or {})), **kw) for shape in SHAPES]


def linear(partial):
    """vjp and jvp rules of an elementwise op from one rule linear in its first argument
    (the cotangent or the tangent): they are the same map.

    >>> vjp, jvp = linear(lambda g, ans, x: g * 2)
    >>> vjp is jvp
    True
    """
    return partial, partial


def unary(name, forward, derivative, domain=None, cases=None, **kw):
    """An elementwise op whose derivative is ``derivative(x, ans, **params)`` (a Tensor
    or number), multiplied into the incoming cotangent or tangent.

    >>> op = unary("doc_cube", lambda B, x: B.binary("pow", x, 3), lambda x, ans: 3 * x * x)
    >>> op(eagerad.tensor([2.0])).tolist(), op.elementwise
    ([8.0], True)
    >>> del OPS["doc_cube"]
    """
    rule = lambda g, ans, x, **params: g * derivative(x, ans, **params)   # noqa: E731
    return defop(name, forward, *linear(rule), cases=unary_cases(domain) if cases is None else cases,
                 elementwise=True, **kw)


def formula(name, *params):
    """The forward of a unary op that runs backend formula ``name``; ``params`` name the
    op's keywords passed as the formula's parameters ``a``, ``b``."""
    def forward(B, x, **kw):
        return B.special_unary(name, x, *(kw[p] for p in params))
    return forward


def binary(name, dx, dy, x=None, y=None, **kw):
    """A broadcasting elementwise op of two operands with rules ``dx``, ``dy`` (linear in
    their first argument); ``x``/``y`` (keywords of ``U``) are where its inputs lie."""
    x, y = x or {}, y or {}
    cases = [Case(U(*a, **x), U(*b, **y)) for a, b in PAIRS] + [Case(U(2, 3, **x), 1.5)]
    return defop(name, lambda B, a, b: B.special_binary(name, a, b), vjp=(dx, dy), jvp=(dx, dy),
                 cases=cases, elementwise=True, **kw)


def apply_binary(op, name, x, y, floating=True):
    """``op(x, y)`` after making the operands tensors of one dtype (Python numbers stay
    weak, integers become floats unless ``floating`` is False), as ``add`` does.

    >>> apply_binary(OPS["hypot"], "hypot", eagerad.ones(2), eagerad.ones(3))
    Traceback (most recent call last):
    ValueError: hypot: shapes (2,) and (3,) cannot be broadcast together
    """
    x, y = operands(name, x, y, floating)
    if isinstance(x, Tensor) and isinstance(y, Tensor) and not broadcastable(x.shape, y.shape):
        raise ValueError(f"{name}: shapes {x.shape} and {y.shape} cannot be broadcast together")
    return op(x, y)


_POSITIVE = dict(low=0.5, high=2.0)
_OFF_ZERO = dict(low=0.2, high=1.0, signed=True)

# ----------------------------------------------------------------- elementwise
_exp2 = unary("exp2", formula("exp2"), lambda x, ans: ans * LN2, saves=(), save_output=True)
_log2 = unary("log2", formula("log2"), lambda x, ans: 1 / (x * LN2), _POSITIVE)
_log10 = unary("log10", formula("log10"), lambda x, ans: 1 / (x * LN10), _POSITIVE)
_rsqrt = unary("rsqrt", lambda B, x: B.unary("reciprocal", B.unary("sqrt", x)),
               lambda x, ans: -0.5 * ans * ans * ans, _POSITIVE, saves=(), save_output=True)


def _sinc_derivative(x, ans):
    # (cos(pi x) - sinc(x)) / x, and 0 at x = 0 (as PyTorch); the denominator is kept
    # away from 0 so that no inf reaches the second derivative
    safe = where(x == 0, 1.0, x)
    return where(x == 0, 0.0, (cos(math.pi * safe) - ans) / safe)


_sinc = unary("sinc", formula("sinc"), _sinc_derivative, save_output=True)
_DEG = math.pi / 180
_deg2rad = unary("deg2rad", lambda B, x: B.binary("mul", x, _DEG), lambda x, ans: _DEG, saves=())
_rad2deg = unary("rad2deg", lambda B, x: B.binary("mul", x, 1 / _DEG), lambda x, ans: 1 / _DEG,
                 saves=())


def _nan_to_num_forward(B, x, nan, posinf, neginf):
    out = B.where(B.binary("eq", x, -math.inf), neginf, x)
    out = B.where(B.binary("eq", x, math.inf), posinf, out)
    return B.where(B.unary("isnan", x), nan, out)


_nan_to_num = unary("nan_to_num", _nan_to_num_forward,
                    lambda x, ans, **kw: isfinite(x),
                    cases=unary_cases(nan=0.0, posinf=1.0, neginf=-1.0))


def _atan2_norm(y, x):
    """``x^2 + y^2``, with inf at (0, 0): there atan2 has no derivative and both partials
    are 0, as PyTorch's (a finite number where ``g * x / 0`` would be nan)."""
    d = x * x + y * y
    return where(d == 0, math.inf, d)


def _atan2_dy(g, ans, y, x):
    return g * x / _atan2_norm(y, x)


def _atan2_dx(g, ans, y, x):
    return -g * y / _atan2_norm(y, x)


_atan2 = defop("atan2", lambda B, y, x: B.binary("atan2", y, x), vjp=(_atan2_dy, _atan2_dx),
               jvp=(_atan2_dy, _atan2_dx), elementwise=True,
               cases=[Case(U(*a, **_OFF_ZERO), U(*b, **_OFF_ZERO)) for a, b in PAIRS]
               + [Case(U(2, 3), 1.5)])
_hypot = binary("hypot", lambda g, ans, x, y: g * x / ans, lambda g, ans, x, y: g * y / ans,
                _OFF_ZERO, _OFF_ZERO, save_output=True)
_logaddexp = binary("logaddexp", lambda g, ans, x, y: g * sigmoid(x - y),
                    lambda g, ans, x, y: g * sigmoid(y - x))
_logaddexp2 = binary("logaddexp2", lambda g, ans, x, y: g * sigmoid((x - y) * LN2),
                     lambda g, ans, x, y: g * sigmoid((y - x) * LN2))


def _picks_x(x, y, compare):
    """Where fmax/fmin return x: it wins the comparison, or y is nan."""
    return logical_or(compare(x, y), isnan(y))


_fmax = binary("fmax", lambda g, ans, x, y: g * _picks_x(x, y, lambda a, b: a >= b),
               lambda g, ans, x, y: g * logical_not(_picks_x(x, y, lambda a, b: a >= b)))
_fmin = binary("fmin", lambda g, ans, x, y: g * _picks_x(x, y, lambda a, b: a <= b),
               lambda g, ans, x, y: g * logical_not(_picks_x(x, y, lambda a, b: a <= b)))
# d/dx copysign(x, y) = sign(x) sign(y) (0 at x = 0); no gradient to y (as PyTorch)
_copysign = binary("copysign", lambda g, ans, x, y: g * sign(x) * sign(ans),
                   lambda g, ans, x, y: g * 0, _OFF_ZERO, _OFF_ZERO, save_output=True)


def _xlog_dx(fn, edge):
    """d/dx of x log(y) (``fn`` = xlogy) or x log1p(y) as PyTorch writes it: ``fn(g, y)``,
    and 0 where x == 0 and y is at or below the edge of log's domain."""
    def rule(g, ans, x, y):
        return where(logical_and(x == 0, y <= edge), 0.0, fn(g, y))
    return rule


_xlogy = binary("xlogy", _xlog_dx(lambda g, y: xlogy(g, y), 0.0),
                lambda g, ans, x, y: g * x / y, y=_POSITIVE)
_entr = unary("entr", formula("entr"), lambda x, ans: -(1 + log(x)), _POSITIVE)
_xlog1py = binary("xlog1py", _xlog_dx(lambda g, y: xlog1py(g, y), -1.0),
                  lambda g, ans, x, y: g * x / (1 + y), y=dict(low=-0.5, high=1.0))

# ------------------------------------------------------------------ special
_erf = unary("erf", formula("erf"), lambda x, ans: (2 / SQRT_PI) * exp(-x * x))
_erfc = unary("erfc", formula("erfc"), lambda x, ans: (-2 / SQRT_PI) * exp(-x * x))
_erfinv = unary("erfinv", formula("erfinv"), lambda x, ans: (SQRT_PI / 2) * exp(ans * ans),
                dict(low=-0.9, high=0.9), saves=(), save_output=True)
_lgamma = unary("lgamma", formula("lgamma"), lambda x, ans: digamma(x),
                cases=unary_cases(_POSITIVE) + [Case(U(3, low=-2.8, high=-2.2))])
_digamma = unary("digamma", formula("digamma"), lambda x, ans: polygamma(1, x),
                 cases=unary_cases(_POSITIVE) + [Case(U(3, low=-1.8, high=-1.2))])


def _polygamma_forward(B, x, n):
    return B.special_unary("digamma", x) if n == 0 else B.special_unary("polygamma", x, n)


_polygamma = unary("polygamma", _polygamma_forward, lambda x, ans, n: polygamma(n + 1, x),
                   cases=[Case(U(2, 3, **_POSITIVE), n=1), Case(U(**_POSITIVE), n=2),
                          Case(U(0, 2), n=1), Case(U(4, **_POSITIVE), n=0),
                          Case(U(3, low=-1.8, high=-1.2), n=3)])


def _logit_derivative(x, ans, eps):
    d = 1 / (x * (1 - x))
    return d if eps < 0 else where(logical_or(x < eps, x > 1 - eps), 0.0, d)


_logit = unary("logit", formula("logit", "eps"), _logit_derivative,
               cases=unary_cases(dict(low=0.2, high=0.8), eps=-1.0)
               + [Case(U(2, 3, low=0.02, high=0.98), eps=0.3)])

# ------------------------------------------------------------- public names


@export(methods=("exp2",))
def exp2(x):
    """``2 ** x`` elementwise.

    >>> print(exp2(eagerad.tensor([3.0, -1.0])))
    [8.  0.5]
    """
    return _exp2(float_tensor(x))


@export(methods=("log2",))
def log2(x):
    """Base-2 logarithm (``-inf`` at 0, nan below).

    >>> print(log2(eagerad.tensor([8.0, 0.5])))
    [ 3. -1.]
    """
    return _log2(float_tensor(x))


@export(methods=("log10",))
def log10(x):
    """Base-10 logarithm (``-inf`` at 0, nan below).

    >>> print(log10(eagerad.tensor([100.0, 0.1], dtype=eagerad.float64)))
    [ 2. -1.]
    """
    return _log10(float_tensor(x))


@export(methods=("rsqrt",), primitive="Rsqrt")
def rsqrt(x):
    """``1 / sqrt(x)``, e.g. for normalising by a standard deviation.

    >>> print(rsqrt(eagerad.tensor([4.0, 0.25])))
    [0.5 2. ]
    """
    return _rsqrt(float_tensor(x))


@export(methods=("sinc",), primitive="Sinc")
def sinc(x):
    """Normalised sinc ``sin(pi x) / (pi x)``, 1 at 0 (numpy's and PyTorch's).

    >>> print(sinc(eagerad.tensor([0.0, 0.5])))
    [1.     0.6366]
    """
    return _sinc(float_tensor(x))


@export(methods=("deg2rad",), aliases=("radians",))
def deg2rad(x):
    """Degrees to radians.

    >>> print(deg2rad(eagerad.tensor([180.0])))
    [3.1416]
    """
    return _deg2rad(float_tensor(x))


@export(methods=("rad2deg",), aliases=("degrees",))
def rad2deg(x):
    """Radians to degrees.

    >>> print(rad2deg(eagerad.tensor([math.pi / 2])))
    [90.]
    """
    return _rad2deg(float_tensor(x))


@export(methods=("nan_to_num",))
def nan_to_num(x, nan=0.0, posinf=None, neginf=None):
    """nan, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (by default 0 and
    the largest and lowest finite values of the dtype, as numpy); the gradient is 0 at
    the replaced entries (as PyTorch).

    >>> print(nan_to_num(eagerad.tensor([float('nan'), float('inf'), 1.0]), posinf=9.0))
    [0. 9. 1.]
    """
    x = float_tensor(x)
    info = np.finfo(x.dtype)
    return _nan_to_num(x, nan=float(nan),
                       posinf=float(info.max if posinf is None else posinf),
                       neginf=float(info.min if neginf is None else neginf))




@export(methods=("atan2", "arctan2"), primitive="Atan2", aliases=("arctan2",))
def atan2(y, x):
    """The angle of the point ``(x, y)``: ``atan(y / x)`` in the right quadrant, with
    gradients for both arguments (nan at the origin, as PyTorch).

    >>> print(atan2(eagerad.tensor([1.0, 1.0]), eagerad.tensor([1.0, -1.0])))
    [0.7854 2.3562]
    """
    return apply_binary(_atan2, "atan2", y, x)




@export(methods=("hypot",), primitive="Hypot")
def hypot(x, y):
    """``sqrt(x**2 + y**2)`` without overflow or underflow in between.

    >>> print(hypot(eagerad.tensor([3.0]), 4.0))
    [5.]
    """
    return apply_binary(_hypot, "hypot", x, y)




@export(methods=("logaddexp",))
def logaddexp(x, y):
    """``log(exp(x) + exp(y))`` computed without overflow (log-space probabilities).

    >>> print(logaddexp(eagerad.tensor([1000.0, 0.0]), 0.0))
    [1000.        0.6931]
    """
    return apply_binary(_logaddexp, "logaddexp", x, y)




@export(methods=("logaddexp2",))
def logaddexp2(x, y):
    """``log2(2**x + 2**y)`` computed without overflow.

    >>> print(logaddexp2(eagerad.tensor([3.0]), 3.0))
    [4.]
    """
    return apply_binary(_logaddexp2, "logaddexp2", x, y)




@export(methods=("fmax",))
def fmax(x, y):
    """Elementwise maximum that ignores nan (the other operand is returned; nan only if
    both are).  The gradient goes to the returned operand, to ``x`` on ties (PyTorch).

    >>> print(fmax(eagerad.tensor([1.0, float('nan')]), eagerad.tensor([float('nan'), 2.0])))
    [1. 2.]
    """
    return apply_binary(_fmax, "fmax", x, y, floating=False)




@export(methods=("fmin",))
def fmin(x, y):
    """Elementwise minimum that ignores nan (see ``fmax``).

    >>> print(fmin(eagerad.tensor([1.0, float('nan')]), 0.5))
    [0.5 0.5]
    """
    return apply_binary(_fmin, "fmin", x, y, floating=False)




@export(methods=("copysign",))
def copysign(x, y):
    """``|x|`` with the sign of ``y``; ``y`` gets no gradient (as PyTorch).

    >>> print(copysign(eagerad.tensor([1.0, -2.0]), -0.0))
    [-1. -2.]
    """
    return apply_binary(_copysign, "copysign", x, y)




@export(methods=("xlogy",), primitive="Xlogy")
def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (even at ``y == 0``; nan if ``y`` is nan), as in
    entropy terms ``p log p``.

    >>> print(xlogy(eagerad.tensor([0.0, 2.0]), eagerad.tensor([0.0, 1.0])))
    [0. 0.]
    """
    return apply_binary(_xlogy, "xlogy", x, y)




@export
def xlog1py(x, y):
    """``x * log1p(y)``, 0 where ``x == 0`` (nan if ``y`` is nan), as scipy and PyTorch.

    >>> print(xlog1py(eagerad.tensor([0.0, 1.0]), eagerad.tensor([-1.0, 0.0])))
    [0. 0.]
    """
    return apply_binary(_xlog1py, "xlog1py", x, y)


@export
def entr(x):
    """The elementwise entropy term ``-x log(x)``: 0 at 0, ``-inf`` for negative ``x`` (as
    PyTorch and scipy); its derivative is ``-(1 + log(x))``.

    >>> print(entr(eagerad.tensor([0.0, 0.5, -1.0])))
    [0.     0.3466   -inf]
    """
    return _entr(float_tensor(x))


@export(methods=("erf",), primitive="Erf")
def erf(x):
    """The error function ``2/sqrt(pi) * integral_0^x exp(-t^2) dt``.

    >>> print(erf(eagerad.tensor([0.0, 1.0])))
    [0.     0.8427]
    """
    return _erf(float_tensor(x))


@export(methods=("erfc",), primitive="Erfc")
def erfc(x):
    """``1 - erf(x)``, accurate where erf is close to 1.

    >>> print(erfc(eagerad.tensor([0.0, 5.0])))
    [1.000e+00 1.537e-12]
    """
    return _erfc(float_tensor(x))


@export(methods=("erfinv",), primitive="Erfinv")
def erfinv(x):
    """Inverse of ``erf`` on (-1, 1); +-inf at +-1, nan outside (as PyTorch).

    >>> print(erfinv(eagerad.tensor([0.0, 0.5])))
    [0.     0.4769]
    """
    return _erfinv(float_tensor(x))


@export(methods=("lgamma",), primitive="Lgamma", aliases=("gammaln",))
def lgamma(x):
    """``log |Gamma(x)|``; ``inf`` at the poles 0, -1, -2, ... Its derivative is ``digamma``.

    >>> print(lgamma(eagerad.tensor([1.0, 5.0])))
    [0.    3.178]
    """
    return _lgamma(float_tensor(x))


@export(methods=("digamma",), primitive="Digamma", aliases=("psi",))
def digamma(x):
    """``d/dx lgamma(x)``; ``-inf`` at 0, nan at negative integers (as PyTorch).

    >>> print(digamma(eagerad.tensor([1.0])))
    [-0.5772]
    """
    return _digamma(float_tensor(x))


@export(primitive="Polygamma")
def polygamma(n, x):
    """The ``n``-th derivative of ``digamma`` (``n = 0`` is digamma itself); its
    derivative is ``polygamma(n + 1, x)``.  PyTorch's argument order.

    >>> print(polygamma(1, eagerad.tensor([1.0])))      # pi^2 / 6
    [1.6449]
    """
    if isinstance(n, Tensor):
        n = n.item()
    if isinstance(n, bool) or int(n) != n or n < 0:
        raise ValueError(f"polygamma: n must be a non-negative integer, got {n!r}")
    return _polygamma(float_tensor(x), n=int(n))


def _polygamma_method(self, n):
    """``x.polygamma(n)`` is ``polygamma(n, x)`` (PyTorch's Tensor method).

    >>> print(eagerad.tensor([1.0]).polygamma(0))
    [-0.5772]
    """
    return polygamma(n, self)


METHODS["polygamma"] = _polygamma_method


@export(methods=("logit",))
def logit(x, eps=None):
    """``log(x / (1 - x))``, the inverse of sigmoid; with ``eps``, ``x`` is first clamped to
    ``[eps, 1 - eps]`` and the gradient is 0 outside that interval (as PyTorch).

    >>> print(logit(eagerad.tensor([0.5, 0.0]), eps=1e-6))
    [  0.     -13.8155]
    """
    if eps is not None and not 0 <= eps <= 0.5:
        raise ValueError(f"logit: eps must lie in [0, 0.5], got {eps!r}")
    return _logit(float_tensor(x), eps=-1.0 if eps is None else float(eps))


# MindSpore's ``ops.Logit(eps=-1.0)``: a negative eps means no clamping
def _logit_ms(x, eps):
    return logit(x, eps if eps >= 0 else None)


configured_primitive("Logit", _logit_ms, eps=-1.0)
