"""PyTorch's functional layers that draw noise (besides ``dropout``): whole-channel
dropout (``dropout1d``/``2d``/``3d``), randomized leaky ReLU (``rrelu``) and
``gumbel_softmax``.  Masks and slopes come from the seeded generator; every result is
differentiable in its input (to any order: the noise is a constant factor).

>>> import eagerad
>>> dropout2d(eagerad.ones(1, 2, 2, 2), 0.5, training=False).shape
(1, 2, 2, 2)
"""
import numpy as np

from .. import ops
from ..tensor import Tensor, rand


def _channel_dropout(name, spatial):
    def fn(input, p=0.5, training=True, inplace=False):
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"{name}: p must lie in [0, 1], got {p}")
        if input.ndim not in (spatial + 1, spatial + 2):
            raise ValueError(f"{name}: input must be {spatial + 1}-D (unbatched) or "
                             f"{spatial + 2}-D, got shape {tuple(input.shape)}")
        if not training or p == 0.0:
            return input
        lead = input.shape[:input.ndim - spatial]
        keep = (rand(*lead, device=input.device) >= p).astype(input.dtype)
        scale = 0.0 if p == 1.0 else 1.0 / (1.0 - p)
        out = input * keep.reshape(tuple(lead) + (1,) * spatial) * scale
        return input.copy_(out) if inplace else out
    fn.__name__ = name
    fn.__doc__ = (f"Zero whole channels (the leading (N, C) entries of a {spatial + 2}-D input) "
                  f"with probability ``p``, scaling the rest by ``1/(1-p)``, when ``training``.")
    return fn


dropout1d = _channel_dropout("dropout1d", 1)
dropout2d = _channel_dropout("dropout2d", 2)
dropout3d = _channel_dropout("dropout3d", 3)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """Leaky ReLU whose negative slope is drawn from U(lower, upper) per element while
    ``training``, and is ``(lower + upper) / 2`` otherwise.

    >>> import eagerad
    >>> rrelu(eagerad.tensor([-4.0, 2.0]), 0.25, 0.25).tolist()
    [-1.0, 2.0]
    """
    if training:
        slope = rand(*input.shape, dtype=input.dtype, device=input.device) * (upper - lower) + lower
    else:
        slope = (lower + upper) / 2.0
    out = ops.where(input >= 0, input, input * slope)
    return input.copy_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """``rrelu`` in place."""
    return rrelu(input, lower, upper, training, inplace=True)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    """Samples of the Gumbel-softmax distribution: ``softmax((logits + g) / tau)`` with
    Gumbel noise ``g``; ``hard`` returns one-hot vectors whose gradient is the soft one's
    (straight-through).

    >>> import eagerad
    >>> y = gumbel_softmax(eagerad.zeros(4, 3), hard=True)
    >>> y.sum(axis=-1).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    u = rand(*logits.shape, dtype=logits.dtype, device=logits.device)
    gumbels = -ops.log(-ops.log(u * (1 - 2 * eps) + eps))
    soft = ops.softmax((logits + gumbels) / tau, dim)
    if not hard:
        return soft
    axis = dim % soft.ndim
    index = soft.detach().numpy().argmax(axis)
    one_hot = np.zeros(soft.shape, dtype=soft.dtype)
    np.put_along_axis(one_hot, np.expand_dims(index, axis), 1.0, axis)
    return Tensor(one_hot, device=soft.device) - soft.detach() + soft
