"""Losses and the small building blocks of networks: linear, dropout, embedding,
binary cross-entropy (plain and from logits), nll_loss and cross_entropy with
PyTorch's options, huber/smooth L1, kl_div, cosine_similarity and
scaled_dot_product_attention.

All are compositions of differentiable ops (exact, any order).  The functions
here take PyTorch's argument order (``eagerad.nn.functional`` re-exports them);
where MindSpore's ``ops`` spells one differently, a ``*_ms`` variant with
MindSpore's order is what ``eagerad.ops`` exports under the name.  The class
axis of ``nll_loss``/``cross_entropy`` is 1, as PyTorch's: (N, C) or
(N, C, d1, ...) scores with (N,) or (N, d1, ...) targets.

>>> import eagerad
>>> binary_cross_entropy_with_logits(eagerad.tensor([0.0]), eagerad.tensor([1.0])).item()
0.6931...
"""
import math

import numpy as np

from .. import backend
from .. import dtype as dt
from ..autograd import batching
from ..tensor import Tensor, arange
from .activations import log_sigmoid
from .convolution import _floats
from .linalg import matmul
from .matrix_products import _nt_forward, _tn_forward, matmul_tn
from .math import as_tensor, log, log1p, maximum, sqrt, where
from .class_cross_entropy import class_cross_entropy, fused_applies
from .nn_ops import (REDUCTIONS, _out_of_range, classes_last, log_softmax, one_hot, reduce_loss,
                     softmax)
from .reduction import logsumexp
from .registry import Case, U, defop, export, move_batch
from .indexing import take
from .shape import index_add, stack

# ----------------------------------------------------------------- layers' maths


@export(aliases=("dense",))
def linear(input, weight, bias=None):
    """``input @ weight.T + bias`` with ``weight`` (out, in): PyTorch's ``F.linear``,
    MindSpore's ``ops.dense``.

    >>> linear(eagerad.ones(2, 3), eagerad.ones(4, 3), eagerad.zeros(4)).shape
    (2, 4)
    """
    x, weight = _floats("linear", input, weight)
    if weight.ndim not in (1, 2) or x.ndim == 0 or x.shape[-1] != weight.shape[-1]:
        raise ValueError(f"linear: input of shape {x.shape} and weight of shape {weight.shape} "
                         "do not match: the weight is (out_features, in_features)")
    if weight.ndim == 2 and isinstance(bias, Tensor) and bias.ndim == 1 \
            and bias.dtype == x.dtype == weight.dtype and bias.shape[0] == weight.shape[0] \
            and bias.device == x.device:
        return _linear_bias(x, weight, bias)       # one node for the product and the bias
    out = _linear(x, weight) if weight.ndim == 2 else matmul(x, weight)
    return out if bias is None else out + as_tensor(bias, out).astype(out.dtype)


def _linear_forward(B, x, w):
    """``x @ w.T`` as ONE 2-D product of all of x's rows (what a batched ``x`` under vmap
    also becomes, so vmap gives the very numbers of the batched call)."""
    lead, k = tuple(x.shape)[:-1], x.shape[x.ndim - 1]    # (the CUDA simulator's shapes
    out = _nt_forward(B, B.reshape(x, (math.prod(lead), k)), w)         # index >= 0)
    return B.reshape(out, lead + (w.shape[0],))


def _rows(t, width):
    """``t`` as a matrix of its rows (itself when it already is one: no reshape node)."""
    return t if t.ndim == 2 else t.reshape(math.prod(t.shape[:-1]), width)


def _linear_grad_x(g, ans, x, w):
    """``g @ w`` (``w`` is (out, in)): one 2-D product of all rows, no transpose node, so
    every derivative of a linear layer stays a product (``matmul``'s own rules)."""
    out = matmul(_rows(g, w.shape[0]), w)
    return out if g.ndim == 2 else out.reshape(tuple(g.shape[:-1]) + (w.shape[1],))


def _linear_grad_w(g, ans, x, w):
    """``g^T @ x`` over all rows, as ``matmul_tn`` (no transpose node)."""
    return matmul_tn(_rows(g, w.shape[0]), _rows(x, w.shape[1]))


def _linear_fast_x(B, g, ans, x, w):
    """``_linear_grad_x`` on arrays: the same 2-D product."""
    return _linear_forward(B, g, B.transpose(w, (1, 0)))


def _linear_fast_w(B, g, ans, x, w):
    """``_linear_grad_w`` on arrays: ``g^T @ x`` over all rows, one 2-D product."""
    rows = math.prod(tuple(x.shape)[:-1])
    return _tn_forward(B, B.reshape(g, (rows, w.shape[0])), B.reshape(x, (rows, w.shape[1])))


def _linear_batch(args, bdims):
    """vmap of ``x @ w.T``: a batched ``x`` folds into the rows of one product; a batched
    ``w`` (per-sample weights) is a stacked matmul."""
    x, w = (a if d in (None, 0) else move_batch(a, d) for a, d in zip(args, bdims))
    if bdims[1] is None:
        return _linear(x, w), 0
    lead = x.shape[:-1] if bdims[0] is not None else (1,) + x.shape[:-1]
    rows = x.reshape((lead[0], math.prod(lead[1:]), x.shape[-1]))
    out = matmul(rows, w.swapaxes(-1, -2))
    return out.reshape((w.shape[0],) + lead[1:] + (w.shape[1],)), 0


_linear = defop("linear", _linear_forward,
                vjp=(_linear_grad_x, _linear_grad_w), fast=(_linear_fast_x, _linear_fast_w),
                jvp=(lambda t, ans, x, w: _linear(t, w), lambda t, ans, x, w: _linear(x, t)),
                batch=_linear_batch,
                cases=[Case(U(4, 3), U(2, 3)), Case(U(3), U(2, 3)), Case(U(2, 5, 3), U(4, 3)),
                       Case(U(0, 3), U(2, 3)), Case(U(3, 0), U(2, 0))])



# ``x @ w.T + b`` as one op: the product's rules for x and w, the row sum of g for b (the
# very backend calls of ``linear`` followed by an ``add``: the same numbers, one node)


def _linear_bias_forward(B, x, w, b):
    return B.inplace("add", _linear_forward(B, x, w), b)


def _bias_grad(g, ans, x, w, b):
    return g.sum(axis=tuple(range(g.ndim - 1))) if g.ndim > 1 else g


def _bias_fast(B, g, ans, x, w, b):
    return B.reduce("sum", g, tuple(range(g.ndim - 1)), False) if g.ndim > 1 else g


def _linear_bias_batch(args, bdims):
    """vmap: the product's batching rule, then the bias (batched: one row per sample)."""
    out, _ = _linear_batch(args[:2], bdims[:2])
    b = args[2]
    if bdims[2] is not None:
        b = move_batch(b, bdims[2]) if bdims[2] else b
        b = b.reshape((b.shape[0],) + (1,) * (out.ndim - 2) + (b.shape[1],))
    return out + b, 0


_linear_bias = defop(
    "linear_bias", _linear_bias_forward,
    vjp=(lambda g, ans, x, w, b: _linear_grad_x(g, ans, x, w),
         lambda g, ans, x, w, b: _linear_grad_w(g, ans, x, w), _bias_grad),
    fast=(lambda B, g, ans, x, w, b: _linear_fast_x(B, g, ans, x, w),
          lambda B, g, ans, x, w, b: _linear_fast_w(B, g, ans, x, w), _bias_fast),
    jvp=(lambda t, ans, x, w, b: _linear(t, w), lambda t, ans, x, w, b: _linear(x, t),
         lambda t, ans, x, w, b: t),
    saves={0: (1,), 1: (0,), 2: ()}, batch=_linear_bias_batch,
    cases=[Case(U(4, 3), U(2, 3), U(2)), Case(U(3), U(2, 3), U(2)),
           Case(U(2, 5, 3), U(4, 3), U(4)), Case(U(0, 3), U(2, 3), U(2))])

@export
def dropout(input, p=0.5, training=True):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)`` when
    ``training``; the identity otherwise (PyTorch's and MindSpore's ``dropout``).

    >>> dropout(eagerad.ones(3), 0.5, training=False).tolist()
    [1.0, 1.0, 1.0]
    """
    x = as_tensor(input)
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout: p must lie in [0, 1], got {p}")
    if not training or p == 0.0:
        return x
    if p == 1.0:
        return x * 0.0
    keep = backend.get(x.device.type).bernoulli(x.shape, 1.0 - p, x.dtype)
    return x * Tensor._make(keep, x.device) * (1.0 / (1.0 - p))


@export
def embedding(input, weight, padding_idx=None, scale_grad_by_freq=False):
    """Rows of ``weight`` (num_embeddings, dim) picked by the integer ``input``; the row
    ``padding_idx`` gets no gradient (PyTorch's ``F.embedding``); with
    ``scale_grad_by_freq`` each row's gradient is divided by how often ``input`` picks it.

    >>> embedding(eagerad.tensor([2, 0]), eagerad.arange(6.0).reshape(3, 2)).tolist()
    [[4.0, 5.0], [0.0, 1.0]]
    """
    idx = as_tensor(input)
    weight = as_tensor(weight)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"embedding: input must hold integer indices, got dtype {idx.dtype}")
    if weight.ndim != 2:
        raise ValueError(f"embedding: weight must be (num_embeddings, dim), got {weight.shape}")
    n = weight.shape[0]
    plain = not batching.levels and type(idx._data) is np.ndarray
    if not plain or idx.size and _out_of_range(idx._data.reshape(-1), n):
        _check_range("embedding", idx, 0, n, f"indices must lie in [0, {n})")
    if batching.levels:             # (not weight[idx]: its vmap rule is wrong for a batched idx)
        rows = take(weight, idx, 0)
    else:                           # one op: its gradient adds whole rows (one Numba pass)
        rows = _embedding.apply2(weight, idx)
    if scale_grad_by_freq:
        rows = _scaled_by_frequency(rows, idx)
    if padding_idx is None:
        return rows
    padding_idx = padding_idx + n if padding_idx < 0 else padding_idx
    keep = (idx != padding_idx).reshape(idx.shape + (1,))
    return where(keep, rows, rows.detach())

def _embedding_batch(args, bdims):
    """vmap of the row pick: batched indices pick from the one table; a batched table is
    read along its axis 1 (``take``); both batched: each sample's indices, offset by the
    sample's first row, pick from the tables stacked as one."""
    (w, idx), (bw, bi) = args, bdims
    if bw is None:
        return _embedding(w, move_batch(idx, bi)), 0
    w = move_batch(w, bw)
    if bi is None:
        return take(w, idx, 1), 0
    idx = move_batch(idx, bi)
    n, v = w.shape[0], w.shape[1]
    first = arange(n, device=idx.device).astype(idx.dtype).reshape((n,) + (1,) * (idx.ndim - 1))
    return _embedding(w.reshape((n * v,) + tuple(w.shape[2:])), idx + first * v), 0


# The rows of ``weight`` picked by ``idx`` as one op (``B.embedding_rows``), its
# gradient the rows of g added at ``idx`` (``index_add``: one Numba pass on the CPU); the
# node keeps only the indices.
_embedding = defop(
    "embedding", lambda B, w, idx: B.embedding_rows(w, idx),
    vjp=(lambda g, ans, w, idx: index_add(w.shape, w.dtype, (idx._data,), g), None),
    fast=(lambda B, g, ans, w, idx: B.index_add(w.shape, w.dtype, (idx,), g), None),
    jvp=(lambda t, ans, w, idx: _embedding(t, idx), None), saves={0: (1,)},
    batch=_embedding_batch,
    cases=[Case(U(5, 3), np.array([[0, 4], [2, 2]])), Case(U(4, 2), np.array([3, 3, 0]))])


def _scaled_by_frequency(rows, idx):
    """``rows`` unchanged, their gradient divided by the count of each row's index in
    ``idx``."""
    picks = np.asarray(idx.tolist()).reshape(-1)
    _, inverse, counts = np.unique(picks, return_inverse=True, return_counts=True)
    scale = Tensor(1.0 / counts[inverse].reshape(tuple(idx.shape) + (1,)),
                   device=rows.device).astype(rows.dtype)
    scaled = rows * scale
    return rows.detach() + (scaled - scaled.detach())     # exactly ``rows``, gradient scaled


# ------------------------------------------------------------ regression losses


def _pair(name, input, target):
    """``input`` and ``target`` as tensors of one float dtype and one shape."""
    x, t = _floats(name, input, target)
    if x.shape != t.shape:
        raise ValueError(f"{name}: input of shape {x.shape} and target of shape {t.shape} must "
                         "have the same shape")
    return x, t


@export
def mse_loss(input, target, reduction="mean"):
    """Squared error, reduced (PyTorch's ``F.mse_loss``).

    >>> mse_loss(eagerad.tensor([1.0, 3.0]), eagerad.tensor([0.0, 0.0])).item()
    5.0
    """
    x, t = _pair("mse_loss", input, target)
    return reduce_loss((x - t) * (x - t), reduction, "mse_loss")


@export
def l1_loss(input, target, reduction="mean"):
    """Absolute error, reduced (PyTorch's ``F.l1_loss``).

    >>> l1_loss(eagerad.tensor([1.0, -3.0]), eagerad.tensor([0.0, 0.0])).item()
    2.0
    """
    x, t = _pair("l1_loss", input, target)
    return reduce_loss((x - t).abs(), reduction, "l1_loss")


def _quadratic_then_linear(d, width, slope):
    """``0.5 d^2 * slope / width`` inside ``|d| < width``, ``slope * (|d| - width / 2)``
    outside: the Huber family (continuous value and first derivative)."""
    ad = d.abs()
    return where(ad < width, d * d * (0.5 * slope / width), (ad - 0.5 * width) * slope)


@export
def huber_loss(input, target, reduction="mean", delta=1.0):
    """Quadratic for errors below ``delta``, linear beyond (PyTorch's ``F.huber_loss``).

    >>> huber_loss(eagerad.tensor([0.5, 3.0]), eagerad.tensor([0.0, 0.0]), 'none').tolist()
    [0.125, 2.5]
    """
    if delta <= 0:
        raise ValueError(f"huber_loss: delta must be positive, got {delta}")
    x, t = _pair("huber_loss", input, target)
    return reduce_loss(_quadratic_then_linear(x - t, delta, delta), reduction, "huber_loss")


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Huber loss divided by ``beta`` (``beta=0``: L1), PyTorch's ``F.smooth_l1_loss``.

    >>> smooth_l1_loss(eagerad.tensor([0.5, 3.0]), eagerad.tensor([0.0, 0.0]), 'none').tolist()
    [0.125, 2.5]
    """
    if beta < 0:
        raise ValueError(f"smooth_l1_loss: beta must not be negative, got {beta}")
    x, t = _pair("smooth_l1_loss", input, target)
    d = x - t
    loss = d.abs() if beta == 0 else _quadratic_then_linear(d, beta, 1.0)
    return reduce_loss(loss, reduction, "smooth_l1_loss")


@export(name="smooth_l1_loss")
def smooth_l1_loss_ms(input, target, beta=1.0, reduction="none"):
    """MindSpore's ``ops.smooth_l1_loss`` (``beta`` third, ``reduction='none'`` default).

    >>> smooth_l1_loss_ms(eagerad.tensor([3.0]), eagerad.tensor([0.0])).tolist()
    [2.5]
    """
    return smooth_l1_loss(input, target, reduction, beta)

# ---------------------------------------------------------- probabilistic losses


def _weights(weight, like):
    if weight is None:
        return None
    w = as_tensor(weight, like)
    return w if w.dtype == like.dtype else w.astype(like.dtype)


# PyTorch's floor of p (1 - p) in the gradient: the float constant 1e-12f (also in float64)
_BCE_EPS = float(np.float32(1e-12))


def _bce_forward(B, x, t):
    """``(t - 1) max(log1p(-x), -100) - t max(log(x), -100)``, PyTorch's arrangement."""
    log_x = B.binary("maximum", B.unary("log", x), -100.0)
    log_1mx = B.binary("maximum", B.unary("log1p", B.unary("neg", x)), -100.0)
    return B.binary("sub", B.binary("mul", B.binary("sub", t, 1.0), log_1mx),
                    B.binary("mul", t, log_x))


def _bce_dx(g, ans, x, t):
    # PyTorch's rule: finite at p = 0 or 1 (0 there for a right prediction), where the
    # clamped logs would give 0 * inf
    return g * (x - t) / maximum((1 - x) * x, _BCE_EPS)


def _bce_dt(g, ans, x, t):
    return g * (maximum(log1p(-x), -100.0) - maximum(log(x), -100.0))


_bce = defop("binary_cross_entropy", _bce_forward, vjp=(_bce_dx, _bce_dt), jvp=(_bce_dx, _bce_dt),
             elementwise=True,
             cases=[Case(U(2, 3, low=0.05, high=0.95), U(2, 3, low=0.0, high=1.0)),
                    Case(U(low=0.1, high=0.9), U(low=0.0, high=1.0)),
                    Case(U(0, 3, low=0.1, high=0.9), U(0, 3, low=0.0, high=1.0))])


@export
def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """``-w (t log p + (1 - t) log(1 - p))`` for probabilities ``p`` in [0, 1] and targets
    ``t`` in [0, 1], each log clamped at -100 as PyTorch's ``F.binary_cross_entropy``: the
    loss is finite at p = 0 or 1, and so is its gradient (PyTorch's
    ``(p - t) / max(p (1 - p), 1e-12)``).

    >>> binary_cross_entropy(eagerad.tensor([0.5, 1.0]), eagerad.tensor([1.0, 0.0]), reduction='none').tolist()
    [0.6931..., 100.0]
    """
    x, t = _pair("binary_cross_entropy", input, target)
    _check_range("binary_cross_entropy", x, 0, 1, "input must hold probabilities in [0, 1]",
                 closed=True, hint="; for logits use binary_cross_entropy_with_logits")
    _check_range("binary_cross_entropy", t, 0, 1, "all elements of target should be between 0 "
                 "and 1", closed=True)
    loss = _bce(x, t)
    w = _weights(weight, loss)
    return reduce_loss(loss if w is None else loss * w, reduction, "binary_cross_entropy")


def binary_cross_entropy_with_logits(input, target, weight=None, reduction="mean",
                                     pos_weight=None):
    """``binary_cross_entropy(sigmoid(x), t)`` computed stably from logits ``x``:
    ``-(1 - t) log_sigmoid(-x) - pos_weight t log_sigmoid(x)``; ``pos_weight`` weighs the
    positive class (broadcast along the last axis), ``weight`` each element.  Each term's
    derivative is a sigmoid taken directly (``(1 - t) sigmoid(x) - pos_weight t sigmoid(-x)``),
    never ``1 - sigmoid``, which loses all digits of small gradients in float32.

    >>> round(binary_cross_entropy_with_logits(eagerad.tensor([1000.0]), eagerad.tensor([0.0])).item(), 3)
    1000.0
    """
    x, t = _pair("binary_cross_entropy_with_logits", input, target)
    positive = t if pos_weight is None else t * _weights(pos_weight, x)
    loss = -(1 - t) * log_sigmoid(-x) - positive * log_sigmoid(x)
    w = _weights(weight, loss)
    return reduce_loss(loss if w is None else loss * w, reduction, "binary_cross_entropy_with_logits")


@export(name="binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits_ms(logits, label, weight=None, pos_weight=None,
                                        reduction="mean"):
    """MindSpore's ``ops.binary_cross_entropy_with_logits`` argument order (logits,
    label, weight, pos_weight, reduction).

    >>> binary_cross_entropy_with_logits_ms(eagerad.tensor([0.0]), eagerad.tensor([0.0])).item()
    0.6931...
    """
    return binary_cross_entropy_with_logits(logits, label, weight, reduction, pos_weight)


def _class_targets(name, scores, target):
    """``target`` after checking its shape against (N, C, d...) ``scores``."""
    want = scores.shape[:1] + scores.shape[2:] if scores.ndim > 1 else ()
    if target.shape != want:
        raise ValueError(f"{name}: class-index target of shape {target.shape} does not fit "
                         f"input of shape {scores.shape} (expected {want})")
    return target


def _picked(last, weights):
    """``sum(last * weights)`` over the class axis (last) where a zero weight adds exactly 0:
    a masked logit's log-probability is -inf, and -inf * 0 would make the loss nan."""
    return (where(weights == 0, 0.0, last) * weights).sum(axis=-1)


def _check_range(name, x, low, high, what, closed=False, hint=""):
    """Raise unless ``low <= x < high`` (``<= high`` when ``closed``), read from the values
    under any vmap levels (a range check is elementwise, so the whole batch at once)."""
    values = batching.unwrap(x)[0].numpy()
    if values.size and (values.min() < low or values.max() > high
                        or not closed and values.max() == high):
        raise ValueError(f"{name}: {what}, got values from {values.min()} to "
                         f"{values.max()}{hint}")


def _hot(name, target, depth, dtype):
    """One-hot rows of class indices as a comparison with ``arange`` (elementwise ops, so
    vmap batches them); a label outside ``[0, depth)`` raises, read from the values under
    any vmap levels."""
    _check_range(name, target, 0, depth, f"class indices must lie in [0, {depth}) (or be "
                 "ignore_index)")
    classes = arange(depth, device=target.device)
    return (target.reshape(target.shape + (1,)) == classes).astype(dtype)


def _nll_parts(name, logp, target, weight, ignore_index):
    """Per-element ``-w[t] logp[t]``, the per-element weights ``w[t]`` (0 where ignored),
    and the classes-last log-probabilities."""
    target = _class_targets(name, logp, as_tensor(target, logp))
    if target.dtype.kind not in "iu":
        raise TypeError(f"{name}: target must hold class indices (integers), got {target.dtype}")
    c = logp.shape[1] if logp.ndim > 1 else logp.shape[0]
    valid = target != ignore_index
    safe = where(valid, target, 0)
    hot = _hot(name, safe, c, logp.dtype)
    last = classes_last(logp)
    w_t = valid.astype(logp.dtype)
    if weight is not None:
        w = _weights(weight, logp)
        if w.shape != (c,):
            raise ValueError(f"{name}: weight must have one entry per class ({c}), got {w.shape}")
        w_t = w_t * (hot * w).sum(axis=-1)
    return -_picked(last, hot) * w_t, w_t, last


def _reduce_weighted(loss, w_t, reduction, name):
    """PyTorch's reduction of a class-weighted loss: 'mean' divides by the total weight."""
    if reduction == "mean":
        return loss.sum() / w_t.sum()
    return reduce_loss(loss, reduction, name)


@export
def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of class indices under log-probabilities ``input``
    (N, C, d...): ``-weight[t] * input[t]``; 'mean' divides by the summed weights of
    the targets that are not ``ignore_index`` (PyTorch's ``F.nll_loss``).

    >>> nll_loss(eagerad.tensor([[-1.0, -2.0], [-3.0, -4.0]]), eagerad.tensor([1, -100])).item()
    2.0
    """
    logp, = _floats("nll_loss", input)
    loss, w_t, _ = _nll_parts("nll_loss", logp, target, weight, ignore_index)
    return _reduce_weighted(loss, w_t, reduction, "nll_loss")


def _check_reduction(name, reduction, allowed=REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"{name}: reduction={reduction!r} is not one of {allowed}")


def cross_entropy_full(input, target, weight=None, ignore_index=-100, reduction="mean",
                       label_smoothing=0.0):
    """PyTorch's ``F.cross_entropy``: class axis 1, class-index targets (with
    ``weight``, ``ignore_index``) or probability targets of the input's shape, and
    ``label_smoothing`` mixing in the uniform distribution with weight ``label_smoothing``.

    >>> round(cross_entropy_full(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([0]), label_smoothing=0.2).item(), 4)
    0.6931
    """
    name = "cross_entropy"
    x = input if isinstance(input, Tensor) and input.dtype.kind == "f" else _floats(name, input)[0]
    _check_reduction(name, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise ValueError(f"{name}: label_smoothing must lie in [0, 1], got {label_smoothing}")
    axis = 1 if x.ndim > 1 else 0
    c = x.shape[axis]
    w = _weights(weight, x)
    if w is not None and w.shape != (c,):
        raise ValueError(f"{name}: weight must have one entry per class ({c}), got {w.shape}")
    target = as_tensor(target, x)
    if target.dtype.kind in "iu" and fused_applies(x, target, w):   # one op
        _class_targets(name, x, target)
        return class_cross_entropy(x, target, w, ignore_index, reduction, label_smoothing)
    logp = log_softmax(x, axis)
    if target.dtype.kind == "f":         # probabilities
        if target.shape != x.shape:
            raise ValueError(f"{name}: probability target of shape {target.shape} must match "
                             f"input of shape {x.shape}")
        t = target.astype(x.dtype) * (1.0 - label_smoothing) + label_smoothing / c
        t = classes_last(t)
        per = -_picked(classes_last(logp), t * w if w is not None else t)
        return reduce_loss(per, reduction, name)
    loss, w_t, last = _nll_parts(name, logp, target, weight, ignore_index)
    nll = _reduce_weighted(loss, w_t, reduction, name)
    if label_smoothing == 0.0:
        return nll
    valid = (target != ignore_index).astype(x.dtype)
    smooth = -(last * w).sum(axis=-1) if w is not None else -last.sum(axis=-1)
    smooth = smooth * valid
    if reduction == "mean":
        smooth = smooth.sum() / (w_t.sum() if w is not None else valid.sum())
    else:
        smooth = reduce_loss(smooth, reduction, name)
    return nll * (1.0 - label_smoothing) + smooth * (label_smoothing / c)


@export
def kl_div(input, target, reduction="mean", log_target=False):
    """KL divergence ``sum t (log t - input)`` with ``input`` log-probabilities (and
    ``target`` log-probabilities when ``log_target``); 0 where ``t = 0``.  Reductions
    'mean' (over elements), 'batchmean' (the KL per sample), 'sum', 'none'.

    >>> kl_div(eagerad.tensor([[-0.6931, -0.6931]]), eagerad.tensor([[0.5, 0.5]]), 'batchmean').item() < 1e-4
    True
    """
    name = "kl_div"
    x, t = _floats(name, input, target)
    _check_reduction(name, reduction, REDUCTIONS + ("batchmean",))
    if log_target:
        loss = t.exp() * (t - x)
    else:
        positive = t > 0
        loss = where(positive, t * log(where(positive, t, 1.0)), 0.0) - t * x
    if reduction == "batchmean":
        return loss.sum() / (x.shape[0] if x.ndim else 1)
    return reduce_loss(loss, reduction, name)


@export
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """Cosine of the angle between ``x1`` and ``x2`` along ``dim`` (broadcasting), each
    norm clamped below at ``eps`` (gradient 0, not nan, at a zero vector).

    >>> cosine_similarity(eagerad.tensor([[1.0, 0.0]]), eagerad.tensor([[1.0, 1.0]])).item()
    0.7071...
    """
    a, b = _floats("cosine_similarity", x1, x2)
    shape = np.broadcast_shapes(a.shape, b.shape)
    if not shape:                   # 0-d operands are vectors of one element (PyTorch)
        if dim not in (0, -1):
            raise IndexError(f"cosine_similarity: dim {dim} is out of range for 0-d inputs "
                             "(expected 0 or -1)")
        shape, dim = (1,), 0
    a, b = a.broadcast_to(shape), b.broadcast_to(shape)
    floor = eps * eps

    def unit(v):
        return v / sqrt(maximum((v * v).sum(axis=dim, keepdims=True), floor))
    return (unit(a) * unit(b)).sum(axis=dim)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """``softmax(q k^T * scale + mask) v`` over the last two axes (PyTorch's
    ``F.scaled_dot_product_attention``): ``ops/attention.py`` holds it (one op where it
    applies, the composition of ops otherwise).

    >>> q = eagerad.ones(1, 2, 4)
    >>> scaled_dot_product_attention(q, q, eagerad.tensor([[[1.0], [3.0]]]), is_causal=True).tolist()
    [[[1.0], [2.0]]]
    """
    from .attention import scaled_dot_product_attention as attention
    return attention(query, key, value, attn_mask, dropout_p, is_causal, scale)


def one_hot_long(tensor, num_classes=-1):
    """PyTorch's ``F.one_hot``: int64 rows, ``num_classes=-1`` meaning ``max + 1``.

    >>> one_hot_long(eagerad.tensor([0, 2])).tolist()
    [[1, 0, 0], [0, 0, 1]]
    """
    idx = as_tensor(tensor)
    if idx.dtype.kind not in "iu":
        raise TypeError(f"one_hot: indices must be integers, got dtype {idx.dtype}")
    if num_classes == -1:
        num_classes = int(idx.max().item()) + 1 if idx.size else 0
    return one_hot(idx, num_classes, dt.int64)

