"""Writes of one tensor into positions of another, and strided reads: ``select_scatter``,
``slice_scatter``, ``diagonal_scatter``, ``index_copy``, ``index_fill``, ``put``,
``as_strided`` and ``as_strided_scatter``.

Each computes, with numpy on the shapes alone, the flat positions of ``input`` that the
source fills, then gathers from ``cat(input.flatten(), source.flatten())`` with one integer
index: a single differentiable gather, so derivatives of every order come from the engine.

>>> import eagerad
>>> select_scatter(eagerad.zeros(2, 2), eagerad.ones(2), 0, 1).tolist()
[[0.0, 0.0], [1.0, 1.0]]
"""
import numpy as np

from ..tensor import tensor
from . import shape as _shape
from .indexing import index_add
from .registry import export


def _positions(input):
    """Flat position of every element of ``input``, in its shape."""
    return np.arange(input.numel(), dtype=np.int64).reshape(tuple(input.shape))


def _overwrite(name, input, source, positions):
    """``input`` with the flat ``positions`` replaced by ``source``'s elements (row-major);
    a position named twice takes the later element."""
    positions = np.asarray(positions, dtype=np.int64)
    if tuple(source.shape) != positions.shape:
        if source.numel() == positions.size:
            source = source.reshape(positions.shape)
        elif source.numel() == 1:
            source = _shape.broadcast_to(source.reshape(()), positions.shape)
        else:
            raise ValueError(f"{name}: source of shape {tuple(source.shape)} does not fit the "
                             f"{positions.shape} positions it writes")
    n = input.numel()
    gather = np.arange(n, dtype=np.int64)
    gather[positions.reshape(-1)] = n + np.arange(positions.size, dtype=np.int64)
    both = _shape.cat([input.reshape(-1), source.astype(input.dtype).reshape(-1)], 0)
    return both[gather].reshape(tuple(input.shape))


def _axis(dim, ndim):
    return _shape.normalize_axis(dim, ndim)[0]


def _index_array(index):
    return np.asarray(index.tolist() if hasattr(index, "tolist") else index, dtype=np.int64)


@export(methods=("select_scatter",))
def select_scatter(input, src, dim, index):
    """``input`` with the slice at ``index`` along ``dim`` replaced by ``src``.

    >>> import eagerad
    >>> select_scatter(eagerad.zeros(2, 2), eagerad.ones(2), 1, 0).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    return _overwrite("select_scatter", input, src,
                      np.take(_positions(input), index, axis=_axis(dim, input.ndim)))


@export(methods=("slice_scatter",))
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with ``input[start:end:step]`` along ``dim`` replaced by ``src``.

    >>> import eagerad
    >>> slice_scatter(eagerad.zeros(4), eagerad.ones(2), start=1, step=2).tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    dim = _axis(dim, input.ndim)
    where = (slice(None),) * dim + (slice(start, end, step),)
    return _overwrite("slice_scatter", input, src, _positions(input)[where])


@export(methods=("diagonal_scatter",))
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its diagonal (as ``diagonal(offset, dim1, dim2)``) replaced by ``src``.

    >>> import eagerad
    >>> diagonal_scatter(eagerad.zeros(2, 2), eagerad.ones(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _overwrite("diagonal_scatter", input, src,
                      np.diagonal(_positions(input), offset, _axis(dim1, input.ndim),
                                  _axis(dim2, input.ndim)))


@export(methods=("index_copy",))
def index_copy(input, dim, index, source):
    """``input`` with the slices ``index[i]`` along ``dim`` replaced by ``source``'s slice i.

    >>> import eagerad
    >>> index_copy(eagerad.zeros(3), 0, eagerad.tensor([2, 0]), eagerad.tensor([5.0, 7.0])).tolist()
    [7.0, 0.0, 5.0]
    """
    dim = _axis(dim, max(input.ndim, 1))
    if input.ndim == 0:
        return _overwrite("index_copy", input, source.reshape(()), np.zeros((), np.int64))
    positions = np.take(_positions(input), _index_array(index).reshape(-1), axis=dim)
    return _overwrite("index_copy", input, source, positions)


@export(methods=("index_fill",))
def index_fill(input, dim, index, value):
    """``input`` with the slices ``index`` along ``dim`` set to ``value`` (a number or 0-d
    tensor, which then gets the gradient).

    >>> import eagerad
    >>> index_fill(eagerad.zeros(2, 3), 1, eagerad.tensor([0, 2]), -1.0).tolist()
    [[-1.0, 0.0, -1.0], [-1.0, 0.0, -1.0]]
    """
    if input.ndim == 0:
        positions = np.zeros((), np.int64)
    else:
        positions = np.take(_positions(input), _index_array(index).reshape(-1),
                            axis=_axis(dim, input.ndim))
    if not hasattr(value, "shape"):
        value = input.reshape(-1)[:1].reshape(()) * 0 + value
    return _overwrite("index_fill", input, value, positions)


@export(methods=("put",))
def put(input, index, source, accumulate=False):
    """``input`` seen as 1-D with ``source`` written at ``index`` (added when ``accumulate``).

    >>> import eagerad
    >>> put(eagerad.zeros(2, 2), eagerad.tensor([3, 0]), eagerad.tensor([1.0, 2.0])).tolist()
    [[2.0, 0.0], [0.0, 1.0]]
    """
    flat = _index_array(index).reshape(-1) % max(input.numel(), 1)
    if accumulate:
        return index_add(input.reshape(-1), 0, tensor(flat), source.reshape(-1)).reshape(
            tuple(input.shape))
    return _overwrite("put", input, source.reshape(-1), flat)


def _strided(input, size, stride, storage_offset):
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise ValueError(f"as_strided: size {size} and stride {stride} differ in length")
    positions = np.full(size, storage_offset or 0, dtype=np.int64)
    for axis, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[axis] = n
        positions = positions + (np.arange(n, dtype=np.int64) * s).reshape(shape)
    if positions.size and (positions.max() >= input.numel() or positions.min() < 0):
        raise ValueError(f"as_strided: size {size}, stride {stride} and offset {storage_offset} "
                         f"reach outside the {input.numel()} elements of the input")
    return positions


@export(methods=("as_strided",))
def as_strided(input, size, stride, storage_offset=0):
    """A new tensor reading ``input``'s row-major elements at ``offset + sum(i_k stride_k)``
    (a copy, not a view).

    >>> import eagerad
    >>> as_strided(eagerad.arange(6.0), (2, 2), (1, 2)).tolist()
    [[0.0, 2.0], [1.0, 3.0]]
    """
    return input.reshape(-1)[_strided(input, size, stride, storage_offset)]


@export(methods=("as_strided_scatter",))
def as_strided_scatter(input, src, size, stride, storage_offset=0):
    """``input`` with the elements ``as_strided`` would read replaced by ``src``.

    >>> import eagerad
    >>> as_strided_scatter(eagerad.zeros(4), eagerad.ones(2), (2,), (2,)).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    return _overwrite("as_strided_scatter", input, src,
                      _strided(input, size, stride, storage_offset))


@export(methods=("index_put",))
def index_put(input, indices, values, accumulate=False):
    """``input`` with ``input[indices] = values`` (``+=`` when ``accumulate``), as a new
    tensor; ``indices`` is a tuple of integer (or boolean) index tensors.

    >>> import eagerad
    >>> index_put(eagerad.zeros(3), (eagerad.tensor([0, 2]),), eagerad.tensor([1.0, 5.0])).tolist()
    [1.0, 0.0, 5.0]
    """
    where = tuple(np.asarray(i.tolist() if hasattr(i, "tolist") else i) for i in indices)
    positions = _positions(input)[where]
    if tuple(values.shape) != positions.shape:
        values = _shape.broadcast_to(values, positions.shape)
    if accumulate:
        return index_add(input.reshape(-1), 0, tensor(positions.reshape(-1)),
                         values.reshape(-1)).reshape(tuple(input.shape))
    return _overwrite("index_put", input, values, positions)
