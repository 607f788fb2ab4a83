"""``mindspore.ops`` functions whose MindSpore meaning differs from the core's (PyTorch's).

MindSpore 2.x (as recorded under MindSpore 2.10 on CPU) differs in return structures,
index dtypes, default axes and the gradient at kinks and ties:

=================================  =============================================================
name                               MindSpore (this face)
=================================  =============================================================
``sort(x, axis=-1)``               ``(values, int32 indices)``
``median(x, axis=-1)``             ``(values, int64 indices)``, the lower median
``max(x, axis)``, ``min``          ``(values, indices)``; at a tie the gradient goes to the index
``argmin``, ``argsort``, ``topk``  int32 indices; ``count_nonzero`` int32
``cross(a, b)``                    ``dim=None``: the first axis of size 3
``mean`` of an integer tensor      the integer dtype (the mean truncated)
``full((2, 3), 1.2)``              int64 when ``dtype`` is None (MindSpore 2.10's inference)
``clip_by_value``/``clamp``        at a tie the gradient is split: half to ``x``, half to the bound
``hardtanh``                       likewise 1/2 at ``min_val`` and ``max_val``
``relu6``                          gradient 1 on ``(0, 6]``
``xlogy(0, 0)``                    nan (``0 * log 0``), with gradient 0 for ``x`` there
``kl_div``                          no gradient to the labels; BCE none to the weight
=================================  =============================================================

>>> import eagerad.mindspore as ms
>>> v, i = sort(ms.Tensor([3.0, 1.0, 2.0])); v.numpy().tolist(), i.dtype
([1.0, 2.0, 3.0], dtype('int32'))
"""
import numpy as np

from ... import linalg as _linalg
from ... import ops as _core
from ...ops.nn_ops import reduce_loss as _reduce_loss
from .._face import Tensor as _Tensor

_INT32 = np.int32


def _np(t):
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


def _pick(input, axis, index, keepdims):
    """``input``'s elements at ``index`` (int, keepdims form) along ``axis``: the gradient
    flows to those elements only."""
    out = _core.gather_elements(input, axis, _Tensor(index.astype(np.int64)))
    return out if keepdims else _core.squeeze(out, axis)


def _indices(index, keepdims, axis, dtype):
    return _Tensor((index if keepdims else np.squeeze(index, axis)).astype(dtype))


def _extremum(arg, name):
    def fn(input, axis=None, keepdims=False, *, initial=None, where=None):
        if axis is None:
            flat = input.reshape(-1)
            idx = np.asarray(arg(_np(flat))).reshape(1)
            value, index = _pick(flat, 0, idx, False), _Tensor(np.int64(idx[0]))
            if keepdims:
                shape = (1,) * input.ndim
                return value.reshape(shape), index.reshape(shape)
            return value, index
        idx = np.expand_dims(arg(_np(input), axis=axis), axis)
        return _pick(input, axis, idx, keepdims), _indices(idx, keepdims, axis, np.int64)
    fn.__name__ = name
    fn.__doc__ = (f"MindSpore's ``ops.{name}``: ``(values, indices)`` along ``axis`` (all axes "
                  "when None); at a tie the gradient goes to the returned index.\n\n"
                  "    >>> import eagerad.mindspore as ms\n"
                  f"    >>> [t.numpy().tolist() for t in {name}(ms.Tensor([[1.0, 3.0]]), 1)]\n"
                  f"    [[{'3.0' if name == 'max' else '1.0'}], [{1 if name == 'max' else 0}]]\n")
    return fn


max = _extremum(np.argmax, "max")
min = _extremum(np.argmin, "min")


def sort(input_x, axis=-1, descending=False):
    """``(values, indices)`` sorted along ``axis`` (indices int32; stable).

    >>> import eagerad.mindspore as ms
    >>> [t.numpy().tolist() for t in sort(ms.Tensor([2.0, 1.0]), descending=True)]
    [[2.0, 1.0], [0, 1]]
    """
    a = _np(input_x)
    idx = np.argsort(-a if descending else a, axis=axis, kind="stable")
    return _pick(input_x, axis, idx, True), _Tensor(idx.astype(_INT32))


def argsort(input, axis=-1, descending=False):
    """The int32 indices that sort ``input`` along ``axis`` (stable).

    >>> import eagerad.mindspore as ms
    >>> argsort(ms.Tensor([2.0, 1.0])).numpy().tolist()
    [1, 0]
    """
    return sort(input, axis, descending)[1]


def median(input, axis=-1, keepdims=False):
    """``(values, int64 indices)`` of the lower median along ``axis`` (element
    ``(n - 1) // 2`` of the sorted values; the gradient goes to that element).

    >>> import eagerad.mindspore as ms
    >>> [t.numpy().tolist() for t in median(ms.Tensor([4.0, 1.0, 3.0, 2.0]))]
    [2.0, 3]
    """
    if axis is None:
        return median(input.reshape(-1), 0, keepdims)
    a = _np(input)
    order = np.argsort(a, axis=axis, kind="stable")
    k = (a.shape[axis] - 1) // 2
    idx = np.take(order, [k], axis=axis)
    return _pick(input, axis, idx, keepdims), _indices(idx, keepdims, axis, np.int64)


def argmin(input, axis=None, keepdims=False):
    """The int32 index of the smallest element (of the flattened tensor when ``axis`` is None).

    >>> import eagerad.mindspore as ms
    >>> argmin(ms.Tensor([[3.0, 1.0], [0.5, 2.0]]))
    Tensor(shape=[], dtype=Int32, value= 2)
    """
    return _core.argmin(input, axis, keepdims).astype(_INT32)


def topk(input, k, dim=None, largest=True, sorted=True):
    """``(values, int32 indices)`` of the ``k`` largest (smallest) along ``dim`` (last).

    >>> import eagerad.mindspore as ms
    >>> [t.numpy().tolist() for t in topk(ms.Tensor([1.0, 3.0, 2.0]), 2)]
    [[3.0, 2.0], [1, 2]]
    """
    values, indices = _core.topk(input, k, -1 if dim is None else dim, largest, sorted)
    return values, indices.astype(_INT32)


def count_nonzero(x, axis=(), keep_dims=False, dtype=_INT32):
    """The number of nonzero elements along ``axis`` (all when ``()``), as ``dtype`` (int32).

    >>> import eagerad.mindspore as ms
    >>> count_nonzero(ms.Tensor([0.0, 2.0, 3.0]))
    Tensor(shape=[], dtype=Int32, value= 2)
    """
    axis = None if axis == () else axis
    return _core.count_nonzero(x, axis, keep_dims).astype(dtype)


def cross(input, other, dim=None):
    """The cross product along ``dim``; ``None`` means the first axis of size 3.

    >>> import eagerad.mindspore as ms
    >>> cross(ms.Tensor([[1.0], [0.0], [0.0]]), ms.Tensor([[0.0], [1.0], [0.0]])).numpy().ravel().tolist()
    [0.0, 0.0, 1.0]
    """
    if dim is None:
        shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        sizes = [i for i, s in enumerate(shape) if s == 3]
        if not sizes:
            raise ValueError(f"cross: no axis of size 3 in the shapes {tuple(input.shape)} and "
                             f"{tuple(other.shape)}; pass dim")
        dim = sizes[0]
    return _core.cross(input, other, dim)


def mean(x, axis=None, keep_dims=False):
    """The mean over ``axis`` (all); an integer tensor's mean keeps its dtype (truncated).

    >>> import eagerad.mindspore as ms
    >>> mean(ms.Tensor(np.array([1, 2, 4], np.int32)))
    Tensor(shape=[], dtype=Int32, value= 2)
    >>> mean(ms.Tensor(np.array([True, False, False, False])))
    Tensor(shape=[], dtype=Float32, value= 0.25)
    """
    axis = tuple(axis) if isinstance(axis, list) else axis
    if x.dtype.kind not in "iu":                  # floats; bools average as the core does
        return _core.mean(x, axis, keep_dims)
    return _core.mean(x.astype(np.float64), axis, keep_dims).astype(x.dtype)


def prod(input, axis=None, keep_dims=False, dtype=None):
    """The product over ``axis`` (all).

    >>> import eagerad.mindspore as ms
    >>> prod(ms.Tensor([2.0, 3.0])).numpy().tolist()
    6.0
    """
    axis = tuple(axis) if isinstance(axis, list) else axis
    return _core.prod(input, axis, keep_dims, dtype)


def full(size, fill_value, *, dtype=None):
    """A tensor of ``size`` filled with ``fill_value``; with ``dtype`` None a Python number
    gives int64 (MindSpore 2.10 answers ``full((2, 3), 1.2)`` with int64 ones).

    >>> full((2,), 7).dtype, full((2,), 1.5, dtype=np.float32).numpy().tolist()
    (dtype('int64'), [1.5, 1.5])
    """
    if dtype is None:
        dtype = fill_value.dtype if hasattr(fill_value, "dtype") else np.int64
    return _Tensor(np.full(tuple(np.atleast_1d(size)) if not isinstance(size, int) else (size,),
                           _np(fill_value), dtype=np.dtype(dtype)))


def _bounded(x, lo, hi, halve_ties=True):
    """``x`` limited to ``[lo, hi]``: gradient 1 to ``x`` inside, and at a tie (x equal to a
    bound) half to ``x`` and half to a tensor bound, as MindSpore's maximum/minimum split it."""
    out = x
    if lo is not None:
        out = _core.where(x < lo, lo, out) if halve_ties else _core.where(x <= lo, lo, out)
    if hi is not None:
        out = _core.where(x > hi, hi, out)
    if halve_ties:
        for bound in (lo, hi):
            if bound is None:
                continue
            share = (bound - bound.detach()) if hasattr(bound, "detach") else 0.0
            out = out + _core.where(x == bound, 0.5 * (share - (x - x.detach())), 0.0)
    return out


def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``x`` clipped to ``[clip_value_min, clip_value_max]``; the gradient is 1 inside, and
    at a tie it is split half to ``x``, half to a tensor bound.

    >>> import eagerad.mindspore as ms
    >>> ms.grad(lambda t: clip_by_value(t, 0.0, 1.0).sum())(ms.Tensor([0.5, 1.0, 2.0])).numpy().tolist()
    [1.0, 0.5, 0.0]
    """
    return _bounded(x, clip_value_min, clip_value_max)


def clamp(input, min=None, max=None):
    """``clip_by_value`` with PyTorch-style argument names.

    >>> import eagerad.mindspore as ms
    >>> clamp(ms.Tensor([-1.0, 3.0]), min=0.0).numpy().tolist()
    [0.0, 3.0]
    """
    return _bounded(input, min, max)


clip = clamp


def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``input`` clipped to ``[min_val, max_val]``; gradient 1 inside, 1/2 at the ends.

    >>> import eagerad.mindspore as ms
    >>> ms.grad(lambda t: hardtanh(t).sum())(ms.Tensor([-1.0, 0.0, 2.0])).numpy().tolist()
    [0.5, 1.0, 0.0]
    """
    return _bounded(input, min_val, max_val)


def relu6(x):
    """``min(max(x, 0), 6)`` with gradient 1 on ``(0, 6]``.

    >>> import eagerad.mindspore as ms
    >>> ms.grad(lambda t: relu6(t).sum())(ms.Tensor([0.0, 6.0])).numpy().tolist()
    [0.0, 1.0]
    """
    return _bounded(x, 0.0, 6.0, halve_ties=False)


def xlogy(input, other):
    """``input * log(other)``; nan at (0, 0), where the gradient for ``input`` is 0.

    >>> import eagerad.mindspore as ms
    >>> xlogy(ms.Tensor([0.0, 1.0]), ms.Tensor([0.0, 1.0])).numpy().tolist()
    [nan, 0.0]
    """
    log = _core.log(other)
    safe = _core.where(other == 0, 0.0, log).detach()
    return input.detach() * log + (input - input.detach()) * safe


def div(input, other, *, rounding_mode=None):
    """``input / other``, rounded by ``rounding_mode`` (``'floor'``, ``'trunc'``) if given.

    >>> import eagerad.mindspore as ms
    >>> div(ms.Tensor([-4.0]), ms.Tensor([3.0]), rounding_mode='trunc').numpy().tolist()
    [-1.0]
    """
    q = _core.div(input, other)
    if rounding_mode is None:
        return q
    if rounding_mode == "floor":
        return _core.floor(q)
    if rounding_mode == "trunc":
        return _core.where(q >= 0, _core.floor(q), _core.ceil(q))
    raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")


def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """One-hot rows of ``depth`` along ``axis`` with ``on_value``/``off_value``.

    >>> import eagerad.mindspore as ms
    >>> one_hot(ms.Tensor(np.array([1])), 3, ms.Tensor(5.0), ms.Tensor(0.0)).numpy().tolist()
    [[0.0, 5.0, 0.0]]
    """
    on, off = _np(on_value), _np(off_value)
    dtype = on.dtype if on.dtype.kind == "f" else np.float32
    hot = np.arange(depth) == _np(indices)[..., None]
    out = np.where(hot, on, off).astype(dtype)
    return _Tensor(np.moveaxis(out, -1, axis) if axis != -1 else out)


def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """Vector or matrix norm as ``mindspore.ops.norm`` (``torch.linalg.norm``'s rules).

    >>> import eagerad.mindspore as ms
    >>> float(norm(ms.Tensor([[1.0, -2.0], [3.0, 4.0]]), 1).numpy())
    6.0
    """
    out = _linalg.norm(A, ord, dim, keepdim)
    return out.astype(dtype) if dtype is not None else out


def broadcast_to(input, shape):
    """``input`` broadcast to ``shape``; -1 keeps the input's size there.

    >>> import eagerad.mindspore as ms
    >>> broadcast_to(ms.ops.ones((2, 1)), (-1, 3)).shape
    (2, 3)
    """
    lead = len(shape) - input.ndim
    full_shape = tuple(input.shape[i - lead] if s == -1 else s for i, s in enumerate(shape))
    return _core.broadcast_to(input, full_shape)


def _frozen(t):
    return t.detach() if hasattr(t, "detach") else t


def kl_div(logits, labels, reduction="mean", log_target=False):
    """KL divergence (``logits`` are log-probabilities); no gradient to ``labels``.

    >>> import eagerad.mindspore as ms
    >>> float(kl_div(ms.Tensor([0.0]), ms.Tensor([1.0]), 'sum').numpy())
    0.0
    """
    return _core.kl_div(logits, _frozen(labels), reduction, log_target)


def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities; no gradient to ``weight``.

    >>> import eagerad.mindspore as ms
    >>> round(float(binary_cross_entropy(ms.Tensor([0.5]), ms.Tensor([1.0])).numpy()), 4)
    0.6931
    """
    return _core.binary_cross_entropy(logits, labels, _frozen(weight), reduction)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """Binary cross-entropy of logits; no gradient to ``weight`` or ``pos_weight``.

    >>> import eagerad.mindspore as ms
    >>> round(float(binary_cross_entropy_with_logits(ms.Tensor([0.0]), ms.Tensor([1.0])).numpy()), 4)
    0.6931
    """
    return _core.binary_cross_entropy_with_logits(input, target, _frozen(weight),
                                                  _frozen(pos_weight), reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Softmax cross-entropy over axis 1 with class-index or probability targets, class
    ``weight``, ``ignore_index`` and ``label_smoothing``; a weighted mean divides by the
    targets' total weight.

    >>> import eagerad.mindspore as ms
    >>> round(float(cross_entropy(ms.Tensor([[0.0, 0.0]]), ms.Tensor(np.array([1]))).numpy()), 4)
    0.6931
    """
    logp = _core.log_softmax(input, 1)
    c = input.shape[1]
    shape = (1, c) + (1,) * (input.ndim - 2)
    w = _Tensor(np.ones(c, dtype=_np(input).dtype)) if weight is None else weight
    wb = w.reshape(shape)
    t = _np(target)
    if t.dtype.kind == "f":
        prob = target * (1 - label_smoothing) + label_smoothing / c
        loss = -(prob * logp * wb).sum(1)
        return _reduce_loss(loss, reduction, "cross_entropy")
    labels = t.astype(np.int64)
    keep = labels != ignore_index
    safe = np.where(keep, labels, 0)
    onehot = (np.arange(c).reshape(shape) == np.expand_dims(safe, 1)).astype(_np(input).dtype)
    onehot = onehot * np.expand_dims(keep, 1)
    hot = _Tensor(onehot)
    nll = -(hot * logp * wb).sum(1)
    total = (hot * wb).sum()
    if label_smoothing:
        smooth = -(logp * wb).sum(1) * _Tensor(keep.astype(onehot.dtype)) / c
        nll = nll * (1 - label_smoothing) + smooth * label_smoothing
    if reduction == "mean":
        return nll.sum() / total
    return nll.sum() if reduction == "sum" else nll

