"""Training wrappers: ``WithLossCell``, ``TrainOneStepCell``, ``TrainOneStepWithLossScaleCell``.

A train step is: forward with grad recording, gradients of the loss with respect to
the optimizer's parameters, optional unscaling/clipping, optimizer update.

>>> import eagerad
>>> from eagerad import nn
>>> net = nn.WithLossCell(nn.Dense(2, 1), nn.MSELoss())
>>> step = nn.TrainOneStepCell(net, nn.SGD(net.trainable_params(), 0.1))
>>> loss = step(eagerad.ones(4, 2), eagerad.zeros(4, 1))
>>> loss.requires_grad
False
"""
import numpy as np

from .. import autograd
from ..autograd import enable_grad
from ..ops import clip_by_global_norm
from ..tensor import Tensor, full_like, zeros_like
from .cell import Cell


class WithLossCell(Cell):
    """``loss_fn(backbone(data), label)``: a network that outputs its loss.

    >>> net = WithLossCell(eagerad.nn.Dense(2, 1, weight_init='zeros', bias_init='zeros'),
    ...                    eagerad.nn.MSELoss())
    >>> net(eagerad.ones(3, 2), eagerad.ones(3, 1)).item()
    1.0
    """

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        """``loss_fn(backbone(data), label)``.

        >>> net = WithLossCell(eagerad.nn.Identity(), eagerad.nn.L1Loss(reduction='sum'))
        >>> net.construct(eagerad.tensor([1.0, 2.0]), eagerad.tensor([0.0, 0.0])).item()
        3.0
        """
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        """The wrapped network without its loss (MindSpore), e.g. for evaluation.

        >>> WithLossCell(eagerad.nn.ReLU(), eagerad.nn.MSELoss()).backbone_network
        ReLU<>
        """
        return self._backbone


def loss_and_grads(network, weights, inputs, sens=1.0):
    """``network(*inputs)`` and d(sens * loss)/d(weights), one gradient per weight.

    A weight that does not reach the loss gets zeros; one with ``requires_grad=False``
    gets None (optimizers skip it).

    >>> import eagerad
    >>> from eagerad import nn
    >>> d = nn.Dense(1, 1, has_bias=False, weight_init='ones')
    >>> loss, (g,) = loss_and_grads(lambda x: (d(x) ** 2).sum(), [d.weight], (eagerad.ones(1, 1),))
    >>> g.tolist()
    [[2.0]]
    """
    weights = list(weights)
    with enable_grad():
        loss = network(*inputs)
    if not isinstance(loss, Tensor):
        raise TypeError(f"the network must return the loss as a Tensor, got {type(loss).__name__} "
                        "(wrap a network that returns several outputs in a loss cell)")
    trainable = [w for w in weights if w.requires_grad]
    found = autograd.grad(loss, trainable, grad_outputs=full_like(loss, sens),
                          allow_unused=True) if trainable and loss.requires_grad else [None] * len(trainable)
    by_id = {id(w): (zeros_like(w) if g is None else g) for w, g in zip(trainable, found)}
    return loss.detach(), tuple(by_id.get(id(w)) for w in weights)


def _clip(grads, clip_norm):
    """Clip the non-None gradients together by their global norm."""
    if clip_norm is None:
        return grads
    present = [g for g in grads if g is not None]
    clipped = iter(clip_by_global_norm(tuple(present), clip_norm))
    return tuple(None if g is None else next(clipped) for g in grads)


class TrainOneStepCell(Cell):
    """One optimizer step per call; returns the loss (detached).

    ``sens`` scales the loss gradient (MindSpore); ``clip_global_norm`` (an eagerad
    extension) clips the gradients by their global norm before the update.  The
    wrapped network is put in training mode (MindSpore's Cells start in inference
    mode; a training wrapper is where training starts).

    >>> net = WithLossCell(eagerad.nn.Dense(1, 1, has_bias=False, weight_init='zeros'),
    ...                    eagerad.nn.MSELoss())
    >>> step = TrainOneStepCell(net, eagerad.nn.SGD(net.trainable_params(), lr=0.25))
    >>> step(eagerad.ones(1, 1), eagerad.ones(1, 1)).item(), net.backbone_network.weight.tolist()
    (1.0, [[0.5]])
    """

    def __init__(self, network, optimizer, sens=1.0, *, clip_global_norm=None):
        super().__init__(auto_prefix=False)
        self.network = network.set_train(True)
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = sens
        self.clip_global_norm = clip_global_norm

    def construct(self, *inputs):
        """Forward, gradients of ``sens * loss``, optional clipping, one optimizer update; returns the loss.

        >>> net = WithLossCell(eagerad.nn.Dense(1, 1, has_bias=False, weight_init='zeros'),
        ...                    eagerad.nn.MSELoss())
        >>> step = TrainOneStepCell(net, eagerad.nn.SGD(net.trainable_params(), lr=0.25), sens=2.0)
        >>> _ = step.construct(eagerad.ones(1, 1), eagerad.ones(1, 1))
        >>> net.backbone_network.weight.tolist()   # the gradient was doubled
        [[1.0]]
        """
        loss, grads = loss_and_grads(self.network, self.weights, inputs, self.sens)
        self.optimizer(_clip(self.reduce_gradients(grads), self.clip_global_norm))
        return loss

    def reduce_gradients(self, grads):
        """The gradients as the optimizer should see them: as they are here; MindSpore's
        face averages them across ranks in data-parallel training (its grad reducer)."""
        return grads


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A train step with loss scaling: gradients of ``scale * loss`` are divided by
    ``scale``; on overflow (inf/nan) the update is skipped.

    ``scale_sense`` is a number/Tensor (static scale) or a loss scaler with
    ``scale_value`` and ``adjust(finite)`` such as ``eagerad.amp.DynamicLossScaler``.
    Returns ``(loss, overflow, scale)`` like MindSpore.

    >>> net = WithLossCell(eagerad.nn.Dense(1, 1, has_bias=False, weight_init='zeros'),
    ...                    eagerad.nn.MSELoss())
    >>> step = TrainOneStepWithLossScaleCell(net, eagerad.nn.SGD(net.trainable_params(), lr=0.25),
    ...                                      scale_sense=1024.0)
    >>> loss, overflow, scale = step(eagerad.ones(1, 1), eagerad.ones(1, 1))
    >>> loss.item(), bool(overflow), scale.item(), net.backbone_network.weight.tolist()
    (1.0, False, 1024.0, [[0.5]])
    """

    def __init__(self, network, optimizer, scale_sense, *, clip_global_norm=None):
        super().__init__(network, optimizer, 1.0, clip_global_norm=clip_global_norm)
        self.scaler = scale_sense if hasattr(scale_sense, "adjust") else None
        self.scale_sense = None if self.scaler else float(scale_sense)

    def construct(self, *inputs):
        """A scaled step: the update is skipped when an unscaled gradient is not finite.

        >>> net = WithLossCell(eagerad.nn.Dense(1, 1, has_bias=False, weight_init='zeros'),
        ...                    eagerad.nn.MSELoss())
        >>> step = TrainOneStepWithLossScaleCell(net, eagerad.nn.SGD(net.trainable_params()), 1e38)
        >>> loss, overflow, scale = step.construct(eagerad.full((1, 1), 10.0), eagerad.ones(1, 1))
        >>> bool(overflow), net.backbone_network.weight.tolist()   # inf gradients: step skipped
        (True, [[0.0]])
        """
        scale = float(self.scaler.scale_value) if self.scaler else self.scale_sense
        loss, grads = loss_and_grads(self.network, self.weights, inputs, scale)
        grads = tuple(None if g is None else g / scale for g in grads)
        finite = all(bool(np.isfinite(g.numpy()).all()) for g in grads if g is not None)
        if self.scaler:
            self.scaler.adjust(finite)
        if finite:
            self.optimizer(_clip(self.reduce_gradients(grads), self.clip_global_norm))
        return loss, Tensor(np.array(not finite)), Tensor(np.array(scale, np.float32))
