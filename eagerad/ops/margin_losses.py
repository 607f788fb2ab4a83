"""``multilabel_margin_loss``: the multi-class multi-label hinge loss (PyTorch's
``F.multilabel_margin_loss``).

For each sample, ``target`` lists its classes, ended by the first -1; every pair of a
listed class ``j`` and an unlisted class ``i`` adds ``max(0, 1 - (x[j] - x[i]))``, and the
sum is divided by the number of classes.  Written with a gather and ``relu``, so every
order of derivative comes from the engine.

>>> import eagerad
>>> x = eagerad.tensor([0.1, 0.2, 0.4, 0.8])
>>> round(multilabel_margin_loss(x, eagerad.tensor([3, 0, -1, 1])).item(), 4)
0.85
"""
import numpy as np

from ..tensor import Tensor
from .convolution import _floats
from .cumulative import take_along_axis
from .math import as_tensor, relu
from .nn_ops import reduce_loss
from .registry import export


def _listed(name, target, shape, classes):
    """``(valid, is_target, index)`` of class-index ``target``: which entries come before
    the first -1, which classes each sample lists, and the listed classes (0 elsewhere)."""
    t = np.asarray(as_tensor(target).tolist())
    if t.dtype.kind not in "iu" or t.shape != shape:
        raise ValueError(f"{name}: target must be an integer tensor of the input's shape "
                         f"{shape}, got dtype {t.dtype} and shape {t.shape}")
    t = t.reshape(-1, classes)
    valid = np.cumprod(t != -1, axis=1).astype(bool)
    listed = t[valid]
    if listed.size and (listed.min() < 0 or listed.max() >= classes):
        raise ValueError(f"{name}: target classes must lie in [0, {classes}) before the "
                         f"first -1, got {listed.min()} .. {listed.max()}")
    index = np.where(valid, t, 0)
    is_target = np.zeros(t.shape, bool)
    rows = np.broadcast_to(np.arange(t.shape[0])[:, None], t.shape)
    is_target[rows[valid], index[valid]] = True
    return valid, is_target, index


@export
def multilabel_margin_loss(input, target, reduction="mean"):
    """Hinge loss between the listed classes of ``target`` (indices ended by -1) and the
    others: ``sum max(0, 1 - (x[y_j] - x[i])) / C`` per sample; ``input`` is ``(C,)`` or
    ``(N, C)`` (a 0-d input is one class), ``target`` the same shape.

    >>> import eagerad
    >>> multilabel_margin_loss(eagerad.tensor([[0.0, 1.0]]), eagerad.tensor([[1, -1]])).item()
    0.0
    """
    name = "multilabel_margin_loss"
    x, = _floats(name, input)
    if x.ndim > 2:
        raise ValueError(f"{name}: input must be (C,) or (N, C), got shape {x.shape}")
    classes = x.shape[-1] if x.ndim else 1
    valid, is_target, index = _listed(name, target, tuple(x.shape), classes)
    rows = x.reshape(-1, classes)
    picked = take_along_axis(rows, Tensor(index, device=x.device), 1)
    pairs = 1 - picked.reshape(picked.shape + (1,)) + rows.reshape((rows.shape[0], 1, classes))
    counted = Tensor(valid[:, :, None] & ~is_target[:, None, :], device=x.device)
    loss = (relu(pairs) * counted.astype(x.dtype)).sum(axis=(1, 2)) / classes
    return reduce_loss(loss if x.ndim == 2 else loss.reshape(()), reduction, name)
