"""``linear_cross_entropy``: cross-entropy of a linear layer's logits (PyTorch's
``F.linear_cross_entropy``), ``cross_entropy(linear(input, linear_weight, linear_bias),
target, ...)``.

``linear_weight`` is ``(C, in_features)`` or ``(C, d_1, ..., d_K, in_features)`` for a
K-dimensional loss; the logits put the class axis where ``cross_entropy`` reads it (axis
1 of batched input).  PyTorch's ``options`` choose how its kernel chunks the batch to
save memory; they do not change the numbers, so they are accepted and not needed here.

>>> import eagerad
>>> x, w = eagerad.tensor([[1.0, 0.0]]), eagerad.tensor([[0.0, 0.0], [0.0, 0.0]])
>>> round(linear_cross_entropy(x, w, eagerad.tensor([1])).item(), 4)        # log 2
0.6931
"""
from .contractions import tensordot
from .convolution import _floats
from .losses import cross_entropy_full
from .math import as_tensor
from .registry import export


@export
def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    """``cross_entropy(input @ linear_weight^T + linear_bias, target)`` with
    ``cross_entropy``'s ``weight``, ``reduction``, ``ignore_index`` (None: -100) and
    ``label_smoothing``.

    >>> import eagerad
    >>> x = eagerad.tensor([0.5, -1.0])
    >>> w = eagerad.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    >>> a = linear_cross_entropy(x, w, eagerad.tensor(2))
    >>> b = cross_entropy_full(eagerad.tensor([0.5, -1.0, -0.5]), eagerad.tensor(2))
    >>> bool(abs(a - b).item() < 1e-7)
    True
    """
    name = "linear_cross_entropy"
    x, w = _floats(name, input, linear_weight)
    if x.ndim == 0 or w.ndim < 2 or x.shape[-1] != w.shape[-1]:
        raise ValueError(f"{name}: input of shape {x.shape} and linear_weight of shape "
                         f"{w.shape} do not match: the weight is (C, ..., in_features)")
    logits = tensordot(x, w, ([x.ndim - 1], [w.ndim - 1]))
    if linear_bias is not None:
        bias = as_tensor(linear_bias, logits).astype(logits.dtype)
        if tuple(bias.shape) != tuple(w.shape[:-1]):
            raise ValueError(f"{name}: linear_bias has shape {bias.shape}, expected "
                             f"{tuple(w.shape[:-1])} (the weight's output features)")
        logits = logits + bias
    ignore_index = -100 if ignore_index is None else ignore_index
    return cross_entropy_full(logits, target, weight, ignore_index, reduction, label_smoothing)
