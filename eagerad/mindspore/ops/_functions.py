"""``mindspore.ops`` functions that the core has under another name or builds from its ops.

Every function here is a composition of differentiable core ops, so its gradient is the
engine's (no new derivative rules).  Names and argument spellings are MindSpore 2.x's.

>>> import eagerad.mindspore as ms
>>> lerp(ms.Tensor([0.0, 2.0]), ms.Tensor([4.0, 4.0]), 0.5)
Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  3.00000000e+00])
"""
import builtins as _builtins
import math as _math

import numpy as np

from ... import ops as _core
from ...ops.grid_sample import affine_grid as _affine_grid, grid_sample as _grid_sample
from ...ops.nn_ops import reduce_loss as _reduce_loss
from .._face import Tensor as _Tensor


def _np(t):
    return t.numpy() if hasattr(t, "numpy") else np.asarray(t)


def _reduce(loss, reduction):
    return _reduce_loss(loss, reduction, "loss")


# ---------------------------------------------------------------- elementwise

absolute = _core.abs
arcsin, arccos, arctan = _core.asin, _core.acos, _core.atan
arcsinh, arccosh, arctanh = _core.asinh, _core.acosh, _core.atanh
sgn = _core.sign


def trunc(input):
    """Rounds toward zero (gradient 0).

    >>> import eagerad.mindspore as ms
    >>> trunc(ms.Tensor([-1.5, 2.5])).numpy().tolist()
    [-1.0, 2.0]
    """
    return _core.where(input >= 0, _core.floor(input), _core.ceil(input))


def frac(input):
    """The fractional part ``input - trunc(input)`` (gradient 1).

    >>> import eagerad.mindspore as ms
    >>> frac(ms.Tensor([-1.5, 2.25])).numpy().tolist()
    [-0.5, 0.25]
    """
    return input - trunc(input).detach()


def positive(input):
    """``+input``.

    >>> import eagerad.mindspore as ms
    >>> positive(ms.Tensor([-1.0])).numpy().tolist()
    [-1.0]
    """
    return input * 1


def conj(input):
    """The complex conjugate; a real tensor is its own conjugate.

    >>> import eagerad.mindspore as ms
    >>> conj(ms.Tensor([2.0])).numpy().tolist()
    [2.0]
    """
    return input * 1


def inv(input):
    """``1 / input``.

    >>> import eagerad.mindspore as ms
    >>> inv(ms.Tensor([4.0])).numpy().tolist()
    [0.25]
    """
    return 1.0 / input


def tanhshrink(input):
    """``input - tanh(input)``.

    >>> import eagerad.mindspore as ms
    >>> tanhshrink(ms.Tensor([0.0])).numpy().tolist()
    [0.0]
    """
    return input - _core.tanh(input)


def hardshrink(input, lambd=0.5):
    """``input`` where ``|input| > lambd``, else 0.

    >>> import eagerad.mindspore as ms
    >>> hardshrink(ms.Tensor([0.3, -0.7])).numpy().tolist()
    [0.0, -0.699999988079071]
    """
    return _core.where(input.abs() > lambd, input, 0.0)


def softshrink(input, lambd=0.5):
    """Shrinks toward 0 by ``lambd``; 0 inside ``[-lambd, lambd]``.

    >>> import eagerad.mindspore as ms
    >>> softshrink(ms.Tensor([0.3, -1.5])).numpy().tolist()
    [0.0, -1.0]
    """
    return _core.where(input > lambd, input - lambd,
                       _core.where(input < -lambd, input + lambd, 0.0))


soft_shrink = softshrink


def threshold(input, thr, value):
    """``input`` where ``input > thr``, else ``value``.

    >>> import eagerad.mindspore as ms
    >>> threshold(ms.Tensor([1.0, 5.0]), 3.0, 20.0).numpy().tolist()
    [20.0, 5.0]
    """
    return _core.where(input > thr, input, float(value))


def prelu(x, weight):
    """``x`` where positive, else ``weight * x`` with one slope per channel (axis 1).

    >>> import eagerad.mindspore as ms
    >>> prelu(ms.Tensor([[-2.0, 3.0]]), ms.Tensor([0.25])).numpy().tolist()
    [[-0.5, 3.0]]
    """
    if weight.ndim == 1 and x.ndim >= 2 and weight.shape[0] > 1:
        weight = weight.reshape((1, weight.shape[0]) + (1,) * (x.ndim - 2))
    return _core.where(x > 0, x, weight * x)


def glu(x, axis=-1):
    """Gated linear unit: the first half of ``axis`` times sigmoid of the second half.

    >>> import eagerad.mindspore as ms
    >>> glu(ms.Tensor([2.0, 0.0])).numpy().tolist()
    [1.0]
    """
    a, b = _core.chunk(x, 2, axis)
    return a * _core.sigmoid(b)


def softmin(x, axis=-1, *, dtype=None):
    """``softmax(-x)`` along ``axis``.

    >>> import eagerad.mindspore as ms
    >>> softmin(ms.Tensor([0.0, 0.0])).numpy().tolist()
    [0.5, 0.5]
    """
    return _core.softmax(-x, axis)


def isinf(input):
    """True where ``input`` is +inf or -inf.

    >>> import eagerad.mindspore as ms
    >>> isinf(ms.Tensor([1.0, float('inf')])).numpy().tolist()
    [False, True]
    """
    return _Tensor(np.isinf(_np(input)))


def signbit(input):
    """True where ``input`` is negative (MindSpore 2.10 answers False for -0.0).

    >>> import eagerad.mindspore as ms
    >>> signbit(ms.Tensor([-0.0, -1.0])).numpy().tolist()
    [False, True]
    """
    return _Tensor(_np(input) < 0)


def xdivy(x, y):
    """``x / y``, and 0 where ``x`` is 0.

    >>> import eagerad.mindspore as ms
    >>> xdivy(ms.Tensor([0.0, 3.0]), ms.Tensor([0.0, 2.0])).numpy().tolist()
    [0.0, 1.5]
    """
    return _core.where(x == 0, 0.0, x / y)


def floor_mod(x, y):
    """``x - floor(x / y) * y`` (the result has the sign of ``y``).

    >>> import eagerad.mindspore as ms
    >>> floor_mod(ms.Tensor([-3.0]), ms.Tensor([2.0])).numpy().tolist()
    [1.0]
    """
    return x - _core.floor(x / y).detach() * y


def float_power(input, exponent):
    """``input ** exponent`` computed in float64.

    >>> import eagerad.mindspore as ms
    >>> float_power(ms.Tensor([1.5]), 2).dtype
    dtype('float64')
    """
    return input.astype(np.float64) ** exponent


def lerp(input, end, weight):
    """``input + weight * (end - input)``.

    >>> import eagerad.mindspore as ms
    >>> lerp(ms.Tensor([1.0]), ms.Tensor([3.0]), 0.25).numpy().tolist()
    [1.5]
    """
    return input + weight * (end - input)


def addcdiv(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 / tensor2``.

    >>> import eagerad.mindspore as ms
    >>> addcdiv(ms.Tensor([1.0]), ms.Tensor([3.0]), ms.Tensor([2.0]), value=2).numpy().tolist()
    [4.0]
    """
    return input + value * (tensor1 / tensor2)


def addcmul(input, tensor1, tensor2, value=1):
    """``input + value * tensor1 * tensor2``.

    >>> import eagerad.mindspore as ms
    >>> addcmul(ms.Tensor([1.0]), ms.Tensor([3.0]), ms.Tensor([2.0]), value=2).numpy().tolist()
    [13.0]
    """
    return input + value * (tensor1 * tensor2)


def ldexp(x, other):
    """``x * 2 ** other``.

    >>> import eagerad.mindspore as ms
    >>> ldexp(ms.Tensor([3.0]), ms.Tensor(np.array([2], np.int32))).numpy().tolist()
    [12.0]
    """
    return x * _Tensor(np.exp2(_np(other).astype(np.float64)).astype(_np(x).dtype))


def heaviside(input, values):
    """The step function: 0 below 0, 1 above, ``values`` at 0.

    >>> import eagerad.mindspore as ms
    >>> heaviside(ms.Tensor([-1.0, 0.0, 2.0]), ms.Tensor([0.5])).numpy().tolist()
    [0.0, 0.5, 1.0]
    """
    a, v = _np(input), _np(values)
    return _Tensor(np.heaviside(a, v).astype(a.dtype))


def i0(input):
    """The modified Bessel function of the first kind, order 0 (power series).

    >>> import eagerad.mindspore as ms
    >>> round(float(i0(ms.Tensor([1.0])).numpy()[0]), 5)
    1.26607
    """
    q = input * input * 0.25
    term, total = q * 0 + 1.0, q * 0 + 1.0
    for k in range(1, 40):
        term = term * q / float(k * k)
        total = total + term
    return total


def ne(input, other):
    """``input != other``.

    >>> import eagerad.mindspore as ms
    >>> ne(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [False, True]
    """
    return input != other


def eq(input, other):
    """``input == other``.

    >>> import eagerad.mindspore as ms
    >>> eq(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [True, False]
    """
    return input == other


def gt(input, other):
    """``input > other``.

    >>> import eagerad.mindspore as ms
    >>> gt(ms.Tensor([1.0, 4.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [False, True]
    """
    return input > other


def ge(input, other):
    """``input >= other``.

    >>> import eagerad.mindspore as ms
    >>> ge(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [True, False]
    """
    return input >= other


def lt(input, other):
    """``input < other``.

    >>> import eagerad.mindspore as ms
    >>> lt(ms.Tensor([1.0, 2.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [False, True]
    """
    return input < other


def le(input, other):
    """``input <= other``.

    >>> import eagerad.mindspore as ms
    >>> le(ms.Tensor([1.0, 4.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [True, False]
    """
    return input <= other


# ---------------------------------------------------------------- reductions


def aminmax(input, *, axis=0, keepdims=False):
    """``(min, max)`` along ``axis`` (0 by default).

    >>> import eagerad.mindspore as ms
    >>> [t.numpy().tolist() for t in aminmax(ms.Tensor([[1.0, 5.0], [3.0, 2.0]]), axis=1)]
    [[1.0, 2.0], [5.0, 3.0]]
    """
    return _core.amin(input, axis, keepdims), _core.amax(input, axis, keepdims)


def std_mean(input, axis=None, ddof=0, keepdims=False):
    """``(std, mean)`` along ``axis``; std divides by ``n - ddof``.

    >>> import eagerad.mindspore as ms
    >>> [float(t.numpy()) for t in std_mean(ms.Tensor([1.0, 3.0]))]
    [1.0, 2.0]
    """
    return _core.std(input, axis, ddof, keepdims), _core.mean(input, axis, keepdims)


def var_mean(input, axis=None, ddof=0, keepdims=False):
    """``(var, mean)`` along ``axis``; var divides by ``n - ddof``.

    >>> import eagerad.mindspore as ms
    >>> [float(t.numpy()) for t in var_mean(ms.Tensor([1.0, 3.0]))]
    [1.0, 2.0]
    """
    return _core.var(input, axis, ddof, keepdims), _core.mean(input, axis, keepdims)


def trapz(y, x=None, *, dx=None, dim=-1):
    """The trapezoid rule along ``dim`` with spacing ``dx`` (1) or sample points ``x``.

    >>> import eagerad.mindspore as ms
    >>> float(trapz(ms.Tensor([1.0, 2.0, 3.0])).numpy())
    4.0
    """
    n = y.shape[dim]
    lo, hi = _core.narrow(y, dim, 0, n - 1), _core.narrow(y, dim, 1, n - 1)
    if x is not None:
        step = _core.narrow(x, dim, 1, n - 1) - _core.narrow(x, dim, 0, n - 1)
        return ((lo + hi) * step * 0.5).sum(dim)
    return (lo + hi).sum(dim) * (0.5 * (1.0 if dx is None else dx))


def cdist(x1, x2, p=2.0):
    """Pairwise p-norm distances between the rows of ``x1`` and ``x2`` (batched).

    >>> import eagerad.mindspore as ms
    >>> cdist(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[3.0, 4.0]])).numpy().tolist()
    [[5.0]]
    """
    diff = (_core.unsqueeze(x1, -2) - _core.unsqueeze(x2, -3)).abs()
    if p == float("inf"):
        return _core.amax(diff, -1)
    return (diff ** p).sum(-1) ** (1.0 / p)


def dist(input, other, p=2):
    """The p-norm of ``input - other`` over all elements.

    >>> import eagerad.mindspore as ms
    >>> float(dist(ms.Tensor([0.0, 0.0]), ms.Tensor([3.0, 4.0])).numpy())
    5.0
    """
    diff = (input - other).abs().reshape(-1)
    if p == float("inf"):
        return _core.amax(diff, 0)
    return (diff ** p).sum() ** (1.0 / p)


def vecdot(x, y, *, axis=-1):
    """The dot product of ``x`` and ``y`` along ``axis``.

    >>> import eagerad.mindspore as ms
    >>> vecdot(ms.Tensor([[1.0, 2.0]]), ms.Tensor([[3.0, 4.0]])).numpy().tolist()
    [11.0]
    """
    return (x * y).sum(axis)


# ---------------------------------------------------------------- shapes and indexing


def permute(input, axis):
    """The axes of ``input`` in the order ``axis``.

    >>> import eagerad.mindspore as ms
    >>> permute(ms.ops.ones((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return _core.transpose(input, tuple(axis))


def swapdims(input, dim0, dim1):
    """``input`` with axes ``dim0`` and ``dim1`` exchanged.

    >>> import eagerad.mindspore as ms
    >>> swapdims(ms.ops.ones((2, 3)), 0, 1).shape
    (3, 2)
    """
    return _core.swapaxes(input, dim0, dim1)


def ravel(input):
    """``input`` flattened to one axis.

    >>> import eagerad.mindspore as ms
    >>> ravel(ms.ops.ones((2, 3))).shape
    (6,)
    """
    return input.reshape(-1)


def numel(input):
    """The number of elements.

    >>> import eagerad.mindspore as ms
    >>> numel(ms.ops.ones((2, 3)))
    6
    """
    return int(np.prod(input.shape, dtype=np.int64))


def rank(input_x):
    """The number of axes.

    >>> import eagerad.mindspore as ms
    >>> rank(ms.ops.ones((2, 3)))
    2
    """
    return input_x.ndim


def slice(input_x, begin, size):
    """The block of ``input_x`` that starts at ``begin`` with extent ``size`` (-1: to the end).

    >>> import eagerad.mindspore as ms
    >>> slice(ms.ops.ones((3, 4)), (1, 0), (2, -1)).shape
    (2, 4)
    """
    index = tuple(_builtins.slice(b, None if s == -1 else b + s) for b, s in zip(begin, size))
    return input_x[index]



def select(cond, x, y):
    """``x`` where ``cond``, else ``y``.

    >>> import eagerad.mindspore as ms
    >>> select(ms.Tensor([True, False]), ms.Tensor([1.0, 2.0]), ms.Tensor([3.0, 4.0])).numpy().tolist()
    [1.0, 4.0]
    """
    return _core.where(cond, x, y)


def _positions(indices, shape):
    """Flat positions in the leading ``indices.shape[-1]`` axes of ``shape``."""
    idx = _np(indices).astype(np.int64)
    depth = idx.shape[-1]
    lead = shape[:depth]
    return np.ravel_multi_index(tuple(np.moveaxis(idx, -1, 0)), lead,
                                mode="raise").reshape(-1), int(np.prod(lead, dtype=np.int64))


def gather_nd(input_x, indices):
    """The slices of ``input_x`` at the index tuples in the last axis of ``indices``.

    >>> import eagerad.mindspore as ms
    >>> gather_nd(ms.Tensor([[1.0, 2.0], [3.0, 4.0]]), ms.Tensor(np.array([[1, 0]]))).numpy().tolist()
    [3.0]
    """
    idx = _np(indices).astype(np.int64)
    return input_x[tuple(np.moveaxis(idx, -1, 0))]


def _scatter_into(base, indices, updates):
    """``base`` plus ``updates`` added at the index tuples (repeated indices accumulate)."""
    flat, lead = _positions(indices, tuple(base.shape))
    rest = tuple(base.shape[_np(indices).shape[-1]:])
    onehot = np.zeros((flat.size, lead), dtype=_np(updates).dtype)
    onehot[np.arange(flat.size), flat] = 1
    added = _core.matmul(_Tensor(onehot.T), updates.reshape((flat.size, -1)))
    return base + added.reshape(tuple(base.shape[:len(base.shape) - len(rest)]) + rest)


def tensor_scatter_add(input_x, indices, updates):
    """``input_x`` with ``updates`` added at the index tuples of ``indices``.

    >>> import eagerad.mindspore as ms
    >>> tensor_scatter_add(ms.ops.zeros((2,)), ms.Tensor(np.array([[0], [0]])), ms.Tensor([1.0, 2.0])).numpy().tolist()
    [3.0, 0.0]
    """
    return _scatter_into(input_x, indices, updates)


def scatter_nd(indices, updates, shape):
    """A zero tensor of ``shape`` with ``updates`` added at the index tuples of ``indices``.

    >>> import eagerad.mindspore as ms
    >>> scatter_nd(ms.Tensor(np.array([[1]])), ms.Tensor([5.0]), (3,)).numpy().tolist()
    [0.0, 5.0, 0.0]
    """
    base = _Tensor(np.zeros(tuple(shape), dtype=_np(updates).dtype))
    return _scatter_into(base, indices, updates)


def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """``input_x`` with ``updates`` written (``'none'``) or added (``'add'``) along ``axis``.

    >>> import eagerad.mindspore as ms
    >>> tensor_scatter_elements(ms.ops.zeros((3,)), ms.Tensor(np.array([2])), ms.Tensor([7.0])).numpy().tolist()
    [0.0, 0.0, 7.0]
    """
    if reduction == "add":
        return _core.scatter_add(input_x, axis, indices, updates)
    if reduction == "none":
        return _core.scatter(input_x, axis, indices, updates)
    raise ValueError(f"tensor_scatter_elements: reduction must be 'none' or 'add', got {reduction!r}")


def matrix_band_part(x, lower, upper):
    """``x`` with the elements outside the band (``lower`` below, ``upper`` above the
    diagonal; negative: all) set to 0.

    >>> import eagerad.mindspore as ms
    >>> matrix_band_part(ms.ops.ones((2, 2)), 0, 0).numpy().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    m, n = x.shape[-2], x.shape[-1]
    i, j = np.arange(m)[:, None], np.arange(n)[None, :]
    keep = ((lower < 0) | (i - j <= lower)) & ((upper < 0) | (j - i <= upper))
    return x * _Tensor(keep.astype(_np(x).dtype))


def block_diag(*inputs):
    """The tensors (scalars, vectors as rows, matrices) along a block diagonal.

    >>> import eagerad.mindspore as ms
    >>> block_diag(ms.Tensor([[1.0]]), ms.Tensor([2.0, 3.0])).numpy().tolist()
    [[1.0, 0.0, 0.0], [0.0, 2.0, 3.0]]
    """
    mats = [t.reshape((1, -1)) if t.ndim < 2 else t for t in inputs]
    width = sum(m.shape[1] for m in mats)
    rows, left = [], 0
    for m in mats:
        rows.append(_core.pad(m, (left, width - left - m.shape[1])))
        left += m.shape[1]
    return _core.cat(rows, 0)


def vander(x, N=None):
    """The Vandermonde matrix of ``x``: columns ``x ** (N-1)``, ..., ``x ** 0``.

    >>> import eagerad.mindspore as ms
    >>> vander(ms.Tensor([2.0, 3.0])).numpy().tolist()
    [[2.0, 1.0], [3.0, 1.0]]
    """
    n = x.shape[0] if N is None else N
    return _core.stack([x ** (n - 1 - k) for k in range(n)], 1)


def tril_indices(row, col, offset=0, *, dtype=np.int64):
    """The (row, column) indices of the lower triangle, as a ``(2, n)`` tensor.

    >>> tril_indices(2, 2).numpy().tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    return _Tensor(np.stack(np.tril_indices(row, offset, col)).astype(np.dtype(dtype)))


def triu_indices(row, col, offset=0, *, dtype=np.int64):
    """The (row, column) indices of the upper triangle, as a ``(2, n)`` tensor.

    >>> triu_indices(2, 2).numpy().tolist()
    [[0, 0, 1], [0, 1, 1]]
    """
    return _Tensor(np.stack(np.triu_indices(row, offset, col)).astype(np.dtype(dtype)))


# ---------------------------------------------------------------- products


ger = _core.outer


def mm(input, mat2):
    """The matrix product of two matrices.

    >>> import eagerad.mindspore as ms
    >>> mm(ms.ops.ones((2, 3)), ms.ops.ones((3, 1))).numpy().tolist()
    [[3.0], [3.0]]
    """
    return _core.matmul(input, mat2)


bmm = mv = mm


def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * mat1 @ mat2``.

    >>> import eagerad.mindspore as ms
    >>> addmm(ms.ops.ones((1, 1)), ms.ops.ones((1, 2)), ms.ops.ones((2, 1)), alpha=2).numpy().tolist()
    [[5.0]]
    """
    return beta * input + alpha * _core.matmul(mat1, mat2)


addmv = baddbmm = addmm


def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]``.

    >>> import eagerad.mindspore as ms
    >>> addbmm(ms.ops.zeros((1, 1)), ms.ops.ones((2, 1, 3)), ms.ops.ones((2, 3, 1))).numpy().tolist()
    [[6.0]]
    """
    return beta * input + alpha * _core.matmul(batch1, batch2).sum(0)


def addr(x, vec1, vec2, *, beta=1, alpha=1):
    """``beta * x + alpha * outer(vec1, vec2)``.

    >>> import eagerad.mindspore as ms
    >>> addr(ms.ops.zeros((1, 2)), ms.Tensor([2.0]), ms.Tensor([1.0, 3.0])).numpy().tolist()
    [[2.0, 6.0]]
    """
    return beta * x + alpha * _core.outer(vec1, vec2)


def batch_dot(x1, x2, axes=None):
    """Per-sample contraction of ``x1``'s axis ``axes[0]`` with ``x2``'s ``axes[1]``
    (axis 0 is the batch).

    >>> import eagerad.mindspore as ms
    >>> batch_dot(ms.ops.ones((2, 3)), ms.ops.ones((2, 3)), 1).numpy().tolist()
    [[3.0], [3.0]]
    """
    if axes is None:
        axes = (x1.ndim - 1, x2.ndim - 2) if x2.ndim > 2 else (x1.ndim - 1, x2.ndim - 1)
    if isinstance(axes, int):
        axes = (axes, axes)
    a0, a1 = axes[0] % x1.ndim, axes[1] % x2.ndim
    if x1.ndim == 2 and x2.ndim == 2:
        return (x1 * x2).sum(1, keepdims=True)
    left = _core.moveaxis(x1, a0, -1)
    right = _core.moveaxis(x2, a1, 1)
    b = x1.shape[0]
    out = _core.matmul(left.reshape((b, -1, left.shape[-1])), right.reshape((b, right.shape[1], -1)))
    return out.reshape(tuple(left.shape[:-1]) + tuple(right.shape[2:]))


# ---------------------------------------------------------------- pooling and images


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to ``output_size`` (sizes that divide the input's).

    >>> import eagerad.mindspore as ms
    >>> adaptive_max_pool2d(ms.ops.ones((1, 1, 4, 4)), (2, 2)).shape
    (1, 1, 2, 2)
    """
    out = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    h, w = input.shape[-2], input.shape[-1]
    out = tuple(s if o is None else o for o, s in zip(out, (h, w)))
    if h % out[0] or w % out[1]:
        raise ValueError(f"adaptive_max_pool2d: output_size {out} must divide the input's "
                         f"spatial size {(h, w)}")
    kernel = (h // out[0], w // out[1])
    return _core.max_pool2d(input, kernel, kernel, return_indices=return_indices)


def pixel_shuffle(input, upscale_factor):
    """``(..., C*r*r, H, W)`` rearranged to ``(..., C, H*r, W*r)``.

    >>> import eagerad.mindspore as ms
    >>> pixel_shuffle(ms.ops.ones((1, 4, 2, 2)), 2).shape
    (1, 1, 4, 4)
    """
    r = upscale_factor
    *lead, c, h, w = input.shape
    x = input.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    n = len(lead)
    x = _core.transpose(x, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return x.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


# ---------------------------------------------------------------- losses


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, reduced.

    >>> import eagerad.mindspore as ms
    >>> float(margin_ranking_loss(ms.Tensor([1.0]), ms.Tensor([2.0]), ms.Tensor([1.0])).numpy())
    1.0
    """
    return _reduce(_core.relu(-target * (input1 - input2) + margin), reduction)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``1 - cos`` for target 1, ``max(0, cos - margin)`` for target -1, reduced.

    >>> import eagerad.mindspore as ms
    >>> float(cosine_embedding_loss(ms.Tensor([[1.0, 0.0]]), ms.Tensor([[0.0, 1.0]]), ms.Tensor([1.0])).numpy())
    1.0
    """
    dot = (input1 * input2).sum(-1)
    cos = dot / _core.sqrt((input1 * input1).sum(-1) * (input2 * input2).sum(-1))
    loss = _core.where(target == 1, 1.0 - cos, _core.relu(cos - margin))
    return _reduce(loss, reduction)


def gaussian_nll_loss(x, target, var, full=False, eps=1e-6, reduction="mean"):
    """``0.5 * (log(var) + (x - target)**2 / var)`` (var clamped at ``eps``), reduced.

    >>> import eagerad.mindspore as ms
    >>> float(gaussian_nll_loss(ms.Tensor([1.0]), ms.Tensor([1.0]), ms.Tensor([1.0])).numpy())
    0.0
    """
    v = _core.clip_by_value(var, eps, None)
    loss = 0.5 * (_core.log(v) + (x - target) ** 2 / v)
    if full:
        loss = loss + 0.5 * _math.log(2 * _math.pi)
    return _reduce(loss, reduction)


def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """The per-class logistic loss averaged over classes, then reduced over samples.

    >>> import eagerad.mindspore as ms
    >>> round(float(multilabel_soft_margin_loss(ms.Tensor([[0.0]]), ms.Tensor([[1.0]])).numpy()), 5)
    0.69315
    """
    per = -(target * _core.logsigmoid(input) + (1 - target) * _core.logsigmoid(-input))
    if weight is not None:
        per = per * weight
    return _reduce(per.mean(-1), reduction)


def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """``sum_{i != y} max(0, margin - x[y] + x[i]) ** p / C`` per sample, reduced.

    >>> import eagerad.mindspore as ms
    >>> float(multi_margin_loss(ms.Tensor([[0.0, 0.0]]), ms.Tensor(np.array([0]))).numpy())
    0.5
    """
    n, c = input.shape
    y = _np(target).astype(np.int64)
    picked = _core.gather_elements(input, 1, _Tensor(y.reshape(n, 1)))
    hinge = _core.relu(margin - picked + input) ** p
    if weight is not None:
        hinge = hinge * _core.gather(weight, _Tensor(y), 0).reshape((n, 1))
    other = np.ones((n, c), dtype=_np(input).dtype)
    other[np.arange(n), y] = 0
    return _reduce((hinge * _Tensor(other)).sum(1) / c, reduction)


def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """``x`` scaled by ``max_norm / (||x|| + 1e-6)`` when its ``norm_type``-norm exceeds
    ``max_norm`` (a list of tensors shares one total norm).

    >>> import eagerad.mindspore as ms
    >>> [round(v, 4) for v in clip_by_norm(ms.Tensor([3.0, 4.0]), 1.0).numpy().tolist()]
    [0.6, 0.8]
    """
    tensors = list(x) if isinstance(x, (list, tuple)) else [x]
    p = float(norm_type)
    if p == float("inf"):
        total = _core.amax(_core.stack([_core.amax(t.abs().reshape(-1), 0) for t in tensors]), 0)
    else:
        total = sum(((t.abs() ** p).sum() for t in tensors)) ** (1.0 / p)
    if error_if_nonfinite and not np.isfinite(_np(total)).all():
        raise RuntimeError(f"clip_by_norm: the total {norm_type}-norm is not finite")
    scale = _core.clip_by_value(max_norm / (total + 1e-6), None, 1.0)
    out = [t * scale for t in tensors]
    return out if isinstance(x, (list, tuple)) else out[0]


def bidense(input1, input2, weight, bias=None):
    """The bilinear map ``input1^T weight input2 + bias`` (``weight``: (out, in1, in2)).

    >>> import eagerad.mindspore as ms
    >>> bidense(ms.ops.ones((1, 2)), ms.ops.ones((1, 3)), ms.ops.ones((4, 2, 3))).shape
    (1, 4)
    """
    out = _core.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """``(sum of x^p over each window)^(1/p)`` over the last two axes.

    >>> import eagerad.mindspore as ms
    >>> lp_pool2d(ms.ops.ones((1, 1, 2, 2)), 2, 2).numpy().ravel().tolist()
    [2.0]
    """
    k = (kernel_size, kernel_size) if isinstance(kernel_size, int) else tuple(kernel_size)
    pooled = _core.avg_pool2d(x ** norm_type, k, stride, 0, ceil_mode)
    return (pooled * (k[0] * k[1])) ** (1.0 / norm_type)


def _pair(v):
    v = _np(v).tolist() if hasattr(v, "numpy") else v
    return (int(v), int(v)) if np.ndim(v) == 0 else tuple(int(a) for a in v)


def _patch_matrix(size, kernel_size, dilation, padding, stride):
    """The 0/1 matrix (kh*kw*L, Hp*Wp) taking each sliding-window element to its pixel of
    the padded image, with L the number of windows."""
    (h, w), (kh, kw), (dh, dw) = _pair(size), _pair(kernel_size), _pair(dilation)
    (ph, pw), (sh, sw) = _pair(padding), _pair(stride)
    hp, wp = h + 2 * ph, w + 2 * pw
    oh, ow = (hp - dh * (kh - 1) - 1) // sh + 1, (wp - dw * (kw - 1) - 1) // sw + 1
    ki, kj = np.meshgrid(np.arange(kh) * dh, np.arange(kw) * dw, indexing="ij")
    oi, oj = np.meshgrid(np.arange(oh) * sh, np.arange(ow) * sw, indexing="ij")
    pixel = (ki.reshape(-1, 1) + oi.reshape(1, -1)) * wp + kj.reshape(-1, 1) + oj.reshape(1, -1)
    m = np.zeros((pixel.size, hp * wp), dtype=np.float32)
    m[np.arange(pixel.size), pixel.reshape(-1)] = 1
    return m, (hp, wp), (ph, pw), kh * kw


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """The sliding windows of ``input`` (N, C, H, W) as columns (N, C*kh*kw, L) (im2col).

    >>> import eagerad.mindspore as ms
    >>> unfold(ms.ops.ones((1, 2, 3, 3)), 2).shape
    (1, 8, 4)
    """
    n, c, h, w = input.shape
    m, _, (ph, pw), k = _patch_matrix((h, w), kernel_size, dilation, padding, stride)
    x = _core.pad(input, (pw, pw, ph, ph)) if ph or pw else input
    cols = _core.matmul(x.reshape((n, c, -1)), _Tensor(m.T.astype(_np(input).dtype)))
    return cols.reshape((n, c * k, -1))


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Columns (N, C*kh*kw, L) summed back into an image (N, C, H, W) (col2im; the
    adjoint of ``unfold``).

    >>> import eagerad.mindspore as ms
    >>> fold(ms.ops.ones((1, 4, 4)), (3, 3), 2).numpy()[0, 0].tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    n = input.shape[0]
    m, (hp, wp), (ph, pw), k = _patch_matrix(output_size, kernel_size, dilation, padding, stride)
    c = input.shape[1] // k
    image = _core.matmul(input.reshape((n, c, -1)), _Tensor(m.astype(_np(input).dtype)))
    image = image.reshape((n, c, hp, wp))
    return image[:, :, ph:hp - ph, pw:wp - pw]


def affine_grid(theta, size, align_corners=False):
    """The sampling grid (N, H, W, 2) of the 2-D affine maps ``theta`` (N, 2, 3) for an output
    of ``size`` (N, C, H, W) -- (N, D, H, W, 3) for 3-D maps (N, 3, 4) and a 5-D size -- in
    normalised [-1, 1] coordinates.

    >>> import eagerad.mindspore as ms
    >>> affine_grid(ms.Tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, 1, 2)).numpy().tolist()
    [[[[-0.5, 0.0], [0.5, 0.0]]]]
    """
    return _affine_grid(theta, size, align_corners)


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=False):
    """``input`` (N, C, H, W) sampled at the normalised points ``grid`` (N, Ho, Wo, 2) (x, y in
    [-1, 1]; 5-D input with a 3-D grid too): ``mode`` 'bilinear', 'nearest' or 'bicubic',
    ``padding_mode`` 'zeros', 'border' or 'reflection' (the core op both faces share).

    >>> import eagerad.mindspore as ms
    >>> img = ms.Tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
    >>> grid_sample(img, ms.Tensor([[[[0.0, 0.0]]]]), align_corners=True).numpy().ravel().tolist()
    [1.5]
    """
    return _grid_sample(input, grid, mode, padding_mode, align_corners)


def depend(value, expr):
    """MindSpore's ``ops.depend``: ``value``, once ``expr`` has been computed (in graph mode
    an ordering edge; run eagerly, ``expr`` is already done).  Custom training steps write
    ``return ops.depend(loss, self.optimizer(grads))``.

    >>> import eagerad.mindspore as ms
    >>> depend(ms.Tensor(2.0), None)
    Tensor(shape=[], dtype=Float32, value= 2)
    """
    return value
