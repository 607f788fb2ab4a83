"""Elementwise ops built from other ops: one-sided clamps, truncation, ``addcmul``/
``addcdiv``, ``lerp``, ``ldexp``, the shrink activations and the numpy-style ``arc*`` names.

Each is a composition of differentiable ops, so its derivatives of every order come from
the engine; the names mean the same in PyTorch and MindSpore.

>>> import eagerad
>>> x = eagerad.tensor([-1.5, 0.5, 2.5])
>>> clamp_min(x, 0.0).tolist(), trunc(x).tolist(), frac(x).tolist()
([0.0, 0.5, 2.5], [-1.0, 0.0, 2.0], [-0.5, 0.5, 0.5])
"""
import collections as _collections
import math as _pymath

from . import math as _math
from .registry import Case, U, defop, export

_LN2 = _pymath.log(2.0)


@export(methods=("clamp_min",))
def clamp_min(input, min):
    """``max(input, min)`` elementwise; ``min`` is a number or a broadcastable tensor.

    >>> import eagerad
    >>> clamp_min(eagerad.tensor([-1.0, 2.0]), 0.5).tolist()
    [0.5, 2.0]
    """
    return _math.where(input < min, input * 0 + min, input)


@export(methods=("clamp_max",))
def clamp_max(input, max):
    """``min(input, max)`` elementwise; ``max`` is a number or a broadcastable tensor.

    >>> import eagerad
    >>> clamp_max(eagerad.tensor([-1.0, 2.0]), 0.5).tolist()
    [-1.0, 0.5]
    """
    return _math.where(input > max, input * 0 + max, input)


@export(methods=("trunc", "fix"), aliases=("fix",))
def trunc(input):
    """Round toward zero (gradient zero almost everywhere, as for ``floor``).

    >>> import eagerad
    >>> trunc(eagerad.tensor([-1.7, 1.7])).tolist()
    [-1.0, 1.0]
    """
    return _math.where(input < 0, _math.ceil(input), _math.floor(input))


@export(methods=("frac",))
def frac(input):
    """``input - trunc(input)``: the fractional part with the sign of ``input``.

    >>> import eagerad
    >>> frac(eagerad.tensor([-1.25, 2.75])).tolist()
    [-0.25, 0.75]
    """
    return input - trunc(input).detach()


@export(methods=("sgn",))
def sgn(input):
    """The sign of real input (``sign``); ``x / |x|`` (0 at 0) of complex input.

    >>> import eagerad
    >>> sgn(eagerad.tensor([-2.0, 0.0, 3.0])).tolist()
    [-1.0, 0.0, 1.0]
    """
    if getattr(input, "dtype", None) is not None and input.dtype.kind == "c":
        from . import complex_ops
        return complex_ops.sgn(input)
    return _math.sign(input)


@export(methods=("positive",))
def positive(input):
    """``+input``: the input itself.

    >>> import eagerad
    >>> x = eagerad.tensor([1.0]); positive(x) is x
    True
    """
    return input


@export(methods=("absolute",))
def absolute(input):
    """``abs`` under numpy's longer name.

    >>> import eagerad
    >>> absolute(eagerad.tensor([-2.0])).tolist()
    [2.0]
    """
    return _math.abs(input)


def _arc(name, fn, sample=0.5):
    def arc(input):
        return fn(input)
    arc.__name__ = arc.__qualname__ = name
    arc.__doc__ = (f"``{fn.__name__}`` under numpy's name ``{name}``.\n\n"
                   f"    >>> import eagerad\n"
                   f"    >>> {name}(eagerad.tensor({sample})).item() == "
                   f"eagerad.tensor({sample}).{fn.__name__}().item()\n    True\n    ")
    return export(arc, methods=(name,))


arccos, arcsin, arctan = (_arc("arccos", _math.acos), _arc("arcsin", _math.asin),
                          _arc("arctan", _math.atan))
arccosh, arcsinh, arctanh = (_arc("arccosh", _math.acosh, 1.5), _arc("arcsinh", _math.asinh),
                             _arc("arctanh", _math.atanh))


@export(methods=("addcmul",))
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2``.

    >>> import eagerad
    >>> addcmul(eagerad.ones(2), eagerad.tensor([1.0, 2.0]), eagerad.tensor([3.0, 4.0]), value=0.5).tolist()
    [2.5, 5.0]
    """
    product = tensor1 * tensor2
    return input + (product if value == 1 else product * value)


@export(methods=("addcdiv",))
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``.

    >>> import eagerad
    >>> addcdiv(eagerad.ones(2), eagerad.tensor([1.0, 2.0]), eagerad.tensor([4.0, 4.0]), value=2).tolist()
    [1.5, 2.0]
    """
    ratio = tensor1 / tensor2
    return input + (ratio if value == 1 else ratio * value)


@export(methods=("lerp",))
def lerp(input, end, weight):
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` a number or tensor.

    >>> import eagerad
    >>> lerp(eagerad.tensor([0.0, 10.0]), eagerad.tensor([10.0, 20.0]), 0.25).tolist()
    [2.5, 12.5]
    """
    return input + weight * (end - input)


@export(methods=("ldexp",))
def ldexp(input, other):
    """``input * 2 ** other``.

    >>> import eagerad
    >>> ldexp(eagerad.tensor([1.5]), eagerad.tensor([3.0])).tolist()
    [12.0]
    """
    return input * _math.exp(other * _LN2)


@export(methods=("hardshrink",))
def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0.

    >>> import eagerad
    >>> hardshrink(eagerad.tensor([-1.0, 0.2, 0.7])).tolist()
    [-1.0, 0.0, 0.7]
    """
    return _math.where(_math.abs(input) > lambd, input, input * 0)


@export(methods=("softshrink",))
def softshrink(input, lambd=0.5):
    """``input`` moved ``lambd`` toward 0, and 0 inside ``[-lambd, lambd]``.

    >>> import eagerad
    >>> softshrink(eagerad.tensor([-1.0, 0.2, 0.75])).tolist()
    [-0.5, 0.0, 0.25]
    """
    return _math.where(input > lambd, input - lambd,
                       _math.where(input < -lambd, input + lambd, input * 0))


@export(methods=("tanhshrink",))
def tanhshrink(input):
    """``input - tanh(input)``.

    >>> import eagerad
    >>> round(tanhshrink(eagerad.tensor(1.0)).item(), 4)
    0.2384
    """
    return input - _math.tanh(input)


@export(methods=("float_power",))
def float_power(input, exponent):
    """``input ** exponent`` computed in float64 (both operands promoted).

    >>> import eagerad
    >>> r = float_power(eagerad.tensor([2.0]), 0.5); str(r.dtype), round(r.item(), 6)
    ('float64', 1.414214)
    """
    base = input.astype("float64") if hasattr(input, "astype") else float(input)
    power = exponent.astype("float64") if hasattr(exponent, "astype") else float(exponent)
    if not hasattr(base, "astype"):         # a number raised to a tensor
        base = power * 0 + base
    return _math.pow(base, power)


# ------------------------------------------------------------ frexp and nextafter
Frexp = _collections.namedtuple("Frexp", "mantissa exponent")
Frexp.__doc__ = """``(mantissa, exponent)`` of ``frexp``, as PyTorch's ``return_types.frexp``.

>>> Frexp(0.5, 1).exponent
1
"""
_frexp_exponent = defop("frexp_exponent", lambda B, x: B.unary("frexp_exponent", x),
                        elementwise=True)


def _frexp_rule(g, ans, x):
    # the mantissa is x * 2**-exponent, the exponent piecewise constant
    return g * _math.pow(2.0, -_frexp_exponent(x).astype(x.dtype))


_frexp_mantissa = defop("frexp_mantissa", lambda B, x: B.unary("frexp_mantissa", x),
                        vjp=_frexp_rule, jvp=_frexp_rule, elementwise=True,
                        cases=[Case(U(2, 3, low=0.1, high=9.0, signed=True)), Case(U())])


@export(methods=("frexp",))
def frexp(input):
    """``input = mantissa * 2 ** exponent`` with ``|mantissa|`` in [0.5, 1) (0 for 0) and an
    int32 exponent, as ``torch.frexp``; the mantissa's gradient is ``2 ** -exponent``.

    >>> import eagerad
    >>> m, e = frexp(eagerad.tensor([8.0, -0.75, 0.0]))
    >>> m.tolist(), e.tolist()
    ([0.5, -0.75, 0.0], [4, 0, 0])
    """
    if input.dtype.kind != "f":
        raise TypeError(f"frexp: input must be a floating tensor, got {input.dtype}")
    return Frexp(_frexp_mantissa(input), _frexp_exponent(input))


def _nextafter_dy(g, ans, x, y):
    return g * 0


_nextafter = defop("nextafter", lambda B, x, y: B.binary("nextafter", x, y),
                   vjp=(lambda g, ans, x, y: g, _nextafter_dy),
                   jvp=(lambda t, ans, x, y: t, _nextafter_dy), saves=(), elementwise=True,
                   cases=[Case(U(2, 3), U(2, 3)), Case(U(2, 1), U(3))])


@export(methods=("nextafter",))
def nextafter(input, other):
    """The next floating-point value after ``input`` towards ``other`` (``input`` where
    they are equal); the gradient is 1 for ``input`` and 0 for ``other`` (as PyTorch).

    >>> import eagerad
    >>> x = eagerad.tensor([1.0], dtype=eagerad.float64)
    >>> (nextafter(x, 2.0) - x).item() == 2.0 ** -52
    True
    """
    from .special import apply_binary
    dtypes = [getattr(v, "dtype", None) for v in (input, other)]
    if any(d is not None and d.kind == "f" and d.itemsize == 2 for d in dtypes):
        raise TypeError(f"nextafter: float16 operands are not supported (got {dtypes})")
    return apply_binary(_nextafter, "nextafter", input, other)
