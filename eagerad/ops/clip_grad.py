"""Gradient clipping by the global norm of a group of tensors (``ops.clip_by_global_norm``;
named so that no submodule shadows the function ``ops.clip``).

>>> import eagerad
>>> from eagerad import ops
>>> g = ops.clip_by_global_norm((eagerad.Tensor([3.0]), eagerad.Tensor([4.0])), 1.0)
>>> [round(t.item(), 4) for t in g]  # global norm 5 -> scaled by 1/5
[0.6, 0.8]
"""
import math as pymath

import numpy as np

from ..autograd import batching, forward_ad
from ..autograd.grad_mode import state as grad_state
from ..tensor import Tensor
from . import math, reduction
from .registry import export


def global_norm(tensors):
    """sqrt of the sum of squares of every element of every tensor, in float32 or wider
    (a float16 sum of squares overflows at 65504, which would clip every gradient to 0).

    >>> global_norm([eagerad.Tensor([3.0]), eagerad.Tensor([[4]])]).item()
    5.0
    """
    arrays = _bare_arrays(tensors)
    if arrays is not None:            # one Numba pass per tensor, float64 sums
        from ..backend.cpu.optim_kernels import sum_squares
        total = 0.0
        for a in arrays:
            total += sum_squares(a.reshape(-1))
        first = tensors[0]
        return Tensor._make(np.array(pymath.sqrt(total), arrays[0].dtype), first._device,
                            face=first._face)
    total = None
    for t in tensors:
        wide = t.dtype.kind == "f" and t.dtype.itemsize >= 4
        sq = reduction.sum(math.square(t if wide else t.astype("float32")))
        total = sq if total is None else total + sq.astype(total.dtype)
    return math.sqrt(total)


def _bare_arrays(tensors):
    """The tensors' arrays when the norm needs no graph and no tangents: C-contiguous
    float32 (or all float64) CPU arrays, no input requiring grad under grad mode, no vmap
    or forward-mode level; else None."""
    if not tensors or batching.levels or forward_ad.levels:
        return None
    recording = grad_state.enabled
    dtype = tensors[0]._data.dtype
    arrays = []
    for t in tensors:
        a = t._data
        if type(t) is not Tensor and not isinstance(t, Tensor) or type(a) is not np.ndarray \
                or a.dtype != dtype or not a.flags.c_contiguous or recording and t._requires_grad:
            return None
        arrays.append(a)
    return arrays if dtype.char in "fd" else None


@export
def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale the tensors in ``x`` by ``clip_norm / max(global_norm, clip_norm)``.

    ``x`` is a tuple/list of tensors (a single tensor is accepted too); the
    result has the same structure.  ``use_norm`` skips computing the norm.
    Differentiable like any op.

    >>> clip_by_global_norm(eagerad.Tensor([0.5, 0.25]), 1.0)  # norm < 1: unchanged
    tensor([0.5000, 0.2500])
    """
    single = isinstance(x, Tensor)
    tensors = (x,) if single else tuple(x)
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"clip_by_global_norm: x[{i}] must be a Tensor, got {type(t).__name__}")
    if not clip_norm > 0:
        raise ValueError(f"clip_by_global_norm: clip_norm must be > 0, got {clip_norm!r}")
    if not tensors:
        return x
    norm = global_norm(tensors) if use_norm is None else use_norm
    factor = clip_norm / math.maximum(norm, clip_norm)
    clipped = tuple(_scaled(t, factor) if t.dtype.kind == "f" else t for t in tensors)
    return clipped[0] if single else clipped


def _scaled(t, factor):
    """``t * factor`` in ``t``'s dtype; a float16 ``t`` is multiplied in ``factor``'s
    float32 and rounded once (a float16 factor can underflow)."""
    if t.dtype.itemsize < factor.dtype.itemsize:
        return (t * factor).astype(t.dtype)
    return t * factor.astype(t.dtype)
