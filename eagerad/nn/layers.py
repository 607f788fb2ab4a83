"""Layers: Dense, activations, Flatten, Dropout and SequentialCell.

>>> import eagerad
>>> from eagerad import nn
>>> net = nn.SequentialCell(nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 2))
>>> net(eagerad.ones(5, 4)).shape
(5, 2)
"""
import math

from .. import backend, ops
from ..face import ambiguous
from ..ops.matrix_products import matmul_nt
from ..tensor import Parameter, Tensor
from .cell import Cell
from .init import he_uniform, initializer, uniform


class ReLU(Cell):
    """``max(x, 0)``.

    >>> ReLU()(eagerad.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """

    def construct(self, x):
        """``max(x, 0)`` elementwise.

        >>> ReLU().construct(eagerad.tensor([-1.0, 2.0])).tolist()
        [0.0, 2.0]
        """
        return ops.relu(x)


class Tanh(Cell):
    """``tanh(x)``: a bounded, zero-centred activation.

    >>> Tanh()(eagerad.tensor([0.0])).tolist()
    [0.0]
    """

    def construct(self, x):
        """``tanh(x)`` elementwise.

        >>> Tanh().construct(eagerad.tensor([0.0])).tolist()
        [0.0]
        """
        return ops.tanh(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))``: squashes to (0, 1), e.g. for gates and binary outputs.

    >>> Sigmoid()(eagerad.tensor([0.0])).tolist()
    [0.5]
    """

    def construct(self, x):
        """``sigmoid(x)`` elementwise.

        >>> Sigmoid().construct(eagerad.tensor([0.0])).tolist()
        [0.5]
        """
        return ops.sigmoid(x)


class Softmax(Cell):
    """Softmax along ``axis`` (PyTorch's ``dim`` is accepted too).

    >>> Softmax()(eagerad.tensor([[0.0, 0.0]])).tolist()
    [[0.5, 0.5]]
    """

    def __init__(self, axis=-1, dim=None):
        super().__init__()
        self.axis = axis if dim is None else dim

    def construct(self, x):
        """Softmax of ``x`` along ``self.axis``.

        >>> Softmax(dim=0).construct(eagerad.tensor([0.0, 0.0])).tolist()
        [0.5, 0.5]
        """
        return ops.softmax(x, self.axis)

    def extend_repr(self):
        """Shows the axis in ``repr``.

        >>> Softmax(dim=0)
        Softmax<axis=0>
        """
        return f"axis={self.axis}"


class LogSoftmax(Softmax):
    """``log(softmax(x))`` along ``axis``, computed stably, for negative log-likelihood losses.

    >>> [round(v, 4) for v in LogSoftmax()(eagerad.tensor([0.0, 0.0])).tolist()]
    [-0.6931, -0.6931]
    """

    def construct(self, x):
        """Log-softmax of ``x`` along ``self.axis``; finite even for very negative logits.

        >>> LogSoftmax().construct(eagerad.tensor([0.0, -1000.0])).tolist()
        [0.0, -1000.0]
        """
        return ops.log_softmax(x, self.axis)


class Identity(Cell):
    """Returns its input unchanged: a placeholder where a layer is optional.

    >>> x = eagerad.ones(2)
    >>> Identity()(x) is x
    True
    """

    def construct(self, x):
        """``x`` itself (no copy, no graph node).

        >>> x = eagerad.ones(2)
        >>> Identity().construct(x) is x
        True
        """
        return x


ACTIVATIONS = {"relu": ReLU, "tanh": Tanh, "sigmoid": Sigmoid, "softmax": Softmax,
               "log_softmax": LogSoftmax}


def get_activation(name):
    """An activation Cell from its name (``'relu'``, ``'tanh'``, ...).

    >>> get_activation('relu')
    ReLU<>
    """
    try:
        return ACTIVATIONS[name.lower()]()
    except KeyError:
        raise ValueError(f"unknown activation {name!r}; known: {sorted(ACTIVATIONS)}") from None


class Flatten(Cell):
    """Keep the batch axis, flatten the rest: ``(N, a, b) -> (N, a*b)``.

    >>> Flatten()(eagerad.ones(2, 3, 4)).shape
    (2, 12)
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, x):
        """``x`` with axes ``start_dim..end_dim`` merged into one.

        >>> Flatten(0).construct(eagerad.ones(2, 3)).shape
        (6,)
        """
        return ops.flatten(x, self.start_dim, self.end_dim)


class Dense(Cell):
    """``activation(x @ weight.T + bias)`` with ``weight`` of shape ``(out, in)``.

    ``weight_init``/``bias_init`` take what ``nn.init.initializer`` takes; by default
    both are U(-1/sqrt(in), 1/sqrt(in)) as in MindSpore 2.x and PyTorch.

    >>> import eagerad
    >>> Dense(3, 2).weight.shape
    (2, 3)
    """

    _in_name = "in_channels"     # the first argument's name, for error messages

    def __init__(self, in_channels, out_channels, has_bias=True, weight_init=None,
                 bias_init=None, activation=None, dtype=None):
        super().__init__()
        for arg, value in (("in_channels", in_channels), ("out_channels", out_channels)):
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Dense: {arg} must be a positive int, got {value!r}")
        self.in_channels, self.out_channels, self.has_bias = in_channels, out_channels, has_bias
        kw = {} if dtype is None else {"dtype": dtype}
        shape = (out_channels, in_channels)
        weight = he_uniform(shape, **kw) if weight_init is None else initializer(weight_init, shape, **kw)
        self.weight = Parameter(weight, name="weight")
        if has_bias:
            # the default bias bound uses the weight's fan_in, as in PyTorch
            bias = uniform((out_channels,), 1.0 / math.sqrt(in_channels), **kw) \
                if bias_init is None else initializer(bias_init, (out_channels,), **kw)
            self.bias = Parameter(bias, name="bias")
        else:
            self.bias = None
        self.activation = get_activation(activation) if isinstance(activation, str) else activation

    def construct(self, x):
        """``x @ weight.T + bias`` (then the activation); ``x``'s last axis must be ``in_channels``.

        >>> Dense(2, 1, weight_init='ones', bias_init='zeros').construct(eagerad.ones(1, 2)).tolist()
        [[2.0]]
        """
        if x.shape[-1] != self.in_channels:
            raise ValueError(f"{type(self).__name__}: input of shape {x.shape} has {x.shape[-1]} "
                             f"features in its last axis, the layer expects "
                             f"{self._in_name}={self.in_channels}")
        out = ops.dense(x, self.weight, self.bias)    # all rows as one 2-D product
        return out if self.activation is None else self.activation(out)

    def extend_repr(self):
        """Shows the layer's sizes in ``repr`` (MindSpore's wording).

        >>> Dense(3, 2)
        Dense<input_channels=3, output_channels=2, has_bias=True>
        """
        return f"input_channels={self.in_channels}, output_channels={self.out_channels}, " \
               f"has_bias={self.has_bias}"


class Linear(Dense):
    """PyTorch's name: ``Linear(in_features, out_features, bias=True)``.

    >>> Linear(3, 2, bias=False).bias is None
    True
    """

    _in_name = "in_features"

    def __init__(self, in_features, out_features, bias=True, dtype=None):
        super().__init__(in_features, out_features, has_bias=bias, dtype=dtype)
        self.in_features, self.out_features = in_features, out_features


def _twice(name):
    raise TypeError(f"Dropout: {name} given both positionally and as a keyword")


class Dropout(Cell):
    """Zero each element with probability ``p`` during training, scale the rest by
    ``1/(1-p)``; identity in eval mode.  MindSpore's ``keep_prob`` = ``1 - p``.

    >>> import eagerad
    >>> Dropout(p=0.5).set_train(False)(eagerad.ones(3)).tolist()
    [1.0, 1.0, 1.0]
    """

    def __init__(self, *args, keep_prob=None, p=None, inplace=False, dtype=None):
        super().__init__()
        if len(args) > 1:
            raise TypeError(f"Dropout takes one positional argument, got {len(args)}")
        if args:        # PyTorch's Dropout(p), MindSpore's Dropout(keep_prob)
            face = type(self)._signature
            if face is None:
                raise ambiguous(f"nn.Dropout({args[0]!r})", "the drop probability p",
                                "the keep probability keep_prob", "pass p= or keep_prob=")
            if face == "torch":
                p = args[0] if p is None else _twice("p")
            else:
                keep_prob = args[0] if keep_prob is None else _twice("keep_prob")
        if keep_prob is not None and p is not None:
            raise ValueError("Dropout: give keep_prob or p, not both")
        if keep_prob is not None and not 0.0 < keep_prob <= 1.0:
            raise ValueError(f"Dropout: keep_prob must lie in (0, 1], got {keep_prob}")
        p = 1.0 - keep_prob if keep_prob is not None else (0.5 if p is None else p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"Dropout: p must lie in [0, 1], got p={p}")
        self.p = p

    def construct(self, x):
        """``x`` times a fresh keep mask scaled by ``1/(1-p)`` in training, ``x`` itself in eval mode.

        >>> sorted(set(Dropout(p=0.5).construct(eagerad.ones(100)).tolist()))   # kept ones doubled
        [0.0, 2.0]
        """
        if not self.training or self.p == 0.0:
            return x
        if self.p == 1.0:
            return x * 0.0
        keep = 1.0 - self.p
        mask = backend.get(x.device.type).bernoulli(x.shape, keep, x.dtype)
        return x * Tensor._make(mask, x.device) * (1.0 / keep)

    def extend_repr(self):
        """Shows the drop probability in ``repr``.

        >>> Dropout(p=0.25)
        Dropout<p=0.25>
        """
        return f"p={self.p}"


class SequentialCell(Cell):
    """Cells applied in order; accepts cells, a list of cells or an ordered dict.

    >>> from eagerad import nn
    >>> len(nn.SequentialCell([nn.ReLU(), nn.Tanh()]))
    2
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            args = args[0]
        items = args[0].items() if len(args) == 1 and isinstance(args[0], dict) \
            else ((str(i), c) for i, c in enumerate(args))
        for name, cell in items:
            self.insert_child_to_cell(name, cell)

    def construct(self, x):
        """``x`` passed through each cell in order.

        >>> SequentialCell(ReLU(), Sigmoid()).construct(eagerad.tensor([-3.0])).tolist()
        [0.5]
        """
        for cell in self.cells():
            x = cell(x)
        return x

    def append(self, cell):
        """Add ``cell`` at the end (named by its position); returns the SequentialCell.

        >>> len(SequentialCell().append(ReLU()))
        1
        """
        self.insert_child_to_cell(str(len(self)), cell)
        return self

    def __len__(self):
        return len(self._registry()[1])

    def __getitem__(self, index):
        """The cell at ``index`` (a slice gives a plain list of cells)."""
        return self.cells()[index]

    def __iter__(self):
        return iter(self.cells())


Sequential = SequentialCell


class CellList(SequentialCell):
    """A registered list of cells (MindSpore ``CellList``, PyTorch ``ModuleList``); not callable.

    >>> from eagerad import nn
    >>> blocks = nn.CellList([nn.Dense(2, 2) for _ in range(3)])
    >>> len(list(blocks.get_parameters()))
    6
    """

    def construct(self, *args, **kwargs):
        """Refuses to run: a CellList only holds cells, the caller decides how to chain them.

        >>> CellList([ReLU()])(eagerad.ones(1))
        Traceback (most recent call last):
        TypeError: CellList is a container, not a layer: iterate over it and call its cells
        """
        raise TypeError("CellList is a container, not a layer: iterate over it and call its cells")


ModuleList = CellList
