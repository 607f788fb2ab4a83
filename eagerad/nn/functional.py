"""``eagerad.nn.functional``: PyTorch's ``torch.nn.functional`` names and signatures.

A namespace over the op stanzas (``import eagerad.nn.functional as F``): class
axis 1 for losses, ``dim``/``keepdim`` spellings, PyTorch's argument order
(MindSpore's ``ops`` keeps its own order, e.g. ``ops.binary_cross_entropy_with_logits
(logits, label, weight, pos_weight)``).  A name not defined here is looked up in
``eagerad.ops`` (activations such as ``gelu`` or ``silu`` live there), so new
elementwise ops appear here without an edit.

>>> import eagerad
>>> import eagerad.nn.functional as F
>>> F.relu(eagerad.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""
import warnings

from .. import ops
from ..ops.convolution import (adaptive_avg_pool2d, avg_pool1d, avg_pool2d, conv1d, conv2d,
                               conv_transpose2d, interpolate, max_pool1d, max_pool2d)
from ..ops.losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cosine_similarity,
                          dropout, embedding, huber_loss, kl_div, l1_loss, linear, mse_loss,
                          nll_loss, scaled_dot_product_attention, smooth_l1_loss)
from ..ops.losses import cross_entropy_full as cross_entropy
from ..ops.losses import one_hot_long as one_hot
from ..ops.normalization import batch_norm, group_norm, layer_norm

__all__ = ["adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d",
           "conv_transpose2d", "cosine_similarity", "cross_entropy", "dropout", "embedding",
           "group_norm", "huber_loss", "interpolate", "kl_div", "l1_loss", "layer_norm", "linear",
           "log_softmax", "max_pool1d", "max_pool2d", "mse_loss", "nll_loss", "one_hot", "relu",
           "scaled_dot_product_attention", "sigmoid", "smooth_l1_loss", "softmax", "tanh"]


def relu(input, inplace=False):
    """``max(x, 0)`` (``inplace`` is accepted; a new tensor is returned).

    >>> relu(eagerad.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return ops.relu(input)


def sigmoid(input):
    """``1 / (1 + exp(-x))``.

    >>> sigmoid(eagerad.tensor([0.0])).tolist()
    [0.5]
    """
    return ops.sigmoid(input)


def tanh(input):
    """Hyperbolic tangent.

    >>> tanh(eagerad.tensor([0.0])).tolist()
    [0.0]
    """
    return ops.tanh(input)


def _softmax_dim(x, dim, name):
    """PyTorch's implicit dim (0 for 0-, 1- and 3-D inputs, else 1), with its warning."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if x.ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    """Softmax along ``dim`` (after casting to ``dtype`` if given).

    >>> softmax(eagerad.tensor([[0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5]]
    """
    x = input.astype(dtype) if dtype is not None else input
    return ops.softmax(x, _softmax_dim(x, dim, "softmax"))


def log_softmax(input, dim=None, dtype=None):
    """Log-softmax along ``dim``; finite for very negative logits.

    >>> log_softmax(eagerad.tensor([[0.0, -1000.0]]), dim=1).tolist()
    [[0.0, -1000.0]]
    """
    x = input.astype(dtype) if dtype is not None else input
    return ops.log_softmax(x, _softmax_dim(x, dim, "log_softmax"))


# PyTorch's names and defaults for the activations (leaky_relu's slope is 0.01 here, where
# MindSpore's ``ops.leaky_relu`` defaults to 0.2)
from ..ops.activations import FUNCTIONAL as _ACTIVATIONS  # noqa: E402
globals().update(_ACTIVATIONS)


def __getattr__(name):
    """Names this module does not define come from ``eagerad.ops`` (e.g. activations)."""
    try:
        return getattr(ops, name)
    except AttributeError:
        raise AttributeError(f"eagerad.nn.functional has no attribute {name!r}") from None
