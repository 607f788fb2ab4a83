"""Cumulative ops: cumsum, cumprod, cummax/cummin, logcumsumexp, diff.

Their derivative rules are scans again: a cumsum's transpose is a cumsum run
from the other end, and cumprod's and logcumsumexp's rules are first-order
linear recurrences ``h[i] = a[i] * h[i-1] + b[i]`` (the ``linear_scan`` op, whose
own rules are linear scans).  No rule divides by the input, so cumprod is exact
at zeros, to any order, and logcumsumexp's rule only takes ``exp`` of
non-positive numbers.  This module also holds the helpers that the other
axis-wise families (sorting, statistics, norms) share: a batching rule for ops
that work along named axes.

>>> import eagerad
>>> eagerad.ops.cumsum(eagerad.tensor([1.0, 2.0, 3.0]))
tensor([1., 3., 6.])
"""
import collections
import math

import numpy as np

from .. import dtype as dt
from ..tensor import Tensor, full
from .math import as_tensor, exp, where
from .indexing import take_along_axis
from .decompositions import configured_primitive
from .registry import Case, U, defop, export
from .shape import _getitem, concat, expand_dims, normalize_axis, transpose

ValuesIndices = collections.namedtuple("ValuesIndices", "values indices")
ValuesIndices.__doc__ = """``(values, indices)`` as PyTorch's ``return_types`` (sort, topk, cummax,
median with a dim): unpack it or read ``.values`` / ``.indices``.

>>> ValuesIndices(1, 2).indices
2
"""

# ------------------------------------------------------------ shared helpers


def to_front(x, bdim, size):
    """``x`` with its batch axis ``bdim`` first (an unbatched ``x``, ``bdim`` None, is
    repeated ``size`` times), for batching rules.

    >>> to_front(eagerad.zeros(2, 3), 1, 3).shape, to_front(eagerad.zeros(2), None, 4).shape
    ((3, 2), (4, 2))
    """
    if bdim is None:
        return expand_dims(x, 0).broadcast_to((size,) + tuple(x.shape))
    if bdim == 0:
        return x
    return transpose(x, (bdim,) + tuple(d for d in range(x.ndim) if d != bdim))


def batch_along_axes(op):
    """The batching rule of ``op``, an op working along the axes its keyword ``axis``
    (an int) or ``axes`` (a tuple) names: batch axes go first, those axes move up one,
    and the output keeps its batch axis first.

    >>> rule = batch_along_axes(_cumsum)
    >>> out, bdim = rule((eagerad.ones(3, 2),), (1,), axis=0, reverse=False); out.tolist(), bdim
    ([[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]], 0)
    """
    def rule(args, bdims, **kw):
        size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
        xs = [to_front(a, d, size) if isinstance(a, Tensor) else a for a, d in zip(args, bdims)]
        if "axis" in kw:
            kw["axis"] += 1
        if "axes" in kw:
            kw["axes"] = tuple(a + 1 for a in kw["axes"])
        return op(*xs, **kw), 0
    op.batch = rule
    return rule


def one_axis(x, axis, dim, name, flatten=True):
    """``(x, axis)`` for an op along one axis: ``dim`` is PyTorch's spelling of ``axis``;
    neither given flattens ``x`` (numpy) unless ``flatten`` is False, then it is an error.

    >>> one_axis(eagerad.zeros(2, 3), None, -1, "cumsum")[1], one_axis(eagerad.zeros(2, 3), None, None, "cumsum")[0].shape
    (1, (6,))
    """
    x = as_tensor(x)
    if dim is not None:
        if axis is not None:
            raise TypeError(f"{name}: give axis or dim, not both")
        axis = dim
    if axis is None:
        if not flatten:
            raise TypeError(f"{name}: the axis (dim) to work along is required")
        return x.reshape(-1), 0
    return x, normalize_axis(axis, x.ndim)[0]


def _shift(v, axis, step, fill):
    """``v`` moved one place along ``axis``: ``out[i] = v[i - step]`` (step is +1 or -1);
    ``fill`` (a number, or None for a copy of the edge entry) enters at the free end."""
    n = v.shape[axis]
    if n == 0:
        return v
    keep = slice(0, n - 1) if step > 0 else slice(1, n)
    edge = slice(0, 1) if step > 0 else slice(n - 1, n)
    lead = (slice(None),) * axis
    new = _getitem(v, index=lead + (edge,))
    if fill is not None:
        new = full(new.shape, fill, dtype=v.dtype, device=v.device)
    body = _getitem(v, index=lead + (keep,))
    return concat([new, body] if step > 0 else [body, new], axis)


_AXIS_CASES = [Case(U(2, 3), axis=1, reverse=False), Case(U(4), axis=0, reverse=True),
               Case(U(3, 2, 2), axis=0, reverse=False), Case(U(0, 3), axis=0, reverse=False)]

# ---------------------------------------------------------------------- ops

_cumsum = defop("cumsum", lambda B, x, axis, reverse: B.cumulative("sum", x, axis, reverse),
                vjp=lambda g, ans, x, axis, reverse: _cumsum(g, axis=axis, reverse=not reverse),
                jvp=lambda t, ans, x, axis, reverse: _cumsum(t, axis=axis, reverse=reverse),
                saves=(), cases=_AXIS_CASES)


def _back(reverse):
    """The step from an entry to the one before it in scan order."""
    return -1 if reverse else 1


def _scan_vjp_b(g, ans, a, b, axis, reverse):
    return _scan(_shift(a, axis, -_back(reverse), 0), g, axis=axis, reverse=not reverse)


_scan = defop("linear_scan", lambda B, a, b, axis, reverse: B.linear_scan(a, b, axis, reverse),
              vjp=(lambda g, ans, a, b, axis, reverse: _scan_vjp_b(g, ans, a, b, axis, reverse) *
                   _shift(ans, axis, _back(reverse), 0), _scan_vjp_b),
              jvp=(lambda t, ans, a, b, axis, reverse: _scan(
                  a, t * _shift(ans, axis, _back(reverse), 0), axis=axis, reverse=reverse),
                   lambda t, ans, a, b, axis, reverse: _scan(a, t, axis=axis, reverse=reverse)),
              save_output=True,
              cases=[Case(U(2, 3), U(2, 3), axis=1, reverse=False),
                     Case(U(4), U(4), axis=0, reverse=True),
                     Case(U(0, 2), U(0, 2), axis=1, reverse=False)])


def _before(ans, axis, reverse):
    """Product of the entries before each one in scan order (1 for the first)."""
    return _shift(ans, axis, _back(reverse), 1)


_cumprod = defop("cumprod", lambda B, x, axis, reverse: B.cumulative("prod", x, axis, reverse),
                 vjp=lambda g, ans, x, axis, reverse: _before(ans, axis, reverse) * _scan(
                     _shift(x, axis, -_back(reverse), 0), g, axis=axis, reverse=not reverse),
                 jvp=lambda t, ans, x, axis, reverse: _scan(
                     x, t * _before(ans, axis, reverse), axis=axis, reverse=reverse),
                 save_output=True, cases=_AXIS_CASES)


def _decay(ans, axis, reverse):
    """``exp(ans[i-1] - ans[i])`` in scan order (1 for the first): at most 1, as a
    logcumsumexp never decreases (1 too while it is still ``-inf``)."""
    gap = _shift(ans, axis, _back(reverse), None) - ans
    return exp(where(ans == -math.inf, 0.0, gap))


def _weight(x, ans):
    """``exp(x - ans)`` (d ans / d x at the same place), 0 where ``x`` is ``-inf``."""
    return exp(where(x == -math.inf, -math.inf, x - ans))


_logcumsumexp = defop(
    "logcumsumexp", lambda B, x, axis, reverse: B.cumulative("logsumexp", x, axis, reverse),
    vjp=lambda g, ans, x, axis, reverse: _weight(x, ans) * _scan(
        _shift(_decay(ans, axis, reverse), axis, -_back(reverse), 0), g, axis=axis,
        reverse=not reverse),
    jvp=lambda t, ans, x, axis, reverse: _scan(_decay(ans, axis, reverse), t * _weight(x, ans),
                                               axis=axis, reverse=reverse),
    save_output=True, cases=_AXIS_CASES)


def _extreme_op(name):
    """Where the running max/min was attained (not differentiable: the values are ``x``
    taken there, which carries the gradient to the selected entries)."""
    return defop(name + "_indices", lambda B, x, axis: B.cumextreme(name[3:], x, axis))


_cummax = _extreme_op("cummax")
_cummin = _extreme_op("cummin")
for _op in (_cumsum, _scan, _cumprod, _logcumsumexp, _cummax, _cummin):
    batch_along_axes(_op)

# ----------------------------------------------------------------- public


def _cumulative(op, x, axis, dim, dtype, name):
    x, axis = one_axis(x, axis, dim, name)
    if dtype is not None:
        x = x.astype(dtype)
    elif x.dtype == dt.bool_:
        x = x.astype(dt.int64)
    if x.ndim == 0:
        return op(x.reshape(1), axis=0, reverse=False).reshape(())
    return op(x, axis=axis, reverse=False)


@export(methods=("cumsum",), primitive="CumSum")
def cumsum(x, axis=None, dtype=None, *, dim=None):
    """Running sum along ``axis`` (numpy: None flattens; PyTorch's ``dim=`` works too).

    >>> cumsum(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]]), axis=0).tolist()
    [[1.0, 2.0], [4.0, 6.0]]
    """
    return _cumulative(_cumsum, x, axis, dim, dtype, "cumsum")


@export(methods=("cumprod",), primitive="CumProd")
def cumprod(x, axis=None, dtype=None, *, dim=None):
    """Running product along ``axis``; its gradient is exact where entries are 0 (no
    division), to any order.

    >>> x = eagerad.tensor([2.0, 0.0, 3.0], requires_grad=True)
    >>> cumprod(x).sum().backward(); x.grad.tolist()
    [1.0, 8.0, 0.0]
    """
    return _cumulative(_cumprod, x, axis, dim, dtype, "cumprod")


@export(methods=("logcumsumexp",))
def logcumsumexp(x, axis=None, *, dim=None):
    """``log(cumsum(exp(x)))`` along ``axis`` without overflow.

    >>> logcumsumexp(eagerad.tensor([1000.0, 1000.0])).tolist()
    [1000.0, 1000.6931762695312]
    """
    x = as_tensor(x)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    return _cumulative(_logcumsumexp, x, axis, dim, None, "logcumsumexp")


def _cum_extreme(op, x, axis, dim, name):
    x, axis = one_axis(x, axis, dim, name, flatten=False)
    if x.ndim == 0:
        values, indices = _cum_extreme(op, x.reshape(1), 0, None, name)
        return ValuesIndices(values.reshape(()), indices.reshape(()))
    indices = op(x, axis=axis)
    return ValuesIndices(take_along_axis(x, indices, axis), indices)


@export(methods=("cummax",))
def cummax(x, axis=None, *, dim=None):
    """Running maximum along ``axis`` and its indices, ``(values, indices)`` as PyTorch
    (ties take the later index); the gradient goes to the entry each maximum came from.

    >>> cummax(eagerad.tensor([1.0, 3.0, 2.0]), 0).indices.tolist()
    [0, 1, 1]
    """
    return _cum_extreme(_cummax, x, axis, dim, "cummax")


@export(methods=("cummin",))
def cummin(x, axis=None, *, dim=None):
    """Running minimum along ``axis`` and its indices, ``(values, indices)`` as PyTorch.

    >>> cummin(eagerad.tensor([3.0, 1.0, 2.0]), 0).values.tolist()
    [3.0, 1.0, 1.0]
    """
    return _cum_extreme(_cummin, x, axis, dim, "cummin")


def _edge(v, like, axis):
    """``prepend``/``append`` of ``diff`` as a tensor joinable to ``like`` along ``axis``
    (a scalar is repeated over the other axes with length 1 along ``axis``, as numpy)."""
    v = as_tensor(v, like)
    if v.ndim == 0:
        shape = list(like.shape)
        shape[axis] = 1
        v = v.broadcast_to(tuple(shape))
    return v


@export(methods=("diff",))
def diff(x, n=1, axis=-1, prepend=None, append=None, *, dim=None):
    """``n``-th forward difference along ``axis`` (numpy's ``diff``; ``dim=`` as PyTorch),
    with ``prepend``/``append`` joined on first.

    >>> diff(eagerad.tensor([1.0, 4.0, 9.0, 16.0])).tolist(), diff(eagerad.tensor([1.0, 4.0, 9.0]), 2).tolist()
    ([3.0, 5.0, 7.0], [2.0])
    """
    x = as_tensor(x)
    if dim is not None:
        axis = dim
    if x.ndim == 0:
        raise ValueError("diff requires an input of at least one dimension")
    if n < 0 or int(n) != n:
        raise ValueError(f"diff: order n must be a non-negative integer, got {n!r}")
    axis = normalize_axis(axis, x.ndim)[0]
    parts = ([_edge(prepend, x, axis)] if prepend is not None else []) + [x] + \
        ([_edge(append, x, axis)] if append is not None else [])
    if len(parts) > 1:
        x = concat(parts, axis)
    lead = (slice(None),) * axis
    for _ in range(int(n)):
        if x.shape[axis] == 0:
            break
        later, earlier = x[lead + (slice(1, None),)], x[lead + (slice(None, -1),)]
        x = later != earlier if x.dtype == dt.bool_ else later - earlier
    return x


configured_primitive("Cummax", lambda x, axis: cummax(x, axis), axis=0)
configured_primitive("Cummin", lambda x, axis: cummin(x, axis), axis=0)
