"""MindSpore's communication primitives (``ops.AllReduce``, ``ops.AllGather``,
``ops.ReduceScatter``, ``ops.Broadcast``): objects configured once and called on tensors,
returning new tensors (the input is left as it is), over the same checked MPI collectives.

>>> AllReduce(ReduceOp.SUM)(eagerad.tensor([1.0, 2.0])).tolist()
[1.0, 2.0]
>>> AllGather()(eagerad.tensor([[1.0, 2.0]])).shape
(1, 2)
"""
from ..ops import concat
from ..tensor import Tensor
from . import collectives as c
from . import process_group as pg
from .collectives import ReduceOp


def _fresh(x, what, rows=1):
    """A new tensor like ``x`` (its face and device) with ``rows`` times its first axis,
    for a primitive to write its result into."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{what}: expected a Tensor, got {type(x).__name__}")
    d = x.detach()
    return d.clone() if rows == 1 else concat([d] * rows, 0)


class AllReduce:
    """``ops.AllReduce(op=ReduceOp.SUM)``: the reduction over the ranks of ``x``.

    >>> AllReduce("max")(eagerad.tensor([3, 1])).tolist()
    [3, 1]
    """

    def __init__(self, op=ReduceOp.SUM, group=None):
        self.op = op

    def __call__(self, x):
        out = _fresh(x, "AllReduce")
        c.all_reduce(out, self.op)
        return out


class AllGather:
    """``ops.AllGather()``: the ranks' tensors concatenated along axis 0.

    >>> AllGather()(eagerad.tensor([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """

    def __init__(self, group=None):
        pass

    def __call__(self, x):
        if not isinstance(x, Tensor) or x.ndim == 0:
            raise ValueError("AllGather: expected a Tensor with at least one axis")
        out = _fresh(x, "AllGather", pg.get_world_size())
        c.all_gather_into_tensor(out, x)
        return out


class ReduceScatter:
    """``ops.ReduceScatter(op=ReduceOp.SUM)``: reduce over the ranks, then rank r keeps
    the r-th of ``world size`` equal blocks along axis 0.

    >>> ReduceScatter()(eagerad.tensor([1.0, 2.0])).tolist()
    [1.0, 2.0]
    """

    def __init__(self, op=ReduceOp.SUM, group=None):
        self.op = op

    def __call__(self, x):
        n = pg.get_world_size()
        if not isinstance(x, Tensor) or x.ndim == 0 or x.shape[0] % n:
            got = tuple(x.shape) if isinstance(x, Tensor) else type(x).__name__
            raise ValueError(f"ReduceScatter: the first axis must divide by the {n} ranks, "
                             f"got {got}")
        out = _fresh(x[: x.shape[0] // n], "ReduceScatter")
        c.reduce_scatter_tensor(out, x, self.op)
        return out


class Broadcast:
    """``ops.Broadcast(root_rank)``: every rank gets ``root_rank``'s tensors (a tuple in,
    a tuple out, as MindSpore's).

    >>> Broadcast(0)((eagerad.tensor([5.0]),))[0].tolist()
    [5.0]
    """

    def __init__(self, root_rank, group=None):
        self.root_rank = root_rank

    def __call__(self, input_x):
        outs = tuple(_fresh(x, "Broadcast") for x in input_x)
        for out in outs:
            c.broadcast(out, src=self.root_rank)
        return outs
