"""PyTorch's ``F.alpha_dropout`` and ``F.feature_alpha_dropout``: SELU-preserving dropout
(dropped values set to SELU's negative saturation, then an affine map restoring mean 0
and variance 1), per element or per (sample, channel) feature map.

>>> import eagerad
>>> feature_alpha_dropout(eagerad.ones(2, 3), p=0.5, training=False).tolist()
[[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
"""
import math

from .creation import rand

_ALPHA = 1.7580993408473766   # -SELU's negative saturation (scale * alpha)


def _alpha_dropout(name, input, p, training, feature):
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"{name}: dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.size == 0:
        return input
    if p == 1:
        return input * 0.0
    if feature and input.ndim < 2:
        raise ValueError(f"{name}: input must have at least 2 dimensions (N, C, ...), got shape "
                         f"{tuple(input.shape)}")
    shape = input.shape[:2] + (1,) * (input.ndim - 2) if feature else input.shape
    keep = (rand(*shape, dtype=input.dtype, device=input.device) < 1.0 - p).astype(input.dtype)
    a = 1.0 / math.sqrt((_ALPHA * _ALPHA * p + 1.0) * (1.0 - p))
    return input * (keep * a) + ((keep - 1.0) * (_ALPHA * a) + _ALPHA * a * p)


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of each element with probability ``p`` (identity unless ``training``).

    >>> alpha_dropout(eagerad.ones(3), p=1.0, training=True).tolist()
    [0.0, 0.0, 0.0]
    """
    return _alpha_dropout("alpha_dropout", input, p, training, feature=False)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Alpha dropout of whole feature maps (axis 1 of (N, C, ...)) with probability ``p``.

    >>> feature_alpha_dropout(eagerad.ones(1, 2, 3), p=0.0, training=True).shape
    (1, 2, 3)
    """
    return _alpha_dropout("feature_alpha_dropout", input, p, training, feature=True)
