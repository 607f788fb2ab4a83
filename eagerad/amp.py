"""Loss scaling for mixed precision (MindSpore's ``mindspore.amp``).

Multiplying the loss by a large factor keeps small float16 gradients from
flushing to zero; dividing the gradients by the same factor undoes it.  A
dynamic scaler lowers the factor when gradients overflow and raises it after
``scale_window`` finite steps.

>>> import eagerad
>>> from eagerad.amp import StaticLossScaler, all_finite
>>> s = StaticLossScaler(1024.0)
>>> s.unscale(s.scale(eagerad.Tensor(1.5))).item()
1.5
>>> bool(all_finite((eagerad.Tensor([1.0]), eagerad.Tensor([float('inf')]))))
False
"""
import numpy as np

from .tensor import Parameter, Tensor

__all__ = ["LossScaler", "StaticLossScaler", "DynamicLossScaler", "all_finite"]


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_map(fn, v) for v in inputs)
    return fn(inputs)


def _leaves(inputs):
    if isinstance(inputs, (tuple, list)):
        return [t for v in inputs for t in _leaves(v)]
    return [inputs]


def all_finite(inputs):
    """Tensor(True) when no element of the tensor(s) is inf or nan.

    >>> all_finite(eagerad.Tensor([1.0, 2.0]))
    tensor(True)
    """
    for i, t in enumerate(_leaves(inputs)):
        if not isinstance(t, Tensor):
            raise TypeError(f"all_finite: input {i} must be a Tensor, got {type(t).__name__}")
    ok = all(bool(np.isfinite(t.numpy()).all()) for t in _leaves(inputs))
    return Tensor(np.array(ok))


class LossScaler:
    """Base: ``scale`` the loss, ``unscale`` the gradients, ``adjust`` after a step.

    >>> s = LossScaler(4.0); s.scale((Tensor(1.0), Tensor(2.0)))[1].item(), s.adjust(True)
    (8.0, False)
    """

    def __init__(self, scale_value):
        if not scale_value > 0:
            raise ValueError(f"scale_value must be > 0, got {scale_value!r}")
        self.scale_value = Parameter(Tensor(np.array(scale_value, np.float32)),
                                     name="scale_value", requires_grad=False)

    def scale(self, inputs):
        """``inputs`` (a tensor or a tuple of them) times the scale.

        >>> LossScaler(4.0).scale(Tensor([1.5])).tolist()
        [6.0]
        """
        return _map(lambda t: t * self.scale_value.astype(t.dtype), inputs)

    def unscale(self, inputs):
        """``inputs`` (a tensor or a tuple of them) divided by the scale.

        >>> LossScaler(4.0).unscale([Tensor([8.0])])[0].tolist()
        [2.0]
        """
        return _map(lambda t: t / self.scale_value.astype(t.dtype), inputs)

    def adjust(self, grads_finite):
        """Update the scale from whether the last gradients were finite; True if it changed.

        >>> LossScaler(4.0).adjust(False)
        False
        """
        return False


class StaticLossScaler(LossScaler):
    """A fixed scale.

    >>> StaticLossScaler(8.0).scale(eagerad.Tensor(2.0)).item()
    16.0
    """


class DynamicLossScaler(LossScaler):
    """Divide the scale by ``scale_factor`` on overflow (never below 1); multiply it by
    ``scale_factor`` after ``scale_window`` consecutive finite steps.

    >>> s = DynamicLossScaler(1024.0, scale_factor=2, scale_window=1000)
    >>> s.adjust(eagerad.Tensor(False)); s.scale_value.item()
    True
    512.0
    """

    def __init__(self, scale_value, scale_factor, scale_window):
        super().__init__(scale_value)
        if not scale_factor > 1:
            raise ValueError(f"scale_factor must be > 1, got {scale_factor!r}")
        if int(scale_window) < 1:
            raise ValueError(f"scale_window must be >= 1, got {scale_window!r}")
        self.scale_factor = float(scale_factor)
        self.scale_window = int(scale_window)
        self.counter = 0

    def adjust(self, grads_finite):
        """Divide by ``scale_factor`` on overflow, multiply after ``scale_window`` finite steps;
        True if the scale changed.

        >>> s = DynamicLossScaler(4.0, scale_factor=2, scale_window=2)
        >>> s.adjust(True), s.adjust(True), s.scale_value.item()
        (False, True, 8.0)
        """
        value = self.scale_value.item()
        if bool(grads_finite):
            self.counter += 1
            if self.counter < self.scale_window:
                return False
            self.counter = 0
            new = value * self.scale_factor
        else:
            self.counter = 0
            new = max(value / self.scale_factor, 1.0)
        self.scale_value.set_data(Tensor(np.array(new, np.float32)))
        return new != value
