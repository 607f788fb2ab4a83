"""Order statistics that skip or count: mode, nanmedian, nanquantile (PyTorch's readings).

Each sorts (stable; NaN last) and picks entries by position, so the gradient goes to the
entries picked, as in PyTorch: ``mode`` and ``nanmedian`` along a dimension to the entry
whose index they return, ``nanquantile`` to the one or two entries it interpolates.  Over
all entries ``nanmedian`` returns the value alone and, as PyTorch, shares the gradient
evenly among the entries equal to it (``shared_pick``).

>>> import eagerad
>>> eagerad.tensor([2.0, 1.0, 2.0, 3.0]).mode()
ValuesIndices(values=tensor(2.), indices=tensor(2))
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor, arange
from .cumulative import ValuesIndices, cummax, cummin, one_axis
from .indexing import _gather, front, take_along_axis
from .math import as_tensor, isnan, where
from .reduction import argmax, sum as _reduce_sum
from .registry import METHODS, Case, U, defop, export
from .shape import concat as cat, expand_dims, squeeze
from .arrangement import flip, moveaxis
from .sorting import sort_with_indices
from .statistics import _METHODS

# ------------------------------------------------------------- shared pick


def _share(mask):
    m = mask.astype(dt.float64) if mask.dtype == dt.bool_ else mask
    return m / _reduce_sum(m, axis=-1, keepdims=True)


def _pick_batch(args, bdims):
    n = max(a.shape[b] for a, b in zip(args, bdims) if b is not None)
    x, mask, which = (front(a, b) for a, b in zip(args, bdims))
    lead = (n,) + np.broadcast_shapes(x.shape[1:-1], mask.shape[1:-1], which.shape[1:-1])
    x = x.broadcast_to(lead + x.shape[-1:])
    mask = mask.broadcast_to(lead + mask.shape[-1:])
    return _shared_pick(x, mask, which.broadcast_to(lead + (1,))), 0


# ``x[..., which]`` (``which`` of shape ``(..., 1)``), its gradient shared evenly among the
# entries ``mask`` marks along the last axis (PyTorch's rule for a value that ties)
_shared_pick = defop(
    "shared_pick",
    lambda B, x, mask, which: B.reshape(_gather.forward(B, x, which, x.ndim - 1, tuple(x.shape)),
                                        tuple(x.shape[:-1])),
    vjp=(lambda g, ans, x, mask, which: expand_dims(g, -1) * _share(mask).astype(x.dtype),
         None, None),
    jvp=(lambda t, ans, x, mask, which: _reduce_sum(t * _share(mask).astype(t.dtype), axis=-1),
         None, None),
    saves=(1,), batch=_pick_batch,
    cases=[Case(U(4), np.array([False, False, True, False]), np.array([2])),
           Case(U(2, 3), np.array([[True, False, False], [False, False, True]]),
                np.array([[0], [2]]))])

# ------------------------------------------------------------------- mode


def _along(x, dim, name):
    """``(x with the axis last, its original position)``; a 0-d ``x`` is read as 1-D."""
    x = as_tensor(x)
    if x.ndim == 0:
        return x.reshape(1), None
    x, ax = one_axis(x, None, dim, name)
    if x.shape[ax] == 0:
        raise IndexError(f"{name}: dimension {ax} of the input of shape {x.shape} is empty")
    return (moveaxis(x, ax, -1) if ax != x.ndim - 1 else x), ax


def _back(t, ax, keepdim):
    """A result with its reduced axis last (size 1) put back as the caller asked."""
    if ax is None:
        return t.reshape(())
    if not keepdim:
        return squeeze(t, -1)
    return moveaxis(t, -1, ax) if ax != t.ndim - 1 else t


def _mode_index(x):
    """Index along the last axis of the most frequent value (the smallest of them when
    several are as frequent), its last occurrence (as PyTorch's)."""
    values, order = sort_with_indices(x.detach(), -1)
    n = x.shape[-1]
    differs = values[..., 1:] != values[..., :-1]
    edge = Tensor(np.ones(x.shape[:-1] + (1,), bool), device=x.device)
    pos = arange(n, device=x.device)
    start = cummax(where(cat([edge, differs], -1), pos, 0), dim=-1).values
    end = flip(cummin(flip(where(cat([differs, edge], -1), pos, n), -1), dim=-1).values, -1)
    longest = argmax(end - start, axis=-1, keepdims=True)          # the first: smallest value
    return take_along_axis(order, take_along_axis(end, longest, -1), -1)


@export(methods=("mode",))
def mode(input, dim=-1, keepdim=False, *, axis=None):
    """The most frequent value along ``dim`` and where it occurs, ``(values, indices)``
    (PyTorch's ``mode``): among equally frequent values the smallest, and the index of its
    last occurrence.  The gradient goes to that entry.  (NaN entries count as distinct.)

    >>> mode(eagerad.tensor([[3.0, 1.0, 3.0, 1.0, 2.0]]), 1)
    ValuesIndices(values=tensor([1.]), indices=tensor([3]))
    """
    x, ax = _along(input, dim if axis is None else axis, "mode")
    index = _mode_index(x)
    return ValuesIndices(_back(take_along_axis(x, index, -1), ax, keepdim), _back(index, ax, keepdim))

# -------------------------------------------------------------- nanmedian


def _lower_middle(x):
    """Per row (last axis): the sorted values, their order and the position of the lower
    median of the entries that are not NaN (0 where all are NaN, which picks a NaN)."""
    values, order = sort_with_indices(x.detach(), -1)
    count = _reduce_sum((~isnan(x.detach())).astype(dt.int64), axis=-1, keepdims=True)
    return values, order, where(count > 0, (count - 1) // 2, 0)


def nanmedian_lower(input, dim=None, keepdim=False, *, axis=None):
    """PyTorch's ``nanmedian``: the lower median of the entries that are not NaN (NaN
    where all are).  Over all entries (``dim`` None) the value alone, its gradient
    shared evenly among the entries equal to it; along ``dim`` ``(values, indices)``, the
    gradient to that index (an all-NaN row gives its first NaN).

    >>> x = eagerad.tensor([[2.0, float("nan"), 1.0, 3.0]])
    >>> nanmedian_lower(x).item(), nanmedian_lower(x, 1).indices.tolist()
    (2.0, [0])
    """
    dim = dim if axis is None else axis
    x = as_tensor(input)
    if dim is None:
        flat = x.reshape(-1)
        if flat.size == 0:
            raise IndexError("nanmedian: the input is empty; it has no median")
        values, order, middle = _lower_middle(flat)
        value = take_along_axis(values, middle, -1)
        ties = (flat.detach() == value) | (isnan(flat.detach()) & isnan(value))
        out = _shared_pick(flat, ties, take_along_axis(order, middle, -1))
        return out.reshape((1,) * x.ndim) if keepdim else out
    x, ax = _along(x, dim, "nanmedian")
    _, order, middle = _lower_middle(x)
    index = take_along_axis(order, middle, -1)
    return ValuesIndices(_back(take_along_axis(x, index, -1), ax, keepdim), _back(index, ax, keepdim))


METHODS["nanmedian"] = nanmedian_lower

# ------------------------------------------------------------ nanquantile


def _quantiles(q):
    qs = np.asarray(q.numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1 or not np.all((qs >= 0) & (qs <= 1)):
        raise ValueError(f"nanquantile: q must be a number or a 1-D sequence in [0, 1], got {q!r}")
    return qs


@export(methods=("nanquantile",))
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", axis=None):
    """The ``q``-th quantiles along ``dim`` (None flattens) of the entries that are not
    NaN (NaN where all are), as PyTorch's ``nanquantile``: rank ``q * (count - 1)``
    among the sorted entries, ``interpolation`` 'linear', 'lower', 'higher', 'nearest'
    (half to even) or 'midpoint'.  A 1-D ``q`` gives a leading axis.  The gradient goes
    to the entries interpolated (and, for 'linear', to a tensor ``q``).

    >>> nanquantile(eagerad.tensor([1.0, float("nan"), 2.0, 4.0]), 0.5).item()
    2.0
    >>> nanquantile(eagerad.tensor([[1.0, 2.0], [float("nan"), 5.0]]), 0.25, dim=1).tolist()
    [1.25, 5.0]
    """
    if interpolation not in _METHODS:
        raise ValueError(f"nanquantile: interpolation must be one of {_METHODS}, got "
                         f"{interpolation!r}")
    qs = _quantiles(q)
    x = as_tensor(input)
    if x.dtype.kind != "f":
        raise TypeError(f"nanquantile: the input must be floating point, got {x.dtype}")
    dim = dim if axis is None else axis
    shape = x.shape
    if x.size == 0:
        raise ValueError(f"nanquantile: the input of shape {shape} is empty")
    x, ax = _along(x.reshape(-1) if dim is None else x, 0 if dim is None else dim, "nanquantile")
    values = sort_with_indices(x, -1).values
    count = _reduce_sum((~isnan(x.detach())).astype(x.dtype), axis=-1, keepdims=True)
    q = q if isinstance(q, Tensor) else Tensor(qs, dtype=x.dtype, device=x.device)
    ranks = q.astype(x.dtype).reshape((-1,) + (1,) * x.ndim) * (count - 1)   # linear in q
    ranks = where(ranks < 0, 0.0, ranks)
    rounding = {"lower": "floor", "higher": "ceil", "nearest": "round"}.get(interpolation)
    if rounding is not None:
        ranks = getattr(ranks, rounding)()
    low = ranks.floor()
    pick = lambda r: take_along_axis(expand_dims(values, 0), r.astype(dt.int64), -1)  # noqa: E731
    out = pick(low)
    if interpolation in ("linear", "midpoint"):
        weight = ranks - low if interpolation == "linear" else 0.5
        out = out + weight * (pick(ranks.ceil()) - out)
    if dim is None:
        out = out.reshape(out.shape[:1] + ((1,) * len(shape) if keepdim else ()))
    elif ax is None:
        out = out.reshape(out.shape[:1])
    elif not keepdim:
        out = squeeze(out, -1)
    elif ax != len(shape) - 1:
        out = moveaxis(out, -1, ax + 1)
    return out[0] if qs.ndim == 0 else out
