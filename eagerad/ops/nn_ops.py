"""Neural-network ops: softmax family and cross-entropy, stable for large logits.

>>> import eagerad
>>> eagerad.ops.softmax(eagerad.tensor([1000.0, 1000.0]))
tensor([0.5000, 0.5000])
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .math import as_tensor
from .reduction import sum as _sum_fn
from .registry import Case, U, defop, export
from .shape import normalize_axis, transpose


def _dot(a, b, axis):
    return (a * b).sum(axis=axis, keepdims=True)


_AXIS_CASES = [Case(U(2, 3), axis=1), Case(U(2, 3), axis=0), Case(U(4), axis=0),
               Case(U(0, 3), axis=1)]


def _same_dtype(rule):
    """An array rule (``fast=``) that runs only when ``g`` has the output's dtype, so
    numpy computes what the Tensor rule computes."""
    def fast(B, g, ans, x, axis):
        return rule(B, g, ans, axis) if g.dtype == ans.dtype else None
    return fast


def _along_axis_batch(op):
    """Batching rule of an op that works along one ``axis``: the same op on the batched
    operand, with ``axis`` moved past the batch axis where it lies after it."""
    def batch(args, bdims, axis):
        (x,), (b,) = args, bdims
        if b is None:
            return op(x, axis=axis), None
        return op(x, axis=axis + (axis >= b)), b
    return batch


# softmax's gradient ``a * (g - <g, a>)`` as an op of its own: its forward is the backend's
# (``B.softmax_backward``, a Numba pass for float32 rows), so a recorded backward
# (create_graph) computes the very numbers of the array rule; its rules are the
# derivatives of that product (the map g -> a * (g - <g, a>) is symmetric in g).
_softmax_grad = defop(
    "softmax_grad", lambda B, g, a, axis: B.softmax_backward(g, a, axis),
    vjp=(lambda c, ans, g, a, axis: _softmax_grad(c, a, axis=axis),
         lambda c, ans, g, a, axis: c * (g - _dot(g, a, axis)) - g * _dot(c, a, axis)),
    jvp=(lambda t, ans, g, a, axis: _softmax_grad(t, a, axis=axis),
         lambda t, ans, g, a, axis: t * (g - _dot(g, a, axis)) - a * _dot(g, t, axis)),
    saves={0: (1,), 1: (0, 1)},
    cases=[Case(U(2, 3), U(2, 3), axis=1), Case(U(3, 2), U(3, 2), axis=0),
           Case(U(4), U(4), axis=0)])
_softmax_grad.batch = lambda args, bdims, axis: (
    _softmax_grad(*(x if d is None or d == 0 else x.moveaxis(d, 0) for x, d in zip(args, bdims)),
                  axis=axis + 1) if all(d is not None for d in bdims) else
    _softmax_grad_broadcast(args, bdims, axis), 0)


def _softmax_grad_broadcast(args, bdims, axis):
    """vmap of the gradient op with one operand unbatched: its formula (broadcasting)."""
    g, a = (x if d is None or d == 0 else x.moveaxis(d, 0) for x, d in zip(args, bdims))
    shifted = axis + 1
    return a * (g - _dot(g, a, shifted))


_softmax = defop("softmax", lambda B, x, axis: B.softmax_inplace(x, axis),
                 vjp=lambda g, ans, x, axis: _softmax_grad(g, ans, axis=axis),
                 jvp=lambda t, ans, x, axis: _softmax_grad(t, ans, axis=axis),
                 fast=_same_dtype(lambda B, g, ans, axis: B.softmax_backward(g, ans, axis)),
                 saves=(), save_output=True, cases=_AXIS_CASES)
_softmax.batch = _along_axis_batch(_softmax)
_log_softmax = defop("log_softmax", lambda B, x, axis: B.log_softmax(x, axis),
                     vjp=lambda g, ans, x, axis: g - ans.exp() * g.sum(axis=axis, keepdims=True),
                     jvp=lambda t, ans, x, axis: t - _dot(ans.exp(), t, axis),
                     fast=_same_dtype(lambda B, g, ans, axis: B.log_softmax_backward(g, ans,
                                                                                      axis)),
                     saves=(), save_output=True, cases=_AXIS_CASES)
_log_softmax.batch = _along_axis_batch(_log_softmax)


def _float_input(x, name):
    x = as_tensor(x)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    return x


@export(methods=("softmax",))
def softmax(x, axis=-1):
    """``exp(x) / sum(exp(x))`` along ``axis``.

    >>> softmax(eagerad.Tensor([0.0, np.log(3.0)])).tolist()
    [0.25, 0.75]
    """
    x = _float_input(x, "softmax")
    return _softmax(x, axis=normalize_axis(axis, x.ndim)[0])


@export(methods=("log_softmax",))
def log_softmax(x, axis=-1):
    """``x - logsumexp(x)`` along ``axis``; finite even for logits of +-1000.

    >>> log_softmax(eagerad.Tensor([1000.0, 1000.0])).tolist()
    [-0.693, -0.693]
    """
    x = _float_input(x, "log_softmax")
    return _log_softmax(x, axis=normalize_axis(axis, x.ndim)[0])


REDUCTIONS = ("mean", "sum", "none")


def reduce_loss(loss, reduction, name):
    """Apply a loss's ``reduction`` ('mean' | 'sum' | 'none').

    >>> loss = eagerad.Tensor([1.0, 3.0])
    >>> reduce_loss(loss, 'mean', 'l1').item(), reduce_loss(loss, 'sum', 'l1').item()
    (2.0, 4.0)
    """
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    if reduction == "none":
        return loss
    raise ValueError(f"{name}: reduction={reduction!r} is not one of {REDUCTIONS}")


def _out_of_range(flat, depth):
    """Whether a label lies outside ``[0, depth)``: for signed integers one ``max`` of
    the bits read as unsigned (negative labels become huge) instead of ``min`` and ``max``."""
    if flat.dtype.kind == "i":
        return int(flat.view(f"u{flat.dtype.itemsize}").max()) >= depth
    return flat.min() < 0 or flat.max() >= depth


@export
def one_hot(indices, depth, dtype=dt.float32):
    """One-hot rows for integer ``indices`` (not differentiable).

    >>> one_hot(eagerad.tensor([2, 0]), 3).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    idx = indices.numpy() if isinstance(indices, Tensor) else np.asarray(indices)
    flat = idx.reshape(-1)
    if flat.size and _out_of_range(flat, depth):
        raise ValueError(f"one_hot: labels must lie in [0, {depth}), got values from {idx.min()} "
                         f"to {idx.max()}")
    out = np.zeros((flat.size, depth), dtype=dtype)
    out[np.arange(flat.size), flat] = 1
    out = out.reshape(idx.shape + (depth,))
    device = indices.device if isinstance(indices, Tensor) else None
    if device is not None and device.type == "cpu":
        return Tensor._make(out, device)
    return Tensor(out, device=device)


def _loss_seed(B, g, shape, axis, reduction):
    """Per-element weight of ``target * logp`` in the loss, shaped to broadcast against
    ``logp``: ``-g``, divided by the batch size for 'mean'.

    Array-level twin of ``_seed``, with the composed formula's operations (div, neg,
    then a broadcasting mul) so first-order gradients match it bit for bit."""
    if reduction == "mean":
        count = _batch_count(shape, axis)
        g = B.binary("div", g, count) if count else B.binary("mul", g, float("nan"))
    return B.reshape(B.unary("neg", g), _seed_shape(shape, axis, reduction))


def _seed(g, shape, axis, reduction):
    """``_loss_seed`` in eagerad ops (differentiable, for create_graph and higher order)."""
    if reduction == "mean":
        count = _batch_count(shape, axis)
        g = g / count if count else g * float("nan")
    return (-g).reshape(_seed_shape(shape, axis, reduction))


def _seed_shape(shape, axis, reduction):
    """The loss gradient's shape with ``axis`` kept as 1 (all ones when reduced)."""
    return tuple(1 if i == axis or reduction != "none" else s for i, s in enumerate(shape))


def _batch_count(shape, axis):
    """How many losses the 'mean' reduction averages: the size without ``axis``."""
    count = 1
    for i, s in enumerate(shape):
        if i != axis:
            count *= s
    return count


def _nll_forward(B, logp, target, axis, reduction):
    # a class with target 0 adds nothing, even where it is masked out (logp = -inf):
    # 0 * -inf would be NaN
    terms = B.where(B.binary("eq", target, 0), 0, B.binary("mul", target, logp))
    loss = B.unary("neg", B.reduce("sum", terms, (axis,), False))
    if reduction == "none":
        return loss
    total = B.reduce("sum", loss, tuple(range(loss.ndim)), False)
    if reduction == "sum":
        return total
    count = _batch_count(logp.shape, axis)
    return B.binary("div", total, count) if count else B.binary("mul", total, float("nan"))


def _nll_rule(i):
    """vjp of argument ``i`` (0: log-probabilities, 1: target): the loss is linear in
    each, so the gradient is the seed times the other argument."""
    def rule(g, ans, logp, target, axis, reduction):
        return _seed(g, logp.shape, axis, reduction) * (target if i == 0 else logp)

    def fast(B, g, ans, logp, target, axis, reduction):
        if g.dtype != logp.dtype or target.dtype != logp.dtype:
            return None     # the Tensor rule promotes like the composed formula did
        return B.binary("mul", _loss_seed(B, g, logp.shape, axis, reduction),
                        target if i == 0 else logp)

    def jvp(t, ans, logp, target, axis, reduction):
        return reduce_loss(-_sum_fn((target if i == 0 else logp) * t, axis=axis), reduction,
                           "cross_entropy")
    return rule, fast, jvp


_NLL_RULES = (_nll_rule(0), _nll_rule(1))
_NLL_CASES = [Case(U(3, 4), U(3, 4, low=0.0, high=1.0), axis=1, reduction=r)
              for r in REDUCTIONS] + [
    Case(U(4, 3), U(4, 3, low=0.0, high=1.0), axis=0, reduction="mean"),
    Case(U(2, 3, 4), np.eye(4)[[[0, 3, 1], [2, 2, 0]]], axis=2, reduction="mean"),
    Case(U(5), np.eye(5)[3], axis=0, reduction="sum"),
    Case(U(0, 3), U(0, 3), axis=1, reduction="sum")]
# ``-sum(target * logp, axis)`` and the reduction as one op (one node where the
# composed formula recorded four); its rules only scale the other argument.
_nll = defop("nll_loss", _nll_forward, vjp=tuple(r[0] for r in _NLL_RULES),
             jvp=tuple(r[2] for r in _NLL_RULES), fast=tuple(r[1] for r in _NLL_RULES),
             cases=_NLL_CASES)


def _to_front(x, b):
    """``x`` with its batch axis ``b`` first (a new size-1 axis when not batched)."""
    if b is None:
        return x.expand_dims(0)
    return x if b == 0 else x.transpose((b,) + tuple(i for i in range(x.ndim) if i != b))


def _nll_batch(args, bdims, axis, reduction):
    """Batching rule of ``nll_loss``: per-example losses along ``axis + 1`` with both
    operands' batch axes first, then each example's reduction over its own axes."""
    (logp, target), (bl, bt) = args, bdims
    if bl is None and bt is None:
        return _nll(logp, target, axis=axis, reduction=reduction), None
    logp, target = _to_front(logp, bl), _to_front(target, bt)
    loss = _nll(logp, target, axis=axis + 1, reduction="none")
    if reduction == "none" or loss.ndim == 1 and reduction == "sum":
        return loss, 0
    total = loss.sum(axis=tuple(range(1, loss.ndim))) if loss.ndim > 1 else loss
    if reduction == "sum":
        return total, 0
    count = _batch_count(logp.shape[1:], axis)
    return (total / count if count else total * float("nan")), 0


_nll.batch = _nll_batch


def classes_last(x, axis=1):
    """``x`` with its class axis moved to the end ((N, C, d...) -> (N, d..., C)); the
    loss functions pick classes along the last axis.

    >>> classes_last(eagerad.zeros(2, 3, 4)).shape
    (2, 4, 3)
    """
    if x.ndim < 2 or axis % x.ndim == x.ndim - 1:
        return x
    axis %= x.ndim
    return transpose(x, tuple(i for i in range(x.ndim) if i != axis) + (axis,))


@export
def cross_entropy(logits, labels, reduction="mean", axis=None):
    """Softmax cross-entropy of ``logits`` against integer class ``labels`` (sparse) or
    probabilities of ``logits``'s shape.  The class axis is 1, as MindSpore's and PyTorch's
    (``(N, C)`` or ``(N, C, d...)`` with labels ``(N, d...)``); ``axis=`` picks another.
    ``nn.functional.cross_entropy`` adds ``weight``, ``ignore_index``, ``label_smoothing``.

    Class indices: one recorded op (``class_cross_entropy``: one Numba pass each way on
    the CPU); probabilities: two, ``log_softmax`` and the negative log-likelihood with its
    reduction.  The gradient is ``(softmax(logits) * sum(target) - target)`` times the
    reduction's weight, stable for logits of +-1000.

    >>> cross_entropy(eagerad.tensor([[1000.0, -1000.0]]), eagerad.tensor([0])).item()
    0.0
    """
    logits = _float_input(logits, "cross_entropy")
    if reduction not in REDUCTIONS:
        raise ValueError(f"cross_entropy: reduction={reduction!r} is not one of {REDUCTIONS}")
    labels = labels if isinstance(labels, Tensor) else \
        Tensor(np.asarray(labels), device=logits.device)
    if axis is None:
        axis = 1 if logits.ndim > 1 else 0
    axis = normalize_axis(axis, logits.ndim)[0] if logits.ndim else 0
    if labels.dtype.kind in "iu" and axis != logits.ndim - 1:      # classes last for one_hot
        logits, axis = classes_last(logits, axis), logits.ndim - 1
    if labels.dtype.kind in "iu":
        if labels.shape != logits.shape[:-1] or axis != logits.ndim - 1:
            raise ValueError(f"cross_entropy: integer labels of shape {labels.shape} need shape "
                             f"{logits.shape[:-1]} for logits of shape {logits.shape}")
        if labels.size and fused_applies(logits, labels):     # one op (class_cross_entropy)
            if logits.ndim == 2:
                return class_cross_entropy(logits, labels, reduction=reduction)
            out = class_cross_entropy(logits.reshape(-1, logits.shape[-1]), labels.reshape(-1),
                                      reduction=reduction)
            return out.reshape(labels.shape) if reduction == "none" else out
        target = one_hot(labels, logits.shape[-1], logits.dtype)
    else:
        if labels.shape != logits.shape:
            raise ValueError(f"cross_entropy: probability labels of shape {labels.shape} must "
                             f"match logits of shape {logits.shape}")
        target = labels.astype(logits.dtype)
    return _nll(_log_softmax(logits, axis=axis), target, axis=axis, reduction=reduction)


from .class_cross_entropy import class_cross_entropy, fused_applies  # noqa: E402
