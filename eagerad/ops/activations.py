"""Activation functions: log_sigmoid, softplus, gelu, silu, elu, selu, celu, leaky_relu,
hardtanh, relu6, hardsigmoid, hardswish, mish, softsign.

Each is one stanza like the special functions (``ops/special.py``): a backend formula
forward in a numerically stable form (softplus and log_sigmoid never overflow, gelu
is exact through erfc), a derivative in eagerad ops, so every order works, and
PyTorch's subgradients at the kinks: ``leaky_relu`` and ``elu`` take the negative
side's slope at 0, ``hardtanh`` and ``relu6`` have gradient 0 at their corners,
``hardswish`` uses ``x/3 + 1/2`` on ``[-3, 3]``.  The functions take MindSpore's
``ops`` signatures; where PyTorch's ``nn.functional`` differs (``leaky_relu``'s
default slope), ``FUNCTIONAL`` holds the PyTorch version.

>>> import eagerad
>>> from eagerad import ops
>>> ops.softplus(eagerad.tensor([-1000.0, 0.0, 1000.0])).tolist()
[0.0, 0.6931471824645996, 1000.0]
"""
import math

import numpy as np

from .math import as_tensor, exp, logical_and, sigmoid, tanh, where
from .registry import Case, U, export
from .decompositions import configured_primitive
from .special import SQRT_PI, float_tensor, formula, unary, unary_cases
from .special import erfc as _erfc_fn

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
_SQRT1_2 = math.sqrt(0.5)
_GELU_K, _GELU_C = math.sqrt(2 / math.pi), 0.044715
_OFF_ZERO = dict(low=0.1, high=2.0, signed=True)


def _constant(value, like):
    """``value`` as a 0-d tensor of ``like``'s dtype and device: next to a boolean mask a
    bare Python number would become a float32 tensor and round the gradient."""
    return as_tensor(np.asarray(value, like.dtype), like)


def _negative_part(x):
    """``min(x, 0)`` with no gradient through the positive side: exp of it stays finite
    where the rule does not use it."""
    return where(x > 0, 0.0, x)


def _gelu_derivative(x, ans, approximate):
    if approximate == "none":
        return 0.5 * _erfc_fn(-x * _SQRT1_2) + x * exp(-0.5 * x * x) * (1 / (SQRT_PI * math.sqrt(2)))
    t = tanh(_GELU_K * (x + _GELU_C * x * x * x))
    return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * _GELU_K * (1 + 3 * _GELU_C * x * x)


def _gelu_forward(B, x, approximate):
    return B.gelu(x, approximate)


def _silu_derivative(x, ans):
    s = sigmoid(x)
    return s * (1 + x * (1 - s))


def _mish_derivative(x, ans):
    t = tanh(softplus(x))
    return t + x * sigmoid(x) * (1 - t * t)


def _softplus_derivative(x, ans, beta, threshold):
    return where(x * beta > threshold, 1.0, sigmoid(x * beta))


def _between(x, low, high):
    """1 strictly inside (low, high), else 0: the gradient of a clamp, 0 at its corners."""
    return logical_and(x > low, x < high)


_log_sigmoid = unary("log_sigmoid", formula("log_sigmoid"), lambda x, ans: sigmoid(-x))
_softplus = unary("softplus", formula("softplus", "beta", "threshold"), _softplus_derivative,
                  cases=unary_cases(beta=1.0, threshold=20.0)
                  + [Case(U(2, 3, low=-3.0, high=3.0), beta=2.0, threshold=1.5)])
_gelu = unary("gelu", _gelu_forward, _gelu_derivative,
              fast=lambda B, g, ans, x, approximate: B.gelu_backward(g, x, approximate),
              cases=unary_cases(dict(low=-3.0, high=3.0), approximate="none")
              + [Case(U(2, 3, low=-3.0, high=3.0), approximate="tanh")])
_silu = unary("silu", formula("silu"), _silu_derivative, dict(low=-3.0, high=3.0))
_elu = unary("elu", lambda B, x, alpha: B.special_unary("elu", x, alpha, 1.0),
             lambda x, ans, alpha: where(x > 0, 1.0, alpha * exp(_negative_part(x))),
             cases=unary_cases(_OFF_ZERO, alpha=1.0) + [Case(U(4, **_OFF_ZERO), alpha=0.5)])
_selu = unary("selu", lambda B, x: B.special_unary("elu", x, SELU_ALPHA, SELU_SCALE),
              lambda x, ans: SELU_SCALE * where(x > 0, 1.0, SELU_ALPHA * exp(_negative_part(x))),
              _OFF_ZERO)
_celu = unary("celu", formula("celu", "alpha"),
              lambda x, ans, alpha: where(x > 0, 1.0, exp(_negative_part(x) / alpha)),
              cases=unary_cases(_OFF_ZERO, alpha=1.0) + [Case(U(4, **_OFF_ZERO), alpha=2.0)])
_leaky_relu = unary("leaky_relu", formula("leaky_relu", "negative_slope"),
                    lambda x, ans, negative_slope: where(x > 0, 1.0, _constant(negative_slope, x)),
                    cases=unary_cases(_OFF_ZERO, negative_slope=0.2))
_hardtanh = unary("hardtanh", formula("hardtanh", "min_val", "max_val"),
                  lambda x, ans, min_val, max_val: _between(x, min_val, max_val),
                  cases=unary_cases(_OFF_ZERO, min_val=-1.0, max_val=1.0)
                  + [Case(U(4, low=-1.0, high=3.0), min_val=0.0, max_val=2.5)])
_relu6 = unary("relu6", lambda B, x: B.special_unary("hardtanh", x, 0.0, 6.0),
               lambda x, ans: _between(x, 0.0, 6.0), dict(low=0.1, high=7.0, signed=True))
_hardsigmoid = unary("hardsigmoid", formula("hardsigmoid"),
                     lambda x, ans: _between(x, -3.0, 3.0) * _constant(1 / 6, x),
                     dict(low=-4.0, high=4.0))
_hardswish = unary("hardswish", formula("hardswish"),
                   lambda x, ans: where(x < -3.0, 0.0, where(x <= 3.0, x / 3 + 0.5, 1.0)),
                   dict(low=-4.0, high=4.0))
_mish = unary("mish", formula("mish"), _mish_derivative, dict(low=-3.0, high=3.0))
_softsign = unary("softsign", formula("softsign"), lambda x, ans: 1 / ((1 + abs(x)) ** 2),
                  dict(low=-3.0, high=3.0))

# ------------------------------------------------------------- public names


@export(primitive="LogSigmoid", aliases=("logsigmoid",))
def log_sigmoid(x):
    """``log(sigmoid(x))`` without overflow (``-x`` for very negative ``x``).

    >>> print(log_sigmoid(eagerad.tensor([-1000.0, 0.0])))
    [-1000.        -0.6931]
    """
    return _log_sigmoid(float_tensor(x))


@export(primitive="Softplus")
def softplus(x, beta=1.0, threshold=20.0):
    """``log(1 + exp(beta x)) / beta``, and ``x`` itself where ``beta x > threshold``;
    stable for any ``x`` (``|x| = 1000`` in float32 gives 0 and 1000).

    >>> print(softplus(eagerad.tensor([0.0, 30.0]), beta=2.0))
    [ 0.3466 30.    ]
    """
    if beta == 0:
        raise ValueError("softplus: beta must be non-zero")
    return _softplus(float_tensor(x), beta=float(beta), threshold=float(threshold))


@export(primitive="GeLU")
def gelu(x, approximate="none"):
    """Gaussian error linear unit ``x Phi(x)``: exact through erf (``approximate='none'``)
    or PyTorch's tanh approximation (``'tanh'``).  MindSpore's ``nn.GELU`` defaults to
    the approximation; this function, like PyTorch's and MindSpore's ``ops.gelu``, does not.

    >>> print(gelu(eagerad.tensor([1.0])), gelu(eagerad.tensor([1.0]), approximate='tanh'))
    [0.8413] [0.8412]
    """
    if approximate not in ("none", "tanh"):
        raise ValueError(f"gelu: approximate must be 'none' or 'tanh', got {approximate!r}")
    return _gelu(float_tensor(x), approximate=approximate)


@export(primitive="SiLU", aliases=("swish",))
def silu(x, inplace=False):
    """``x * sigmoid(x)`` (also called swish).  ``inplace`` is accepted for PyTorch's
    signature; the result is always a new tensor.

    >>> print(silu(eagerad.tensor([0.0, 1.0])))
    [0.     0.7311]
    """
    return _silu(float_tensor(x))


@export
def elu(x, alpha=1.0, inplace=False):
    """``x`` for ``x > 0``, else ``alpha (exp(x) - 1)``; slope ``alpha`` at 0 (PyTorch).
    ``inplace`` is accepted for PyTorch's signature; the result is a new tensor.

    >>> print(elu(eagerad.tensor([-1.0, 2.0])))
    [-0.6321  2.    ]
    """
    return _elu(float_tensor(x), alpha=float(alpha))


@export(primitive="SeLU")
def selu(x, inplace=False):
    """Self-normalising ELU: ``scale * elu(x, alpha)`` with the fixed constants of
    Klambauer et al. (scale 1.0507, alpha 1.6733).

    >>> print(selu(eagerad.tensor([1.0])))
    [1.0507]
    """
    return _selu(float_tensor(x))


@export
def celu(x, alpha=1.0, inplace=False):
    """``x`` for ``x > 0``, else ``alpha (exp(x / alpha) - 1)`` (continuously
    differentiable ELU).

    >>> print(celu(eagerad.tensor([-1.0]), alpha=2.0))
    [-0.7869]
    """
    if alpha == 0:
        raise ValueError("celu: alpha must be non-zero")
    return _celu(float_tensor(x), alpha=float(alpha))


@export
def leaky_relu(x, alpha=0.2):
    """``x`` for ``x > 0``, else ``alpha * x`` (slope ``alpha`` at 0, as PyTorch).
    MindSpore's ``ops.leaky_relu`` signature: default slope 0.2; PyTorch's
    ``nn.functional.leaky_relu`` (``FUNCTIONAL``) defaults to 0.01.

    >>> print(leaky_relu(eagerad.tensor([-1.0, 2.0])))
    [-0.2  2. ]
    """
    return _leaky_relu(float_tensor(x), negative_slope=float(alpha))


def torch_leaky_relu(input, negative_slope=0.01, inplace=False):
    """PyTorch's ``nn.functional.leaky_relu``: slope 0.01 by default.

    >>> print(torch_leaky_relu(eagerad.tensor([-1.0])))
    [-0.01]
    """
    return _leaky_relu(float_tensor(input), negative_slope=float(negative_slope))


@export
def hardtanh(x, min_val=-1.0, max_val=1.0, inplace=False):
    """``x`` clamped to ``[min_val, max_val]``; gradient 0 at and beyond the corners
    (as PyTorch, unlike ``clamp``).

    >>> print(hardtanh(eagerad.tensor([-2.0, 0.5, 2.0])))
    [-1.   0.5  1. ]
    """
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val ({min_val}) must not exceed max_val ({max_val})")
    return _hardtanh(float_tensor(x), min_val=float(min_val), max_val=float(max_val))


@export(primitive="ReLU6")
def relu6(x, inplace=False):
    """``min(max(x, 0), 6)``; gradient 0 at 0 and at 6 (PyTorch's ``hardtanh(x, 0, 6)``).

    >>> print(relu6(eagerad.tensor([-1.0, 3.0, 9.0])))
    [0. 3. 6.]
    """
    return _relu6(float_tensor(x))


@export(primitive="HSigmoid")
def hardsigmoid(x, inplace=False):
    """Piecewise-linear sigmoid ``relu6(x + 3) / 6``.

    >>> print(hardsigmoid(eagerad.tensor([-4.0, 0.0, 1.5])))
    [0.   0.5  0.75]
    """
    return _hardsigmoid(float_tensor(x))


@export(primitive="HSwish")
def hardswish(x, inplace=False):
    """``x * relu6(x + 3) / 6`` (MobileNetV3).

    >>> print(hardswish(eagerad.tensor([-4.0, 1.0, 4.0])))
    [-0.      0.6667  4.    ]
    """
    return _hardswish(float_tensor(x))


@export(primitive="Mish")
def mish(x, inplace=False):
    """``x * tanh(softplus(x))``.

    >>> print(mish(eagerad.tensor([1.0])))
    [0.8651]
    """
    return _mish(float_tensor(x))


@export(primitive="Softsign")
def softsign(x):
    """``x / (1 + |x|)``; +-1 at +-inf.

    >>> print(softsign(eagerad.tensor([1.0, -3.0])))
    [ 0.5  -0.75]
    """
    return _softsign(float_tensor(x))


# PyTorch's ``nn.functional`` names for these functions (the same functions, except
# leaky_relu's default slope)
FUNCTIONAL = {
    "logsigmoid": log_sigmoid, "softplus": softplus, "gelu": gelu, "silu": silu, "elu": elu,
    "selu": selu, "celu": celu, "leaky_relu": torch_leaky_relu, "hardtanh": hardtanh,
    "relu6": relu6, "hardsigmoid": hardsigmoid, "hardswish": hardswish, "mish": mish,
    "softsign": softsign}


configured_primitive("Elu", lambda x, alpha: elu(x, alpha), alpha=1.0)
configured_primitive("CeLU", lambda x, alpha: celu(x, alpha), alpha=1.0)
