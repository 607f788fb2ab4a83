"""``torch.mode``, ``torch.nanmedian`` and ``torch.nanquantile`` (and their Tensor methods):
order statistics that PyTorch returns as ``(values, indices)`` or, for ``nanquantile``,
interpolates between the sorted non-NaN values.  Values are gathered from the input (or
from its differentiable sort), so gradients flow to the elements picked.

>>> import eagerad.torch as torch
>>> nan = float("nan")
>>> torch.nanmedian(torch.tensor([1.0, nan, 3.0, 2.0])), torch.mode(torch.tensor([2, 1, 2]))
(tensor(2.), ValuesIndices(values=tensor(2), indices=tensor(2)))
"""
import numpy as np

from ..face import install
from ..ops import stack
from ..ops.cumulative import ValuesIndices
from ..ops.sorting import sort_with_indices
from ..tensor import Tensor
from ._face import TORCH


def _axis(input, dim, name):
    axis = dim + input.ndim if dim < 0 else dim
    if not 0 <= axis < max(input.ndim, 1):
        raise IndexError(f"{name}: dim={dim} is out of range for a tensor with {input.ndim} "
                         "dimensions")
    return axis


def _picked(input, axis, positions, keepdim):
    """``(values, indices)`` with values gathered from ``input`` at ``positions`` (numpy,
    the reduced axis kept with size 1)."""
    if input.ndim == 0:
        return ValuesIndices(input * 1, Tensor(np.int64(0), device=input.device))
    index = Tensor(positions.astype(np.int64), device=input.device)
    values = input.gather(axis, index)
    if not keepdim:
        values, index = values.squeeze(axis), index.squeeze(axis)
    return ValuesIndices(values, index)


def mode(input, dim=-1, keepdim=False):
    """``torch.mode``: the most frequent value along ``dim`` (the smallest among equally
    frequent ones) and the index of its last occurrence.

    >>> import eagerad.torch as torch
    >>> torch.mode(torch.tensor([[1.0, 2.0, 2.0, 1.0, 3.0]]), 1)
    ValuesIndices(values=tensor([1.]), indices=tensor([3]))
    """
    axis = _axis(input, dim, "mode")
    if input.ndim == 0:
        return _picked(input, 0, None, keepdim)
    data = np.moveaxis(np.asarray(input.detach().cpu()._data), axis, -1)
    rows = data.reshape(-1, data.shape[-1])
    if rows.shape[1] == 0:
        raise IndexError(f"mode: dimension {dim} of the input is empty")
    found = np.empty(rows.shape[0], np.int64)
    for r, row in enumerate(rows):
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]          # np.unique sorts: the smallest on ties
        found[r] = np.nonzero(row == best)[0][-1] if best == best else \
            np.nonzero(row != row)[0][-1]
    positions = np.expand_dims(found.reshape(data.shape[:-1]), axis)
    return _picked(input, axis, positions, keepdim)


def nanmedian(input, dim=None, keepdim=False):
    """``torch.nanmedian``: the lower median of the non-NaN values (NaN when there are
    none); with ``dim``, ``(values, indices)``.

    >>> import eagerad.torch as torch
    >>> torch.nanmedian(torch.tensor([[4.0, float("nan"), 1.0]]), 1)
    ValuesIndices(values=tensor([1.]), indices=tensor([2]))
    """
    if dim is None:
        return nanmedian(input.reshape(-1), 0).values
    axis = _axis(input, dim, "nanmedian")
    if input.ndim == 0:
        return _picked(input, 0, None, keepdim)
    if input.shape[axis] == 0:
        raise IndexError(f"nanmedian: dimension {dim} of the input is empty")
    data = np.asarray(input.detach().cpu()._data)
    order = np.argsort(data, axis=axis, kind="stable")            # NaNs sort last
    valid = (~np.isnan(data)).sum(axis=axis, keepdims=True)
    rank = np.where(valid > 0, (valid - 1) // 2, 0)
    positions = np.take_along_axis(order, rank, axis=axis)
    return _picked(input, axis, positions, keepdim)


_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """``torch.nanquantile``: quantiles ``q`` of the non-NaN values (NaN when there are
    none); ``q`` a number or a 1-D tensor (then a leading dimension per quantile).

    >>> import eagerad.torch as torch
    >>> torch.nanquantile(torch.tensor([1.0, float("nan"), 3.0, 2.0]), 0.4)
    tensor(1.8000)
    """
    if interpolation not in _INTERPOLATIONS:
        raise ValueError(f"nanquantile: interpolation must be one of {_INTERPOLATIONS}, got "
                         f"{interpolation!r}")
    if input.dtype.kind != "f":
        raise RuntimeError(f"nanquantile: input must be float, got {input.dtype}")
    qs = np.asarray(q.detach().cpu()._data if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1 or ((qs < 0) | (qs > 1)).any():
        raise ValueError("nanquantile: q must be a number or 1-D tensor of values in [0, 1]")
    x = input.reshape(-1) if dim is None else input
    axis = 0 if dim is None else _axis(input, dim, "nanquantile")
    x = x.movedim(axis, -1)
    if x.shape[-1] == 0:
        raise IndexError("nanquantile: the reduced dimension is empty")
    ordered = sort_with_indices(x, -1).values
    valid = np.asarray((~np.isnan(x.detach().cpu()._data)).sum(-1), np.float64)[..., None]
    results = []
    for qv in qs.reshape(-1):
        pos = qv * np.maximum(valid - 1, 0)
        low, high = np.floor(pos), np.ceil(pos)
        if interpolation == "lower":
            high = low
        elif interpolation == "higher":
            low = high
        elif interpolation == "nearest":
            low = high = np.round(pos)                     # half to even, as PyTorch
        frac = 0.5 if interpolation == "midpoint" else pos - low
        lo = ordered.gather(-1, Tensor(low.astype(np.int64), device=x.device))
        hi = ordered.gather(-1, Tensor(high.astype(np.int64), device=x.device))
        weight = Tensor(np.broadcast_to(frac, low.shape).astype(x.dtype), device=x.device)
        value = lo + (hi - lo) * weight if interpolation not in ("lower", "higher",
                                                                 "nearest") else lo
        value = value.masked_fill(Tensor(valid == 0, device=x.device), float("nan"))
        if keepdim:
            value = value.movedim(-1, axis)
            if dim is None:
                value = value.reshape((1,) * input.ndim)
        else:
            value = value.squeeze(-1)
        results.append(value)
    if qs.ndim == 0:
        return results[0]
    return stack(results, 0)


for _name, _impl in (("mode", mode), ("nanmedian", nanmedian), ("nanquantile", nanquantile)):
    install(Tensor, _name)
    TORCH.attributes[_name] = _impl
