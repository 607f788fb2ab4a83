"""``mindspore.ops``: eagerad's ops with MindSpore's signatures, defaults and returns.

>>> import eagerad.mindspore as ms
>>> ms.ops.max(ms.Tensor([1.0, 3.0, 2.0]))
(Tensor(shape=[], dtype=Float32, value= 3), Tensor(shape=[], dtype=Int64, value= 1))
"""
from ...ops import *  # noqa: F401,F403
from ...ops import registry as _registry
from ...ops import shape as _shape, statistics as _stats
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


def _take_public(module):
    """The public functions of a face module, as names of ``mindspore.ops``."""
    globals().update({name: value for name, value in vars(module).items()
                      if not name.startswith("_") and callable(value)
                      and getattr(value, "__module__", "").startswith("eagerad")})


from . import _functions, _semantics  # noqa: E402
_take_public(_functions)
_take_public(_semantics)

from ...distributed.primitives import (AllGather, AllReduce, Broadcast,  # noqa: E402,F401
                                       ReduceScatter)
from ...distributed.collectives import ReduceOp  # noqa: E402,F401
