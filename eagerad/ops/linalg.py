"""Matrix product with numpy's batching/broadcasting rules (BLAS underneath).

>>> import eagerad
>>> eagerad.ops.matmul(eagerad.ones(2, 3), eagerad.ones(3, 4)).shape
(2, 4)
"""
import numpy as np

from ..tensor import Tensor
from .math import as_tensor, broadcastable, operands
from .matrix_products import matmul_tn_op, matmul_nt_op
from .registry import Case, U, defop, export, move_batch


def _as_2d(a, b):
    """Promote 1-D operands as numpy does: a -> (1, n), b -> (n, 1)."""
    return (a.reshape((1,) + a.shape) if a.ndim == 1 else a,
            b.reshape(b.shape + (1,)) if b.ndim == 1 else b)


def _grad_a(g, ans, a, b):
    if a.ndim == 2 and b.ndim == 2:
        return matmul_nt_op.apply2(g, b)      # g @ b.T, no transpose node
    a2, b2 = _as_2d(a, b)
    g2 = g.reshape(_matmul_shape(a2.shape, b2.shape))
    r = _matmul(g2, b2.swapaxes(-1, -2))
    return r.reshape(r.shape[:-2] + r.shape[-1:]) if a.ndim == 1 else r


def _grad_b(g, ans, a, b):
    if a.ndim == 2 and b.ndim == 2:
        return matmul_tn_op.apply2(a, g)      # a.T @ g
    a2, b2 = _as_2d(a, b)
    g2 = g.reshape(_matmul_shape(a2.shape, b2.shape))
    r = _matmul(a2.swapaxes(-1, -2), g2)
    return r.reshape(r.shape[:-1]) if b.ndim == 1 else r


def _swap(B, x):
    return B.transpose(x, tuple(range(x.ndim - 2)) + (x.ndim - 1, x.ndim - 2))


def _fast_a(B, g, ans, a, b):
    """``g @ b^T`` on arrays (what ``_grad_a`` computes) where no batch axis of ``a`` is
    broadcast: 2-D operands, or a stack whose batch ``b`` shares or lacks (attention's
    ``q @ k^T``, a layer over a sequence)."""
    if a.ndim < 2 or b.ndim < 2 or (b.ndim > 2 and a.shape[:-2] != b.shape[:-2]):
        return None
    return B.matmul(g, _swap(B, b))


def _fast_b(B, g, ans, a, b):
    """``a^T @ g`` on arrays (what ``_grad_b`` computes) for 2-D operands or stacks of
    one batch shape (nothing to sum over broadcast axes)."""
    if a.ndim < 2 or b.ndim < 2 or a.shape[:-2] != b.shape[:-2]:
        return None
    return B.matmul(_swap(B, a), g)


def _matmul_shape(sa, sb):
    batch = np.broadcast_shapes(sa[:-2], sb[:-2])
    return tuple(batch) + (sa[-2], sb[-1])


def _batch(args, bdims):
    """Batching rule: 1-D operands become matrices, the batch axis goes first with unit
    axes so that it lines up with the other operand's broadcast batch dimensions."""
    a, b = (move_to_front(x, d) for x, d in zip(args, bdims))
    la, lb = (x.ndim - (d is not None) for x, d in zip((a, b), bdims))
    ma = a if la > 1 else a.reshape(a.shape[:-1] + (1, a.shape[-1]))
    mb = b if lb > 1 else b.reshape(b.shape + (1,))
    nb = max(la, lb, 2) - 2
    ops = []
    for m, d, own in ((ma, bdims[0], max(la, 2)), (mb, bdims[1], max(lb, 2))):
        if d is not None and own - 2 < nb:
            m = m.reshape(m.shape[:1] + (1,) * (nb - own + 2) + m.shape[1:])
        ops.append(m)
    out = _matmul(*ops)
    if la == 1:
        out = out.reshape(out.shape[:-2] + out.shape[-1:])
    if lb == 1:
        out = out.reshape(out.shape[:-1])
    return out, 0


def move_to_front(x, bdim):
    """``x`` with axis ``bdim`` first (unchanged when it is not batched)."""
    return x if bdim is None or bdim == 0 else move_batch(x, bdim)


_matmul = defop("matmul", lambda B, a, b: B.matmul(a, b), vjp=(_grad_a, _grad_b),
                fast=(_fast_a, _fast_b), batch=_batch,
                jvp=(lambda t, ans, a, b: _matmul(t, b), lambda t, ans, a, b: _matmul(a, t)),
                cases=[Case(U(2, 3), U(3, 4)), Case(U(2, 1, 2, 3), U(3, 3, 2)), Case(U(3), U(3, 2)),
                       Case(U(2, 3), U(3)), Case(U(3), U(3)), Case(U(0, 3), U(3, 2)),
                       Case(U(2, 0), U(0, 3))])


@export(methods=("matmul",))
def matmul(a, b):
    """Matrix product; leading dimensions broadcast as batches.

    >>> matmul(eagerad.ones(5, 2, 3), eagerad.ones(3, 4)).shape
    (5, 2, 4)
    """
    if isinstance(a, Tensor) and isinstance(b, Tensor):   # hot path: two float matrices that fit
        da, db = a._data, b._data
        if da.ndim == 2 and db.ndim == 2 and da.shape[1] == db.shape[0] \
                and da.dtype == db.dtype and da.dtype.kind == "f":
            return _matmul(a, b)
    a, b = operands("matmul", as_tensor(a), as_tensor(b))
    sa, sb = a.shape, b.shape
    if not sa or not sb:
        raise ValueError(f"matmul: operands must be at least 1-D, got shapes {sa} and {sb}")
    kb = sb[-2] if len(sb) > 1 else sb[0]
    if sa[-1] != kb:
        raise ValueError(f"matmul: shapes {sa} and {sb} are not aligned: {sa[-1]} (last dim "
                         f"of a) != {kb} ({'second-to-last' if len(sb) > 1 else 'only'} dim of b)")
    if (len(sa) > 2 or len(sb) > 2) and not broadcastable(sa[:-2], sb[:-2]):
        raise ValueError(f"matmul: batch dimensions of {sa} and {sb} cannot be "
                         "broadcast together")
    return _matmul(a, b)
