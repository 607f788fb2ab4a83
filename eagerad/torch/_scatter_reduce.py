"""``torch.scatter_reduce`` / ``Tensor.scatter_reduce(_)``: ``src`` reduced into ``input``
at ``index`` along ``dim`` with ``'sum'``, ``'prod'``, ``'mean'``, ``'amax'`` or ``'amin'``,
``include_self`` deciding whether ``input``'s own values take part.

Built from differentiable ops, so gradients of every order follow PyTorch's rules: ``amax``
and ``amin`` share the gradient evenly among the values equal to the result; ``prod`` is
the product taken one contributor per target at a time (exact with zeros too).

>>> import eagerad.torch as torch
>>> torch.zeros(3).scatter_reduce(0, torch.tensor([0, 0, 2]), torch.tensor([1.0, 4.0, 5.0]), "amax")
tensor([4., 0., 5.])
"""
import numpy as np

from ..face import install
from ..ops import scatter_add
from ..tensor import Tensor
from ._face import TORCH

_REDUCES = ("sum", "prod", "mean", "amax", "amin")


def _targets(input, dim, index):
    """Flat positions in ``input`` each element of ``index`` points at (numpy int64)."""
    idx = np.asarray(index.detach().cpu()._data).astype(np.int64)
    axis = dim + input.ndim if dim < 0 else dim
    if not 0 <= axis < max(input.ndim, 1):
        raise IndexError(f"scatter_reduce: dim={dim} is out of range for a tensor with "
                         f"{input.ndim} dimensions")
    if input.ndim == 0:
        return np.zeros(idx.shape, np.int64), 0
    size = input.shape[axis]
    if idx.size and (idx.min() < -size or idx.max() >= size):
        raise IndexError(f"scatter_reduce: index out of range [{-size}, {size}) along dim "
                         f"{dim} of an input of shape {tuple(input.shape)}")
    coords = list(np.indices(idx.shape))
    coords[axis] = np.where(idx < 0, idx + size, idx)
    return np.ravel_multi_index(tuple(coords), tuple(input.shape)), axis


def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """``torch.scatter_reduce``: see the module docstring.

    >>> import eagerad.torch as torch
    >>> x = torch.tensor([1.0, 2.0])
    >>> x.scatter_reduce(0, torch.tensor([0, 0]), torch.tensor([3.0, 5.0]), "mean",
    ...                  include_self=False)
    tensor([4., 2.])
    """
    if reduce not in _REDUCES:
        raise ValueError(f"scatter_reduce: reduce must be one of {_REDUCES}, got {reduce!r}")
    if index.ndim != src.ndim or index.ndim != input.ndim:
        raise ValueError(f"scatter_reduce: index {tuple(index.shape)}, src {tuple(src.shape)} "
                         f"and input {tuple(input.shape)} need the same number of dimensions")
    if any(i > s for i, s in zip(index.shape, src.shape)):
        raise ValueError(f"scatter_reduce: index of shape {tuple(index.shape)} is larger than "
                         f"src of shape {tuple(src.shape)}")
    src = src[tuple(slice(0, n) for n in index.shape)] if src.shape != index.shape else src
    src = src.astype(input.dtype) if src.dtype != input.dtype else src
    flat_targets, _ = _targets(input, dim, index)
    flat_targets = flat_targets.reshape(-1)
    values = src.reshape(-1)
    base = input.reshape(-1)
    n = base.shape[0]
    touched = np.zeros(n, bool)
    touched[flat_targets] = True
    hit = Tensor(touched, device=input.device).astype(input.dtype)
    hit = hit.detach()
    positions = _as_index(flat_targets, input)
    if reduce == "sum":
        start = base if include_self else base * (1 - hit)
        result = scatter_add(start, 0, positions, values)
    elif reduce == "mean":
        start = base if include_self else base * (1 - hit)
        total = scatter_add(start, 0, positions, values)
        counts = np.bincount(flat_targets, minlength=n) + (1 if include_self else 0)
        counts = np.maximum(counts, 1)
        divisor = Tensor(counts, device=input.device).astype(input.dtype)
        result = total / divisor if input.dtype.kind == "f" else total // divisor
    elif reduce == "prod":
        result = base if include_self else base * (1 - hit) + hit
        for rank_targets, rank_elements in _rounds(flat_targets):
            factor = base.new_ones(n).index_put((_as_index(rank_targets, input),),
                                                values[_as_index(rank_elements, input)])
            result = result * factor
    else:
        result = _extreme(base, values, flat_targets, positions, hit, include_self, reduce)
    return result.reshape(input.shape)


def _as_index(array, like):
    return Tensor(np.asarray(array, np.int64), device=like.device)


def _rounds(targets):
    """Split the contributors into rounds in which every target appears at most once:
    yields (targets, element positions) per round."""
    order = np.argsort(targets, kind="stable")
    sorted_targets = targets[order]
    starts = np.r_[0, np.nonzero(np.diff(sorted_targets))[0] + 1] if targets.size else \
        np.zeros(0, np.int64)
    rank = np.arange(targets.size) - np.repeat(starts, np.diff(np.r_[starts, targets.size]))
    for r in range(int(rank.max()) + 1 if targets.size else 0):
        chosen = order[rank == r]
        yield targets[chosen], chosen


def _extreme(base, values, targets, positions, hit, include_self, reduce):
    """amax/amin: the extreme value per target; gradient shared among the values equal to
    it (``result + (shares - shares.detach())`` keeps the value exact)."""
    pick = np.maximum if reduce == "amax" else np.minimum
    b = np.asarray(base.detach().cpu()._data)
    v = np.asarray(values.detach().cpu()._data)
    init = -np.inf if reduce == "amax" else np.inf
    if b.dtype.kind != "f":
        init = np.iinfo(b.dtype).min if reduce == "amax" else np.iinfo(b.dtype).max
    extreme = np.full(b.shape, init, dtype=b.dtype)
    pick.at(extreme, targets, v)
    touched = np.asarray(hit.detach().cpu()._data) > 0
    if include_self:
        extreme = pick(extreme, b)
    extreme = np.where(touched, extreme, b)
    if b.dtype.kind != "f":
        return base.new_tensor(extreme)
    src_ties = (v == extreme[targets]).astype(b.dtype)
    self_ties = (touched & include_self & (b == extreme)) | ~touched
    counts = np.bincount(targets, weights=src_ties, minlength=b.size) + self_ties
    counts = np.maximum(counts, 1)
    w_src = base.new_tensor(src_ties / counts[targets])
    w_self = base.new_tensor(self_ties / counts)
    shares = scatter_add(base * w_self, 0, positions, values * w_src)
    return base.new_tensor(extreme) + (shares - shares.detach())


def scatter_reduce_(self, dim, index, src, reduce, *, include_self=True):
    """In place ``scatter_reduce``; returns self."""
    return self.copy_(scatter_reduce(self, dim, index, src, reduce, include_self=include_self))


for _name, _impl in (("scatter_reduce", scatter_reduce), ("scatter_reduce_", scatter_reduce_)):
    install(Tensor, _name)
    TORCH.attributes[_name] = _impl
