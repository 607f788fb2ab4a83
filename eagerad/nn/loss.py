"""Losses: MSELoss, L1Loss, CrossEntropyLoss, SoftmaxCrossEntropyWithLogits.

Each takes ``reduction='mean' | 'sum' | 'none'``, checked when the loss is built.

>>> import eagerad
>>> MSELoss()(eagerad.tensor([1.0, 3.0]), eagerad.tensor([0.0, 0.0])).item()
5.0
"""
from .. import ops
from ..ops.nn_ops import REDUCTIONS, cross_entropy, reduce_loss
from ..tensor import Tensor
from .cell import Cell


class LossBase(Cell):
    """Holds and validates ``reduction``; subclasses compute the per-element loss.

    >>> LossBase(reduction='sum').get_loss(eagerad.tensor([1.0, 2.0])).item()
    3.0
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        if reduction not in REDUCTIONS:
            raise ValueError(f"{type(self).__name__}: reduction={reduction!r} is not one of "
                             f"{REDUCTIONS}")
        self.reduction = reduction

    def get_loss(self, x):
        """Apply ``reduction`` to the per-element loss ``x`` (MindSpore's name).

        >>> LossBase().get_loss(eagerad.tensor([1.0, 2.0])).item()
        1.5
        """
        return reduce_loss(x, self.reduction, type(self).__name__)

    def extend_repr(self):
        """Shows the reduction in ``repr``.

        >>> MSELoss(reduction='sum')
        MSELoss<reduction='sum'>
        """
        return f"reduction={self.reduction!r}"


def _check_same_shape(name, logits, labels):
    labels = labels if isinstance(labels, Tensor) else Tensor(labels, dtype=logits.dtype)
    if logits.shape != labels.shape:
        raise ValueError(f"{name}: logits of shape {logits.shape} and labels of shape "
                         f"{labels.shape} must have the same shape")
    return labels


class MSELoss(LossBase):
    """``(logits - labels) ** 2``, reduced.

    >>> import eagerad
    >>> MSELoss(reduction='none')(eagerad.tensor([2.0]), eagerad.tensor([0.0])).tolist()
    [4.0]
    """

    def construct(self, logits, labels):
        """The reduced squared error; ``labels`` may be array-like and must match ``logits``' shape.

        >>> MSELoss().construct(eagerad.tensor([1.0, 3.0]), [0.0, 0.0]).item()
        5.0
        """
        labels = _check_same_shape("MSELoss", logits, labels)
        return self.get_loss(ops.square(logits - labels))


class L1Loss(LossBase):
    """``|logits - labels|``, reduced.

    >>> import eagerad
    >>> L1Loss(reduction='sum')(eagerad.tensor([2.0, -1.0]), eagerad.tensor([0.0, 0.0])).item()
    3.0
    """

    def construct(self, logits, labels):
        """The reduced absolute error; ``labels`` may be array-like and must match ``logits``' shape.

        >>> L1Loss().construct(eagerad.tensor([1.0, -3.0]), [0.0, 0.0]).item()
        2.0
        """
        labels = _check_same_shape("L1Loss", logits, labels)
        return self.get_loss(ops.abs(logits - labels))


class CrossEntropyLoss(LossBase):
    """Softmax cross-entropy of ``logits`` (N, C) against integer class labels (N,)
    or probability rows (N, C), PyTorch's ``CrossEntropyLoss``.

    >>> import eagerad
    >>> round(CrossEntropyLoss()(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([1])).item(), 6)
    0.693147
    """

    def construct(self, logits, labels):
        """The reduced cross-entropy (see ``ops.cross_entropy``); labels are class indices or probabilities.

        >>> loss = CrossEntropyLoss(reduction='none')
        >>> out = loss.construct(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([[0.5, 0.5]]))
        >>> out.shape, round(out[0].item(), 4)
        ((1,), 0.6931)
        """
        return cross_entropy(logits, labels, reduction=self.reduction)


class SoftmaxCrossEntropyWithLogits(LossBase):
    """MindSpore's loss: ``sparse=True`` takes integer labels, ``sparse=False`` one-hot
    (or probability) labels of the logits' shape; defaults as MindSpore (``sparse=False,
    reduction='none'``).

    >>> loss = SoftmaxCrossEntropyWithLogits(sparse=True, reduction='mean')
    >>> round(loss(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([0])).item(), 6)
    0.693147
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        self.sparse = sparse

    def construct(self, logits, labels):
        """The cross-entropy, after checking that the labels' dtype matches ``sparse``.

        >>> out = SoftmaxCrossEntropyWithLogits().construct(eagerad.tensor([[0.0, 0.0]]), [[0.0, 1.0]])
        >>> out.shape, round(out[0].item(), 4)
        ((1,), 0.6931)
        """
        labels = labels if isinstance(labels, Tensor) else Tensor(labels)
        is_int = labels.dtype.kind in "iu"
        if self.sparse != is_int:
            want = "integer class labels" if self.sparse else "float one-hot labels"
            raise TypeError(f"SoftmaxCrossEntropyWithLogits(sparse={self.sparse}) needs {want}, "
                            f"got labels of dtype {labels.dtype} and shape {labels.shape}")
        return cross_entropy(logits, labels, reduction=self.reduction)

    def extend_repr(self):
        """Shows ``sparse`` and the reduction in ``repr``.

        >>> SoftmaxCrossEntropyWithLogits(sparse=True)
        SoftmaxCrossEntropyWithLogits<sparse=True, reduction='none'>
        """
        return f"sparse={self.sparse}, reduction={self.reduction!r}"
