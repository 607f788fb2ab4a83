"""PyTorch's plain recurrent network ``RNN`` and the single-step cells ``RNNCell``,
``LSTMCell``, ``GRUCell``: one time step each, with PyTorch's parameter names
(``weight_ih``, ``weight_hh``, ``bias_ih``, ``bias_hh``) and U(-1/sqrt(H), 1/sqrt(H))
initialisation.  The gate arithmetic is the one of ``LSTM``/``GRU``.

>>> import eagerad
>>> from eagerad.nn.recurrent_cells import LSTMCell
>>> h, c = LSTMCell(3, 4)(eagerad.ones(2, 3))
>>> h.shape, c.shape
((2, 4), (2, 4))
"""
import math

from .. import ops
from ..ops import losses as lf, recurrent
from ..tensor import Parameter, zeros
from .cell import Cell
from .conv_layers import GRU, LSTM, _Recurrent
from .init import uniform
from .packed import PackedSequence

_NONLINEARITIES = {"tanh": ops.tanh, "relu": ops.relu}


def _nonlinearity(cls_name, name):
    """The elementwise function ``nonlinearity=name`` selects ('tanh' or 'relu')."""
    if name not in _NONLINEARITIES:
        raise ValueError(f"{cls_name}: nonlinearity must be 'tanh' or 'relu', got {name!r}")
    return _NONLINEARITIES[name]


class RNN(_Recurrent):
    """Elman recurrent network, PyTorch's ``RNN(input_size, hidden_size, num_layers=1,
    nonlinearity='tanh', bias=True, batch_first=False, dropout=0.0,
    bidirectional=False)``: ``h' = act(W_ih x + b_ih + W_hh h + b_hh)``; returns
    ``output, h_n``; a 2-D input is one unbatched sequence.

    >>> out, h = RNN(3, 4, nonlinearity='relu')(eagerad.ones(5, 3))
    >>> out.shape, h.shape
    ((5, 4), (1, 4))
    """
    _gates = 1

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=None):
        self.__dict__["_act"] = _nonlinearity("RNN", nonlinearity)
        super().__init__(input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, dtype=dtype)
        self.nonlinearity = nonlinearity

    def _initial(self, x, hx):
        n = self.num_layers * self.directions
        if hx is None:
            return [(zeros(x.shape[1], self.hidden_size, dtype=x.dtype, device=x.device),)] * n
        return [(hx[i],) for i in range(n)]

    def _step(self, x, state, w_ih, w_hh, b_ih, b_hh):
        return (self._act(lf.linear(x, w_ih, b_ih) + lf.linear(state[0], w_hh, b_hh)),)

    def _sequence(self, x, state, p, reverse, lengths=None):
        """The layer as one fused ``rnn_scan`` op where ``_fused_params`` allows."""
        fused = self._fused_params(x, p, lengths)
        if fused is None:
            return super()._sequence(x, state, p, reverse, lengths)
        w_ih, w_hh, b_ih, b_hh = fused
        out, h = recurrent.rnn_scan(lf.linear(x, w_ih, b_ih), state[0], w_hh, b_hh,
                                    self.nonlinearity, reverse)
        return out, (h,)

    @staticmethod
    def _pack(finals):
        return ops.stack([s[0] for s in finals], 0)

    def construct(self, x, hx=None):
        """Run ``x`` ((L, N, in), (N, L, in) with ``batch_first``, or unbatched (L, in)).

        >>> RNN(2, 3, num_layers=2, bidirectional=True).construct(eagerad.ones(4, 1, 2))[1].shape
        (4, 1, 3)
        """
        if isinstance(x, PackedSequence) or x.ndim != 2:
            return super().construct(x, hx)
        out, h = super().construct(x.expand_dims(1 - int(self.batch_first)),
                                   None if hx is None else hx.expand_dims(1))
        return out.squeeze(1 - int(self.batch_first)), h.squeeze(1)


class _Cell(Cell):
    """One time step of a recurrent layer: ``forward(input, hx=None)`` on (N, in) or an
    unbatched (in,) input; zero initial state when ``hx`` is None."""
    _gates = 1
    _states = 1

    def __init__(self, input_size, hidden_size, bias=True, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        kw = {} if dtype is None else {"dtype": dtype}
        bound = 1.0 / math.sqrt(hidden_size)
        rows = self._gates * hidden_size
        for pname, shape in (("weight_ih", (rows, input_size)), ("weight_hh", (rows, hidden_size)),
                             ("bias_ih", (rows,)), ("bias_hh", (rows,))):
            if pname.startswith("bias") and not bias:
                object.__setattr__(self, pname, None)
            else:
                setattr(self, pname, Parameter(uniform(shape, bound, **kw), name=pname))

    def _math(self, x, state, *params):
        raise NotImplementedError

    def construct(self, input, hx=None):
        """The next state(s) from ``input`` and the state(s) ``hx``.

        >>> GRUCell(2, 3).construct(eagerad.ones(2)).shape
        (3,)
        """
        name = type(self).__name__
        if input.ndim not in (1, 2) or input.shape[-1] != self.input_size:
            raise ValueError(f"{name}: input must be (N, {self.input_size}) or "
                             f"({self.input_size},), got shape {input.shape}")
        unbatched = input.ndim == 1
        x = input.expand_dims(0) if unbatched else input
        if hx is None:
            zero = zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
            state = (zero,) * self._states
        else:
            state = tuple(hx) if self._states > 1 else (hx,)
            if unbatched:
                state = tuple(s.expand_dims(0) for s in state)
        out = self._math(x, state, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if unbatched:
            out = tuple(s.squeeze(0) for s in out)
        return out if self._states > 1 else out[0]

    def extend_repr(self):
        """Sizes in ``repr``.

        >>> LSTMCell(2, 3).extend_repr()
        'input_size=2, hidden_size=3, bias=True'
        """
        return f"input_size={self.input_size}, hidden_size={self.hidden_size}, bias={self.bias}"


class RNNCell(_Cell):
    """PyTorch's ``RNNCell(input_size, hidden_size, bias=True, nonlinearity='tanh')``:
    ``h' = act(W_ih x + b_ih + W_hh h + b_hh)``.

    >>> RNNCell(3, 4, nonlinearity='relu')(eagerad.ones(2, 3)).shape
    (2, 4)
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", dtype=None):
        self.__dict__["_act"] = _nonlinearity("RNNCell", nonlinearity)
        super().__init__(input_size, hidden_size, bias, dtype)
        self.nonlinearity = nonlinearity

    def _math(self, x, state, *params):
        return RNN._step(self, x, state, *params)


class LSTMCell(_Cell):
    """PyTorch's ``LSTMCell(input_size, hidden_size, bias=True)``: ``forward(input,
    (h, c))`` returns ``(h', c')``; gates (input, forget, cell, output) as ``LSTM``.

    >>> [s.shape for s in LSTMCell(3, 4)(eagerad.ones(3))]
    [(4,), (4,)]
    """
    _gates = 4
    _states = 2

    def _math(self, x, state, *params):
        return LSTM._step(x, state, *params)


class GRUCell(_Cell):
    """PyTorch's ``GRUCell(input_size, hidden_size, bias=True)``: gates (reset, update,
    new) as ``GRU``.

    >>> GRUCell(3, 4)(eagerad.ones(2, 3), eagerad.zeros(2, 4)).shape
    (2, 4)
    """
    _gates = 3

    def _math(self, x, state, *params):
        return GRU._step(x, state, *params)
