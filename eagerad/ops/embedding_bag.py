"""``embedding_bag``: sums, means or maxima of bags of embedding rows without building
the per-index rows tensor the caller would otherwise reduce (PyTorch's
``F.embedding_bag``).

Bags are the rows of a 2-D ``input``, or the runs of a 1-D ``input`` that start at
``offsets``.  The picked rows are gathered once (``take``), scaled by
``per_sample_weights`` and reduced per bag by a scatter-add (sum, mean) or a padded
maximum; all differentiable ops, so gradients of every order reach ``weight`` and
``per_sample_weights``.  Entries equal to ``padding_idx`` are left out of their bag
(and of its count); an empty bag gives a row of zeros.

>>> import eagerad
>>> w = eagerad.arange(8.0).reshape(4, 2)
>>> embedding_bag(eagerad.tensor([0, 1, 3]), w, eagerad.tensor([0, 2]), mode="sum").tolist()
[[2.0, 4.0], [6.0, 7.0]]
"""
import numpy as np

from ..tensor import Tensor
from .indexing import take
from .math import as_tensor, where
from .reduction import amax
from .registry import export
from .shape import index_add

MODES = ("sum", "mean", "max")


def _bags(name, idx, offsets, include_last_offset):
    """``(flat indices, bag of each entry, number of bags)`` from the input's layout."""
    if idx.ndim == 2:
        if offsets is not None:
            raise ValueError(f"{name}: offsets must be None for a 2-D input (each row is a bag)")
        bags, width = idx.shape
        return idx.reshape(-1), np.repeat(np.arange(bags), width), bags
    if idx.ndim != 1:
        raise ValueError(f"{name}: input must be 1-D (with offsets) or 2-D, got shape {idx.shape}")
    if offsets is None:
        raise ValueError(f"{name}: a 1-D input needs offsets (where each bag starts)")
    starts = np.asarray(as_tensor(offsets).tolist(), dtype=np.int64).reshape(-1)
    if include_last_offset:
        if starts.size == 0:
            raise ValueError(f"{name}: include_last_offset needs at least one offset")
        starts = starts[:-1]
    if starts.size and (starts[0] != 0 or np.any(np.diff(starts) < 0) or starts[-1] > idx.size):
        raise ValueError(f"{name}: offsets must start at 0 and not decrease or pass the input's "
                         f"length {idx.size}, got {starts.tolist()}")
    bag = np.searchsorted(starts, np.arange(idx.size), side="right") - 1
    return idx, bag, starts.size


def _bag_max(rows, bag, bags, counts):
    """Per-bag maximum of ``rows`` (entries in bag order), 0 for an empty bag."""
    width = int(counts.max()) if bags else 0
    order = np.argsort(bag, kind="stable")
    slot = np.arange(bag.size) - np.repeat(np.cumsum(counts) - counts, counts)
    grid = np.zeros((bags, max(width, 1)), np.int64)
    filled = np.zeros((bags, max(width, 1)), bool)
    grid[bag[order], slot] = order
    filled[bag[order], slot] = True
    picked = take(rows, Tensor(grid, device=rows.device), 0)            # (bags, width, dim)
    mask = Tensor(filled[:, :, None], device=rows.device)
    best = amax(where(mask, picked, float("-inf")), axis=1)
    return where(Tensor(counts[:, None] > 0, device=rows.device), best, 0.0)


@export
def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2.0,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sum, mean or max of the ``weight`` rows picked by each bag of ``input``: the rows
    of a 2-D ``input``, or the runs of a 1-D ``input`` starting at ``offsets``.
    ``per_sample_weights`` (mode 'sum' only) scale each picked row.  PyTorch's old
    ``(weight, input)`` order is recognised (a float first, integers second).

    >>> import eagerad
    >>> embedding_bag(eagerad.tensor([[0, 2]]), eagerad.arange(6.0).reshape(3, 2)).tolist()
    [[2.0, 3.0]]
    """
    name = "embedding_bag"
    input, weight = as_tensor(input), as_tensor(weight)
    if weight.dtype.kind in "iu" and input.dtype.kind == "f":
        input, weight = weight, input
    if input.dtype.kind not in "iu":
        raise TypeError(f"{name}: input must hold integer indices, got dtype {input.dtype}")
    if weight.ndim != 2:
        raise ValueError(f"{name}: weight must be (num_embeddings, dim), got {weight.shape}")
    if mode not in MODES:
        raise ValueError(f"{name}: mode must be one of {MODES}, got {mode!r}")
    if max_norm is not None:
        raise NotImplementedError(f"{name}: max_norm (renormalising weight in place) is not "
                                  "supported; renormalise the weight beforehand")
    if per_sample_weights is not None and mode != "sum":
        raise ValueError(f"{name}: per_sample_weights is only supported with mode='sum', "
                         f"got mode={mode!r}")
    flat, bag, bags = _bags(name, input, offsets, include_last_offset)
    picks = np.asarray(flat.tolist(), dtype=np.int64).reshape(-1)
    n = weight.shape[0]
    if picks.size and (picks.min() < 0 or picks.max() >= n):
        raise IndexError(f"{name}: indices must lie in [0, {n}), got {picks.min()} .. "
                         f"{picks.max()}")
    keep = np.ones(picks.shape, bool)
    if padding_idx is not None:
        keep = picks != (padding_idx + n if padding_idx < 0 else padding_idx)
    picks, bag = picks[keep], bag[keep]
    from .losses import embedding
    rows = embedding(Tensor(picks, device=weight.device), weight,
                     scale_grad_by_freq=scale_grad_by_freq)
    if per_sample_weights is not None:
        psw = as_tensor(per_sample_weights, weight).reshape(-1)
        if psw.shape[0] != keep.size:
            raise ValueError(f"{name}: per_sample_weights has {psw.shape[0]} entries for "
                             f"{keep.size} indices")
        rows = rows * psw[Tensor(np.flatnonzero(keep), device=weight.device)].reshape(-1, 1)
    counts = np.bincount(bag, minlength=bags)
    if mode == "max":
        return _bag_max(rows, bag, bags, counts)
    total = index_add((bags, weight.shape[1]), rows.dtype, (bag,), rows)
    if mode == "sum":
        return total
    return total / Tensor(np.maximum(counts, 1)[:, None], device=weight.device).astype(rows.dtype)
