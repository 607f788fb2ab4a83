"""Differentiable ops (``eagerad.ops``): every op is defined once, in the module
of its family, and installed as a Tensor method/operator here.

>>> import eagerad
>>> from eagerad import ops
>>> ops.mul(eagerad.tensor([2.0]), 3.0)
Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00])
"""
from . import inplace as _inplace, methods as _methods
from .linalg import matmul
from .math import (abs, acos, acosh, add, asin, asinh, atan, atanh, ceil, clamp, clip,
                   clip_by_value, cos, cosh, div, equal, exp, expm1, floor, floor_divide,
                   greater, greater_equal, isfinite, isnan, less, less_equal, log, log1p,
                   logical_and, logical_not, logical_or, logical_xor, maximum, minimum, mul,
                   neg, not_equal, pow, reciprocal, relu, remainder, round, sigmoid, sign, sin,
                   sinh, sqrt, square, sub, tan, tanh, where)
from .nn_ops import cross_entropy, log_softmax, one_hot, softmax
from .primitives import (Atanh, Cos, Cosh, Div, Exp, GradOperation, Log, MatMul, Mul, Neg, Pow,
                         ReduceSum, Sin, Sinh, Square, Tan, stop_gradient)
from .reduction import all, amax, amin, any, argmax, argmin, logsumexp, max, mean, min, sum
from .registry import OPS, defop
from .shape import (alias, astype, broadcast_to, cat, clone, concat, expand_dims, flatten,
                    getitem, reshape, squeeze, stack, swapaxes, to, transpose, unsqueeze)


def _import_families():
    """Import every op module of this package, so that a new family is one new file: its
    ``export`` declarations (``registry.PUBLIC``) become names here and Tensor methods."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    from .registry import PRIMITIVES, PUBLIC
    from .primitives import make_primitive
    namespace = globals()
    for public, fn in PUBLIC.items():
        namespace[public] = fn      # wins over a submodule of the same name
    for cls_name, fn in PRIMITIVES.items():
        namespace.setdefault(cls_name, make_primitive(cls_name, fn))


_import_families()
_methods.install()
_inplace.install()

multiply, subtract, divide, negative = mul, sub, div, neg
