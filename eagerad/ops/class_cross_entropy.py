"""Cross-entropy of scores against class indices as ONE op (``cross_entropy_index``):
the log-softmax, the pick of each target, class weights, ``ignore_index``, label
smoothing and the reduction in one forward pass over the rows and one backward pass
(``B.cross_entropy_index``: a Numba kernel on the CPU), where the composed formula
recorded a dozen nodes.  ``ops.cross_entropy`` and PyTorch's ``F.cross_entropy`` take it
for float32/float64 scores with integer targets (outside ``vmap``, and while the class
weights need no gradient); everything else keeps the composed formula.

Its rules are written in eagerad ops, so create_graph, higher order and forward-mode AD
work through it: the gradient with respect to the scores ``x`` (M, C) is
``s (A softmax(x) - B)`` with constants ``A`` (M, 1) and ``B`` (M, C) built from the
targets and weights (see ``backend/cpu/loss_kernels.py``) and ``s`` the output gradient
over the reduction's divisor.

>>> import eagerad
>>> x = eagerad.tensor([[0.0, 0.0], [0.0, 0.0]], requires_grad=True)
>>> loss = class_cross_entropy(x, eagerad.tensor([0, 1])); loss.backward()
>>> round(loss.item(), 4), x.grad.tolist()
(0.6931, [[-0.25, 0.25], [0.25, -0.25]])
"""
import numpy as np

from ..autograd import batching
from ..autograd.grad_mode import state as grad_state
from ..tensor import Tensor
from .nn_ops import classes_last, softmax
from .registry import Case, U, defop


def _forward(B, x, t, w, ignore_index, reduction, label_smoothing, keep=None):
    return B.cross_entropy_index(x, t, w, ignore_index, label_smoothing, reduction, keep)


def _constants(x, t, w, ignore_index, label_smoothing):
    """``A`` (M, 1), ``B`` (M, C) as tensors of x's dtype and device, and the sum of the
    targets' weights (the 'mean' divisor)."""
    targets = t.numpy().astype(np.int64)
    m, c = x.shape
    weights = np.ones(c) if w is None else w.numpy().astype(np.float64)
    valid = np.ones(m, bool) if ignore_index is None else targets != ignore_index
    safe = np.where(valid, targets, 0)
    w_t = np.where(valid, weights[safe], 0.0)
    spread = label_smoothing / c
    a = (1.0 - label_smoothing) * w_t + spread * weights.sum() * valid
    b = np.zeros((m, c))
    b[np.arange(m), safe] = (1.0 - label_smoothing) * w_t
    b += spread * weights * valid[:, None]
    return (Tensor(a.reshape(m, 1).astype(x.dtype), device=x.device),
            Tensor(b.astype(x.dtype), device=x.device), float(w_t.sum()))


def _slope(x, t, w, ignore_index, label_smoothing):
    """``A softmax(x) - B`` (differentiable in x) and the 'mean' divisor."""
    a, b, total = _constants(x, t, w, ignore_index, label_smoothing)
    return softmax(x, axis=1) * a - b, total


def _vjp(g, ans, x, t, w, ignore_index, reduction, label_smoothing, keep=None):
    slope, total = _slope(x, t, w, ignore_index, label_smoothing)
    if reduction == "none":
        return slope * g.reshape(x.shape[0], 1)
    return slope * (g / total if reduction == "mean" else g)


def _fast(B, g, ans, x, t, w, ignore_index, reduction, label_smoothing, keep=None):
    if g.dtype != x.dtype:
        return None                   # the Tensor rule promotes
    return B.cross_entropy_index_backward(g, x, t, w, ignore_index, label_smoothing, reduction,
                                          keep)


def _jvp(tangent, ans, x, t, w, ignore_index, reduction, label_smoothing, keep=None):
    slope, total = _slope(x, t, w, ignore_index, label_smoothing)
    rows = (slope * tangent).sum(axis=1)
    if reduction == "none":
        return rows
    return rows.sum() / total if reduction == "mean" else rows.sum()


_WEIGHTS = np.array([0.5, 1.0, 2.0, 1.0, 0.25])
cross_entropy_index = defop(
    "cross_entropy_index", _forward, vjp=(_vjp, None, None), jvp=(_jvp, None, None),
    fast=(_fast,),
    cases=[Case(U(4, 5), np.array([1, 0, 4, 2]), None, ignore_index=None, reduction="mean",
                label_smoothing=0.0),
           Case(U(4, 5), np.array([1, -100, 4, 2]), _WEIGHTS, ignore_index=-100,
                reduction="sum", label_smoothing=0.2),
           Case(U(3, 4), np.array([3, 0, 1]), None, ignore_index=-100, reduction="none",
                label_smoothing=0.1),
           Case(U(4, 5), np.array([2, 2, -1, 0]), _WEIGHTS, ignore_index=-1, reduction="mean",
                label_smoothing=0.3)])


def fused_applies(x, target, weight=None):
    """Whether ``class_cross_entropy`` serves these operands: float32/float64 CPU scores
    with at least one class, integer targets, class weights that need no gradient, no
    vmap.  (On CUDA the op would run through the host, a synchronising round trip per
    call, so GPU scores keep the composed formula's device kernels.)

    >>> fused_applies(eagerad.zeros(2, 3), eagerad.tensor([0, 1]))
    True
    """
    return x._device.type == "cpu" and x.dtype.char in "fd" and x.ndim >= 1 and x.shape[1 if x.ndim > 1 else 0] > 0 \
        and target.dtype.kind in "iu" and not batching.levels \
        and (weight is None or not weight._requires_grad)


def class_cross_entropy(x, target, weight=None, ignore_index=None, reduction="mean",
                        label_smoothing=0.0):
    """Cross-entropy of float scores ``x`` (N, C) or (N, C, d...) (classes on axis 1) or
    (C,) against integer ``target`` (N,) / (N, d...) / (): ``cross_entropy_index`` on the
    rows, its 'none' result in target's shape.  Callers check shapes and ranges of the
    arguments first (``fused_applies``).

    >>> class_cross_entropy(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([1]), reduction="none").shape
    (1,)
    """
    c = x.shape[1] if x.ndim > 1 else x.shape[0]
    rows = classes_last(x)
    if rows.ndim != 2:
        rows = rows.reshape(-1, c)
    flat = target if target.ndim == 1 else target.reshape(-1)
    # what the forward computes that the backward reuses (the exponentials), kept for a
    # gradient of this call only: the backward checks that it belongs to its own scores
    keep = [] if rows._requires_grad and grad_state.enabled else None
    out = cross_entropy_index(rows, flat, weight, ignore_index=ignore_index,
                              reduction=reduction, label_smoothing=float(label_smoothing),
                              keep=keep)
    return out if reduction != "none" or target.ndim == 1 else out.reshape(target.shape)
