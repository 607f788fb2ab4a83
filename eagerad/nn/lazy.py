"""PyTorch's lazy layers: ``LazyLinear``, ``LazyConv1d``, ``LazyConv2d``,
``LazyConvTranspose2d``.  They are built without the input size; the first call reads it
from the input (last axis for Linear, axis 1 for the convolutions) and creates the
parameters, after which the layer is the ordinary one.

>>> import eagerad
>>> from eagerad.nn.lazy import LazyLinear
>>> m = LazyLinear(3)
>>> len(list(m.parameters())), m(eagerad.ones(2, 5)).shape, m.weight.shape
(0, (2, 3), (3, 5))
"""
from .cell import Cell
from .conv_layers import Conv1d, Conv2d, ConvTranspose2d
from .layers import Linear


class _Lazy:
    """Mixin: keep the constructor's arguments, build the base layer on the first call."""
    _axis = 1                   # the input axis holding the size the layer is built for
    _size_name = "in_channels"

    def __init__(self, *args, **kwargs):
        Cell.__init__(self)
        self.__dict__["_lazy_args"] = (args, kwargs)

    def has_uninitialized_params(self):
        """Whether the first call is still to come (PyTorch's name).

        >>> LazyLinear(2).has_uninitialized_params()
        True
        """
        return "_lazy_args" in self.__dict__

    def initialize_parameters(self, input):
        """Create the parameters for ``input``'s size (the first call does it).

        >>> m = LazyConv2d(4, 3)
        >>> m.initialize_parameters(eagerad.ones(1, 2, 5, 5)); m.weight.shape
        (4, 2, 3, 3)
        """
        if not self.has_uninitialized_params():
            return
        if input.ndim == 0 or (self._axis >= 0 and input.ndim <= self._axis):
            raise ValueError(f"{type(self).__name__}: cannot infer {self._size_name} from an "
                             f"input of shape {input.shape}")
        args, kwargs = self.__dict__.pop("_lazy_args")
        training = self.training
        base = next(c for c in type(self).__mro__ if c not in (_Lazy,) and
                    not issubclass(c, _Lazy))
        base.__init__(self, input.shape[self._axis], *args, **kwargs)
        self.set_train(training)

    def construct(self, input, *rest, **kwargs):
        """Build on the first call, then compute as the base layer.

        >>> LazyConv1d(2, 1)(eagerad.ones(1, 3, 4)).shape
        (1, 2, 4)
        """
        self.initialize_parameters(input)
        return super().construct(input, *rest, **kwargs)


class LazyLinear(_Lazy, Linear):
    """PyTorch's ``LazyLinear(out_features, bias=True)``: ``Linear`` whose
    ``in_features`` is the last axis of the first input.

    >>> LazyLinear(2, bias=False)(eagerad.ones(4, 3)).shape
    (4, 2)
    """
    _axis = -1
    _size_name = "in_features"


class LazyConv1d(_Lazy, Conv1d):
    """PyTorch's ``LazyConv1d(out_channels, kernel_size, ...)``: ``in_channels`` from
    the first input.

    >>> LazyConv1d(2, 3)(eagerad.ones(1, 4, 5)).shape
    (1, 2, 3)
    """
    _signature = "torch"


class LazyConv2d(_Lazy, Conv2d):
    """PyTorch's ``LazyConv2d(out_channels, kernel_size, stride=1, padding=0,
    dilation=1, groups=1, bias=True, padding_mode='zeros')``.

    >>> LazyConv2d(2, 3, padding=1)(eagerad.ones(1, 4, 5, 5)).shape
    (1, 2, 5, 5)
    """
    _signature = "torch"


class LazyConvTranspose2d(_Lazy, ConvTranspose2d):
    """PyTorch's ``LazyConvTranspose2d(out_channels, kernel_size, ...)``.

    >>> LazyConvTranspose2d(2, 3)(eagerad.ones(1, 4, 5, 5)).shape
    (1, 2, 7, 7)
    """
    _signature = "torch"
