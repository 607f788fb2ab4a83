"""``mindspore.ops``: eagerad's ops with MindSpore's signatures, defaults and returns.

>>> import eagerad.mindspore as ms
>>> ms.ops.max(ms.Tensor([1.0, 3.0, 2.0]))
(Tensor(shape=[], dtype=Float32, value= 3), Tensor(shape=[], dtype=Int64, value= 1))
"""
from ...ops import *  # noqa: F401,F403
from ...ops import registry as _registry
from ...ops import shape as _shape, statistics as _stats
from ...ops import max as _max, min as _min, argmax as _argmax, argmin as _argmin
from ...transforms import GradOperation  # noqa: F401
from .._face import stamped

globals().update({name: fn for name, fn in _registry.PUBLIC.items()})
globals().update({name: cls for name, cls in _registry.PRIMITIVES.items()})
from ... import ops as _core_ops  # noqa: E402
# MindSpore's primitive classes (``ops.Sin()``, ``ops.MatMul()``), as in eagerad.ops: the
# PRIMITIVES table holds the functions those classes call, not the classes
globals().update({name: getattr(_core_ops, name) for name in _registry.PRIMITIVES})
for _name in ("ones", "zeros", "full", "arange", "eye", "linspace", "rand", "randn", "randint",
              "ones_like", "zeros_like", "full_like"):
    if _name in globals():
        globals()[_name] = stamped(globals()[_name])


def _extremum(reduce, arg, name):
    def fn(input, axis=None, keepdims=False, *, initial=None, where=None):
        """MindSpore's ``ops.{0}``: ``(values, indices)`` along ``axis`` (all axes when None)."""
        if axis is None:
            flat = input.reshape(-1)
            return (reduce(flat, 0, keepdims=False), arg(flat, 0)) if not keepdims \
                else (reduce(input, None, keepdims=True), arg(flat, 0).reshape((1,) * input.ndim))
        return reduce(input, axis, keepdims=keepdims), arg(input, axis, keepdims=keepdims)
    fn.__name__ = name
    fn.__doc__ = fn.__doc__.format(name)
    return fn


max = _extremum(_max, _argmax, "max")
min = _extremum(_min, _argmin, "min")


def flatten(input, order="C", *, start_dim=1, end_dim=-1):
    """MindSpore's ``ops.flatten``: keeps the batch axis (``start_dim=1``).

    >>> import eagerad.mindspore as ms
    >>> flatten(ms.ops.ones((2, 3, 4))).shape
    (2, 12)
    """
    return _shape.flatten(input, start_dim, end_dim)


def std(input, axis=None, ddof=0, keepdims=False):
    """MindSpore's ``ops.std``: divides by ``n - ddof`` (ddof 0).

    >>> import eagerad.mindspore as ms
    >>> std(ms.Tensor([1.0, 2.0, 3.0, 4.0]))
    Tensor(shape=[], dtype=Float32, value= 1.11803)
    """
    return _stats.std(input, axis, ddof, keepdims)


def var(input, axis=None, ddof=0, keepdims=False):
    """MindSpore's ``ops.var``: divides by ``n - ddof`` (ddof 0).

    >>> import eagerad.mindspore as ms
    >>> var(ms.Tensor([1.0, 2.0, 3.0, 4.0]))
    Tensor(shape=[], dtype=Float32, value= 1.25)
    """
    return _stats.var(input, axis, ddof, keepdims)
from ...distributed.primitives import (AllGather, AllReduce, Broadcast,  # noqa: E402,F401
                                       ReduceScatter)
from ...distributed.collectives import ReduceOp  # noqa: E402,F401
