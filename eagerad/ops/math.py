"""Elementwise ops: one ``defop`` line each, forward + vjp + jvp side by side.

Rules are written with the ops defined here, so they are differentiable again.

>>> import eagerad
>>> from eagerad import ops
>>> ops.sin(eagerad.tensor([0.0]))
tensor([0.])
"""
import numbers

import numpy as np

from .. import dtype as dt
from ..autograd import batching
from ..backend import formulas
from ..tensor import Tensor
from .registry import Case, SameDtype, U, apply, defop, export


def _each_shape(**domain):
    """Gradcheck cases of an elementwise op: a matrix, a scalar and an empty array."""
    return [Case(U(*shape, **domain)) for shape in ((2, 3), (), (0, 2))]


def _pairs(x=None, y=None):
    """Binary gradcheck cases: equal shapes, broadcasting, scalars, empty, a Python number."""
    x, y = x or {}, y or {}
    shapes = (((2, 3), (2, 3)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 3)), ((), ()),
              ((0, 3), (3,)))
    return [Case(U(*a, **x), U(*b, **y)) for a, b in shapes] + [Case(U(2, 3, **x), 1.5)]


def _unary(name, vjp=None, jvp=None, domain=None, example=None, floating=True, primitive=None,
           methods=None, aliases=(), **kw):
    """An elementwise op and its public function (returned; the op is ``fn.op``).

    ``domain`` (keywords of ``U``) is where its gradcheck inputs lie; ``example`` what
    the function gives at 0.5 (or ``(input, output)``), for its doctest; ``floating``
    whether integer inputs become float first; ``primitive``, ``methods`` (default: the
    name) and ``aliases`` its other public names (``export``)."""
    cases = _each_shape(**(domain or {})) if vjp is not None else None
    op = defop(name, lambda B, x: B.unary(name, x), vjp=vjp, jvp=jvp, cases=cases,
               elementwise=True, kernel=("unary", name), **kw)

    def fn(x):
        if type(x) is not Tensor and not isinstance(x, Tensor):
            x = as_tensor(x)
        if floating and x._data.dtype.kind not in "fc":
            x = x.astype(dt.default_float)
        return op.apply1(x)     # ``op(x)`` without its extra calls (made at first use)
    x, out = example if isinstance(example, tuple) else ("0.5", example)
    fn.__name__, fn.op = name, op
    fn.__doc__ = f"Elementwise ``{name}``.\n\n    >>> print({name}(eagerad.tensor([{x}])))\n    {out}\n"
    return export(fn, methods=(name,) if methods is None else methods, primitive=primitive,
                  aliases=aliases)


def _linear(rule):
    """A rule that is the same linear map for cotangents and tangents."""
    return rule, rule


# ---------------------------------------------------------------- unary
_POSITIVE = dict(low=0.5, high=2.0)
_INSIDE_UNIT = dict(low=-0.7, high=0.7)
_OFF_ZERO = dict(low=0.2, high=1.0, signed=True)
def _arrays(*rules):
    """Array-level first-order rules (``fast=``): the vjp rules' arithmetic on the
    backend ``B`` without per-op dispatch, writing into their own temporaries
    (``B.inplace``; ``a * b == b * a`` exactly in IEEE arithmetic).  They run only
    where every array has g's dtype (``SameDtype``), so numpy computes exactly what
    the Tensor rule computes."""
    return SameDtype(rules)


neg = _unary("neg", *_linear(lambda g, ans, x: -g), saves=(),
             fast=_arrays(lambda B, g, ans, x: B.unary("neg", g)),
             example="[-0.5]", primitive="Neg", floating=False,
             methods=("neg", "negative"), aliases=("negative",))
exp = _unary("exp", lambda g, ans, x: g * ans, lambda t, ans, x: t * ans,
             saves=(), save_output=True, fast=_arrays(lambda B, g, ans, x: B.binary("mul", g, ans)),
             example="[1.6487]", primitive="Exp")
log = _unary("log", lambda g, ans, x: g / x, lambda t, ans, x: t / x, domain=_POSITIVE,
             example="[-0.6931]", primitive="Log")
# sin's and cos's rules are one op each, ``_sin_derivative`` (g times sin shifted by a
# quarter period), so each derivative of them records one node (see below)
sin = _unary("sin", *_linear(lambda g, ans, x: _sin_derivative(g, x, 1)),
             fast=_arrays(lambda B, g, ans, x: _sin_derivative_forward(B, g, x, 1)),
             example="[0.4794]", primitive="Sin")
cos = _unary("cos", *_linear(lambda g, ans, x: _sin_derivative(g, x, 2)),
             fast=_arrays(lambda B, g, ans, x: _sin_derivative_forward(B, g, x, 2)),
             example="[0.8776]", primitive="Cos")
tan = _unary("tan", lambda g, ans, x: g * (1 + ans * ans), lambda t, ans, x: t * (1 + ans * ans),
             saves=(), save_output=True, example="[0.5463]", primitive="Tan")
sinh = _unary("sinh", lambda g, ans, x: g * cosh(x), lambda t, ans, x: t * cosh(x),
              example="[0.5211]", primitive="Sinh")
cosh = _unary("cosh", lambda g, ans, x: g * sinh(x), lambda t, ans, x: t * sinh(x),
              example="[1.1276]", primitive="Cosh")
tanh = _unary("tanh", *_linear(lambda g, ans, x: _tanh_grad.apply2(g, ans)),
              saves=(), save_output=True,
              fast=lambda B, g, ans, x: B.fused_grad("tanh", g, ans),
              example="[0.4621]", primitive="Tanh")
atanh = _unary("atanh", lambda g, ans, x: g / (1 - x * x), lambda t, ans, x: t / (1 - x * x),
               domain=_INSIDE_UNIT, example="[0.5493]", primitive="Atanh")
asin = _unary("asin", lambda g, ans, x: g / sqrt(1 - x * x), lambda t, ans, x: t / sqrt(1 - x * x),
              domain=_INSIDE_UNIT, example="[0.5236]", primitive="Asin")
acos = _unary("acos", lambda g, ans, x: -g / sqrt(1 - x * x), lambda t, ans, x: -t / sqrt(1 - x * x),
              domain=_INSIDE_UNIT, example="[1.0472]", primitive="ACos")
atan = _unary("atan", lambda g, ans, x: g / (1 + x * x), lambda t, ans, x: t / (1 + x * x),
              example="[0.4636]", primitive="Atan")
asinh = _unary("asinh", lambda g, ans, x: g / sqrt(x * x + 1), lambda t, ans, x: t / sqrt(x * x + 1),
               example="[0.4812]", primitive="Asinh")
acosh = _unary("acosh", lambda g, ans, x: g / sqrt(x * x - 1), lambda t, ans, x: t / sqrt(x * x - 1),
               domain=dict(low=1.5, high=3.0), example=("2.0", "[1.3170]"), primitive="Acosh")
sigmoid = _unary("sigmoid", *_linear(lambda g, ans, x: _sigmoid_grad.apply2(g, ans)),
                 saves=(), save_output=True,
                 fast=lambda B, g, ans, x: B.fused_grad("sigmoid", g, ans),
                 example="[0.6225]", primitive="Sigmoid")
relu = _unary("relu", *_linear(lambda g, ans, x: formulas.relu_grad(g, x, 1)),
              fast=lambda B, g, ans, x: B.fused_grad("relu", g, x), domain=_OFF_ZERO,
              example="[0.5]", primitive="ReLU", floating=False)
def _complex_rule(name):
    """A rule of ``complex_ops`` (its module imports this one), for complex operands."""
    def rule(*args):
        from . import complex_ops
        return getattr(complex_ops, name)(*args)
    return rule


_abs_complex_vjp, _abs_complex_jvp = _complex_rule("abs_vjp"), _complex_rule("abs_jvp")
abs = _unary("abs", lambda g, ans, x: g * sign(x) if x.dtype.kind != "c" else _abs_complex_vjp(g, ans, x),
             lambda t, ans, x: t * sign(x) if x.dtype.kind != "c" else _abs_complex_jvp(t, ans, x),
             domain=_OFF_ZERO,
             example="[0.5]", primitive="Abs", floating=False)
sqrt = _unary("sqrt", lambda g, ans, x: g / (2 * ans), lambda t, ans, x: t / (2 * ans),
              saves=(), save_output=True, domain=_POSITIVE, example="[0.7071]", primitive="Sqrt")
square = _unary("square", *_linear(lambda g, ans, x: _pow_derivative(g, x, 2, 1)),
                fast=_arrays(lambda B, g, ans, x: _pow_derivative_forward(B, g, x, 2, 1)),
                example="[0.25]", primitive="Square", floating=False)
log1p = _unary("log1p", lambda g, ans, x: g / (1 + x), lambda t, ans, x: t / (1 + x),
               domain=dict(low=-0.5, high=1.0), example="[0.4055]", primitive="Log1p")
expm1 = _unary("expm1", lambda g, ans, x: g * (ans + 1), lambda t, ans, x: t * (ans + 1),
               saves=(), save_output=True, example="[0.6487]", primitive="Expm1")
reciprocal = _unary("reciprocal", lambda g, ans, x: -g * ans * ans, lambda t, ans, x: -t * ans * ans,
                    saves=(), save_output=True, domain=_OFF_ZERO,
                    example="[2.]", primitive="Reciprocal")
# piecewise constant: zero derivative everywhere it exists
_zero = _linear(lambda g, ans, x: g * 0)
sign = _unary("sign", *_zero, saves=(), domain=_OFF_ZERO,
              example="[1.]", primitive="Sign", floating=False)
floor = _unary("floor", *_zero, saves=(), domain=dict(low=1.2, high=1.8, signed=True),
               example="[0.]", primitive="Floor", floating=False)
ceil = _unary("ceil", *_zero, saves=(), domain=dict(low=1.2, high=1.8, signed=True),
              example="[1.]", primitive="Ceil", floating=False)
round = _unary("round", *_zero, saves=(), domain=dict(low=1.1, high=1.4, signed=True),
               example="[0.]", primitive="Round", floating=False)
isfinite = _unary("isfinite", example="[ True]", primitive="IsFinite", floating=False)
isnan = _unary("isnan", example="[False]", primitive="IsNan", floating=False)
logical_not = _unary("logical_not", example="[False]", primitive="LogicalNot", floating=False)

# ---------------------------------------------------------------- binary


def _binary(name, vjp=None, jvp=None, x=None, y=None, example=None, public=None, primitive=None,
            methods=None, aliases=(), forward=None, floating=False, check=None, **kw):
    """A broadcasting elementwise op and its public function (returned; the op is ``fn.op``).

    ``x``/``y`` (keywords of ``U``) are where its gradcheck inputs lie; ``example`` what
    ``public([1.0, 2.0], 2.0)`` prints; ``public`` (default ``name``) its function's name,
    which errors say; ``primitive``, ``methods`` (default: the public name) and
    ``aliases`` its other public names (``export``); ``forward`` (default: the backend's
    ``binary`` of the same name) its kernel; ``floating`` whether integers become floats;
    ``check(public, x, y)`` vets operands that are not a float tensor and a number."""
    cases = kw.pop("cases", None) or (_pairs(x, y) if vjp is not None else None)
    op = defop(name, forward or (lambda B, a, b: B.binary(name, a, b)), vjp=vjp, jvp=jvp,
               cases=cases, elementwise=True, kernel=None if forward else ("binary", name), **kw)
    public = public or name

    def fn(x, y):
        ty = type(y)
        if type(x) is not Tensor or ty is not float and ty is not int or x._data.dtype.kind != "f":
            x, y = operands(public, x, y, floating)   # (a float tensor and a number: as they are)
            if check is not None:
                check(public, x, y)
        try:
            return op.apply2(x, y)
        except ValueError:
            _check_broadcast(public, x, y)   # a clearer message for the usual cause
            raise
    fn.__name__, fn.op = public, op
    fn.__doc__ = (f"Elementwise ``{public}`` with broadcasting.\n\n"
                  f"    >>> print({public}(eagerad.tensor([1.0, 2.0]), 2.0))\n"
                  f"    {example}\n")
    return export(fn, methods=(public,) if methods is None else methods, primitive=primitive,
                  aliases=aliases)


def _tie_share(x, y, pick_x):
    """Weight of x in max/min: 1 where x wins, 1/2 on ties (as PyTorch)."""
    return pick_x * 1.0 + (x == y) * 0.5


def _truncated(q):
    """``q`` rounded toward zero (PyTorch's ``div(rounding_mode='trunc')`` of fmod's rule)."""
    return sign(q) * floor(abs(q))


def _pow_grad_base(g, ans, x, y):
    """``y * x ** (y - 1)``, and 0 where ``y == 0`` and ``x == 0`` (PyTorch's
    ``pow_backward_self`` gives 0 wherever ``y == 0``: the same first derivative, as
    ``0 * x ** -1`` is 0 at every other ``x``, while masking only the point ``0 ** 0``
    keeps the derivative in ``y`` there).  The base is replaced by 1 at that point before
    the power, so neither this value nor its own derivatives see ``0 * inf``."""
    if isinstance(y, numbers.Number):
        if y == 0:
            return g * 0
        return _pow_derivative(g, x, y, y - 1)    # g * y * x ** (y - 1) as one node
    edge = logical_and(y == 0, x == 0)
    return where(edge, 0, g * y * where(edge, 1, x) ** (y - 1))


def _pow_grad_exp(g, ans, x, y):
    """``x ** y * log(x)``, and 0 where ``x == 0`` and ``y >= 0`` (PyTorch's
    ``pow_backward_exponent``).  A negative base gives NaN, as in PyTorch: ``x ** y``
    is real there only at integer ``y`` and is not differentiable in ``y``.  A Python
    base becomes a constant of ``y``'s dtype first, so its log is taken at full
    precision (never rounded through float32)."""
    if not isinstance(x, Tensor):
        x = constant(x, y)
    edge = logical_and(x == 0, y >= 0)
    return g * where(edge, 0, ans * log(where(edge, 1, x)))


add = _binary("add", (lambda g, ans, x, y: g, lambda g, ans, x, y: g),
              (lambda t, ans, x, y: t, lambda t, ans, x, y: t), saves=(),
              fast=_arrays(lambda B, g, ans, x, y: g, lambda B, g, ans, x, y: g),
              example="[3. 4.]", primitive="Add", methods=('add',))
sub = _binary("sub", (lambda g, ans, x, y: g, lambda g, ans, x, y: -g),
              (lambda t, ans, x, y: t, lambda t, ans, x, y: -t), saves=(),
              fast=_arrays(lambda B, g, ans, x, y: g, lambda B, g, ans, x, y: B.unary("neg", g)),
              example="[-1.  0.]", primitive="Sub",
              methods=('sub', 'subtract'), aliases=('subtract',))
mul = _binary("mul", (lambda g, ans, x, y: g * y, lambda g, ans, x, y: g * x),
              (lambda t, ans, x, y: t * y, lambda t, ans, x, y: x * t),
              saves={0: (1,), 1: (0,)},   # as PyTorch: x only when y needs a gradient
              fast=_arrays(lambda B, g, ans, x, y: B.binary("mul", g, y),
                           lambda B, g, ans, x, y: B.binary("mul", g, x)),
              example="[2. 4.]", primitive="Mul",
              methods=('mul', 'multiply'), aliases=('multiply',))
div = _binary("div", (lambda g, ans, x, y: g / y, lambda g, ans, x, y: -g * x / (y * y)),
              (lambda t, ans, x, y: t / y, lambda t, ans, x, y: -t * x / (y * y)), y=_OFF_ZERO,
              saves={0: (1,), 1: (0, 1)},
              fast=_arrays(lambda B, g, ans, x, y: B.binary("div", g, y),
                           lambda B, g, ans, x, y: B.inplace(
                               "div", B.inplace("mul", B.unary("neg", g), x), B.binary("mul", y, y))),
              example="[0.5 1. ]", primitive="Div", floating=True,
              methods=('div', 'divide', 'true_divide'), aliases=('divide', 'true_divide'))
def _pow_fast_base(B, g, ans, x, y):
    if not isinstance(y, numbers.Number) or isinstance(y, bool) or y == 0:
        return None
    return _pow_derivative_forward(B, g, x, y, y - 1)


pow = _binary("pow", (_pow_grad_base, _pow_grad_exp),
              (_pow_grad_base, _pow_grad_exp), save_output=True, x=_POSITIVE,
              fast=_arrays(_pow_fast_base), example="[1. 4.]", primitive="Pow", methods=('pow',))
pow.op.cases += (Case(U(2, 3), 3), Case(U(3), 2), Case(U(2), 0))
_APART, _NEAR_ZERO = dict(low=0.5, high=1.0, signed=True), dict(low=-0.3, high=0.3)
maximum = _binary("maximum", (lambda g, ans, x, y: g * _tie_share(x, y, x > y),
                  lambda g, ans, x, y: g * _tie_share(y, x, y > x)),
      (lambda t, ans, x, y: t * _tie_share(x, y, x > y),
       lambda t, ans, x, y: t * _tie_share(y, x, y > x)), x=_APART, y=_NEAR_ZERO,
                  example="[2. 2.]", primitive="Maximum", methods=('maximum',))
minimum = _binary("minimum", (lambda g, ans, x, y: g * _tie_share(x, y, x < y),
                  lambda g, ans, x, y: g * _tie_share(y, x, y < x)),
      (lambda t, ans, x, y: t * _tie_share(x, y, x < y),
       lambda t, ans, x, y: t * _tie_share(y, x, y < x)), x=_APART, y=_NEAR_ZERO,
                  example="[1. 2.]", primitive="Minimum", methods=('minimum',))
def _integer_divisor(name, x, y):
    """ZeroDivisionError for an integer division by zero, as PyTorch (numpy gives 0)."""
    if (x if isinstance(x, Tensor) else y).dtype.kind not in "biu":
        return
    if isinstance(y, Tensor):
        zero = bool((batching.unwrap(y)[0].numpy() == 0).any())   # (the values under vmap)
    else:
        zero = y == 0
    if zero:
        raise ZeroDivisionError(f"{name}: integer division by zero (the divisor holds 0); "
                                "divide floats for inf/nan results")


floor_divide = _binary("floordiv",
                       example="[0. 1.]", primitive="FloorDiv",
                       methods=('floor_divide',), public="floor_divide", check=_integer_divisor)
remainder = _binary("mod", (lambda g, ans, x, y: g, lambda g, ans, x, y: -g * floor(x / y)),
                    (lambda t, ans, x, y: t, lambda t, ans, x, y: -t * floor(x / y)),
                    x=dict(low=2.2, high=2.8), y=dict(low=1.0, high=1.05),
                    example="[1. 0.]", primitive="Mod", methods=('remainder',), public="remainder",
                    check=_integer_divisor)
fmod = _binary("fmod", *_linear((lambda g, ans, x, y: g,
                                 lambda g, ans, x, y: -g * _truncated(x / y))),
               x=dict(low=2.2, high=2.8, signed=True), y=dict(low=1.0, high=1.05, signed=True),
               forward=lambda B, a, b: B.special_binary("fmod", a, b), floating=True,
               example="[1. 0.]")
# comparisons and logic (not differentiable); Tensor methods under PyTorch's short names
equal = _binary("eq", public="equal", example="[False  True]", primitive="Equal", methods=("eq",))
not_equal = _binary("ne", public="not_equal", example="[ True False]", primitive="NotEqual",
                    methods=("ne",))
less = _binary("lt", public="less", example="[ True False]", primitive="Less", methods=("lt",))
less_equal = _binary("le", public="less_equal", example="[ True  True]", primitive="LessEqual",
                     methods=("le",))
greater = _binary("gt", public="greater", example="[False False]", primitive="Greater",
                  methods=("gt",))
greater_equal = _binary("ge", public="greater_equal", example="[False  True]",
                        primitive="GreaterEqual", methods=("ge",))
logical_and = _binary("logical_and", example="[ True  True]", primitive="LogicalAnd")
logical_or = _binary("logical_or", example="[ True  True]", primitive="LogicalOr")
logical_xor = _binary("logical_xor", example="[False False]", primitive="LogicalXor")


def _integral(name, x, y):
    """TypeError unless the operands of a bitwise op are integers or bools (PyTorch's rule:
    ``&`` on floats is an error, never a logical and)."""
    dtype = (x if isinstance(x, Tensor) else y).dtype
    if dtype.kind not in "biu":
        raise TypeError(f"{name}: bitwise operations need integer or bool tensors, got {dtype} "
                        "(compare first, e.g. (a > 0) & (b > 0), or use logical_and)")


# integer operands for the ops' shared checks (no gradients: the ops are not differentiable)
_INT_CASES = [Case(np.array([[12, 10, -3]]), np.array([[10], [6]])), Case(np.array([5]), np.array(3))]


def _bitwise(name, example):
    fn = _binary(name, public=name, example=example, methods=(name,), check=_integral,
                 cases=_INT_CASES)
    fn.__doc__ = (f"Elementwise ``{name}`` of integer or bool tensors (``&``, ``|``, ``^``); "
                  f"floats raise TypeError.\n\n    >>> print({name}(eagerad.tensor([12, 10]), "
                  f"eagerad.tensor([10, 6])))\n    {example}\n")
    return fn


bitwise_and = _bitwise("bitwise_and", "[8 2]")
bitwise_or = _bitwise("bitwise_or", "[14 14]")
bitwise_xor = _bitwise("bitwise_xor", "[ 6 12]")
_invert = defop("bitwise_not", lambda B, x: B.unary("bitwise_not", x), elementwise=True,
                cases=[Case(np.array([[5, -1, 0]]))])


@export(methods=("bitwise_not",))
def bitwise_not(x):
    """Elementwise ``~x``: bits flipped for integers (``~5 == -6``), logical not for bools;
    floats raise TypeError (PyTorch's rule).

    >>> print(bitwise_not(eagerad.tensor([5, -1])), bitwise_not(eagerad.tensor([True, False])))
    [-6  0] [False  True]
    """
    x = as_tensor(x)
    if x.dtype.kind == "b":
        return logical_not(x)
    _integral("bitwise_not", x, None)
    return apply(_invert, (x,), {})
_mul = mul.op      # the op itself, for rule-level doctests elsewhere

# ------------------------------------------- derivative ops of tanh and sigmoid
# tanh's and sigmoid's rules as single ops whose own rules are known, so that each
# derivative of a tanh/sigmoid network (PINNs: u'' by grad of grad) records one node per
# activation instead of the three to seven of the composed formula.  Every rule of these
# ops is again one of them, to any order.


def _unit(g, a):
    """Whether ``g`` is a broadcast 1 of ``a``'s shape and dtype (the gradient of a sum, a
    backward's seed), so that ``g * a`` is ``a`` exactly."""
    return type(g) is np.ndarray and type(a) is np.ndarray and g.strides.count(0) == g.ndim \
        and g.shape == a.shape and g.dtype == a.dtype and g.size and g.flat[0] == 1


def _tanh_grad_forward(B, g, t):
    """``g * (1 - t * t)`` (``formulas.tanh_grad``) by the backend calls the composed rule
    made: the recorded path never needs a compiled kernel.  The last product goes into
    ``1 - t * t``'s fresh array where it has the result's shape and dtype (``g * d`` equals
    ``d * g`` exactly)."""
    d = B.binary("sub", 1, B.binary("mul", t, t))
    if _unit(g, d):
        return d
    if type(d) is np.ndarray and type(g) is np.ndarray and d.shape == g.shape \
            and d.dtype == g.dtype:
        return B.inplace("mul", d, g)
    return B.binary("mul", g, d)


def _sigmoid_grad_forward(B, g, s):
    """``g * s * (1 - s)`` (``formulas.sigmoid_grad``) by the composed rule's backend calls."""
    return B.binary("mul", B.binary("mul", g, s), B.binary("sub", 1, s))


def _fused_or(B, name, g, s, formula):
    """The backend's one-pass ``name`` gradient where it covers the operands (the same bits
    as the formula: tests/test_activation_derivatives_shared.py), else ``formula``'s calls;
    for the array rules, which run unrecorded."""
    if type(g) is type(s) and g.dtype == s.dtype and g.shape == s.shape and g.dtype.kind == "f":
        out = B.fused_grad(name, g, s)
        if out is not None:
            return out
    return formula(B, g, s)


def _minus2_product_forward(B, a, b, c):
    """``a * b * c * -2``: d/dt of ``g * (1 - t*t)`` times ``a`` is ``_minus2_product(a, g, t)``,
    the same bits as the composed rule's ``-(a*g)*t + -(a*g)*t`` (negating and doubling are
    exact).  The last two products go into ``a * b``'s fresh array where it has the result's
    shape and dtype (the same arithmetic, two buffers fewer); a broadcast 1 ``a`` is skipped."""
    if _unit(a, b):                       # 1 * b is b: b * c is the first fresh product
        a, b = b, c
        c = None
    ab = B.binary("mul", a, b)
    if c is None and type(ab) is np.ndarray and ab.dtype.kind == "f":
        return B.inplace("mul", ab, -2)
    if type(ab) is np.ndarray and type(c) is np.ndarray and ab.shape == c.shape \
            and ab.dtype == c.dtype and ab.dtype.kind == "f":
        return B.inplace("mul", B.inplace("mul", ab, c), -2)
    return B.binary("mul", ab if c is None else B.binary("mul", ab, c), -2)


def _sigmoid_grad2_forward(B, a, g, s):
    """``a * g * (1 - 2 * s)``: d/ds of ``g * s * (1 - s)`` times ``a``."""
    return B.binary("mul", B.binary("mul", a, g), B.binary("sub", 1, B.binary("mul", s, 2)))


def _triples():
    """Gradcheck cases of the three-operand derivative ops: equal shapes, broadcasting,
    scalars, empty."""
    return [Case(U(2, 3), U(2, 3), U(2, 3)), Case(U(3), U(2, 3), U(2, 1)), Case(U(), U(), U()),
            Case(U(0, 2), U(0, 2), U(2))]


_minus2_product = defop(
    "minus2_product", _minus2_product_forward,
    *(_linear((lambda g, ans, a, b, c: _minus2_product(g, b, c),
               lambda g, ans, a, b, c: _minus2_product(g, a, c),
               lambda g, ans, a, b, c: _minus2_product(g, a, b)))),
    saves={0: (1, 2), 1: (0, 2), 2: (0, 1)}, elementwise=True, cases=_triples(),
    fast=_arrays(lambda B, g, ans, a, b, c: _minus2_product_forward(B, g, b, c),
                 lambda B, g, ans, a, b, c: _minus2_product_forward(B, g, a, c),
                 lambda B, g, ans, a, b, c: _minus2_product_forward(B, g, a, b)))
_tanh_grad = defop(
    "tanh_grad", _tanh_grad_forward,
    *(_linear((lambda g, ans, a, t: _tanh_grad.apply2(g, t),
               lambda g, ans, a, t: _minus2_product(g, a, t)))),
    saves={0: (1,), 1: (0, 1)}, elementwise=True, cases=_pairs(y=_INSIDE_UNIT),
    fast=_arrays(lambda B, g, ans, a, t: _fused_or(B, "tanh", g, t, _tanh_grad_forward),
                 lambda B, g, ans, a, t: _minus2_product_forward(B, g, a, t)))
_sigmoid_grad2 = defop(
    "sigmoid_grad2", _sigmoid_grad2_forward,
    *(_linear((lambda g, ans, a, b, s: _sigmoid_grad2(g, b, s),
               lambda g, ans, a, b, s: _sigmoid_grad2(g, a, s),
               lambda g, ans, a, b, s: _minus2_product(g, a, b)))),
    saves={0: (1, 2), 1: (0, 2), 2: (0, 1)}, elementwise=True, cases=_triples(),
    fast=_arrays(lambda B, g, ans, a, b, s: _sigmoid_grad2_forward(B, g, b, s),
                 lambda B, g, ans, a, b, s: _sigmoid_grad2_forward(B, g, a, s),
                 lambda B, g, ans, a, b, s: _minus2_product_forward(B, g, a, b)))
_sigmoid_grad = defop(
    "sigmoid_grad", _sigmoid_grad_forward,
    *(_linear((lambda g, ans, a, s: _sigmoid_grad.apply2(g, s),
               lambda g, ans, a, s: _sigmoid_grad2(g, a, s)))),
    saves={0: (1,), 1: (0, 1)}, elementwise=True, cases=_pairs(y=dict(low=0.1, high=0.9)),
    fast=_arrays(lambda B, g, ans, a, s: _fused_or(B, "sigmoid", g, s, _sigmoid_grad_forward),
                 lambda B, g, ans, a, s: _sigmoid_grad2_forward(B, g, a, s)))


# ------------------------------------------- derivative ops of sin, cos and powers
# The first-order rules of sin, cos, square and ``x ** c`` as single ops whose own rules
# are again one of them (plus one product), to any order: each derivative of
# ``sin(x) * x ** 2`` records a few nodes instead of the composed formulas' many, and on
# large float64 arrays each node is one pass (``B.fused_deriv``).


def _fresh_product(B, fresh, other):
    """``fresh * other``, into ``fresh`` (an array this rule just made) where it has the
    result's shape and dtype (``a * b`` equals ``b * a`` exactly), else a new array."""
    if type(fresh) is np.ndarray and type(other) is np.ndarray and fresh.shape == other.shape \
            and fresh.dtype == other.dtype and fresh.dtype.kind == "f":
        return B.inplace("mul", fresh, other)
    return B.binary("mul", other, fresh)


def _times(B, g, a):
    """``g * a`` for the array rules, where the product only feeds this rule's next step:
    ``a`` itself when ``g`` is a broadcast 1 (``_unit``), which saves a pass."""
    return a if _unit(g, a) else B.binary("mul", g, a)


def _sin_derivative_forward(B, g, x, n):
    """``g * sin(x + n pi/2)`` for an integer ``n`` (``g`` times the n-th derivative of
    sin), by the backend calls of the composed rules: ``g * cos(x)`` (n = 1, sin's rule),
    ``(-g) * sin(x)`` (n = 2, cos's rule; the same bits as ``g * -sin(x)``), so the
    same numbers as before; one pass on large float64 arrays (``B.fused_deriv``)."""
    q = n % 4
    out = B.fused_deriv("dsin", g, x, q)
    if out is not None:
        return out
    v = B.unary("cos" if q % 2 else "sin", x)
    return _fresh_product(B, v, B.unary("neg", g) if q >= 2 else g)


def _pow_derivative_forward(B, g, x, c, p):
    """``(g * c) * x ** p`` for Python numbers ``c``, ``p``: with ``c = n, p = n - 1`` the
    rule of ``x ** n`` (``x ** 1`` is ``x`` and ``x ** 0`` is 1 exactly, so those powers
    are skipped: the same bits); one pass on large arrays for n in {1, 2, 3}."""
    if c == p + 1:
        out = B.fused_deriv("pow", g, x, c)
        if out is not None:
            return out
    gc = B.binary("mul", g, c)
    if p == 0 and type(gc) is np.ndarray and type(x) is np.ndarray and gc.shape == x.shape \
            and gc.dtype == x.dtype:
        return gc
    return _fresh_product(B, gc, x if p == 1 else B.binary("pow", x, p))


def _sin_derivative_rule_x(g, ans, a, x, n):
    return _sin_derivative(g * a, x, (n + 1) % 4)


def _pow_derivative_rule_x(g, ans, a, x, c, p):
    if p == 0:                    # (a * c) * x ** 0 does not depend on x
        return g * a * 0
    return _pow_derivative(g * a, x, c * p, p - 1)


def _pow_derivative_fast_x(B, g, ans, a, x, c, p):
    if p == 0:
        return B.binary("mul", B.binary("mul", g, a), 0)
    return _pow_derivative_forward(B, _times(B, g, a), x, c * p, p - 1)


_sin_derivative = defop(
    "sin_derivative", _sin_derivative_forward,
    *_linear((lambda g, ans, a, x, n: _sin_derivative(g, x, n), _sin_derivative_rule_x, None)),
    saves={0: (1,), 1: (0, 1)}, elementwise=True,
    cases=[Case(U(2, 3), U(2, 3), 1), Case(U(3), U(2, 3), 2), Case(U(), U(), 3),
           Case(U(2, 1), U(3), 0), Case(U(0, 2), U(2), 1)],
    fast=_arrays(lambda B, g, ans, a, x, n: _sin_derivative_forward(B, g, x, n),
                 lambda B, g, ans, a, x, n: _sin_derivative_forward(
                     B, _times(B, g, a), x, (n + 1) % 4)))
_pow_derivative = defop(
    "pow_derivative", _pow_derivative_forward,
    *_linear((lambda g, ans, a, x, c, p: _pow_derivative(g, x, c, p), _pow_derivative_rule_x,
              None, None)),
    saves={0: (1,), 1: (0, 1)}, elementwise=True,
    cases=[Case(U(2, 3), U(2, 3), 2, 1), Case(U(3), U(2, 3), 3, 2), Case(U(), U(), 6, 2),
           Case(U(2, 3), U(2, 3, **_POSITIVE), 2.5, 1.5), Case(U(2, 1), U(3), 2, 0),
           Case(U(3), U(3, **_POSITIVE), -1.0, -2.0), Case(U(0, 2), U(2), 2, 1)],
    fast=_arrays(lambda B, g, ans, a, x, c, p: _pow_derivative_forward(B, g, x, c, p),
                 _pow_derivative_fast_x))

_where = defop("where", lambda B, c, x, y: B.where(c, x, y),
               vjp=(None, lambda g, ans, c, x, y: where(c, g, 0), lambda g, ans, c, x, y: where(c, 0, g)),
               jvp=(None, lambda t, ans, c, x, y: where(c, t, 0), lambda t, ans, c, x, y: where(c, 0, t)),
               saves=(0,), elementwise=True,
               cases=[Case(np.array([[True, False, True], [False, False, True]]), U(2, 3), U(3)),
                      Case(np.array([True, False]), U(), U(2)),
                      Case(np.array(True), U(), U()), Case(np.zeros((0, 2), bool), U(0, 2), U(2))])


def _inside(x, lo, hi):
    mask = True
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        mask = (x <= hi) if mask is True else logical_and(mask, x <= hi)
    return mask


_clip = defop("clip", lambda B, x, lo, hi: B.clip(x, lo, hi),
              vjp=(lambda g, ans, x, lo, hi: g * _inside(x, lo, hi),),
              jvp=(lambda t, ans, x, lo, hi: t * _inside(x, lo, hi),), saves=(0,), elementwise=True,
              cases=[Case(U(2, 3, low=0.1, high=0.5, signed=True), -0.3, 0.3),
                     Case(U(4, low=0.1, high=0.5, signed=True), None, 0.3),
                     Case(U(low=0.1, high=0.5, signed=True), -0.3, None), Case(U(0, 2), -1.0, 1.0)])

# ------------------------------------------------------------ operand rules


def _scalar(v):
    return isinstance(v, (numbers.Number, np.generic)) and not isinstance(v, np.ndarray)


def constant(v, like):
    """Python scalar ``v`` as a tensor of ``like``'s dtype and device, converted from
    the Python value itself: a weak scalar meets the kernel at the precision of the
    result (``0.1`` next to a float64 tensor is the float64 nearest 0.1, never a
    float32 widened).

    >>> constant(0.1, eagerad.tensor(np.ones(1))).item() == 0.1
    True
    """
    return Tensor(v, dtype=like.dtype, device=like.device)


def as_tensor(v, like=None):
    """Tensor for ``v``; plain data goes to ``like``'s device.

    >>> as_tensor([1, 2]), as_tensor(eagerad.ones(1)).shape
    (tensor([1, 2]), (1,))
    """
    if isinstance(v, Tensor):
        return v
    return Tensor(v, device=like.device if like is not None else None)


def operands(name, x, y, floating=False):
    """Make ``x``, ``y`` ready for a binary op: common dtype, scalars stay weak.

    >>> x, y = operands("add", eagerad.Tensor([1], dtype=eagerad.int32), eagerad.Tensor([1.5]))
    >>> x.dtype, y.dtype
    (dtype('float32'), dtype('float32'))
    """
    # hot path (per-op overhead): two tensors of one dtype, or a floating tensor
    # with a Python float/int, need nothing done
    tx, ty = type(x), type(y)
    if tx is Tensor:
        kind = x._data.dtype.kind
        if (ty is float or ty is int) and kind == "f" or \
                ty is Tensor and x._data.dtype == y._data.dtype and (kind == "f" or not floating):
            return x, y
    elif ty is Tensor and (tx is float or tx is int) and y._data.dtype.kind == "f":
        return x, y
    xt, yt = isinstance(x, Tensor), isinstance(y, Tensor)
    if not xt and not yt:
        x = as_tensor(x)
        xt = True
    if xt and yt:
        target = dt.promote(x.dtype, y.dtype)
    elif xt:
        y = _weak(y, x)
        target = dt.promote_scalar(x.dtype, y) if not isinstance(y, Tensor) else dt.promote(x.dtype, y.dtype)
    else:
        x = _weak(x, y)
        target = dt.promote_scalar(y.dtype, x) if not isinstance(x, Tensor) else dt.promote(x.dtype, y.dtype)
    if floating and target.kind not in "fc":
        target = dt.default_float
    if isinstance(x, Tensor) and x.dtype != target:
        x = x.astype(target)
    if isinstance(y, Tensor) and y.dtype != target:
        y = y.astype(target)
    return x, y


def _weak(v, like):
    if _scalar(v):
        return v.item() if isinstance(v, np.generic) else v
    if v is None or isinstance(v, str):
        raise TypeError(f"unsupported operand {v!r} for a Tensor of dtype {like.dtype}")
    return as_tensor(v, like)


def broadcastable(a, b):
    """Whether shapes ``a`` and ``b`` broadcast together (numpy's rule, without
    building the result shape: this runs on every binary op).

    >>> broadcastable((2, 3), (3,)), broadcastable((2, 3), (2,))
    (True, False)
    """
    for m, n in zip(reversed(a), reversed(b)):
        if m != n and m != 1 and n != 1:
            return False
    return True


def _check_broadcast(name, x, y):
    if isinstance(x, Tensor) and isinstance(y, Tensor):
        sx, sy = x.shape, y.shape
        if sx != sy and not broadcastable(sx, sy):
            raise ValueError(f"{name}: shapes {x.shape} and {y.shape} cannot be broadcast "
                             "together")


@export(primitive="Select")
def where(condition, x, y):
    """``x`` where ``condition`` holds, else ``y`` (broadcasting all three).

    >>> print(where(eagerad.tensor([True, False]), 1.0, eagerad.tensor([5.0, 6.0])))
    [1. 6.]
    """
    ref = next((v for v in (x, y, condition) if isinstance(v, Tensor)), None)
    condition = as_tensor(condition, ref)
    if condition.dtype != dt.bool_:
        condition = condition.astype(dt.bool_)
    if not isinstance(x, Tensor) and not isinstance(y, Tensor):
        x = as_tensor(x, ref)
    x, y = operands("where", x, y)
    x = x if isinstance(x, Tensor) else constant(x, y)
    y = y if isinstance(y, Tensor) else constant(y, x)
    try:
        np.broadcast_shapes(condition.shape, x.shape, y.shape)
    except ValueError:
        raise ValueError(f"where: condition {condition.shape}, x {x.shape} and y {y.shape} cannot "
                         "be broadcast together") from None
    return _where(condition, x, y)


@export(methods=("clip", "clamp"), aliases=("clip", "clamp"))
def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """Clamp ``x`` into ``[clip_value_min, clip_value_max]`` (either may be None).

    >>> print(clip_by_value(eagerad.tensor([-2.0, 0.5, 3.0]), -1.0, 1.0))
    [-1.   0.5  1. ]
    """
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("clip_by_value: give clip_value_min or clip_value_max")
    lo = clip_value_min.item() if isinstance(clip_value_min, Tensor) else clip_value_min
    hi = clip_value_max.item() if isinstance(clip_value_max, Tensor) else clip_value_max
    return _clip(as_tensor(x), lo, hi)


clamp = clip = clip_by_value
