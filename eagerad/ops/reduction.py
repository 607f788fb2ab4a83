"""Reductions: sum, mean, max, min, logsumexp, argmax/argmin.

>>> import eagerad
>>> eagerad.ops.sum(eagerad.ones(2, 3), axis=1)
tensor([3., 3.])
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .math import as_tensor
from .shape import normalize_axis


def _spread(g, x_shape, axes, keepdims):
    """Broadcast a reduced gradient back over the reduced axes of ``x_shape``."""
    if not keepdims:
        g = g.reshape(tuple(1 if i in axes else s for i, s in enumerate(x_shape)))
    return g.broadcast_to(x_shape)


from .registry import OPS, Case, U, defop, export  # noqa: E402  (after _spread, used by rules)


def _reduce_batch(get_op):
    """Batching rule of a reduction over ``axes``: the same reduction with the axes moved
    past the batch axis."""
    def rule(args, bdims, axes, keepdims):
        b = bdims[0]
        moved = tuple(a + (a >= b) for a in axes)
        out_b = b if keepdims else b - len([a for a in axes if a < b])
        return get_op()(args[0], axes=moved, keepdims=keepdims), out_b
    return rule

# gradcheck cases: all axes, one axis kept, a 0-d input; sums also take empty arrays
_REDUCE_CASES = [Case(U(2, 3), axes=(0, 1), keepdims=False), Case(U(2, 3), axes=(1,), keepdims=True),
                 Case(U(2, 3, 2), axes=(0, 2), keepdims=False), Case(U(), axes=(), keepdims=False)]

def _spread_array(B, g, ans, x, axes, keepdims):
    """``_spread`` on arrays (the same reshape and broadcast views), for ``fast=``."""
    shape = tuple(x.shape)
    if not keepdims:
        kept = tuple(1 if i in axes else s for i, s in enumerate(shape))
        g = g if tuple(g.shape) == kept else B.reshape(g, kept)
    return g if tuple(g.shape) == shape else B.broadcast_to(g, shape)


_sum = defop("sum", lambda B, x, axes, keepdims: B.reduce("sum", x, axes, keepdims),
             vjp=lambda g, ans, x, axes, keepdims: _spread(g, x.shape, axes, keepdims),
             fast=_spread_array,
             jvp=lambda t, ans, x, axes, keepdims: _sum(t, axes=axes, keepdims=keepdims), saves=(),
             batch=_reduce_batch(lambda: _sum), cases=_REDUCE_CASES + [Case(U(0, 3), axes=(0,), keepdims=False)])


def _count(shape, axes):
    """How many entries of an array of ``shape`` each result of a reduction over ``axes`` sees."""
    n = 1
    for a in axes:
        n *= shape[a]
    return n


# the backend's mean accumulates float16 in float32 (a float16 sum of 100000 ones is inf)
_mean = defop("mean", lambda B, x, axes, keepdims: B.reduce("mean", x, axes, keepdims),
              vjp=lambda g, ans, x, axes, keepdims:
                  _spread(g, x.shape, axes, keepdims) / _count(x.shape, axes),
              jvp=lambda t, ans, x, axes, keepdims: _mean(t, axes=axes, keepdims=keepdims),
              saves=(), batch=_reduce_batch(lambda: _mean), cases=_REDUCE_CASES)


def _extreme_share(ans, x, axes, keepdims):
    """Where x attains its max/min, split evenly among ties (as PyTorch)."""
    hit = (x == _spread(ans, x.shape, axes, keepdims)).astype(x.dtype)
    return hit / _spread(_sum(hit, axes=axes, keepdims=keepdims), x.shape, axes, keepdims)


def _extreme(name):
    return defop(name, batch=_reduce_batch(lambda: OPS[name]),
                 forward=lambda B, x, axes, keepdims: B.reduce(name, x, axes, keepdims),
                 vjp=lambda g, ans, x, axes, keepdims:
                     _spread(g, x.shape, axes, keepdims) * _extreme_share(ans, x, axes, keepdims),
                 jvp=lambda t, ans, x, axes, keepdims:
                     _sum(t * _extreme_share(ans, x, axes, keepdims), axes=axes, keepdims=keepdims),
                 save_output=True, cases=_REDUCE_CASES)


_max = _extreme("max")
_min = _extreme("min")

_logsumexp = defop("logsumexp", lambda B, x, axes, keepdims: B.logsumexp(x, axes, keepdims),
                   vjp=lambda g, ans, x, axes, keepdims: _spread(g, x.shape, axes, keepdims) *
                   (x - _spread(ans, x.shape, axes, keepdims)).exp(),
                   jvp=lambda t, ans, x, axes, keepdims: _sum(
                       t * (x - _spread(ans, x.shape, axes, keepdims)).exp(), axes=axes,
                       keepdims=keepdims), save_output=True, cases=_REDUCE_CASES,
                   batch=_reduce_batch(lambda: _logsumexp))


def _prepare(x, axis, name, dim=None, dtype=None):
    """The tensor (cast to ``dtype`` when given) and its normalised axes; ``dim`` is
    PyTorch's name for ``axis``."""
    x = as_tensor(x)
    if dim is not None:
        if axis is not None:
            raise TypeError(f"{name}() got both axis={axis!r} and dim={dim!r}; pass one")
        axis = dim
    _check_axis_type(name, "axis" if dim is None else "dim", axis)
    if dtype is not None:
        x = x.astype(dtype)
    elif x.dtype.kind in "biu" and name == "sum" and x.dtype != dt.int64:
        x = x.astype(dt.int64)          # PyTorch: bool and integer sums are int64
    elif x.dtype == dt.bool_ and name == "mean":
        x = x.astype(dt.float32)
    return x, normalize_axis(axis if axis != () else None, x.ndim)


def _is_int(a):
    return isinstance(a, (int, np.integer)) and not isinstance(a, bool)


def _check_axis_type(name, argname, axis):
    """TypeError naming the argument unless ``axis`` is None, an int or a sequence of ints."""
    # (``all`` here is the reduction)
    if axis is None or _is_int(axis) or isinstance(axis, (tuple, list)) and \
            not [a for a in axis if not _is_int(a)]:
        return
    raise TypeError(f"{name}(): {argname} must be an int or a tuple of ints, got {axis!r} "
                    f"({type(axis).__name__})")


def _keep(keepdims, keepdim):
    """``keepdims`` or PyTorch's ``keepdim`` alias."""
    return bool(keepdims if keepdim is None else keepdim)


@export(methods=("sum",))
def sum(x, axis=None, keepdims=False, dtype=None, *, dim=None, keepdim=None):
    """Sum over ``axis`` (None: all; int or tuple), in ``dtype`` when given; ``dim``/``keepdim``
    are PyTorch's names.

    >>> sum(eagerad.ones(2, 3)).item()
    6.0
    >>> sum(eagerad.tensor([200, 100], dtype=eagerad.uint8), dtype=eagerad.int32).item()
    300
    """
    x, axes = _prepare(x, axis, "sum", dim, dtype)
    out = _sum(x, axes=axes, keepdims=_keep(keepdims, keepdim))
    return out if dtype is None or out.dtype == dtype else out.astype(dtype)


@export(methods=("mean",))
def mean(x, axis=None, keepdims=False, dtype=None, *, dim=None, keepdim=None):
    """Arithmetic mean over ``axis`` (in ``dtype`` when given).

    >>> mean(eagerad.Tensor([[1, 2], [3, 6]]), axis=1).tolist()
    [1.5, 4.5]
    >>> mean(eagerad.ones(2, 3), dim=0, keepdim=True).shape
    (1, 3)
    """
    x, axes = _prepare(x, axis, "mean", dim, dtype)
    if x.dtype.kind not in "fc":
        x = x.astype(dt.default_float)
    if not _count(x.shape, axes):       # the mean of nothing is nan (as numpy and torch)
        return _sum(x, axes=axes, keepdims=_keep(keepdims, keepdim)) * float("nan")
    return _mean(x, axes=axes, keepdims=_keep(keepdims, keepdim))


def _extreme_fn(op, name):
    def fn(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
        x, axes = _prepare(x, axis, name, dim)
        if x.size == 0:
            raise ValueError(f"{name}() of an empty tensor of shape {x.shape} has no identity")
        return op(x, axes=axes, keepdims=_keep(keepdims, keepdim))
    fn.__name__ = name
    fn.__doc__ = f"``{name}`` over ``axis``; ties share the gradient equally."
    return fn


max = export(_extreme_fn(_max, "max"), methods=("amax",), aliases=("amax",))
min = export(_extreme_fn(_min, "min"), methods=("amin",), aliases=("amin",))
amax, amin = max, min


@export(methods=("logsumexp",))
def logsumexp(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """``log(sum(exp(x)))`` computed without overflow; integer inputs are computed in float.

    >>> logsumexp(eagerad.Tensor([1000.0, 1000.0])).item()
    1000.6931...
    >>> round(logsumexp(eagerad.tensor([200, 200], dtype=eagerad.uint8)).item(), 3)
    200.693
    """
    x, axes = _prepare(x, axis, "logsumexp", dim)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    return _logsumexp(x, axes=axes, keepdims=_keep(keepdims, keepdim))


def _truth(name):
    op = defop(name, lambda B, x, axes, keepdims: B.reduce(name, x, axes, keepdims),
               batch=_reduce_batch(lambda: OPS[name]))

    def fn(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
        x, axes = _prepare(x, axis, name, dim)
        return op(x, axes=axes, keepdims=_keep(keepdims, keepdim))
    fn.__name__ = name
    export(fn, methods=(name,))
    fn.__doc__ = (f"Whether {name} elements along ``axis`` are nonzero (a bool tensor; not "
                  f"differentiable), e.g. to test a condition without Python's ``bool(t)``.\n\n"
                  f"    >>> eagerad.tensor([[0.0, 1.0], [2.0, 3.0]]).{name}(axis=1).tolist()\n"
                  f"    {[False, True] if name == 'all' else [True, True]}\n")
    return fn


any = _truth("any")
all = _truth("all")


def _arg(name):
    op = defop(name, lambda B, x, axes, keepdims: B.argreduce(name, x, axes[0], keepdims),
               batch=_reduce_batch(lambda: OPS[name]))

    def fn(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
        x = as_tensor(x)
        axis, keepdims = (axis if dim is None else dim), _keep(keepdims, keepdim)
        if axis is None:      # the index into the flattened tensor
            flat = op(x.reshape(-1), axes=(0,), keepdims=False)
            return flat.reshape((1,) * x.ndim) if keepdims else flat
        return op(x, axes=normalize_axis(axis, x.ndim), keepdims=keepdims)
    fn.__name__ = name
    fn.__doc__ = f"Index of the {name[3:]}imum along ``axis`` (not differentiable)."
    return export(fn, methods=(name,))


argmax = _arg("argmax")
argmin = _arg("argmin")
