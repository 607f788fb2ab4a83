"""Fused max-pooling (``max_pool_fused``): one backend call each way.

``ops.max_pool2d`` built from ops is an im2col copy, an argmax, a one-hot mask and a
sum, and its backward a mask, a sum and a col2im.  Here the forward is one pass over the
windows (``B.max_pool``) and the gradient one scatter of ``g`` to each window's first
maximum (``B.max_pool_scatter``).  Three linear-in-their-first-argument ops close the
family under differentiation: the vjp of the pooling is ``max_pool_scatter(g, x)``, the
vjp of that is ``max_pool_gather(g, x)`` (read ``g`` at the maxima), and the vjp of the
gather is the scatter again; the positions of the maxima are piecewise constant in
``x``, so no rule differentiates through them.  ``geometry`` is (kernel, stride,
dilation, (top, bottom, left, right) pads), as ``ops.convolution`` works it out.

>>> import eagerad
>>> x = eagerad.tensor([[[[1.0, 2.0], [4.0, 3.0]]]], requires_grad=True)
>>> y = max_pool_fused(x, geometry=((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)))
>>> y.sum().backward(); y.tolist(), x.grad.tolist()
([[[[4.0]]]], [[[[0.0, 0.0], [1.0, 0.0]]]])
"""
import numpy as np

from .registry import OPS, Case, U, defop, move_batch
from .shape import broadcast_to

_TWO = ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0))
_PADDED = ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1))
_DILATED = ((2, 2), (1, 2), (2, 1), (0, 0, 0, 1))


def _folded(op):
    """vmap rule: the batch axis folds into N (unbatched operands are broadcast)."""
    def batch(args, bdims, geometry):
        size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
        full = [broadcast_to(a[None], (size,) + a.shape) if d is None else move_batch(a, d)
                for a, d in zip(args, bdims)]
        n = full[0].shape[1]
        out = op(*[a.reshape((size * n,) + a.shape[2:]) for a in full], geometry=geometry)
        return out.reshape((size, n) + out.shape[1:]), 0
    return batch


def _x_constant(shape, seed):
    """A constant input without ties (so each window's maximum is unique)."""
    return np.random.default_rng(seed).permutation(int(np.prod(shape))).reshape(shape) / 7.0


max_pool_fused = defop(
    "max_pool_fused", lambda B, x, geometry: B.max_pool(x, geometry),
    vjp=lambda g, ans, x, geometry: max_pool_scatter(g, x, geometry=geometry),
    jvp=lambda t, ans, x, geometry: max_pool_gather(t, x, geometry=geometry),
    fast=lambda B, g, ans, x, geometry: B.max_pool_scatter(g, x, geometry),
    cases=[Case(U(2, 3, 4, 4), geometry=_TWO), Case(U(1, 2, 5, 5), geometry=_PADDED),
           Case(U(1, 1, 4, 5), geometry=_DILATED)])
max_pool_fused.batch = _folded(max_pool_fused)


def _routing(name, transpose, cases):
    """A max-pool routing op (``B.<name>``), linear in its first argument (``x`` only
    places it): its vjp is the routing ``transpose`` names, its jvp itself."""
    def vjp(g, ans, src, x, geometry):
        return OPS[transpose](g, x, geometry=geometry)

    def jvp(t, ans, src, x, geometry):
        return OPS[name](t, x, geometry=geometry)

    def fast(B, g, ans, src, x, geometry):
        return getattr(B, transpose)(g, x, geometry)
    op = defop(name, lambda B, src, x, geometry: getattr(B, name)(src, x, geometry),
               vjp=(vjp, None), jvp=(jvp, None), fast=(fast, None), saves=(1,), cases=cases)
    op.batch = _folded(op)
    return op


max_pool_scatter = _routing(
    "max_pool_scatter", "max_pool_gather",
    [Case(U(2, 3, 2, 2), _x_constant((2, 3, 4, 4), 0), geometry=_TWO),
     Case(U(1, 2, 3, 3), _x_constant((1, 2, 5, 5), 1), geometry=_PADDED)])
max_pool_gather = _routing(
    "max_pool_gather", "max_pool_scatter",
    [Case(U(2, 3, 4, 4), _x_constant((2, 3, 4, 4), 2), geometry=_TWO),
     Case(U(1, 2, 5, 5), _x_constant((1, 2, 5, 5), 3), geometry=_PADDED)])
