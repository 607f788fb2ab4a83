"""``torch.nn.utils.rnn``: packed and padded variable-length sequences (see
``eagerad.nn.packed``); ``nn.LSTM``/``GRU``/``RNN`` take a ``PackedSequence``.

>>> import eagerad.torch as torch
>>> from eagerad.torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
>>> x = torch.tensor([[[1.0], [2.0]], [[3.0], [0.0]]])        # batch_first, lengths 2 and 1
>>> out, (h, c) = torch.nn.LSTM(1, 2, batch_first=True)(pack_padded_sequence(x, [2, 1], True))
>>> pad_packed_sequence(out, batch_first=True)[0].shape, h.shape
(torch.Size([2, 2, 2]), torch.Size([1, 2, 2]))
"""
from ....face import speaking
from ....nn import packed as _packed
from ....nn.packed import PackedSequence  # noqa: F401
from ..._face import TORCH

pack_padded_sequence = speaking(_packed.pack_padded_sequence, TORCH)
pad_packed_sequence = speaking(_packed.pad_packed_sequence, TORCH)
pad_sequence = speaking(_packed.pad_sequence, TORCH)
pack_sequence = speaking(_packed.pack_sequence, TORCH)
unpad_sequence = speaking(_packed.unpad_sequence, TORCH)
unpack_sequence = speaking(_packed.unpack_sequence, TORCH)
