"""Shape and movement ops: reshape, transpose, broadcast, indexing, concat, casts.

Their rules only move gradients around, so each is its own transpose.

>>> import eagerad
>>> eagerad.ops.reshape(eagerad.ones(2, 3), (3, 2)).shape
(3, 2)
"""
import math
import operator
import weakref

import numpy as np

from .. import dtype as dt
from ..device import as_device
from ..face import ambiguous
from ..tensor import Tensor
from .math import as_tensor
from .registry import METHODS, OPS, Case, PerArg, U, defop, export, sum_to


# ---------------------------------------------------------------- view tracking
#
# A view (basic indexing, reshape, transpose, broadcast_to, alias) shares its base's
# memory and version counter.  The public functions below also note, on the view,
# its root tensor and the chain of view ops from it (``_view``), and on the root a
# weak set of its live views (``_views``).  In-place ops use both (ops/inplace.py):
# a change through a view rewrites the root's history (PyTorch's CopySlices), and
# after the root's history changes each live view is re-derived from it, so that no
# view keeps a stale graph.  Both are O(live views); nothing scans the heap.


class ViewKind:
    """How one kind of view is redone on a (new) base, ``apply(base, **kw)``, and how a
    new value of the view is written back into its base, ``put(base, value, **kw)``
    (out of place, differentiable).

    >>> v = eagerad.ones(2, 3).reshape(3, 2); v._view[1][0][0].name
    'reshape'
    """
    __slots__ = ("name", "apply", "put")

    def __init__(self, name, apply, put):
        self.name, self.apply, self.put = name, apply, put


def track_view(out, x, kind, **kw):
    """Record that ``out`` is the view ``kind(x, **kw)``; returns ``out``.

    >>> x = eagerad.zeros(4); v = x[1:3]; v._view[0] is x, len(x._views)
    (True, 1)
    """
    if out is x:
        return out
    root, steps = x._view or (x, ())
    out._view = (root, steps + ((kind, kw),))
    if root._views is None:
        root._views = weakref.WeakSet()
    root._views.add(out)
    return out


def replay_view(root, steps):
    """The view described by ``steps`` taken again of ``root`` (with its current graph).

    >>> x = eagerad.Tensor([[1.0, 2.0]]); v = x.reshape(2)
    >>> replay_view(x, v._view[1]).tolist()
    [1.0, 2.0]
    """
    for kind, kw in steps:
        root = kind.apply(root, **kw)
    return root


def put_view(root, steps, value):
    """``root`` (out of place) with the view described by ``steps`` replaced by ``value``.

    >>> x = eagerad.zeros(2, 2); v = x[0]
    >>> put_view(x, v._view[1], eagerad.ones(2)).tolist()
    [[1.0, 1.0], [0.0, 0.0]]
    """
    chain = [root]
    for kind, kw in steps[:-1]:
        chain.append(kind.apply(chain[-1], **kw))
    for (kind, kw), base in zip(reversed(steps), reversed(chain)):
        value = kind.put(base, value, **kw)
    return value


def _read_only(base, value, **kw):
    raise RuntimeError("a broadcast view is read-only; it cannot be written back into its base")


# ---------------------------------------------------------------- batching rules
#
# ``rule(args, bdims, **kw) -> (out, out_bdim)`` for vmap (see registry.defop): the
# batched operands are moved so that their batch axis comes first, the op runs once
# with its shape arguments shifted by that axis.


def _to_front(x, bdim):
    """``x`` with axis ``bdim`` moved to the front."""
    if bdim == 0:
        return x
    return _transpose(x, axes=(bdim,) + tuple(i for i in range(x.ndim) if i != bdim))


def _move_front_to(x, position):
    """``x`` with its first axis moved to ``position``."""
    if position == 0:
        return x
    axes = list(range(1, x.ndim))
    axes.insert(position, 0)
    return _transpose(x, axes=tuple(axes))


def _batch_size(args, bdims):
    return next(a.shape[d] for a, d in zip(args, bdims) if d is not None)


def _same_bdim(op):
    """Rule of an op that maps each element (or the whole array) without looking at
    axes: the batch axis stays where it is."""
    def rule(args, bdims, **kw):
        return op(args[0], **kw), bdims[0]
    return rule


def _reshape_batch(args, bdims, shape):
    x = _to_front(args[0], bdims[0])
    return _reshape(x, shape=x.shape[:1] + tuple(shape)), 0


def _transpose_batch(args, bdims, axes):
    return _transpose(_to_front(args[0], bdims[0]), axes=(0,) + tuple(a + 1 for a in axes)), 0


def _lead(x, ndim):
    """Batch-first ``x`` with size-1 axes after the batch one, up to ``ndim`` element dims."""
    pad = ndim - (x.ndim - 1)
    return _reshape(x, shape=x.shape[:1] + (1,) * pad + x.shape[1:]) if pad > 0 else x


def _broadcast_batch(args, bdims, shape):
    x = _lead(_to_front(args[0], bdims[0]), len(shape))
    return _broadcast(x, shape=x.shape[:1] + tuple(shape)), 0


def _is_array_index(item):
    """Integer/boolean arrays (and bool scalars, which numpy treats as 0-d masks)."""
    if isinstance(item, (bool, np.bool_)):
        return True
    return not (item is None or item is Ellipsis or isinstance(item, (int, np.integer, slice)))


def index_batch_axis(index):
    """Where the batch axis lands in ``x[(slice(None),) + index]`` for a batch-first ``x``:
    0, unless advanced indices (arrays, and ints among them) are separated by a slice,
    None or ..., when numpy puts their broadcast dimensions first.

    >>> index_batch_axis((1, slice(None))), index_batch_axis((np.array([0, 1]), slice(None), 0))
    (0, 1)
    """
    arrays = [i for i, item in enumerate(index) if _is_array_index(item)]
    if not arrays:
        return 0
    advanced = [i for i, item in enumerate(index)
                if _is_array_index(item) or isinstance(item, (int, np.integer))]
    if advanced[-1] - advanced[0] + 1 == len(advanced):
        return 0
    shapes = [(1,) if getattr(item, "dtype", np.dtype(int)).kind == "b" or
              isinstance(item, (bool, np.bool_)) else np.shape(item)
              for item in (index[i] for i in advanced)]
    return len(np.broadcast_shapes(*shapes))


def _getitem_batch(args, bdims, index):
    x = _to_front(args[0], bdims[0])
    return _getitem(x, (slice(None),) + index), index_batch_axis(index)


def _index_add_batch(args, bdims, shape, dtype, index):
    v = _move_front_to(_to_front(args[0], bdims[0]), index_batch_axis(index))
    n = args[0].shape[bdims[0]]
    return _index_add(v, shape=(n,) + tuple(shape), dtype=dtype, index=(slice(None),) + index), 0


def _batched_front(a, bdim, n):
    """``a`` batch-first: moved there when batched, else repeated ``n`` times."""
    if bdim is not None:
        return _to_front(a, bdim)
    return _broadcast(_reshape(a, shape=(1,) + a.shape), shape=(n,) + a.shape)


def _concat_batch(args, bdims, axis):
    n = _batch_size(args, bdims)
    return _concat(*(_batched_front(a, d, n) for a, d in zip(args, bdims)), axis=axis + 1), 0


def _normalize_shape(shape, size, name="shape"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    known = 1
    free = False
    for s in shape:                     # the common case, plain ints: no conversions
        if type(s) is not int:
            break
        if s == -1:
            if free:
                break
            free = True
        else:
            known *= s
    else:
        if min(shape, default=0) >= -1:
            if not free and known == size:
                return tuple(shape)
            if free and known > 0 and size % known == 0:
                return tuple(size // known if s == -1 else s for s in shape)
    try:
        shape = tuple(int(s) for s in shape)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a tuple of ints, got {shape!r}") from None
    if shape.count(-1) > 1:
        raise ValueError(f"{name} {shape} has more than one -1")
    known = math.prod(s for s in shape if s != -1)
    if -1 in shape:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape a tensor of {size} elements into {name} {shape}")
        shape = tuple(size // known if s == -1 else s for s in shape)
    elif known != size:
        raise ValueError(f"cannot reshape a tensor of {size} elements into {name} {shape}")
    return shape


def normalize_axis(axis, ndim, name="axis"):
    """Tuple of non-negative axes; ``None`` means all.

    >>> normalize_axis(-1, 3), normalize_axis(None, 2), normalize_axis((0, -2), 3)
    ((2,), (0, 1), (0, 1))
    """
    if type(axis) is int and -ndim <= axis < ndim:      # the common case
        return (axis % ndim,)
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    out = []
    for a in axes:
        a = int(a)
        if not -max(ndim, 1) <= a < max(ndim, 1):
            raise ValueError(f"{name}={axis} is out of range for a tensor with {ndim} dimensions")
        out.append(a % max(ndim, 1))
    if len(set(out)) != len(out):
        raise ValueError(f"{name}={axis} repeats an axis")
    return tuple(out)


# (``fast=``: the vjp rules' backend calls on bare arrays, for the engine's first-order
# backward; the Tensor rules run under create_graph)
_reshape = defop("reshape", lambda B, x, shape: B.reshape(x, shape),
                 vjp=lambda g, ans, x, shape: g.reshape(x.shape),
                 jvp=lambda t, ans, x, shape: t.reshape(shape), saves=(), view=True,
                 fast=(lambda B, g, ans, x, shape: B.reshape(g, x.shape),),
                 batch=_reshape_batch,
                 cases=[Case(U(2, 3), shape=(3, 2)), Case(U(), shape=(1, 1)),
                        Case(U(0, 3), shape=(3, 0))])


@export(methods=("reshape", "view"))
def reshape(x, *shape):
    """Same values, new shape (one entry may be -1).

    >>> reshape(eagerad.ones(6), (2, -1)).shape
    (2, 3)
    """
    x = as_tensor(x)
    shape = _normalize_shape(shape, x.size)
    if shape == x.shape:
        return x
    out = _reshape(x, shape=shape)
    d = x._data
    if type(d) is np.ndarray:
        copied = not d.flags.c_contiguous and not np.may_share_memory(out._data, d)
    else:       # a device array: a view starts where its input does, a copy elsewhere
        copied = not d.is_c_contiguous() and _address(out._data) != _address(d)
    if copied:
        out._version = [0]      # the backend had to copy (a strided input): not a view
        return out
    return track_view(out, x, _RESHAPE, shape=shape)


def _address(a):
    """Where a device array's element 0 lies (the simulator's arrays are numpy's)."""
    return (getattr(a, "__array_interface__", None) or a.__cuda_array_interface__)["data"][0]


_RESHAPE = ViewKind("reshape", lambda x, shape: _reshape(x, shape=shape),
                    lambda base, value, shape: _reshape(value, shape=base.shape))


def _inverse(axes):
    inverse = [0] * len(axes)
    for i, a in enumerate(axes):
        inverse[a] = i
    return tuple(inverse)


_transpose = defop("transpose", lambda B, x, axes: B.transpose(x, axes),
                   vjp=lambda g, ans, x, axes: g.transpose(_inverse(axes)),
                   jvp=lambda t, ans, x, axes: t.transpose(axes), saves=(), view=True,
                   fast=(lambda B, g, ans, x, axes: B.transpose(g, _inverse(axes)),),
                   batch=_transpose_batch,
                   cases=[Case(U(2, 3, 4), axes=(2, 0, 1)), Case(U(2, 3), axes=(1, 0)),
                          Case(U(0, 2), axes=(1, 0))])


@export(methods=("transpose",))
def transpose(x, *axes):
    """Permute dimensions: ``transpose(x, (1, 0, 2))`` (MindSpore/numpy); two ints swap
    two axes (PyTorch's ``transpose(0, 1)``); no axes reverses them (``x.T``).

    >>> transpose(eagerad.ones(2, 3)).shape
    (3, 2)
    """
    x = as_tensor(x)
    if len(axes) == 2 and all(isinstance(a, (int, np.integer)) for a in axes):
        return swapaxes(x, *axes)
    if len(axes) == 1 and isinstance(axes[0], (tuple, list)):
        axes = tuple(axes[0])
    if not axes:
        axes = tuple(reversed(range(x.ndim)))
    axes = normalize_axis(axes, x.ndim, "axes")
    if len(axes) != x.ndim:
        raise ValueError(f"transpose: axes {axes} do not match a tensor with {x.ndim} dims")
    if axes == tuple(range(x.ndim)):
        return x
    return track_view(_transpose(x, axes=axes), x, _TRANSPOSE, axes=axes)


_TRANSPOSE = ViewKind("transpose", lambda x, axes: _transpose(x, axes=axes),
                      lambda base, value, axes: _transpose(value, axes=_inverse(axes)))


@export(methods=("t",))
def t(x):
    """Transpose a matrix (PyTorch's ``t()``); 0-d and 1-d tensors come back as they are.

    >>> t(eagerad.ones(2, 3)).shape, t(eagerad.ones(3)).shape
    ((3, 2), (3,))
    """
    x = as_tensor(x)
    if x.ndim > 2:
        raise ValueError(f"t() expects a tensor with at most 2 dimensions, got shape {x.shape}; "
                         "use transpose(dim0, dim1) or mT")
    return transpose(x) if x.ndim == 2 else x


@export(methods=("contiguous",))
def contiguous(x):
    """``x`` itself when its elements are in row-major order, else a row-major copy
    (still in the graph), as PyTorch's ``contiguous()``.

    >>> y = eagerad.ones(2, 3).T; contiguous(y).is_contiguous(), y.is_contiguous()
    (True, False)
    """
    if x.is_contiguous():
        return x
    c = clone(x)                   # compact, but numpy keeps a transposed layout
    if not c.is_contiguous():      # flattening a permuted compact array copies in row order
        c = reshape(reshape(c, c.size), x.shape)
    return c


@export(methods=("swapaxes",))
def swapaxes(x, axis0, axis1):
    """Exchange two axes (PyTorch's ``transpose(dim0, dim1)``).

    >>> swapaxes(eagerad.zeros(2, 3, 4), 0, 2).shape
    (4, 3, 2)
    """
    x = as_tensor(x)
    a, = normalize_axis(axis0, x.ndim, "axis0")
    b, = normalize_axis(axis1, x.ndim, "axis1")
    if a == b:
        return x
    perm = list(range(x.ndim))
    perm[a], perm[b] = perm[b], perm[a]
    perm = tuple(perm)
    return track_view(_transpose(x, axes=perm), x, _TRANSPOSE, axes=perm)


_broadcast = defop("broadcast_to", lambda B, x, shape: B.broadcast_to(x, shape),
                   vjp=lambda g, ans, x, shape: sum_to(g, x.shape),
                   jvp=lambda t, ans, x, shape: t.broadcast_to(shape), saves=(), view=True,
                   batch=_broadcast_batch,
                   cases=[Case(U(3), shape=(2, 3)), Case(U(), shape=(2, 2)),
                          Case(U(2, 1), shape=(2, 4)), Case(U(1), shape=(0,))])


@export(methods=("broadcast_to",))
def broadcast_to(x, shape):
    """Repeat ``x`` along size-1 / new leading dimensions to ``shape``.

    >>> broadcast_to(eagerad.Tensor([1, 2]), (2, 2)).tolist()
    [[1, 2], [1, 2]]
    """
    x = as_tensor(x)
    shape = tuple(int(s) for s in shape)
    try:
        target = np.broadcast_shapes(x.shape, shape)
    except ValueError:
        target = None
    if target != shape:
        raise ValueError(f"broadcast_to: cannot broadcast shape {x.shape} to {shape}")
    return x if shape == x.shape else track_view(_broadcast(x, shape=shape), x, _BROADCAST,
                                                 shape=shape)


_BROADCAST = ViewKind("broadcast_to", lambda x, shape: _broadcast(x, shape=shape), _read_only)


@export(methods=("squeeze",))
def squeeze(x, axis=None):
    """Drop size-1 dimensions (all, or those in ``axis``).

    >>> squeeze(eagerad.zeros(1, 2, 1)).shape, squeeze(eagerad.zeros(1, 2, 1), axis=0).shape
    ((2,), (2, 1))
    """
    axes = normalize_axis(axis, x.ndim) if axis is not None else \
        tuple(i for i, s in enumerate(x.shape) if s == 1)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"squeeze: axis {a} has size {x.shape[a]}, not 1 (shape {x.shape})")
    return reshape(x, tuple(s for i, s in enumerate(x.shape) if i not in axes))


@export(methods=("expand_dims", "unsqueeze"), aliases=("unsqueeze",))
def expand_dims(x, axis):
    """Insert a size-1 dimension at ``axis``.

    >>> expand_dims(eagerad.zeros(2, 3), -1).shape
    (2, 3, 1)
    """
    x = as_tensor(x)
    axis = normalize_axis(axis, x.ndim + 1)[0]
    shape = list(x.shape)
    shape.insert(axis, 1)
    return reshape(x, tuple(shape))


unsqueeze = expand_dims


@export(name="flatten")
def flatten_function(x, start_dim=None, end_dim=-1):
    """``ops.flatten``: ``start_dim`` must be given, since PyTorch's ``torch.flatten`` starts
    at 0 and MindSpore's ``ops.flatten`` at 1 (the faces' own take theirs; the method
    ``x.flatten()`` starts at 0 in both).

    >>> flatten_function(eagerad.zeros(2, 3, 4), 1).shape
    (2, 12)
    """
    if start_dim is None:
        raise ambiguous("ops.flatten(x) without start_dim", "start_dim=0", "start_dim=1",
                        "pass start_dim=")
    return flatten(x, start_dim, end_dim)


def flatten(x, start_dim=0, end_dim=-1):
    """Merge dimensions ``start_dim..end_dim`` into one (``x.flatten()``: all of them).

    >>> flatten(eagerad.zeros(2, 3, 4)).shape, flatten(eagerad.zeros(2, 3, 4), 1).shape
    ((24,), (2, 12))
    >>> flatten(eagerad.zeros(2, 3), 1).shape      # start_dim == end_dim: nothing to merge
    (2, 3)
    """
    if x.ndim == 0:
        return reshape(x, (1,))
    (s,), (e,) = normalize_axis(start_dim, x.ndim, "start_dim"), normalize_axis(end_dim, x.ndim,
                                                                                "end_dim")
    if s > e:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} "
                         f"for a tensor of {x.ndim} axes")
    return reshape(x, x.shape[:s] + (-1,) + x.shape[e + 1:])


METHODS["flatten"] = flatten      # the method: both frameworks start at 0


def _narrow_index(axis, start, length):
    return (slice(None),) * axis + (slice(start, start + length),)


_narrow = defop("narrow", lambda B, x, axis, start, length: B.getitem(
                    x, _narrow_index(axis, start, length)),
                vjp=lambda g, ans, x, axis, start, length: index_add(
                    x.shape, x.dtype, _narrow_index(axis, start, length), g),
                jvp=lambda t, ans, x, axis, start, length: _narrow(
                    t, axis=axis, start=start, length=length), saves=(), view=True,
                batch=lambda args, bdims, axis, start, length: (_narrow(
                    _to_front(args[0], bdims[0]), axis=axis + 1, start=start, length=length), 0),
                cases=[Case(U(3, 4), axis=1, start=1, length=2),
                       Case(U(5), axis=0, start=2, length=0),
                       Case(U(2, 5, 3), axis=1, start=3, length=2)])


@export(methods=("narrow",))
def narrow(x, axis, start, length):
    """The ``length`` elements of ``x`` from ``start`` along ``axis`` (a negative ``start``
    counts from the end): a view, as PyTorch's ``narrow``.

    >>> narrow(eagerad.Tensor([[1, 2, 3], [4, 5, 6]]), 1, -2, 2).tolist()
    [[2, 3], [5, 6]]
    """
    x = as_tensor(x)
    axis, = normalize_axis(axis, x.ndim)
    size = x.shape[axis]
    start, length = operator.index(start), operator.index(length)
    first = start + size if start < 0 else start
    if not 0 <= first <= size or length < 0 or first + length > size:
        raise ValueError(f"narrow: start {start} and length {length} do not fit in axis {axis} "
                         f"of size {size} (shape {x.shape})")
    return track_view(_narrow(x, axis=axis, start=first, length=length), x, _NARROW,
                      axis=axis, start=first, length=length)


_NARROW = ViewKind("narrow", lambda x, **kw: _narrow(x, **kw),
                   lambda base, value, axis, start, length: OPS["setitem"](
                       base, value, index=_narrow_index(axis, start, length)))


# ----------------------------------------------------------------- indexing

def _index_arrays(index, device):
    """Turn a user index into one the backend understands (tensors -> arrays)."""
    from .. import backend
    B = backend.get(device.type)
    items = index if isinstance(index, tuple) else (index,)
    out = []
    for item in items:
        if isinstance(item, Tensor):
            if item.dtype.kind not in "iub":
                raise IndexError(f"tensors used as indices must be integer or bool, got {item.dtype}")
            if item.ndim == 0 and item.dtype.kind in "iu":
                out.append(int(item.item()))    # x[t] with a 0-d integer tensor selects, as x[0]
                continue
            item = item._data if item.device == device else B.from_numpy(item.numpy())
        elif isinstance(item, (list, range)):          # x[range(n), labels], as numpy
            item = B.from_numpy(np.asarray(item, dtype=np.int64 if isinstance(item, range) else None))
        elif isinstance(item, np.ndarray):
            if item.dtype.kind not in "iub":
                raise IndexError(f"arrays used as indices must be integer or bool, got {item.dtype}")
            item = B.from_numpy(item)
        elif not (item is None or item is Ellipsis or isinstance(item, (int, np.integer, slice))):
            raise IndexError(f"unsupported index {item!r}: use ints, slices, None, ..., lists, "
                             "integer or boolean tensors")
        out.append(item)
    return tuple(out)


def _getitem_fwd(B, x, index):
    try:
        return B.getitem(x, index)
    except IndexError as err:
        raise IndexError(f"index out of range for a tensor of shape {x.shape}: {err}") from None


def _is_basic(index):
    """Whether ``index`` (a tuple from ``_index_arrays``) selects a view: ints, slices,
    None and ... only (integer or boolean arrays make numpy copy)."""
    return all(i is None or i is Ellipsis or isinstance(i, (int, np.integer, slice)) and
               not isinstance(i, (bool, np.bool_)) for i in index)


def _getitem_vjp(g, ans, x, index):
    return index_add(x.shape, x.dtype, index, g)


_select = defop("getitem", _getitem_fwd, vjp=_getitem_vjp,
                jvp=lambda t, ans, x, index: _getitem(t, index), saves=(), view=True,
                batch=_getitem_batch,
                cases=[Case(U(3, 4), index=(slice(0, 2), 1)), Case(U(4), index=(2, Ellipsis)),
                       Case(U(5), index=(np.array([0, 2, 2, 4]),)),
                       Case(U(2, 3), index=(np.array([[True, False, True], [False, False, True]]),)),
                       Case(U(3, 4), index=(slice(None), np.array([3, 0]))),
                       Case(U(), index=(None,)), Case(U(3), index=(slice(1, 1),))])


def _getitem(x, index):
    """``x[index]`` for an index tuple already in backend form.  Basic indexing gives a
    view (sharing ``x``'s version counter, as the op declares); advanced indexing
    copies, so its result gets a counter of its own: later changes to ``x`` must not
    invalidate a graph that saved the copy."""
    out = _select(x, index=index)
    if not _is_basic(index):
        out._version = [0]
    return out


_index_add = defop("index_add", lambda B, v, shape, dtype, index: B.index_add(shape, dtype, index, v),
                   vjp=lambda g, ans, v, shape, dtype, index: _getitem(g, index),
                   jvp=lambda t, ans, v, shape, dtype, index: _index_add(t, shape=shape, dtype=dtype,
                                                                         index=index), saves=(),
                   batch=_index_add_batch,
                   cases=[Case(U(4), shape=(5,), dtype=np.dtype(np.float64),
                               index=(np.array([0, 2, 2, 4]),)),
                          Case(U(), shape=(2, 3), dtype=np.dtype(np.float64), index=(1, 2))])


def index_add(shape, dtype, index, values):
    """Zeros of ``shape`` plus ``values`` scattered at ``index`` (repeats accumulate).

    >>> v = eagerad.Tensor([1.0, 2.0, 5.0])
    >>> index_add((3,), eagerad.float32, (np.array([0, 0, 2]),), v).tolist()
    [3.0, 0.0, 5.0]
    """
    return _index_add(values, shape=tuple(shape), dtype=dtype, index=index)


@export
def getitem(x, index):
    """``x[index]`` with basic (ints, slices, None, ...) and advanced (int/bool arrays) indexing.

    Basic indexing returns a view, as in numpy and PyTorch: ``x[0] += 1`` changes
    ``x``.  Advanced indexing returns a copy with its own version counter.

    >>> x = eagerad.Tensor([[1, 2, 3], [4, 5, 6]])
    >>> getitem(x, (slice(None), 1)).tolist(), getitem(x, eagerad.Tensor([1, 0])).shape
    ([2, 5], (2, 3))
    >>> v = x[0, 1]; v += 10; x.tolist()
    [[1, 12, 3], [4, 5, 6]]
    """
    index = _index_arrays(index, x.device)
    if not _is_basic(index):
        return _getitem(x, index)
    if Ellipsis not in index and x.device.type == "cpu":
        index = index + (Ellipsis,)     # numpy: a[0, ...] is a 0-d view where a[0] is a copy
    return track_view(_select(x, index=index), x, _GETITEM, index=index)


_GETITEM = ViewKind("getitem", lambda x, index: _select(x, index=index),
                    lambda base, value, index: OPS["setitem"](base, value, index=index))


# ---------------------------------------------------------------- joining

def _concat_rule(i, g, ans, *xs, axis):
    start = sum(x.shape[axis] for x in xs[:i])
    index = (slice(None),) * axis + (slice(start, start + xs[i].shape[axis]),)
    return _getitem(g, index)


_concat = defop("concat", lambda B, *xs, axis: B.concat(xs, axis),
                vjp=PerArg(_concat_rule),
                jvp=PerArg(lambda i, t, ans, *xs, axis: _pad_into(i, t, xs, axis)), saves=(),
                batch=_concat_batch,
                cases=[Case(U(2, 3), U(1, 3), axis=0), Case(U(2, 1), U(2, 2), U(2, 0), axis=1)])


def _pad_into(i, t, xs, axis):
    """Tangent of input ``i`` placed in its slot of the concatenated output, zeros elsewhere."""
    shape = list(t.shape)
    shape[axis] = sum(x.shape[axis] for x in xs)
    start = sum(x.shape[axis] for x in xs[:i])
    index = (slice(None),) * axis + (slice(start, start + t.shape[axis]),)
    return index_add(tuple(shape), t.dtype, index, t)


@export(aliases=("cat",))
def concat(tensors, axis=0):
    """Join tensors along an existing axis.

    >>> concat([eagerad.ones(2), eagerad.zeros(3)]).shape
    (5,)
    """
    tensors = _joinable("concat", tensors)
    ref = tensors[0]
    if ref.ndim == 0:
        raise ValueError("concat: zero-dimensional tensors cannot be concatenated; use stack")
    axis = normalize_axis(axis, ref.ndim)[0]
    for i, t in enumerate(tensors):
        if t.ndim != ref.ndim or t.shape[:axis] + t.shape[axis + 1:] != ref.shape[:axis] + ref.shape[axis + 1:]:
            raise ValueError(f"concat: tensor {i} has shape {t.shape}, incompatible with tensor 0 "
                             f"of shape {ref.shape} along axis {axis}")
    return tensors[0] if len(tensors) == 1 else _concat(*tensors, axis=axis)


cat = concat


def _joinable(name, tensors):
    if isinstance(tensors, Tensor) or not tensors:
        raise TypeError(f"{name} takes a non-empty list or tuple of tensors")
    tensors = [as_tensor(t) for t in tensors]
    target = tensors[0].dtype
    for t in tensors[1:]:
        target = dt.promote(target, t.dtype)
    return [t if t.dtype == target else t.astype(target) for t in tensors]


@export
def stack(tensors, axis=0):
    """Join tensors along a new axis.

    >>> stack([eagerad.ones(2), eagerad.zeros(2)], axis=1).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    tensors = _joinable("stack", tensors)
    for i, t in enumerate(tensors):
        if t.shape != tensors[0].shape:
            raise ValueError(f"stack: tensor {i} has shape {t.shape}, tensor 0 has {tensors[0].shape}")
    axis = normalize_axis(axis, tensors[0].ndim + 1)[0]
    return concat([expand_dims(t, axis) for t in tensors], axis)


# --------------------------------------------------------------- identity/casts

_IDENTITY_CASES = [Case(U(2, 3)), Case(U()), Case(U(0, 2))]
_alias = defop("alias", lambda B, x: x, vjp=lambda g, ans, x: g, jvp=lambda t, ans, x: t,
               saves=(), view=True, cases=_IDENTITY_CASES, batch=_same_bdim(lambda x: _alias(x)))


@export
def alias(x):
    """The same values behind a new graph node, so each use is its own variable.

    >>> x = eagerad.tensor([1.0], requires_grad=True); a = alias(x)
    >>> a is x, a.grad_fn.name
    (False, 'AliasBackward')
    """
    return track_view(_alias(x), x, _ALIAS)


_ALIAS = ViewKind("alias", lambda x: _alias(x), lambda base, value: value)

_clone = defop("clone", lambda B, x: B.copy(x), vjp=lambda g, ans, x: g, jvp=lambda t, ans, x: t,
               saves=(), cases=_IDENTITY_CASES, batch=_same_bdim(lambda x: _clone(x)))


@export(methods=("clone",))
def clone(x):
    """A copy with its own buffer, still connected to the graph.

    >>> x = eagerad.Tensor([1.0]); c = clone(x); c[0] = 5.0
    >>> x.item(), c.item()
    (1.0, 5.0)
    """
    return _clone(x)


_astype = defop("astype", lambda B, x, dtype: B.astype(x, dtype),
                vjp=lambda g, ans, x, dtype: g.astype(x.dtype),
                jvp=lambda t, ans, x, dtype: t.astype(dtype), saves=(),
                batch=_same_bdim(lambda x, dtype: _astype(x, dtype=dtype)),
                cases=[Case(U(2, 3), dtype=dt.float64), Case(U(), dtype=dt.float64)])


@export(methods=("astype", "type"))
def astype(x, dtype):
    """Cast to ``dtype``; the gradient is cast back to the input's dtype.

    >>> x = eagerad.tensor([1.5], requires_grad=True); astype(x, 'float64').sum().backward()
    >>> x.grad.dtype
    dtype('float32')
    """
    dtype = dt.as_dtype(dtype)
    return x if x.dtype == dtype else _astype(x, dtype=dtype)


def _move(B, x, device):
    from .. import backend
    return backend.get(device.type).from_numpy(B.to_numpy(x))


_to = defop("to", _move, vjp=lambda g, ans, x, device: g.to(x.device),
            jvp=lambda t, ans, x, device: t.to(device), saves=(), moves_device=True,
            batch=_same_bdim(lambda x, device: _to(x, device=device)),
            cases=[Case(U(2, 3), device=as_device("cpu")), Case(U(), device=as_device("cpu"))])


@export(methods=("to",))
def to(x, device=None, dtype=None):
    """Copy to ``device`` and/or cast to ``dtype``; differentiable across devices.

    >>> to(eagerad.Tensor([1.5]), 'cpu', eagerad.float64)
    tensor([1.5000], dtype=eagerad.float64)
    """
    if isinstance(device, (np.dtype, type)) and dtype is None:
        device, dtype = None, device
    if device is not None:
        device = as_device(device)
        if device.type == "cuda":
            from .. import context
            context.require_cuda()
        if device != x.device:
            x = _to(x, device=device)
    return astype(x, dtype) if dtype is not None else x
