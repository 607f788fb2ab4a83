"""Variable-length sequences for the recurrent layers, as PyTorch's
``torch.nn.utils.rnn``: ``PackedSequence`` (the steps of every sequence interleaved,
longest first), ``pack_padded_sequence``, ``pad_packed_sequence``, ``pad_sequence``,
``pack_sequence``.  Packing and padding are differentiable (indexing and concatenation),
and ``LSTM``/``GRU``/``RNN`` accept a ``PackedSequence``: each sequence stops at its own
length, so padding never reaches the final states.

>>> import eagerad
>>> seqs = [eagerad.tensor([1.0, 2.0, 3.0]), eagerad.tensor([4.0])]
>>> packed = pack_sequence(seqs)
>>> packed.data.tolist(), packed.batch_sizes.tolist()
([1.0, 4.0, 2.0, 3.0], [2, 1, 1])
>>> padded, lengths = pad_packed_sequence(packed, batch_first=True)
>>> padded.tolist(), lengths.tolist()
([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]], [3, 1])
"""
from collections import namedtuple

import numpy as np

from .. import ops
from ..tensor import Tensor


class PackedSequence(namedtuple("PackedSequence",
                                ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])):
    """``(data, batch_sizes, sorted_indices, unsorted_indices)``: ``data`` holds step 0
    of every sequence, then step 1 of those still running, ...; ``batch_sizes[t]`` how
    many run at step ``t``; ``sorted_indices`` the batch order by decreasing length
    (None when the input was already sorted)."""

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = Tensor(np.argsort(sorted_indices.numpy(), kind="stable"))
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same packing with ``data`` moved/cast (indices stay on the host)."""
        return self._replace(data=self.data.to(*args, **kwargs))

    @property
    def is_cuda(self):
        return self.data.device.type == "cuda"


def _lengths(lengths):
    n = np.asarray(lengths.tolist() if isinstance(lengths, Tensor) else lengths, dtype=np.int64)
    if n.ndim != 1 or (n.size and n.min() <= 0):
        raise ValueError(f"lengths must be a 1-D list of positive ints, got {n.tolist()}")
    return n


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch ``(T, B, *)`` (``(B, T, *)`` with ``batch_first``) whose
    sequence ``b`` has ``lengths[b]`` valid steps.  ``enforce_sorted`` demands lengths in
    decreasing order; otherwise the batch is sorted and the order remembered.

    >>> import eagerad
    >>> p = pack_padded_sequence(eagerad.tensor([[1.0, 2.0], [3.0, 0.0]]), [2, 1], batch_first=True)
    >>> p.data.tolist(), p.batch_sizes.tolist()
    ([1.0, 3.0, 2.0], [2, 1])
    """
    n = _lengths(lengths)
    x = input.swapaxes(0, 1) if batch_first else input
    if n.size != x.shape[1]:
        raise ValueError(f"pack_padded_sequence: {n.size} lengths for a batch of {x.shape[1]} "
                         f"sequences (input shape {tuple(input.shape)}, batch_first={batch_first})")
    if n.max() > x.shape[0]:
        raise ValueError(f"pack_padded_sequence: a length ({n.max()}) exceeds the padded "
                         f"sequence length {x.shape[0]}")
    if enforce_sorted:
        if np.any(np.diff(n) > 0):
            raise ValueError("pack_padded_sequence: lengths must be sorted in decreasing order "
                             "when enforce_sorted=True (pass enforce_sorted=False to sort them)")
        order, sorted_indices = np.arange(n.size), None
    else:
        order = np.argsort(-n, kind="stable")
        sorted_indices = Tensor(order.astype(np.int64))
    n_sorted = n[order]
    batch_sizes = np.array([(n_sorted > t).sum() for t in range(int(n_sorted[0]))], np.int64)
    steps = [x[t][Tensor(order[:bs])] for t, bs in enumerate(batch_sizes)]
    return PackedSequence(ops.concat(steps, 0), Tensor(batch_sizes), sorted_indices)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """``(padded, lengths)`` of a ``PackedSequence``, in the batch's original order.

    >>> import eagerad
    >>> p = pack_sequence([eagerad.tensor([5.0]), eagerad.tensor([6.0, 7.0])], enforce_sorted=False)
    >>> [t.tolist() for t in pad_packed_sequence(p, padding_value=-1.0)]
    [[[5.0, 6.0], [-1.0, 7.0]], [1, 2]]
    """
    data, sizes = sequence.data, sequence.batch_sizes.numpy().astype(np.int64)
    batch, steps = int(sizes[0]), len(sizes)
    total = steps if total_length is None else int(total_length)
    if total < steps:
        raise ValueError(f"pad_packed_sequence: total_length={total_length} is less than the "
                         f"longest sequence ({steps})")
    lengths = np.array([(sizes > b).sum() for b in range(batch)], np.int64)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    pad = ops.full((batch,) + tuple(data.shape[1:]), padding_value, dtype=data.dtype,
                   device=data.device)
    rows = []
    for t in range(total):
        if t < steps:
            step = data[int(offsets[t]):int(offsets[t + 1])]
            rows.append(ops.concat([step, pad[int(sizes[t]):]], 0) if sizes[t] < batch else step)
        else:
            rows.append(pad)
    out = ops.stack(rows, 0)
    if sequence.unsorted_indices is not None:
        out = out[:, sequence.unsorted_indices]
        lengths = lengths[sequence.unsorted_indices.numpy()]
    return (out.swapaxes(0, 1) if batch_first else out), Tensor(lengths)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack tensors of different lengths (first dimension) into ``(T, B, *)`` padded
    with ``padding_value`` (``(B, T, *)`` with ``batch_first``).

    >>> import eagerad
    >>> pad_sequence([eagerad.tensor([1.0]), eagerad.tensor([2.0, 3.0])], batch_first=True).tolist()
    [[1.0, 0.0], [2.0, 3.0]]
    """
    if padding_side not in ("right", "left"):
        raise ValueError(f"pad_sequence: padding_side must be 'right' or 'left', got "
                         f"{padding_side!r}")
    if not sequences:
        raise ValueError("pad_sequence: expected at least one sequence")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        gap = longest - s.shape[0]
        if gap:
            fill = ops.full((gap,) + tuple(s.shape[1:]), padding_value, dtype=s.dtype,
                            device=s.device)
            s = ops.concat([s, fill] if padding_side == "right" else [fill, s], 0)
        padded.append(s)
    return ops.stack(padded, 0 if batch_first else 1)


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of tensors of different lengths (see ``pack_padded_sequence``)."""
    return pack_padded_sequence(pad_sequence(sequences), [s.shape[0] for s in sequences],
                                enforce_sorted=enforce_sorted)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The list of sequences a padded batch holds (the inverse of ``pad_sequence``).

    >>> import eagerad
    >>> [s.tolist() for s in unpad_sequence(eagerad.tensor([[1.0, 2.0], [3.0, 0.0]]), [2, 1], True)]
    [[1.0, 2.0], [3.0]]
    """
    x = padded_sequences if batch_first else padded_sequences.swapaxes(0, 1)
    return [x[b, :int(n)] for b, n in enumerate(_lengths(lengths))]


def unpack_sequence(packed_sequences):
    """The list of sequences a ``PackedSequence`` holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
