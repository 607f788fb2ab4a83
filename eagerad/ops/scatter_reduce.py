"""Scatter and index reductions: PyTorch's ``scatter_reduce`` and ``index_reduce``.

One stanza, ``scatter_reduce``, reduces the entries of ``src`` that an index tensor sends
to each position of ``x`` ('sum', 'prod', 'mean', 'amax', 'amin'), with ``x``'s own
entry taking part (``include_self=True``) or not; positions nothing is sent to keep
``x``'s entry.  ``index_reduce`` is the same with a 1-D index along one dimension.

Derivatives (PyTorch's conventions): 'sum' and 'mean' are linear; 'prod' gives each
factor the product of the other factors at its position, formed without dividing by a
zero factor; 'amax'/'amin' share the gradient evenly among the entries that equal the
result.  With ``include_self=False`` an excluded ``x`` entry never shares it (PyTorch
counts an excluded entry that happens to equal the result, and then drops its share: a
known PyTorch bug, not followed here).  Every rule is written in eagerad's
differentiable ops, so higher orders exist.  'sum' and 'mean' run on the device;
'prod', 'amax' and 'amin' are reduced by numpy on the host (a round trip from CUDA).

>>> import eagerad
>>> x = eagerad.tensor([1.0, 5.0, 0.0])
>>> x.scatter_reduce(0, eagerad.tensor([0, 0, 2]), eagerad.tensor([4.0, 2.0, 3.0]), "amax").tolist()
[4.0, 5.0, 3.0]
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor, ones
from .indexing import (_batch_size, _gather, _grid, _in_place, _scatter_add, _spread_index,
                       _torch_scatter, front, slices_source)
from .math import as_tensor, where
from .registry import Case, U, defop, export
from .shape import broadcast_to

REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")
_HOST = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce, dtype):
    """The value an excluded entry is replaced by before reducing (no effect on the result)."""
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    if dtype.kind == "b":
        return reduce == "amin"
    info = np.iinfo(dtype)
    return info.min if reduce == "amax" else info.max


def _forward(B, x, src, idx, axis, reduce, include_self):
    shape = tuple(x.shape)
    if reduce in _HOST:
        out = np.array(B.to_numpy(x), copy=True)
        grid = _grid(np, np.asarray(B.to_numpy(idx)), axis, tuple(idx.shape))
        if not include_self:
            out[grid] = _identity(reduce, out.dtype)
        _HOST[reduce].at(out, grid, np.asarray(B.to_numpy(src)))
        return B.from_numpy(out)
    grid = _grid(B, idx, axis, tuple(idx.shape))
    total = B.index_add(shape, x.dtype, grid, src)
    if include_self and reduce == "sum":
        return B.binary("add", x, total)
    count = B.index_add(shape, np.dtype(np.int64), grid, B.full(tuple(idx.shape), 1, np.int64))
    kept = B.binary("eq", count, 0)           # positions x's entry stays in
    if reduce == "sum":
        return B.where(kept, x, total)
    if include_self:
        count = B.binary("add", count, 1)
        total = B.binary("add", total, x)
    else:
        count = B.where(kept, 1, count)
        total = B.where(kept, x, total)
    if x.dtype.kind == "f":
        return B.binary("div", total, B.astype(count, x.dtype))
    return B.astype(B.binary("floordiv", total, count), x.dtype)


# ------------------------------------------------------------------ derivatives


def _counts(idx, shape, axis, dtype, device):
    """How many entries of src land on each position of the output."""
    return _scatter_add(ones(*idx.shape, dtype=dtype, device=device), idx, shape=shape, axis=axis,
                        sizes=idx.shape)


def _at(t, idx, axis):
    """``t`` read at each src entry's target position."""
    return _gather(t, idx, axis=axis, sizes=idx.shape)


def _self_takes_part(x, idx, axis, include_self):
    """Bool tensor: where ``x``'s entry takes part in the result (None: everywhere)."""
    if include_self:
        return None
    return _counts(idx, x.shape, axis, x.dtype, x.device) == 0


def _both(a, b):
    return b if a is None else a if b is None else a & b


def _share(ans, x, src, idx, axis, include_self):
    """amax/amin: which entries equal the result, and how many share each position."""
    x_wins = _both(_self_takes_part(x, idx, axis, include_self), x == ans)
    src_wins = src == _at(ans, idx, axis)
    n = _scatter_add(src_wins.astype(x.dtype), idx, shape=x.shape, axis=axis, sizes=idx.shape)
    n = n + x_wins.astype(x.dtype)
    return x_wins, src_wins, where(n > 0, n, 1)


def _self_factor(ans, x, src, idx, axis, reduce, include_self):
    """d out / d x, elementwise (x's shape, or a number)."""
    part = _self_takes_part(x, idx, axis, include_self)
    if reduce == "sum":
        return 1.0 if part is None else part.astype(x.dtype)
    if reduce == "mean":
        n = _counts(idx, x.shape, axis, x.dtype, x.device)
        return 1.0 / (n + 1.0) if part is None else part.astype(x.dtype)
    if reduce == "prod":
        others = _scatter_reduce(ones(*x.shape, dtype=x.dtype, device=x.device), src, idx,
                                 axis=axis, reduce="prod", include_self=True)
        return others if part is None else where(part, others, 0.0)
    x_wins, _, n = _share(ans, x, src, idx, axis, include_self)
    return where(x_wins, 1.0 / n, 0.0)


def _src_factor(ans, x, src, idx, axis, reduce, include_self):
    """d out[target] / d src, elementwise (src's shape, or a number)."""
    if reduce == "sum":
        return 1.0
    if reduce == "mean":
        n = _counts(idx, x.shape, axis, x.dtype, x.device) + (1.0 if include_self else 0.0)
        return _at(1.0 / where(n > 0, n, 1.0), idx, axis)
    if reduce == "prod":
        # the product of the others: ans / src, except for a src entry that is the only
        # zero at its position, whose others are reduced again with it set to 1
        zero = src == 0
        zeros_there = _at(_scatter_add(zero.astype(src.dtype), idx, shape=x.shape, axis=axis,
                                       sizes=idx.shape), idx, axis)
        alone = zero & (zeros_there == 1)
        without = _scatter_reduce(x, where(alone, 1.0, src), idx, axis=axis, reduce="prod",
                                  include_self=include_self)
        return where(alone, _at(without, idx, axis), _at(ans, idx, axis) / where(zero, 1.0, src))
    _, src_wins, n = _share(ans, x, src, idx, axis, include_self)
    return where(src_wins, _at(1.0 / n, idx, axis), 0.0)


def _batch(args, bdims, axis, reduce, include_self):
    n = _batch_size(args, bdims)
    x, src, idx = (front(a, b) for a, b in zip(args, bdims))
    x = broadcast_to(x, (n,) + x.shape[1:]) if x.shape[0] != n else x
    shape = (n,) + np.broadcast_shapes(src.shape[1:], idx.shape[1:])
    src, idx = broadcast_to(src, shape), broadcast_to(idx, shape)
    return _scatter_reduce(x, src, idx, axis=axis + 1, reduce=reduce, include_self=include_self), 0


def _cases():
    two = np.array([[0, 2], [2, 2]])
    out = []
    for reduce in REDUCTIONS:
        for include_self in (True, False):
            out.append(Case(U(3, 2), U(2, 2, low=0.5, high=1.5, signed=True), two, axis=0,
                            reduce=reduce, include_self=include_self))
    out.append(Case(U(2, 3), U(2, 2), np.array([[1, 1], [-1, 0]]), axis=1, reduce="prod",
                    include_self=True))
    out.append(Case(U(3), U(0), np.zeros(0, np.int64), axis=0, reduce="amax", include_self=True))
    return out


_scatter_reduce = defop(
    "scatter_reduce", _forward,
    vjp=(lambda g, ans, x, src, idx, axis, reduce, include_self:
         g * _self_factor(ans, x, src, idx, axis, reduce, include_self),
         lambda g, ans, x, src, idx, axis, reduce, include_self:
         _at(g, idx, axis) * _src_factor(ans, x, src, idx, axis, reduce, include_self), None),
    jvp=(lambda t, ans, x, src, idx, axis, reduce, include_self:
         t * _self_factor(ans, x, src, idx, axis, reduce, include_self),
         lambda t, ans, x, src, idx, axis, reduce, include_self:
         _scatter_add(t * _src_factor(ans, x, src, idx, axis, reduce, include_self), idx,
                      shape=x.shape, axis=axis, sizes=idx.shape), None),
    save_output=True, batch=_batch, cases=_cases())

# ------------------------------------------------------------------ public


def _reduction(name, reduce, allowed):
    if reduce not in allowed:
        raise ValueError(f"{name}: reduce must be one of {allowed}, got {reduce!r}")


def _as_vector(x, *others):
    """A 0-d input read as 1-D (PyTorch scatters into a scalar as into one entry)."""
    x = as_tensor(x)
    if x.ndim:
        return x, others, False
    return x.reshape(1), tuple(o.reshape(1) if isinstance(o, Tensor) and o.ndim == 0 else o
                               for o in others), True


@export(methods=("scatter_reduce",))
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """``input`` with the entries of ``src`` reduced into the positions ``index`` names
    along ``dim`` (``out[index[i][j]][j] op= src[i][j]`` for ``dim=0``), ``reduce`` one
    of 'sum', 'prod', 'mean', 'amax', 'amin'; ``include_self=False`` leaves ``input``'s
    entry out wherever something is sent.  Positions nothing is sent to keep ``input``.

    >>> x = eagerad.tensor([1.0, 2.0, 3.0])
    >>> src, idx = eagerad.tensor([4.0, 6.0, 5.0]), eagerad.tensor([0, 0, 2])
    >>> x.scatter_reduce(0, idx, src, "mean").tolist()
    [3.666..., 2.0, 4.0]
    >>> x.scatter_reduce(0, idx, src, "mean", include_self=False).tolist()
    [5.0, 2.0, 5.0]
    """
    _reduction("scatter_reduce", reduce, REDUCTIONS)
    x, (index, src), scalar = _as_vector(input, as_tensor(index), as_tensor(src))
    x, src, idx, axis = _torch_scatter("scatter_reduce", x, dim, index, src)
    result = _scatter_reduce(x, src, idx, axis=axis, reduce=reduce, include_self=bool(include_self))
    return result.reshape(()) if scalar else result


@export(methods=("index_reduce",))
def index_reduce(input, dim, index, source, reduce, *, include_self=True, out=None):
    """``input`` with the slices of ``source`` reduced into the slices the 1-D ``index``
    names along ``dim`` ('prod', 'mean', 'amax' or 'amin'; PyTorch's ``index_reduce``);
    ``include_self=False`` leaves ``input``'s slice out wherever one is sent.

    >>> x = eagerad.ones(3, 2)
    >>> x.index_reduce(0, eagerad.tensor([2, 0, 2]), eagerad.tensor([[2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]), "prod").tolist()
    [[4.0, 5.0], [1.0, 1.0], [12.0, 21.0]]
    """
    _reduction("index_reduce", reduce, REDUCTIONS[1:])
    x, (source,), scalar = _as_vector(input, as_tensor(source))
    x, idx, axis, source = slices_source("index_reduce", x, index, dim, source)
    full = broadcast_to(_spread_index(idx, axis, x.ndim), source.shape)
    result = _scatter_reduce(x, source, full, axis=axis, reduce=reduce,
                             include_self=bool(include_self))
    return result.reshape(()) if scalar else result


_ONE = "eagerad.tensor([1])"
scatter_reduce_ = _in_place(scatter_reduce, f""">>> eagerad.zeros(2).scatter_reduce_(0, {_ONE}, {_ONE}.float(), "amax").tolist()
    [0.0, 1.0]""")
index_reduce_ = _in_place(index_reduce, f""">>> eagerad.ones(2).index_reduce_(0, {_ONE}, eagerad.tensor([3.0]), "prod").tolist()
    [1.0, 3.0]""")
