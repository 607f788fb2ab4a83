"""Neural-network ops: softmax family and cross-entropy, stable for large logits.

>>> import eagerad
>>> eagerad.ops.softmax(eagerad.tensor([1000.0, 1000.0]))
Tensor(shape=[2], dtype=Float32, value= [ 5.00000000e-01  5.00000000e-01])
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .math import as_tensor
from .reduction import sum as _sum_fn
from .registry import Case, U, defop
from .shape import normalize_axis


def _dot(a, b, axis):
    return (a * b).sum(axis=axis, keepdims=True)


_AXIS_CASES = [Case(U(2, 3), axis=1), Case(U(2, 3), axis=0), Case(U(4), axis=0),
               Case(U(0, 3), axis=1)]
_softmax = defop("softmax", lambda B, x, axis: B.softmax(x, axis),
                 vjp=lambda g, ans, x, axis: ans * (g - _dot(g, ans, axis)),
                 jvp=lambda t, ans, x, axis: ans * (t - _dot(t, ans, axis)),
                 saves=(), save_output=True, cases=_AXIS_CASES)
_log_softmax = defop("log_softmax", lambda B, x, axis: B.log_softmax(x, axis),
                     vjp=lambda g, ans, x, axis: g - ans.exp() * g.sum(axis=axis, keepdims=True),
                     jvp=lambda t, ans, x, axis: t - _dot(ans.exp(), t, axis),
                     saves=(), save_output=True, cases=_AXIS_CASES)


def _float_input(x, name):
    x = as_tensor(x)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    return x


def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``."""
    x = _float_input(x, "softmax")
    return _softmax(x, axis=normalize_axis(axis, x.ndim)[0])


def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis``; finite even for logits of +-1000."""
    x = _float_input(x, "log_softmax")
    return _log_softmax(x, axis=normalize_axis(axis, x.ndim)[0])


REDUCTIONS = ("mean", "sum", "none")


def reduce_loss(loss, reduction, name):
    """Apply a loss's ``reduction`` ('mean' | 'sum' | 'none')."""
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{name}: reduction={reduction!r} is not one of {REDUCTIONS}")


def one_hot(indices, depth, dtype=dt.float32):
    """One-hot rows for integer ``indices`` (not differentiable)."""
    idx = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    if idx.size and (idx.min() < 0 or idx.max() >= depth):
        raise ValueError(f"one_hot: labels must lie in [0, {depth}), got values from {idx.min()} "
                         f"to {idx.max()}")
    out = np.zeros(idx.shape + (depth,), dtype=dtype)
    np.put_along_axis(out, idx[..., None].astype(np.int64), 1, axis=-1)
    device = indices.device if isinstance(indices, Tensor) else None
    return Tensor(out, device=device)


def cross_entropy(logits, labels, reduction="mean", axis=-1):
    """Softmax cross-entropy of ``logits`` against integer class ``labels`` (sparse) or
    probability rows of ``logits``'s shape.

    >>> cross_entropy(eagerad.tensor([[1000.0, -1000.0]]), eagerad.tensor([0])).item()
    0.0
    """
    logits = _float_input(logits, "cross_entropy")
    if reduction not in REDUCTIONS:
        raise ValueError(f"cross_entropy: reduction={reduction!r} is not one of {REDUCTIONS}")
    labels = labels if isinstance(labels, Tensor) else \
        Tensor(np.asarray(labels), device=logits.device)
    logp = log_softmax(logits, axis)
    if labels.dtype.kind in "iu":
        if labels.shape != logits.shape[:-1] or axis not in (-1, logits.ndim - 1):
            raise ValueError(f"cross_entropy: integer labels of shape {labels.shape} need shape "
                             f"{logits.shape[:-1]} for logits of shape {logits.shape}")
        target = one_hot(labels, logits.shape[-1], logits.dtype)
    else:
        if labels.shape != logits.shape:
            raise ValueError(f"cross_entropy: probability labels of shape {labels.shape} must "
                             f"match logits of shape {logits.shape}")
        target = labels.astype(logits.dtype)
    loss = -_sum_fn(target * logp, axis=axis)
    return reduce_loss(loss, reduction, "cross_entropy")
