"""MindSpore's primitive classes (``ops.MatMul()(x, y)``).

MindSpore code builds an operator object once (often in a Cell's
``__init__``) and calls it later.  Each class here is a thin callable over
the eagerad op of the same meaning, so its gradient (of any order) is the op's.

>>> import eagerad
>>> from eagerad import ops
>>> ops.MatMul(transpose_b=True)(eagerad.ones(2, 3), eagerad.ones(4, 3)).shape
(2, 4)
"""
from ..tensor import Tensor
from . import linalg, reduction
from .shape import swapaxes


def stop_gradient(x):
    """The same values with no gradient flowing back (MindSpore's ``ops.stop_gradient``).

    Tuples and lists are handled element by element.

    >>> stop_gradient(eagerad.tensor([1.0], requires_grad=True)).requires_grad
    False
    """
    if isinstance(x, (tuple, list)):
        return type(x)(stop_gradient(v) for v in x)
    return x.detach() if isinstance(x, Tensor) else x


class Primitive:
    """Base: a named callable operator object.

    >>> sin = eagerad.ops.Sin(); sin, sin(eagerad.tensor([0.0])).tolist()
    (Sin(), [0.0])
    """

    def __repr__(self):
        return f"{type(self).__name__}()"


def make_primitive(name, fn):
    """A Primitive subclass whose instances call ``fn``.

    >>> make_primitive("Twice", lambda x: x * 2)()(eagerad.Tensor([1.0])).tolist()
    [2.0]
    """
    def __call__(self, *args):
        return fn(*args)
    __call__.__doc__ = f"Apply ``{fn.__name__}`` to the operands."
    cls = type(name, (Primitive,), {"__call__": __call__, "__doc__":
                                   f"MindSpore's ``ops.{name}()``: calls ``eagerad.ops.{fn.__name__}``."})
    cls.__module__ = __name__
    return cls


class MatMul(Primitive):
    """Matrix product of two 2-D tensors, optionally transposing either operand.

    >>> MatMul(transpose_a=True)(eagerad.ones(3, 2), eagerad.ones(3, 4)).shape
    (2, 4)
    """

    def __init__(self, transpose_a=False, transpose_b=False):
        self.transpose_a = bool(transpose_a)
        self.transpose_b = bool(transpose_b)

    def __call__(self, x, y):
        for name, t in (("x", x), ("y", y)):
            if not isinstance(t, Tensor) or t.ndim != 2:
                raise ValueError(f"MatMul: {name} must be a 2-D Tensor, got "
                                 f"{getattr(t, 'shape', type(t).__name__)}")
        if self.transpose_a:
            x = swapaxes(x, 0, 1)
        if self.transpose_b:
            y = swapaxes(y, 0, 1)
        return linalg.matmul(x, y)

    def __repr__(self):
        return f"MatMul(transpose_a={self.transpose_a}, transpose_b={self.transpose_b})"


class ReduceSum(Primitive):
    """Sum over ``axis`` (``()``, the default, means every axis).

    >>> ReduceSum(keep_dims=True)(eagerad.ones(2, 3), 1).shape
    (2, 1)
    """

    def __init__(self, keep_dims=False):
        self.keep_dims = bool(keep_dims)

    def __call__(self, x, axis=()):
        return reduction.sum(x, axis=None if axis == () else axis, keepdims=self.keep_dims)

    def __repr__(self):
        return f"ReduceSum(keep_dims={self.keep_dims})"

