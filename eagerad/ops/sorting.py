"""Sorting: sort, argsort, msort, topk, kthvalue.

One op, ``argsort``, finds the order; the values are the input taken at those
indices (differentiable indexing), so the gradient goes to the entries each value
came from (a scatter of the incoming gradient by the indices), and topk,
kthvalue, medians and quantiles built from it route gradients to the selected
entries, as PyTorch does.  Two spellings: ``eagerad.ops.sort(x, axis=-1)`` is
numpy's and returns the sorted values; the Tensor method
``x.sort(dim=-1, descending=False)`` is PyTorch's and returns ``(values, indices)``.
On CUDA the sort is a documented host round trip (copy to the host, numpy's stable
sort, copy back); everything around it stays on the device.

>>> import eagerad
>>> eagerad.ops.sort(eagerad.tensor([3.0, 1.0, 2.0]))
tensor([1., 2., 3.])
"""
from .cumulative import ValuesIndices, batch_along_axes, one_axis
from .decompositions import configured_primitive
from .indexing import take_along_axis
from . import math as _math, reduction as _reduction
from ..tensor import Tensor
from .registry import METHODS, defop, export

_argsort = defop("argsort", lambda B, x, axis, descending: B.argsort(x, axis, descending))
batch_along_axes(_argsort)


def sort_with_indices(x, axis=-1, descending=False, stable=False, *, dim=None):
    """``(values, indices)`` of ``x`` sorted along ``axis`` (PyTorch's ``sort``; always
    stable: equal values keep their order; NaN sorts as the largest value).

    >>> sort_with_indices(eagerad.tensor([2.0, 1.0, 2.0]), descending=True).indices.tolist()
    [0, 2, 1]
    """
    x, axis = one_axis(x, axis if dim is None else None, dim, "sort")
    if x.ndim == 0:
        values, indices = sort_with_indices(x.reshape(1), 0, descending)
        return ValuesIndices(values.reshape(()), indices.reshape(()))
    indices = _argsort(x, axis=axis, descending=bool(descending))
    return ValuesIndices(take_along_axis(x, indices, axis), indices)


@export
def sort(x, axis=-1, descending=False, stable=False, *, dim=None):
    """The values of ``x`` sorted along ``axis`` (numpy's ``sort``; None flattens;
    ``descending`` as PyTorch).  The Tensor method ``x.sort()`` returns
    ``(values, indices)`` as PyTorch's.

    >>> sort(eagerad.tensor([[3.0, 1.0], [0.0, 2.0]]), axis=0).tolist()
    [[0.0, 1.0], [3.0, 2.0]]
    """
    return sort_with_indices(x, axis, descending, stable, dim=dim).values


METHODS["sort"] = sort_with_indices


@export(methods=("argsort",))
def argsort(x, axis=-1, descending=False, stable=False, *, dim=None):
    """Indices that sort ``x`` along ``axis`` (stable; not differentiable).

    >>> argsort(eagerad.tensor([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    return sort_with_indices(x, axis, descending, stable, dim=dim).indices


@export(methods=("msort",))
def msort(x):
    """``x`` sorted along its first axis (PyTorch's ``msort``).

    >>> msort(eagerad.tensor([[2.0, 0.0], [1.0, 5.0]])).tolist()
    [[1.0, 0.0], [2.0, 5.0]]
    """
    return sort(x, 0)


def _kth(x, k, axis, dim, descending, name, low):
    """Sorted values and indices of ``x`` along the chosen axis, that axis (None for a 0-d
    ``x``) and ``k`` checked against its length (``low <= k <= n``)."""
    if axis is not None:
        dim = None
    x, ax = one_axis(x, axis, dim, name, flatten=False)
    if int(k) != k:
        raise TypeError(f"{name}: k must be an integer, got {k!r}")
    n = x.shape[ax] if x.ndim else 1
    if not low <= int(k) <= n:
        raise ValueError(f"{name}: k={k} is out of range for a dimension of size {n} (shape "
                         f"{x.shape})")
    values, indices = sort_with_indices(x, ax, descending)
    return values, indices, ax if x.ndim else None, int(k)


@export(methods=("topk",))
def topk(x, k, dim=-1, largest=True, sorted=True, *, axis=None):
    """The ``k`` largest (or smallest) entries along ``dim`` and their indices,
    ``(values, indices)`` as PyTorch and MindSpore; the gradient goes to the selected
    entries.  Always sorted.

    >>> topk(eagerad.tensor([1.0, 4.0, 2.0, 3.0]), 2)
    ValuesIndices(values=tensor([4., 3.]), indices=tensor([1, 3]))
    """
    values, indices, ax, k = _kth(x, k, axis, dim, bool(largest), "topk", 0)
    if ax is None:
        return ValuesIndices(values, indices) if k else ValuesIndices(values[None][:0],
                                                                      indices[None][:0])
    index = (slice(None),) * ax + (slice(0, k),)
    return ValuesIndices(values[index], indices[index])


@export(methods=("kthvalue",))
def kthvalue(x, k, dim=-1, keepdim=False, *, axis=None):
    """The ``k``-th smallest entry along ``dim`` (``k`` counts from 1) and its index,
    ``(values, indices)`` as PyTorch.

    >>> kthvalue(eagerad.tensor([3.0, 1.0, 2.0]), 2).values.item()
    2.0
    """
    values, indices, ax, k = _kth(x, k, axis, dim, False, "kthvalue", 1)
    if ax is None:
        return ValuesIndices(values, indices)
    index = (slice(None),) * ax + (slice(k - 1, k) if keepdim else k - 1,)
    return ValuesIndices(values[index], indices[index])


# MindSpore's primitive classes: values and indices, as MindSpore's operators return
configured_primitive("Sort", lambda x, axis, descending: sort_with_indices(x, axis, descending),
                     axis=-1, descending=False)
configured_primitive("TopK", lambda x, k, sorted: topk(x, k, sorted=sorted), sorted=True)


def _extremum_method(name, reduce, binary, arg):
    """``x.max``/``x.min`` as both frameworks read them: no dim, the value;
    ``x.max(dim, keepdim)`` (PyTorch, and MindSpore 2.x's Tensor method),
    ``(values, indices)`` with the gradient to the first extremum; ``x.max(other)``, the
    elementwise extremum; numpy's ``axis=``/``keepdims=``, the values alone."""
    def method(self, dim=None, keepdim=False, *, axis=None, keepdims=False):
        if isinstance(dim, Tensor):
            return binary(self, dim)
        if dim is None:
            return reduce(self, axis, keepdims=keepdims)
        if axis is not None:
            raise TypeError(f"{name}: give dim or axis, not both")
        x, d = one_axis(self, None, dim, name, flatten=False)
        if x.ndim == 0:
            return ValuesIndices(x, arg(x.reshape(1), axis=0).reshape(()))
        indices = arg(x, axis=d, keepdims=True)
        values = take_along_axis(x, indices, d)
        if not (keepdim or keepdims):
            values, indices = values.squeeze(d), indices.squeeze(d)
        return ValuesIndices(values, indices)
    method.__name__ = name
    method.__doc__ = f"""``{name}`` of the tensor; along ``dim``, ``(values, indices)``.

    >>> x = eagerad.tensor([[1.0, 5.0], [7.0, 2.0]])
    >>> x.{name}().item(), x.{name}(1).indices.tolist(), x.{name}(axis=0).tolist()
    ({dict(max=7.0, min=1.0)[name]}, {dict(max=[1, 0], min=[0, 1])[name]}, {dict(max=[7.0, 5.0], min=[1.0, 2.0])[name]})
    """
    return method


METHODS["max"] = _extremum_method("max", _reduction.max, _math.maximum, _reduction.argmax)
METHODS["min"] = _extremum_method("min", _reduction.min, _math.minimum, _reduction.argmin)
