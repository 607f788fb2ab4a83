"""PyTorch's Transformer layers: ``TransformerEncoderLayer``, ``TransformerDecoderLayer``,
their stacks ``TransformerEncoder``/``TransformerDecoder`` and the full ``Transformer``,
with PyTorch's signatures, defaults, sub-module names (``self_attn``, ``linear1``,
``norm1``, ...) so that PyTorch's state dicts load by name.

>>> import eagerad
>>> from eagerad.nn.transformer import TransformerEncoderLayer
>>> layer = TransformerEncoderLayer(8, 2, dim_feedforward=16, batch_first=True)
>>> layer(eagerad.ones(3, 5, 8)).shape
(3, 5, 8)
"""
import copy

import numpy as np

from .. import ops
from ..tensor import Tensor
from .cell import Cell
from .conv_layers import LayerNorm, MultiheadAttention
from .init import xavier_uniform_
from .layers import Dropout, Linear, ModuleList

_ACTIVATIONS = {"relu": ops.relu, "gelu": ops.gelu}


def _activation(name_or_fn):
    """``activation=``: 'relu', 'gelu' or any callable."""
    if callable(name_or_fn):
        return name_or_fn
    if name_or_fn not in _ACTIVATIONS:
        raise ValueError(f"activation should be 'relu', 'gelu' or a callable, got {name_or_fn!r}")
    return _ACTIVATIONS[name_or_fn]


def _causal(size, dtype=None, device=None):
    """(size, size) float mask: 0 on and below the diagonal, -inf above."""
    mask = np.triu(np.full((size, size), -np.inf), 1)
    return Tensor(mask, **({} if dtype is None else {"dtype": dtype}),
                  **({} if device is None else {"device": device}))


def generate_square_subsequent_mask(sz, device=None, dtype=None):
    """The causal mask PyTorch's ``Transformer.generate_square_subsequent_mask`` makes:
    position i may attend to positions <= i (0.0), not to later ones (-inf).

    >>> generate_square_subsequent_mask(2).tolist()
    [[0.0, -inf], [0.0, 0.0]]
    """
    return _causal(sz, dtype, device)


class _Layer(Cell):
    """What the encoder and decoder layers share: feed-forward block, norms, dropouts."""
    _norms = 2

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first, dtype=dtype)
        if self._norms == 3:
            self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                     batch_first=batch_first, dtype=dtype)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, dtype=dtype)
        self.norm_first = norm_first
        for i in range(1, self._norms + 1):
            setattr(self, f"norm{i}", LayerNorm(d_model, eps=layer_norm_eps, bias=bias,
                                                dtype=dtype))
        for i in range(1, self._norms + 1):
            setattr(self, f"dropout{i}", Dropout(p=dropout))
        self.__dict__["activation"] = _activation(activation)

    def _attend(self, attn, drop, x, mem, mask, padding, causal):
        if causal and mask is None:
            mask = _causal(x.shape[1 if attn.batch_first else 0], x.dtype, x.device)
        return drop(attn(x, mem, mem, attn_mask=mask, key_padding_mask=padding,
                         need_weights=False)[0])

    def _ff_block(self, x):
        return self.linear2(self.dropout(self.activation(self.linear1(x))))

    def _residual(self, x, block, norm):
        """Pre-norm ``x + block(norm(x))`` or post-norm ``norm(x + block(x))``."""
        return x + block(norm(x)) if self.norm_first else norm(x + block(x))


class TransformerEncoderLayer(_Layer):
    """PyTorch's ``TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048,
    dropout=0.1, activation='relu', layer_norm_eps=1e-5, batch_first=False,
    norm_first=False, bias=True)``: self-attention then a feed-forward block, each with
    a residual connection and LayerNorm (after it, or before with ``norm_first``).

    >>> TransformerEncoderLayer(4, 2, 8, norm_first=True)(eagerad.ones(5, 1, 4)).shape
    (5, 1, 4)
    """

    def construct(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        """Encode ``src`` ((L, N, E), or (N, L, E) with ``batch_first``).

        >>> TransformerEncoderLayer(2, 1, 4).construct(eagerad.ones(3, 1, 2)).shape
        (3, 1, 2)
        """
        x = self._residual(src, lambda y: self._attend(
            self.self_attn, self.dropout1, y, y, src_mask, src_key_padding_mask, is_causal),
            self.norm1)
        return self._residual(x, lambda y: self.dropout2(self._ff_block(y)), self.norm2)


class TransformerDecoderLayer(_Layer):
    """PyTorch's ``TransformerDecoderLayer`` (``TransformerEncoderLayer``'s arguments):
    self-attention, attention over the encoder's ``memory``, feed-forward block.

    >>> TransformerDecoderLayer(4, 2, 8)(eagerad.ones(5, 1, 4), eagerad.ones(3, 1, 4)).shape
    (5, 1, 4)
    """
    _norms = 3

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        """Decode ``tgt`` attending to ``memory``.

        >>> TransformerDecoderLayer(2, 1, 4).construct(eagerad.ones(3, 1, 2), eagerad.ones(2, 1, 2)).shape
        (3, 1, 2)
        """
        x = self._residual(tgt, lambda y: self._attend(
            self.self_attn, self.dropout1, y, y, tgt_mask, tgt_key_padding_mask, tgt_is_causal),
            self.norm1)
        x = self._residual(x, lambda y: self._attend(
            self.multihead_attn, self.dropout2, y, memory, memory_mask, memory_key_padding_mask,
            memory_is_causal), self.norm2)
        return self._residual(x, lambda y: self.dropout3(self._ff_block(y)), self.norm3)


class _Stack(Cell):
    """``num_layers`` independent copies of a layer, then an optional final ``norm``."""

    def __init__(self, layer, num_layers, norm=None):
        super().__init__()
        if not isinstance(layer, Cell):
            raise TypeError(f"{type(self).__name__}: the layer must be a Module, got "
                            f"{type(layer).__name__}")
        self.layers = ModuleList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        if norm is None:
            object.__setattr__(self, "norm", None)
        else:
            self.norm = norm

    def _finish(self, x):
        return x if self.norm is None else self.norm(x)


class TransformerEncoder(_Stack):
    """PyTorch's ``TransformerEncoder(encoder_layer, num_layers, norm=None)``.

    >>> enc = TransformerEncoder(TransformerEncoderLayer(4, 2, 8), 2)
    >>> enc(eagerad.ones(3, 1, 4), mask=generate_square_subsequent_mask(3)).shape
    (3, 1, 4)
    """

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__(encoder_layer, num_layers, norm)

    def construct(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        """Each layer in turn, then ``norm``.

        >>> TransformerEncoder(TransformerEncoderLayer(2, 1, 4), 1).construct(eagerad.ones(2, 1, 2)).shape
        (2, 1, 2)
        """
        for layer in self.layers:
            src = layer(src, src_mask=mask, src_key_padding_mask=src_key_padding_mask,
                        is_causal=bool(is_causal))
        return self._finish(src)


class TransformerDecoder(_Stack):
    """PyTorch's ``TransformerDecoder(decoder_layer, num_layers, norm=None)``.

    >>> dec = TransformerDecoder(TransformerDecoderLayer(4, 2, 8), 2)
    >>> dec(eagerad.ones(3, 1, 4), eagerad.ones(2, 1, 4)).shape
    (3, 1, 4)
    """

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        """Each layer in turn over ``memory``, then ``norm``.

        >>> TransformerDecoder(TransformerDecoderLayer(2, 1, 4), 1).construct(
        ...     eagerad.ones(2, 1, 2), eagerad.ones(3, 1, 2)).shape
        (2, 1, 2)
        """
        for layer in self.layers:
            tgt = layer(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                        tgt_key_padding_mask=tgt_key_padding_mask,
                        memory_key_padding_mask=memory_key_padding_mask,
                        tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        return self._finish(tgt)


class Transformer(Cell):
    """PyTorch's ``Transformer(d_model=512, nhead=8, num_encoder_layers=6,
    num_decoder_layers=6, dim_feedforward=2048, dropout=0.1, activation='relu',
    custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
    norm_first=False, bias=True)``: encoder and decoder stacks with final LayerNorms;
    weight matrices start Xavier-uniform.

    >>> t = Transformer(8, 2, 1, 1, 16)
    >>> t(eagerad.ones(4, 2, 8), eagerad.ones(3, 2, 8)).shape
    (3, 2, 8)
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        common = dict(dim_feedforward=dim_feedforward, dropout=dropout, activation=activation,
                      layer_norm_eps=layer_norm_eps, batch_first=batch_first,
                      norm_first=norm_first, bias=bias, dtype=dtype)

        def norm():
            return LayerNorm(d_model, eps=layer_norm_eps, bias=bias, dtype=dtype)
        self.encoder = custom_encoder if custom_encoder is not None else TransformerEncoder(
            TransformerEncoderLayer(d_model, nhead, **common), num_encoder_layers, norm())
        self.decoder = custom_decoder if custom_decoder is not None else TransformerDecoder(
            TransformerDecoderLayer(d_model, nhead, **common), num_decoder_layers, norm())
        for p in self.get_parameters():
            if p.ndim > 1:
                xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first

    generate_square_subsequent_mask = staticmethod(generate_square_subsequent_mask)

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                  memory_is_causal=False):
        """Encode ``src`` and decode ``tgt`` over it.

        >>> Transformer(2, 1, 1, 1, 4).construct(eagerad.ones(3, 1, 2), eagerad.ones(2, 1, 2)).shape
        (2, 1, 2)
        """
        axis = 0 if self.batch_first else 1
        if src.ndim == 3 and tgt.ndim == 3 and src.shape[axis] != tgt.shape[axis]:
            raise ValueError(f"Transformer: src {src.shape} and tgt {tgt.shape} must have the "
                             f"same batch size (axis {axis}, batch_first={self.batch_first})")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: the feature size of src {src.shape} and tgt "
                             f"{tgt.shape} must be d_model={self.d_model}")
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)
