"""Gather and scatter along an axis, index_select/take, masks, and the index queries.

Three stanzas do the work: ``gather`` reads ``x`` at an index tensor along one
axis (numpy's ``take_along_axis``), ``scatter_add`` is its transpose (adds values
into zeros at the same places, repeated indices accumulate) and ``scatter``
overwrites.  Each one's vjp is another of them, so every order of derivative
exists.  The index tensor is an operand (not differentiable), so a batching rule
can pair a batch of indices with a batch of inputs.  ``index_select``, ``take``,
``index_add``, ``put_along_axis`` and the PyTorch/MindSpore spellings are
compositions of these three.  ``nonzero``, ``argwhere``, ``unique`` and
``searchsorted`` have data-dependent shapes and no derivative: they are computed
by numpy on the host (a round trip from CUDA) and come back on the input's device.

>>> import eagerad
>>> x = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> eagerad.ops.take_along_axis(x, eagerad.tensor([[1], [0]]), axis=1).tolist()
[[2.0], [3.0]]
"""
import numbers

import numpy as np

from .. import backend
from .. import dtype as dt
from ..tensor import Tensor, zeros_like
from .math import as_tensor, where
from .registry import METHODS, Case, U, defop, export
from .shape import broadcast_to, clone, expand_dims, getitem, normalize_axis, reshape, transpose

# ------------------------------------------------------------------ stanzas


def _grid(B, idx, axis, sizes):
    """The backend index tuple of a gather/scatter: ``idx`` along ``axis``, ``arange(sizes[d])``
    along every other axis ``d`` (shaped to broadcast against ``idx``)."""
    out = []
    for d, n in enumerate(sizes):
        if d == axis:
            out.append(idx)
        else:
            shape = [1] * len(sizes)
            shape[d] = n
            out.append(B.reshape(B.arange(0, n, 1, np.int64), tuple(shape)))
    return tuple(out)


def front(a, bdim):
    """``a`` with its batch axis ``bdim`` moved to the front, or a size-1 one added when
    it has none (it then broadcasts against the batched operands): batching rules use it.

    >>> front(eagerad.zeros(2, 3), 1).shape, front(eagerad.zeros(2, 3), None).shape
    ((3, 2), (1, 2, 3))
    """
    if bdim is None:
        return expand_dims(a, 0)
    if bdim == 0:
        return a
    return transpose(a, (bdim,) + tuple(d for d in range(a.ndim) if d != bdim))


def _batch_size(args, bdims):
    return max(a.shape[b] for a, b in zip(args, bdims) if b is not None)


def _gather_fwd(B, x, idx, axis, sizes):
    return B.getitem(x, _grid(B, idx, axis, sizes))


def _gather_batch(args, bdims, axis, sizes):
    x, idx = (front(a, b) for a, b in zip(args, bdims))
    return _gather(x, idx, axis=axis + 1, sizes=(x.shape[0],) + sizes), 0


_gather = defop(
    "gather", _gather_fwd,
    vjp=(lambda g, ans, x, idx, axis, sizes:
         _scatter_add(g, idx, shape=x.shape, axis=axis, sizes=sizes), None),
    jvp=(lambda t, ans, x, idx, axis, sizes: _gather(t, idx, axis=axis, sizes=sizes), None),
    saves=(1,), batch=_gather_batch,
    cases=[Case(U(3, 2), np.array([[0, 2], [2, 2]]), axis=0, sizes=(3, 2)),
           Case(U(2, 3), np.array([[1], [-1]]), axis=1, sizes=(2, 3)),
           Case(U(1, 3), np.array([[0, 2, 1], [2, 2, 0]]), axis=1, sizes=(1, 3)),
           Case(U(3), np.zeros(0, np.int64), axis=0, sizes=(3,)),
           Case(U(2, 0), np.zeros((2, 0), np.int64), axis=1, sizes=(2, 0))])


def _scatter_add_fwd(B, v, idx, shape, axis, sizes):
    return B.index_add(shape, v.dtype, _grid(B, idx, axis, sizes), v)


def _scatter_add_batch(args, bdims, shape, axis, sizes):
    n = _batch_size(args, bdims)
    v, idx = (front(a, b) for a, b in zip(args, bdims))
    return _scatter_add(v, idx, shape=(n,) + shape, axis=axis + 1, sizes=(n,) + sizes), 0


_scatter_add = defop(
    "scatter_add", _scatter_add_fwd,
    vjp=(lambda g, ans, v, idx, shape, axis, sizes: _gather(g, idx, axis=axis, sizes=sizes), None),
    jvp=(lambda t, ans, v, idx, shape, axis, sizes:
         _scatter_add(t, idx, shape=shape, axis=axis, sizes=sizes), None),
    saves=(1,), batch=_scatter_add_batch,
    cases=[Case(U(2, 2), np.array([[0, 2], [2, 2]]), shape=(3, 2), axis=0, sizes=(3, 2)),
           Case(U(2, 1), np.array([[1], [1]]), shape=(2, 3), axis=1, sizes=(2, 3)),
           Case(U(0), np.zeros(0, np.int64), shape=(3,), axis=0, sizes=(3,))])


def _scatter_fwd(B, x, v, idx, axis, sizes):
    out = B.copy(x)
    B.setitem(out, _grid(B, idx, axis, sizes), v)
    return out


def _scatter_batch(args, bdims, axis, sizes):
    n = _batch_size(args, bdims)
    x, v, idx = args
    x = front(x, bdims[0])
    if x.shape[0] != n:
        x = broadcast_to(x, (n,) + x.shape[1:])
    if isinstance(v, Tensor):       # one sample's v broadcasts against one sample's grid
        v = front(v, bdims[1])
        v = v.reshape((v.shape[0],) + (1,) * (len(sizes) + 1 - v.ndim) + v.shape[1:])
    return _scatter(x, v, front(idx, bdims[2]), axis=axis + 1, sizes=(n,) + sizes), 0


_scatter = defop(
    "scatter", _scatter_fwd,
    vjp=(lambda g, ans, x, v, idx, axis, sizes: _scatter(g, 0, idx, axis=axis, sizes=sizes),
         lambda g, ans, x, v, idx, axis, sizes: _gather(g, idx, axis=axis, sizes=sizes), None),
    jvp=(lambda t, ans, x, v, idx, axis, sizes: _scatter(t, 0, idx, axis=axis, sizes=sizes),
         lambda t, ans, x, v, idx, axis, sizes:
             _scatter(zeros_like(x), t, idx, axis=axis, sizes=sizes), None),
    saves=(2,), batch=_scatter_batch,
    cases=[Case(U(3, 2), U(1, 2), np.array([[2, 0]]), axis=0, sizes=(1, 2)),
           Case(U(2, 3), U(2, 2), np.array([[0, 2], [1, 0]]), axis=1, sizes=(2, 2)),
           Case(U(3), U(), np.array([1, -1]), axis=0, sizes=(3,)),
           Case(U(2), U(0), np.zeros(0, np.int64), axis=0, sizes=(2,))])

# ------------------------------------------------------------ argument checks


def _index(name, arg, index, device):
    """``index`` as an integer tensor on ``device``; anything else is a TypeError naming ``arg``."""
    if isinstance(index, Tensor):
        if index.device != device:
            raise RuntimeError(f"{name}: {arg} is on {index.device}, the input on {device}")
        kind, dtype = index.dtype.kind, index.dtype
    else:
        a = np.asarray(index)
        if a.size == 0 and a.dtype.kind == "f":       # [] is float64 to numpy
            a = a.astype(np.int64)
        kind, dtype = a.dtype.kind, a.dtype
    if kind not in "iu":
        raise TypeError(f"{name}: {arg} must hold integers, got dtype {dtype}")
    return index if isinstance(index, Tensor) else Tensor(a, device=device)


def _check_range(name, arg, idx, size, axis, shape):
    """IndexError naming ``arg``, the bad index and the shape when ``idx`` leaves ``[-size, size)``."""
    if idx.size == 0:
        return
    B = backend.get(idx.device.type)
    lo, hi = (int(B.to_numpy(B.reduce(op, idx._data, None, False))) for op in ("min", "max"))
    if hi >= size or lo < -size:
        bad = hi if hi >= size else lo
        raise IndexError(f"{name}: {arg} holds {bad}, out of range for axis {axis} of size {size} "
                         f"(input shape {shape})")


def _prepare(name, x, index, axis, arg="index"):
    x = as_tensor(x)
    if x.ndim == 0:
        raise ValueError(f"{name}: the input is 0-d; it has no axis {axis} to index")
    axis = normalize_axis(axis, x.ndim)[0]
    idx = _index(name, arg, index, x.device)
    _check_range(name, arg, idx, x.shape[axis], axis, x.shape)
    return x, idx, axis


def _dim(name, dim, axis):
    """The axis given as PyTorch's ``dim`` or MindSpore's ``axis`` (one of them)."""
    if (dim is None) == (axis is None):
        raise TypeError(f"{name}: give the axis once, as dim or axis")
    return dim if axis is None else axis


def _same_ndim(name, x, idx, arg):
    if idx.ndim != x.ndim:
        raise ValueError(f"{name}: {arg} has {idx.ndim} dimensions ({idx.shape}), the input "
                         f"{x.ndim} ({x.shape}); they must match")


def _within(name, idx, axis, shapes):
    """PyTorch's rule: ``index`` is no larger than each of ``shapes`` along the other axes."""
    for what, shape in shapes:
        for d, (i, s) in enumerate(zip(idx.shape, shape)):
            if d != axis and i > s:
                raise ValueError(f"{name}: index of shape {idx.shape} is larger than {what} of "
                                 f"shape {shape} along dimension {d}")


def _head(x, shape):
    """``x[:shape[0], :shape[1], ...]`` (PyTorch reads only that corner of src/input)."""
    if x.shape == tuple(shape):
        return x
    return getitem(x, tuple(slice(0, s) for s in shape))

# ------------------------------------------------------------------- gather


@export(methods=("take_along_axis",))
def take_along_axis(arr, indices, axis=-1):
    """``arr`` read at ``indices`` along ``axis`` (numpy's take_along_axis): ``indices`` has
    ``arr``'s number of dimensions and broadcasts against it along the others; ``axis=None``
    reads the flattened array.  Negative indices count from the end.  The gradient adds
    up over repeated indices.

    >>> x = eagerad.tensor([[10.0, 30.0, 20.0]], requires_grad=True)
    >>> y = take_along_axis(x, eagerad.tensor([[1, 1, 0]]), axis=1); y.sum().backward()
    >>> y.tolist(), x.grad.tolist()
    ([[30.0, 30.0, 10.0]], [[1.0, 2.0, 0.0]])
    """
    arr = as_tensor(arr)
    if axis is None:
        arr, axis = reshape(arr, (-1,)), 0
    arr, idx, axis = _prepare("take_along_axis", arr, indices, axis, "indices")
    _same_ndim("take_along_axis", arr, idx, "indices")
    try:
        np.broadcast_shapes(arr.shape[:axis] + (1,) + arr.shape[axis + 1:], idx.shape)
    except ValueError:
        raise ValueError(f"take_along_axis: indices of shape {idx.shape} do not broadcast against "
                         f"the input of shape {arr.shape} outside axis {axis}") from None
    return _gather(arr, idx, axis=axis, sizes=arr.shape)


@export(methods=("take_along_dim",))
def take_along_dim(input, indices, dim=None):
    """PyTorch's spelling of ``take_along_axis`` (``dim=None`` reads the flattened input).

    >>> take_along_dim(eagerad.tensor([4.0, 5.0]), eagerad.tensor([1]), 0).tolist()
    [5.0]
    """
    return take_along_axis(input, indices, dim)


def _torch_gather(x, dim, index, name="gather"):
    x, idx, axis = _prepare(name, x, index, dim)
    _same_ndim(name, x, idx, "index")
    _within(name, idx, axis, [("the input", x.shape)])
    x = _head(x, idx.shape[:axis] + (x.shape[axis],) + idx.shape[axis + 1:])
    return _gather(x, idx, axis=axis, sizes=x.shape)


def _torch_order(second, third):
    """Whether ``(x, second, third)`` is PyTorch's ``(input, dim, index)`` order (dim an int,
    index a tensor) rather than MindSpore's ``(input, indices, axis)``."""
    return isinstance(second, numbers.Integral) and not isinstance(third, numbers.Integral)


@export(methods=("gather",))
def gather(input, dim=None, index=None, *, axis=None, input_indices=None, sparse_grad=False):
    """Pick values by index.  PyTorch's ``gather(input, dim, index)`` (``out[i][j] =
    input[index[i][j]][j]`` for ``dim=0``; ``index`` no larger than ``input`` along the
    other dims) when the second argument is an int, and MindSpore's ``ops.gather(
    input_params, input_indices, axis)`` (numpy's ``take`` along ``axis``) when it is a
    tensor of indices.

    >>> x = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> gather(x, 1, eagerad.tensor([[0, 0], [1, 0]])).tolist()       # PyTorch
    [[1.0, 1.0], [4.0, 3.0]]
    >>> gather(x, eagerad.tensor([1]), 0).tolist()                      # MindSpore
    [[3.0, 4.0]]
    """
    if input_indices is not None or not _torch_order(dim, index):
        indices = input_indices if input_indices is not None else dim
        ax = axis if axis is not None else (index if index is not None else 0)
        return take(input, indices, ax)
    return _torch_gather(input, dim, index)


@export
def gather_elements(input, dim, index):
    """MindSpore's name for PyTorch's ``gather(input, dim, index)``.

    >>> gather_elements(eagerad.tensor([[1.0, 2.0]]), 1, eagerad.tensor([[1, 1]])).tolist()
    [[2.0, 2.0]]
    """
    return _torch_gather(input, dim, index, "gather_elements")


@export(methods=("take",))
def take(a, indices, axis=None):
    """numpy's ``take``: ``a`` read at ``indices`` (any shape) along ``axis``; the result
    has ``indices``' dimensions where ``axis`` was.  ``axis=None`` (also PyTorch's
    ``torch.take``) reads the flattened input.

    >>> x = eagerad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    >>> take(x, eagerad.tensor([[2, 0]]), axis=1).shape, take(x, [5, 0]).tolist()
    ((2, 1, 2), [6.0, 1.0])
    """
    return _take("take", "indices", a, indices, axis)


def _take(name, arg, a, indices, axis):
    a = as_tensor(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    a, idx, axis = _prepare(name, a, indices, axis, arg)
    if idx.ndim == 0:
        out = _take(name, arg, a, reshape(idx, (1,)), axis)
        return reshape(out, a.shape[:axis] + a.shape[axis + 1:])
    # a gather over a with len(idx.shape) - 1 size-1 axes inserted after ``axis``
    m = idx.ndim
    a = reshape(a, a.shape[:axis + 1] + (1,) * (m - 1) + a.shape[axis + 1:])
    idx = reshape(idx, (1,) * axis + idx.shape + (1,) * (a.ndim - axis - m))
    return _gather(a, idx, axis=axis, sizes=a.shape)


@export(methods=("index_select",))
def index_select(input, axis=None, index=None, *, dim=None):
    """The slices of ``input`` at the 1-D ``index`` along ``axis`` (PyTorch and MindSpore;
    ``dim`` in PyTorch).

    >>> index_select(eagerad.tensor([[1, 2], [3, 4]]), 0, eagerad.tensor([1, 1])).tolist()
    [[3, 4], [3, 4]]
    """
    axis = _dim("index_select", dim, axis)
    idx = index if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim > 1:
        raise ValueError(f"index_select: index must be 0-d or 1-d, got shape {idx.shape}")
    return _take("index_select", "index", input, index, axis)

# ------------------------------------------------------------------ scatter


def _scatter_value(name, x, src, shape):
    """``src`` (tensor or number) as a tensor of ``x``'s dtype."""
    if isinstance(src, Tensor):
        if src.device != x.device:
            raise RuntimeError(f"{name}: src is on {src.device}, the input on {x.device}")
        return src if src.dtype == x.dtype else src.astype(x.dtype)
    if isinstance(src, (numbers.Number, np.generic)):
        return Tensor(np.full(shape, src, dtype=x.dtype), device=x.device)
    return Tensor(np.asarray(src, dtype=x.dtype), device=x.device)


def _torch_scatter(name, x, dim, index, src):
    """Checked operands of PyTorch's ``scatter``/``scatter_add``: (x, src, idx, axis)."""
    x, idx, axis = _prepare(name, x, index, dim)
    _same_ndim(name, x, idx, "index")
    src = _scatter_value(name, x, src, idx.shape)
    _same_ndim(name, src, idx, "index")
    _within(name, idx, axis, [("the input", x.shape), ("src", src.shape)])
    if idx.shape[axis] > src.shape[axis]:
        raise ValueError(f"{name}: index of shape {idx.shape} is larger than src of shape "
                         f"{src.shape} along dimension {axis}")
    return x, _head(src, idx.shape), idx, axis


@export(methods=("scatter",))
def scatter(input, dim=None, index=None, src=None, *, value=None, reduce=None, axis=None):
    """A copy of ``input`` with ``src[i][j]`` written at ``[index[i][j]][j]`` (``dim=0``;
    PyTorch's and MindSpore's out-of-place scatter).  ``src`` may be a number (or pass
    ``value=``).  With repeated indices, which value lands is unspecified (as in
    PyTorch); the gradient of ``src`` is the output gradient at its target, for every
    duplicate alike, and the gradient of ``input`` is zero where something was written.
    ``reduce='add'`` is ``scatter_add``.

    >>> x = eagerad.zeros(2, 3)
    >>> scatter(x, 1, eagerad.tensor([[2], [0]]), eagerad.tensor([[5.0], [7.0]])).tolist()
    [[0.0, 0.0, 5.0], [7.0, 0.0, 0.0]]
    """
    dim = _dim("scatter", dim, axis)
    src = value if src is None else src
    if src is None:
        raise TypeError("scatter: pass src (a tensor or number) or value=")
    if reduce in ("add", "sum"):
        return scatter_add(input, dim, index, src)
    if reduce is not None:
        raise ValueError(f"scatter: reduce={reduce!r} is not supported; use None or 'add'")
    x, src, idx, axis = _torch_scatter("scatter", input, dim, index, src)
    return _scatter(x, src, idx, axis=axis, sizes=idx.shape)


@export(methods=("scatter_add",))
def scatter_add(input, dim=None, index=None, src=None, *, axis=None):
    """``input`` plus ``src[i][j]`` added at ``[index[i][j]][j]`` (``dim=0``; PyTorch's
    argument order); repeated indices accumulate.

    >>> scatter_add(eagerad.zeros(3), 0, eagerad.tensor([0, 0, 2]), eagerad.tensor([1.0, 2.0, 5.0])).tolist()
    [3.0, 0.0, 5.0]
    """
    x, src, idx, axis = _torch_scatter("scatter_add", input, _dim("scatter_add", dim, axis),
                                       index, src)
    return x + _scatter_add(src, idx, shape=x.shape, axis=axis, sizes=idx.shape)


def _spread_index(idx, axis, ndim):
    """A 1-D index shaped to lie along ``axis`` of an ``ndim``-d array."""
    return reshape(idx, (1,) * axis + (idx.size,) + (1,) * (ndim - axis - 1))


def slices_source(name, input, index, dim, source):
    """Checked operands of an op that sends the slices of ``source`` to the slices a 1-D
    ``index`` names along ``dim`` (``index_add``, ``index_reduce``): ``(x, index, axis,
    source)``, ``source`` in ``x``'s dtype.

    >>> slices_source("index_add", eagerad.zeros(3, 2), [2, 0], 0, eagerad.ones(2, 2))[2]
    0
    """
    x, idx, axis = _prepare(name, input, index, dim)
    if idx.ndim != 1:
        raise ValueError(f"{name}: index must be 1-d, got shape {idx.shape}")
    source = as_tensor(source, x)
    want = x.shape[:axis] + (idx.size,) + x.shape[axis + 1:]
    if source.shape != want:
        raise ValueError(f"{name}: source has shape {source.shape}; with input {x.shape}, "
                         f"index of {idx.size} entries and dim {axis} it must be {want}")
    return x, idx, axis, source if source.dtype == x.dtype else source.astype(x.dtype)


@export(methods=("index_add",))
def index_add(input, dim, index, source, *, alpha=1, axis=None):
    """``input`` plus ``alpha * source`` added at the 1-D ``index`` along ``dim`` (PyTorch's
    ``index_add(input, dim, index, source)``; MindSpore's ``index_add(x, indices, y,
    axis)`` order is accepted too).  Repeated indices accumulate.

    >>> x = eagerad.zeros(3, 2)
    >>> index_add(x, 0, eagerad.tensor([2, 0, 2]), eagerad.ones(3, 2)).tolist()
    [[1.0, 1.0], [0.0, 0.0], [2.0, 2.0]]
    """
    if not _torch_order(dim, index):               # MindSpore: (x, indices, y, axis)
        dim, index, source = (axis if axis is not None else source), dim, index
    x, idx, axis, source = slices_source("index_add", input, index, dim, source)
    if alpha != 1:
        source = source * alpha
    return x + _scatter_add(source, _spread_index(idx, axis, x.ndim), shape=x.shape, axis=axis,
                            sizes=x.shape)


@export
def put_along_axis(arr, indices, values, axis, inplace=True):
    """numpy's ``put_along_axis``: write ``values`` (broadcast) into ``arr`` at ``indices``
    along ``axis``, in place, returning None as numpy does (recorded for autograd like
    ``arr[...] = v``); ``inplace=False`` (JAX's spelling) returns a new tensor instead.

    >>> a = eagerad.zeros(2, 2)
    >>> put_along_axis(a, eagerad.tensor([[1], [0]]), 9.0, axis=1); a.tolist()
    [[0.0, 9.0], [9.0, 0.0]]
    """
    arr = as_tensor(arr)
    arr, idx, axis = _prepare("put_along_axis", arr, indices, axis, "indices")
    _same_ndim("put_along_axis", arr, idx, "indices")
    sizes = arr.shape[:axis] + (1,) + arr.shape[axis + 1:]
    try:
        region = np.broadcast_shapes(sizes, idx.shape)
        values = _scatter_value("put_along_axis", arr, values, region)
        values = broadcast_to(values, region)
    except ValueError:
        raise ValueError(f"put_along_axis: indices of shape {idx.shape} and values do not "
                         f"broadcast against the input of shape {arr.shape}") from None
    out = _scatter(arr, values, idx, axis=axis, sizes=arr.shape)
    if not inplace:
        return out
    arr[...] = out
    return None

# --------------------------------------------------------------------- masks


def _mask(name, x, mask):
    mask = as_tensor(mask, x)
    if mask.dtype != dt.bool_:
        raise TypeError(f"{name}: mask must be a bool tensor, got dtype {mask.dtype}")
    fits = mask.ndim <= x.ndim and all(m in (1, n) for m, n in zip(mask.shape[::-1], x.shape[::-1]))
    if not fits:
        raise ValueError(f"{name}: mask of shape {mask.shape} does not broadcast to the input's "
                         f"shape {x.shape}")
    return mask


@export(methods=("masked_fill",))
def masked_fill(input, mask, value):
    """``input`` with ``value`` (a number or a 0-d tensor) where the bool ``mask`` holds;
    the gradient of ``input`` is zero there.

    >>> x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    >>> y = masked_fill(x, eagerad.tensor([True, False, True]), -1.0); y.sum().backward()
    >>> y.tolist(), x.grad.tolist()
    ([-1.0, 2.0, -1.0], [0.0, 1.0, 0.0])
    """
    x = as_tensor(input)
    mask = _mask("masked_fill", x, mask)
    if isinstance(value, Tensor):
        if value.ndim:
            raise ValueError(f"masked_fill: value must be a number or a 0-d tensor, got shape "
                             f"{value.shape}")
        value = value if value.dtype == x.dtype else value.astype(x.dtype)
    out = where(mask, value, x)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


@export(methods=("masked_select",))
def masked_select(input, mask):
    """The entries of ``input`` where ``mask`` holds, as a 1-D tensor (both broadcast).

    >>> masked_select(eagerad.tensor([[1, 2], [3, 4]]), eagerad.tensor([True, False])).tolist()
    [1, 3]
    """
    x = as_tensor(input)
    mask = as_tensor(mask, x)
    if mask.dtype != dt.bool_:
        raise TypeError(f"masked_select: mask must be a bool tensor, got dtype {mask.dtype}")
    shape = np.broadcast_shapes(x.shape, mask.shape)
    return getitem(broadcast_to(x, shape), broadcast_to(mask, shape))

# ------------------------------------------------------------- index queries


def _host(x):
    x = as_tensor(x)
    return x, x.numpy()


def _on(device, a):
    return Tensor(np.asarray(a), device=device)


@export(methods=("nonzero",))
def nonzero(input, *, as_tuple=False):
    """Indices of the nonzero entries: a ``(count, ndim)`` int64 tensor (PyTorch and
    MindSpore), or numpy's tuple of one index tensor per axis with ``as_tuple=True``.
    Not differentiable.

    >>> nonzero(eagerad.tensor([[0, 3], [4, 0]])).tolist()
    [[0, 1], [1, 0]]
    >>> [t.tolist() for t in nonzero(eagerad.tensor([0, 5, 6]), as_tuple=True)]
    [[1, 2]]
    """
    x, a = _host(input)
    if as_tuple:
        return tuple(_on(x.device, i.astype(np.int64)) for i in np.nonzero(np.atleast_1d(a)))
    return _on(x.device, np.argwhere(a).astype(np.int64))


@export(methods=("argwhere",))
def argwhere(input):
    """numpy's ``argwhere``: the ``(count, ndim)`` indices of the nonzero entries.

    >>> argwhere(eagerad.tensor([0.0, 2.0])).tolist()
    [[1]]
    """
    return nonzero(input)


@export(methods=("unique",))
def unique(input, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, sorted=True, dim=None):
    """The sorted distinct values (numpy's ``unique``; PyTorch's ``dim=`` and ``sorted=``
    accepted), optionally with the first index of each, the inverse (which unique value
    each entry is, shaped like the input when ``axis`` is None, as in PyTorch) and the
    counts.  Not differentiable.

    >>> u, inv, counts = unique(eagerad.tensor([3, 1, 3, 2]), return_inverse=True, return_counts=True)
    >>> u.tolist(), inv.tolist(), counts.tolist()
    ([1, 2, 3], [2, 0, 2, 1], [1, 1, 2])
    """
    x, a = _host(input)
    axis = dim if dim is not None else axis
    res = np.unique(a, return_index=return_index, return_inverse=return_inverse,
                    return_counts=return_counts, axis=axis)
    if not isinstance(res, tuple):
        return _on(x.device, res)
    res = list(res)
    if return_inverse:
        k = 1 + bool(return_index)
        res[k] = res[k].reshape(a.shape if axis is None else -1)
    return tuple(_on(x.device, r if i == 0 else r.astype(np.int64)) for i, r in enumerate(res))


@export(methods=("searchsorted",))
def searchsorted(sorted_sequence, values, side="left", sorter=None, *, right=False):
    """Where ``values`` would be inserted into ``sorted_sequence`` to keep it sorted
    (numpy's ``side``, PyTorch's ``right=True``).  A sequence with leading dimensions
    is searched row by row against the matching rows of ``values``, as in PyTorch.
    Not differentiable.

    >>> searchsorted(eagerad.tensor([1.0, 3.0, 5.0]), eagerad.tensor([3.0, 6.0])).tolist()
    [1, 3]
    >>> searchsorted(eagerad.tensor([1.0, 3.0, 5.0]), 3.0, side="right").item()
    2
    """
    if side not in ("left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    side = "right" if right else side
    s, a = _host(sorted_sequence)
    v = values.numpy() if isinstance(values, Tensor) else np.asarray(values)
    order = sorter.numpy() if isinstance(sorter, Tensor) else sorter
    if a.ndim <= 1:
        return _on(s.device, np.searchsorted(a, v, side, order).astype(np.int64))
    if v.shape[:-1] != a.shape[:-1]:
        raise ValueError(f"searchsorted: values of shape {v.shape} must match the leading "
                         f"dimensions of sorted_sequence of shape {a.shape}")
    rows = zip(a.reshape(-1, a.shape[-1]), v.reshape(-1, v.shape[-1]),
               order.reshape(-1, a.shape[-1]) if order is not None else [None] * v.size)
    out = np.stack([np.searchsorted(r, w, side, o) for r, w, o in rows]) if a.size else \
        np.zeros(v.shape, np.int64)
    return _on(s.device, out.reshape(v.shape).astype(np.int64))

# ----------------------------------------------------------- in-place methods


def _in_place(fn, example):
    """Tensor method ``<fn>_``: the out-of-place result (computed from a clone, so that
    nothing saved for backward is overwritten) written into ``self`` like ``self[...] = v``."""
    def method(self, *args, **kwargs):
        self[...] = fn(clone(self), *args, **kwargs)
        return self
    method.__name__ = method.__qualname__ = fn.__name__ + "_"
    method.__doc__ = (f"In-place ``{fn.__name__}`` (recorded for autograd like ``self[...] = v``); "
                      f"returns self.\n\n    {example}\n")
    METHODS[method.__name__] = method
    return method


_ONE = "eagerad.tensor([1])"
scatter_ = _in_place(scatter, f""">>> eagerad.zeros(3).scatter_(0, {_ONE}, 5.0).tolist()
    [0.0, 5.0, 0.0]""")
scatter_add_ = _in_place(scatter_add, f""">>> eagerad.zeros(2).scatter_add_(0, {_ONE}, {_ONE}).tolist()
    [0.0, 1.0]""")
index_add_ = _in_place(index_add, f""">>> eagerad.zeros(2).index_add_(0, {_ONE}, eagerad.ones(1)).tolist()
    [0.0, 1.0]""")
_FIRST = "eagerad.tensor([True, False])"
masked_fill_ = _in_place(masked_fill, f""">>> eagerad.zeros(2).masked_fill_({_FIRST}, 1).tolist()
    [1.0, 0.0]""")


export(gather_elements, name="gather_d", primitive="GatherD")     # MindSpore's names
