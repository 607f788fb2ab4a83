"""Install the ops as Tensor methods and operators (the tensor module stays op-free)."""
from ..tensor import Tensor
from . import linalg, math, shape as shape_ops


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
    return shape_ops.transpose(self, tuple(dims))


def _getitem(self, index):
    return shape_ops.getitem(self, index)


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
    "__invert__": math.bitwise_not,
    "__and__": math.bitwise_and, "__or__": math.bitwise_or, "__xor__": math.bitwise_xor,
    "__eq__": _compare(math.equal), "__ne__": _compare(math.not_equal),
    "__lt__": math.less, "__le__": math.less_equal, "__gt__": math.greater,
    "__ge__": math.greater_equal, "__getitem__": _getitem,
}


def _expand(self, *shape):
    """``x.expand(2, 3)`` or ``x.expand((2, 3))``: PyTorch's name for ``broadcast_to``."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return shape_ops.broadcast_to(self, shape)


# methods that are not one function's ``export``: several argument forms or a fixed argument
_SPECIAL = {
    "permute": _permute, "expand": _expand,
    "cpu": lambda self: shape_ops.to(self, "cpu"),
    "cuda": lambda self, index=0: shape_ops.to(self, f"cuda:{index}"),
    "float": lambda self: shape_ops.astype(self, "float32"),
    "double": lambda self: shape_ops.astype(self, "float64"),
}


def install():
    """Attach the exported methods (``registry.METHODS``), the operators, the special
    methods and ``T``/``mT`` to Tensor (done once on import).

    >>> eagerad.ones(2, 3).T.shape
    (3, 2)
    """
    from .registry import METHODS
    for name, fn in {**METHODS, **_OPERATORS, **_SPECIAL}.items():
        setattr(Tensor, name, fn)
    Tensor.T = property(shape_ops.transpose, doc="All axes reversed: ``x.T`` is ``transpose(x)``.")
    Tensor.mT = property(lambda self: shape_ops.swapaxes(self, -1, -2),
                         doc="The last two axes swapped (a batch of matrices transposed).")
