"""Install the ops as Tensor methods and operators (the tensor module stays op-free)."""
from ..tensor import Tensor
from . import linalg, math, nn_ops, reduction, shape


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _compare(fn):
    def method(self, other):
        if other is None or isinstance(other, str):
            return NotImplemented
        return fn(self, other)
    return method


def _permute(self, *dims):
    """``x.permute(*dims)``: always a full permutation (two ints are not a swap here)."""
    if len(dims) == 1 and isinstance(dims[0], (tuple, list)):
        dims = dims[0]
    return shape.transpose(self, tuple(dims))


def _getitem(self, index):
    return shape.getitem(self, index)


_OPERATORS = {
    "__add__": math.add, "__radd__": _reflected(math.add),
    "__sub__": math.sub, "__rsub__": _reflected(math.sub),
    "__mul__": math.mul, "__rmul__": _reflected(math.mul),
    "__truediv__": math.div, "__rtruediv__": _reflected(math.div),
    "__floordiv__": math.floor_divide, "__rfloordiv__": _reflected(math.floor_divide),
    "__mod__": math.remainder, "__rmod__": _reflected(math.remainder),
    "__pow__": math.pow, "__rpow__": _reflected(math.pow),
    "__matmul__": linalg.matmul, "__rmatmul__": _reflected(linalg.matmul),
    "__neg__": math.neg, "__pos__": lambda self: self, "__abs__": math.abs,
    "__invert__": math.logical_not,
    "__and__": math.logical_and, "__or__": math.logical_or, "__xor__": math.logical_xor,
    "__eq__": _compare(math.equal), "__ne__": _compare(math.not_equal),
    "__lt__": math.less, "__le__": math.less_equal, "__gt__": math.greater,
    "__ge__": math.greater_equal, "__getitem__": _getitem,
}

_METHODS = {
    "add": math.add, "sub": math.sub, "mul": math.mul, "div": math.div, "pow": math.pow,
    "matmul": linalg.matmul, "maximum": math.maximum, "minimum": math.minimum,
    "clip": math.clip_by_value, "clamp": math.clip_by_value,
    "sum": reduction.sum, "mean": reduction.mean, "max": reduction.max, "min": reduction.min,
    "amax": reduction.max, "amin": reduction.min, "logsumexp": reduction.logsumexp,
    "argmax": reduction.argmax, "argmin": reduction.argmin,
    "any": reduction.any, "all": reduction.all,
    "reshape": shape.reshape, "view": shape.reshape, "transpose": shape.transpose,
    "permute": _permute, "swapaxes": shape.swapaxes, "squeeze": shape.squeeze,
    "expand_dims": shape.expand_dims, "unsqueeze": shape.expand_dims, "flatten": shape.flatten,
    "broadcast_to": shape.broadcast_to, "expand": lambda self, *s: shape.broadcast_to(
        self, s[0] if len(s) == 1 and isinstance(s[0], (tuple, list)) else s),
    "astype": shape.astype, "to": shape.to, "type": shape.astype,
    "cpu": lambda self: shape.to(self, "cpu"), "cuda": lambda self, index=0: shape.to(self, f"cuda:{index}"),
    "float": lambda self: shape.astype(self, "float32"),
    "double": lambda self: shape.astype(self, "float64"),
    "softmax": nn_ops.softmax, "log_softmax": nn_ops.log_softmax,
    "clone": shape.clone,
}

for _name in ("exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "atanh", "asin", "acos",
              "atan", "asinh", "acosh", "sigmoid", "relu", "abs", "sqrt", "square", "neg", "sign",
              "log1p", "expm1", "floor", "ceil", "round", "reciprocal", "isfinite", "isnan"):
    _METHODS[_name] = getattr(math, _name)


def install():
    """Attach the operators, math methods and ``T``/``mT`` to Tensor (done once on import).

    >>> eagerad.ones(2, 3).T.shape
    (3, 2)
    """
    from .registry import METHODS
    for name, fn in {**METHODS, **_OPERATORS, **_METHODS}.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(shape.transpose, doc="All axes reversed: ``x.T`` is ``transpose(x)``.")
    Tensor.mT = property(lambda self: shape.swapaxes(self, -1, -2),
                         doc="The last two axes swapped (a batch of matrices transposed).")
