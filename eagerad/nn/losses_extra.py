"""Loss Cells over ``ops.losses``: BCELoss, BCEWithLogitsLoss, NLLLoss, HuberLoss,
SmoothL1Loss, KLDivLoss and a CrossEntropyLoss with all of PyTorch's options; and
PairwiseDistance, the distance a triplet loss's ``distance_function`` is usually given.

PyTorch's argument order throughout; where MindSpore orders a constructor
differently the MindSpore call is recognised: ``BCEWithLogitsLoss('sum')`` (a
string first is MindSpore's ``reduction``) and ``SmoothL1Loss(0.5)`` (a number first
is MindSpore's ``beta``, whose default ``reduction`` is 'none').

>>> import eagerad
>>> BCEWithLogitsLoss()(eagerad.tensor([0.0]), eagerad.tensor([1.0])).item()
0.6931...
"""
import numbers

from ..ops import losses as lf
from ..ops.nn_ops import REDUCTIONS
from .cell import Cell
from .loss import LossBase


class BCELoss(LossBase):
    """Binary cross-entropy of probabilities (logs clamped at -100), ``weight`` per element.

    >>> BCELoss(reduction='none')(eagerad.tensor([0.5]), eagerad.tensor([1.0])).tolist()
    [0.6931...]
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, input, target):
        """``binary_cross_entropy(input, target, weight, reduction)``.

        >>> BCELoss().construct(eagerad.tensor([1.0]), eagerad.tensor([1.0])).item()
        0.0
        """
        return lf.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy from logits, stable for any logit; ``pos_weight`` weighs
    positives per class.  PyTorch's ``(weight=None, reduction='mean', pos_weight=None)``
    or MindSpore's ``(reduction='mean', weight=None, pos_weight=None)``.

    >>> BCEWithLogitsLoss('sum')(eagerad.tensor([0.0, 0.0]), eagerad.tensor([1.0, 0.0])).item()
    1.3862...
    """

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        if isinstance(weight, str):                 # MindSpore: reduction comes first
            weight, reduction = (None if reduction == "mean" else reduction), weight
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, input, target):
        """``binary_cross_entropy_with_logits`` with this loss's options.

        >>> BCEWithLogitsLoss(pos_weight=eagerad.tensor([2.0])).construct(
        ...     eagerad.tensor([0.0]), eagerad.tensor([1.0])).item()
        1.3862...
        """
        return lf.binary_cross_entropy_with_logits(input, target, self.weight, self.reduction,
                                                   self.pos_weight)


class NLLLoss(LossBase):
    """Negative log-likelihood of class indices under log-probabilities (class axis 1),
    with ``weight`` per class and ``ignore_index``.

    >>> NLLLoss()(eagerad.tensor([[-1.0, -2.0]]), eagerad.tensor([1])).item()
    2.0
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, input, target):
        """``nll_loss`` with this loss's options.

        >>> NLLLoss(ignore_index=0).construct(eagerad.tensor([[-1.0], [-2.0]]), eagerad.tensor([0, 0])).item()
        nan
        """
        return lf.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class CrossEntropyLoss(LossBase):
    """PyTorch's ``CrossEntropyLoss(weight=None, ignore_index=-100, reduction='mean',
    label_smoothing=0.0)`` (also MindSpore's): class axis 1, class-index or probability
    targets.

    >>> round(CrossEntropyLoss(label_smoothing=0.1)(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([0])).item(), 4)
    0.6931
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index, self.label_smoothing = weight, ignore_index, label_smoothing

    def construct(self, input, target):
        """``cross_entropy`` with this loss's options.

        >>> CrossEntropyLoss(reduction='sum').construct(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([1])).item()
        0.6931...
        """
        return lf.cross_entropy_full(input, target, self.weight, self.ignore_index, self.reduction,
                                     self.label_smoothing)


class HuberLoss(LossBase):
    """Quadratic below ``delta``, linear beyond: ``HuberLoss(reduction='mean', delta=1.0)``.

    >>> HuberLoss(delta=1.0)(eagerad.tensor([3.0]), eagerad.tensor([0.0])).item()
    2.5
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        self.delta = delta

    def construct(self, input, target):
        """``huber_loss`` with this loss's options.

        >>> HuberLoss().construct(eagerad.tensor([0.5]), eagerad.tensor([0.0])).item()
        0.125
        """
        return lf.huber_loss(input, target, self.reduction, self.delta)


class SmoothL1Loss(LossBase):
    """Huber loss divided by ``beta``: PyTorch's ``SmoothL1Loss(reduction='mean',
    beta=1.0)`` or MindSpore's ``SmoothL1Loss(beta=1.0, reduction='none')`` (a number
    first).  The default reductions differ: the faces' ``nn.SmoothL1Loss`` take theirs.

    >>> SmoothL1Loss(0.5, 'none')(eagerad.tensor([0.25, 2.0]), eagerad.tensor([0.0, 0.0])).tolist()
    [0.0625, 1.75]
    """

    def __init__(self, reduction=None, beta=1.0):
        if isinstance(reduction, numbers.Number):   # MindSpore: beta first, reduction 'none'
            reduction, beta = (beta if isinstance(beta, str) else "none"), reduction
        if reduction is None:
            reduction = self.framework_default("reduction", "mean", "none")
        super().__init__(reduction)
        self.beta = beta

    def construct(self, input, target):
        """``smooth_l1_loss`` with this loss's options.

        >>> SmoothL1Loss('mean').construct(eagerad.tensor([3.0]), eagerad.tensor([0.0])).item()
        2.5
        """
        return lf.smooth_l1_loss(input, target, self.reduction, self.beta)


class KLDivLoss(LossBase):
    """KL divergence of log-probability inputs: ``KLDivLoss(reduction='mean',
    log_target=False)``; 'batchmean' gives the mathematical KL per sample.

    >>> KLDivLoss('batchmean')(eagerad.tensor([[-0.6931, -0.6931]]), eagerad.tensor([[0.5, 0.5]])).item() < 1e-4
    True
    """

    def __init__(self, reduction="mean", log_target=False):
        super().__init__("mean")
        if reduction not in REDUCTIONS + ("batchmean",):
            raise ValueError(f"KLDivLoss: reduction={reduction!r} is not one of "
                             f"{REDUCTIONS + ('batchmean',)}")
        self.reduction, self.log_target = reduction, log_target

    def construct(self, input, target):
        """``kl_div`` with this loss's options.

        >>> KLDivLoss(reduction='sum', log_target=True).construct(eagerad.zeros(2), eagerad.zeros(2)).item()
        0.0
        """
        return lf.kl_div(input, target, self.reduction, self.log_target)


class PairwiseDistance(Cell):
    """The ``p``-norm distance of ``x1 - x2 + eps`` along the last dimension (PyTorch's
    ``nn.PairwiseDistance``; PyTorch keeps ``p`` as the attribute ``norm``).

    >>> round(PairwiseDistance(eps=0.0)(eagerad.tensor([[3.0, 0.0]]), eagerad.tensor([[0.0, 4.0]])).item(), 4)
    5.0
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def construct(self, x1, x2):
        """``pairwise_distance(x1, x2, p, eps, keepdim)``.

        >>> PairwiseDistance(p=1.0, eps=0.0).construct(eagerad.ones(1, 2), eagerad.zeros(1, 2)).tolist()
        [2.0]
        """
        from .functional import pairwise_distance
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)
