"""Max-pooling by indices (``max_pool_indexed``): the window maxima are found once.

``pooling.max_pool_fused`` keeps ``x`` and searches every window again in the backward
to route the gradient.  Here the forward finds each window's first maximum once
(``B.max_pool_argmax``: its flat position in the (H, W) plane, as PyTorch's indices) and
the pooled values are ``pool_take(x, idx)``, a gather that is linear in ``x``; its vjp is
``pool_put(g, idx)`` (a scatter-add), whose vjp is the gather again.  The positions are
piecewise constant in ``x``, so no rule differentiates through them, and the pair closes
under differentiation to any order.  The gradients are those of ``max_pool_fused`` to the
bit (the same maxima, added in the same order).

>>> import eagerad
>>> x = eagerad.tensor([[[[1.0, 2.0], [4.0, 3.0]]]], requires_grad=True)
>>> y, idx = max_pool_indexed(x, ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)))
>>> y.sum().backward(); y.tolist(), idx.tolist(), x.grad.tolist()
([[[[4.0]]]], [[[[2]]]], [[[[0.0, 0.0], [1.0, 0.0]]]])
"""
import numpy as np

from .. import backend
from ..tensor import Tensor
from .registry import Case, U, defop, move_batch
from .shape import broadcast_to


def _folded(op):
    """vmap rule: the batch axis folds into N (an unbatched operand is broadcast)."""
    def batch(args, bdims, **kw):
        size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
        full = [broadcast_to(a[None], (size,) + a.shape) if d is None else move_batch(a, d)
                for a, d in zip(args, bdims)]
        n = full[0].shape[1]
        out = op(*[a.reshape((size * n,) + a.shape[2:]) for a in full], **kw)
        return out.reshape((size, n) + out.shape[1:]), 0
    return batch


def _indices(shape, positions, seed):
    """Constant plane positions in ``[0, positions)`` (some -1) for the gradchecks."""
    rng = np.random.default_rng(seed)
    return rng.integers(-1, positions, shape)


pool_take = defop(
    "pool_take", lambda B, src, idx, fill: B.pool_take(src, idx, fill),
    vjp=(lambda g, ans, src, idx, fill: pool_put(g, idx, size=tuple(src.shape[2:])), None),
    jvp=(lambda t, ans, src, idx, fill: pool_take(t, idx, fill=0.0), None),
    fast=(lambda B, g, ans, src, idx, fill: B.pool_put(g, idx, tuple(src.shape[2:])), None),
    saves=(1,),
    cases=[Case(U(2, 3, 4, 4), _indices((2, 3, 2, 3), 16, 0), fill=0.0),
           Case(U(1, 2, 3, 2), _indices((1, 2, 4, 4), 6, 1), fill=0.0)])
pool_take.batch = _folded(pool_take)

pool_put = defop(
    "pool_put", lambda B, src, idx, size: B.pool_put(src, idx, size),
    vjp=(lambda g, ans, src, idx, size: pool_take(g, idx, fill=0.0), None),
    jvp=(lambda t, ans, src, idx, size: pool_put(t, idx, size=size), None),
    fast=(lambda B, g, ans, src, idx, size: B.pool_take(g, idx, 0.0), None),
    saves=(1,),
    cases=[Case(U(2, 3, 2, 3), _indices((2, 3, 2, 3), 16, 2), size=(4, 4)),
           Case(U(1, 2, 4, 4), _indices((1, 2, 4, 4), 6, 3), size=(3, 2))])
pool_put.batch = _folded(pool_put)


def max_pool_indexed(x, geometry):
    """Window maxima of ``x`` (N, C, H, W) and the flat (H*W) position of each (int64,
    -inf and -1 for a window wholly in the padding); ``geometry`` is (kernel, stride,
    dilation, (top, bottom, left, right) pads).  The gradient goes to each window's first
    maximum (NaN wins), as ``ops.max_pool2d``'s.

    >>> y, idx = max_pool_indexed(eagerad.tensor([[[[1.0, 4.0, 2.0]]]]), ((1, 2), (1, 1), (1, 1), (0, 0, 0, 0)))
    >>> y.tolist(), idx.tolist()
    ([[[[4.0, 4.0]]]], [[[[1, 1]]]])
    """
    idx = Tensor._make(backend.get(x.device.type).max_pool_argmax(x._data, geometry), x.device)
    return pool_take(x, idx, fill=float("-inf")), idx
