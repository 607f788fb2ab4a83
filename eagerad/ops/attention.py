"""Scaled dot-product attention as one op: ``softmax(q k^T * scale + mask) v``.

Written out of ops, attention records ~6 nodes (product, scale, mask, softmax, product,
and a transpose) whose backward makes as many passes; the stanza here runs the forward as
one backend call and its first-order backward as another (the scores and probabilities
are recomputed there, not kept: ``flash attention``'s trade of one product for memory).
The kernels make the very backend calls the composition makes, so the numbers are the
composition's.  Its derivative rules are that composition again, written in
differentiable ops, so ``create_graph`` and any order work; forward mode, vmap and
devices other than the CPU use the composition too.

``scaled_dot_product_attention`` (``F.scaled_dot_product_attention``) picks the op for
float operands of one dtype with the same batch dimensions, no dropout, and a mask that
does not need a gradient; anything else runs the composition, which is always right.

>>> import eagerad
>>> q = eagerad.ones(1, 2, 4)
>>> scaled_dot_product_attention(q, q, eagerad.tensor([[[1.0], [3.0]]]), is_causal=True).tolist()
[[[1.0], [2.0]]]
"""
import math
from functools import partial

import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .convolution import _floats
from .linalg import matmul
from .math import as_tensor, where
from .nn_ops import softmax
from .registry import Case, U, defop

# ------------------------------------------------------------------ the composition


def _mask_tensor(mask, like):
    return Tensor(mask, device=like.device)


def _probabilities(q, k, scale, mask, causal):
    """``softmax(q k^T * scale`` masked``)`` in differentiable ops (``mask`` an array)."""
    s = matmul(q, k.swapaxes(-1, -2)) * scale
    if causal:
        mask = causal_mask(q.shape[-2], k.shape[-2])
    if mask is not None:
        if mask.dtype == np.bool_:
            s = where(_mask_tensor(mask, s), s, float("-inf"))
        else:
            s = s + _mask_tensor(mask, s).astype(s.dtype)
    return softmax(s, -1)


def _softmax_grad(p, dp, scale):
    """The scores' gradient from the probabilities' one (times ``scale``)."""
    return p * (dp - (dp * p).sum(axis=-1, keepdims=True)) * scale


def _vjp(i, g, ans, q, k, v, *, scale, mask, causal):
    p = _probabilities(q, k, scale, mask, causal)
    if i == 2:
        return matmul(p.swapaxes(-1, -2), g)
    ds = _softmax_grad(p, matmul(g, v.swapaxes(-1, -2)), scale)
    return matmul(ds, k) if i == 0 else matmul(ds.swapaxes(-1, -2), q)


def _jvp(i, t, ans, q, k, v, *, scale, mask, causal):
    p = _probabilities(q, k, scale, mask, causal)
    if i == 2:
        return matmul(p, t)
    ds = matmul(t, k.swapaxes(-1, -2)) if i == 0 else matmul(q, t.swapaxes(-1, -2))
    dp = p * (ds - (p * ds).sum(axis=-1, keepdims=True)) * scale
    return matmul(dp, v)


# ------------------------------------------------------------------ the op


def causal_mask(rows, cols):
    """The boolean mask of ``is_causal``: query ``i`` sees keys ``0..i`` (top-left
    aligned, as PyTorch).

    >>> causal_mask(2, 3).tolist()
    [[True, False, False], [True, True, False]]
    """
    return np.tril(np.ones((rows, cols), bool))


# the rules of q, k and v come from one backend call; the rule run first for a node keeps
# the three gradients for the other two (keyed by the very arrays and keywords, held while
# kept; each is handed out once)
_kept = [None]


def _fast(i, B, g, ans, q, k, v, *, scale, mask, causal):
    key = (g, q, k, v, mask, scale, causal)
    kept = _kept[0]
    if kept is None or any(a is not b for a, b in zip(kept[0], key)) or kept[1][i] is None:
        kept = (key, list(B.attention_backward(g, q, k, v, scale, _full_mask(mask, causal, q, k))))
    grad = kept[1][i]
    kept[1][i] = None
    _kept[0] = None if all(x is None for x in kept[1]) else kept
    return grad


def _full_mask(mask, causal, q, k):
    return causal_mask(q.shape[-2], k.shape[-2]) if causal else mask


def _batch(args, bdims, *, scale, mask, causal):
    """vmap: the composition on operands with their batch axis in front (broadcasting
    does the rest; the mask is never batched: it is a keyword array)."""
    q, k, v = (x if d is None else x.moveaxis(d, 0) for x, d in zip(args, bdims))
    # an unbatched operand gets a unit batch axis when the batched ones have more dims
    n = max(x.ndim for x in (q, k, v))
    q, k, v = (x.reshape((1,) * (n - x.ndim) + tuple(x.shape)) for x in (q, k, v))
    p = _probabilities(q, k, scale, mask, causal)
    return matmul(p, v), 0


_attention = defop(
    "scaled_dot_product_attention",
    lambda B, q, k, v, scale, mask, causal: B.attention_forward(
        q, k, v, scale, _full_mask(mask, causal, q, k)),
    vjp=tuple(partial(_vjp, i) for i in range(3)), jvp=tuple(partial(_jvp, i) for i in range(3)),
    fast=tuple(partial(_fast, i) for i in range(3)), batch=_batch,
    cases=[Case(U(2, 3, 4), U(2, 5, 4), U(2, 5, 2), scale=0.5, mask=None, causal=False),
           Case(U(3, 3), U(3, 3), U(3, 2), scale=0.7, mask=None, causal=True),
           Case(U(1, 2, 2, 3), U(1, 2, 3, 3), U(1, 2, 3, 2), scale=1.0,
                mask=np.array([[True, False, True], [True, True, False]]), causal=False),
           Case(U(2, 3), U(4, 3), U(4, 2), scale=0.3,
                mask=np.linspace(-1.0, 1.0, 8).reshape(2, 4), causal=False)])


def _fusable(q, k, v, mask):
    """Whether the op applies: CPU float operands of one dtype, equal batch dimensions,
    a mask that broadcasts to the scores without growing them and needs no gradient."""
    if not (q.device.type == k.device.type == v.device.type == "cpu"):
        return False
    if not (q.dtype == k.dtype == v.dtype and q.dtype.char in "fd" and q.ndim == k.ndim == v.ndim
            and q.shape[:-2] == k.shape[:-2] == v.shape[:-2]):
        return False
    if mask is None:
        return True
    if isinstance(mask, Tensor) and (mask._requires_grad or mask.device.type != "cpu"):
        return False
    scores = tuple(q.shape[:-1]) + (k.shape[-2],)
    try:
        return np.broadcast_shapes(scores, tuple(mask.shape)) == scores
    except ValueError:
        return False


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None):
    """``softmax(q k^T * scale + mask) v`` over the last two axes (PyTorch's
    ``F.scaled_dot_product_attention``): a boolean ``attn_mask`` keeps the True
    positions, a float one is added; ``is_causal`` hides later keys; ``dropout_p``
    drops attention weights.  One recorded op where it applies (see the module doc).

    >>> q = eagerad.ones(1, 2, 4)
    >>> scaled_dot_product_attention(q, q, eagerad.tensor([[[1.0], [3.0]]]), is_causal=True).tolist()
    [[[1.0], [2.0]]]
    """
    from .losses import dropout
    q, k, v = _floats("scaled_dot_product_attention", query, key, value)
    if q.ndim < 2 or k.ndim < 2 or q.shape[-1] != k.shape[-1] or k.shape[-2] != v.shape[-2]:
        raise ValueError(f"scaled_dot_product_attention: query {q.shape}, key {k.shape} and "
                         f"value {v.shape} must be (..., L, E), (..., S, E), (..., S, Ev)")
    if is_causal and attn_mask is not None:
        raise ValueError("scaled_dot_product_attention: give attn_mask or is_causal, not both")
    scale = 1.0 / math.sqrt(q.shape[-1]) if scale is None else float(scale)
    if dropout_p == 0.0 and _fusable(q, k, v, attn_mask):
        mask = None
        if attn_mask is not None:
            mask = attn_mask.numpy() if isinstance(attn_mask, Tensor) else np.asarray(attn_mask)
            if mask.dtype != np.bool_:
                mask = mask.astype(q.dtype)
        return _attention(q, k, v, scale=scale, mask=mask, causal=bool(is_causal))
    scores = matmul(q, k.swapaxes(-1, -2)) * scale
    if is_causal:
        attn_mask = Tensor(causal_mask(*scores.shape[-2:]), device=q.device)
    if attn_mask is not None:
        mask = as_tensor(attn_mask, q)
        if mask.dtype == dt.bool_:
            scores = where(mask, scores, float("-inf"))
        else:
            scores = scores + mask.astype(scores.dtype)
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return matmul(weights, v)
