"""Statistics: prod, var, std, count_nonzero, nansum, nanmean, median, quantile.

``prod``'s gradient is the product of the *other* entries, formed from running
products from both ends (no division by x), so it is exact where entries are 0,
to any order.  ``std``'s gradient is 0 where the deviation is 0, as PyTorch's.
numpy's spellings (``axis``, ``keepdims``, ``ddof``) and PyTorch's (``dim``,
``keepdim``, ``correction``, ``unbiased``) are both accepted; where the two
disagree (``var``'s default correction, ``median`` of an even count) the
docstrings say which one applies.

>>> import eagerad
>>> eagerad.ops.prod(eagerad.tensor([2.0, 3.0, 4.0])).item()
24.0
"""
import math as _math
import numbers

import numpy as np

from .. import dtype as dt
from ..face import ambiguous
from ..tensor import Tensor, full, ones
from .cumulative import ValuesIndices, _cumprod, _shift, batch_along_axes, one_axis
from .math import as_tensor, isnan, where
from .reduction import _keep, _prepare, _spread, _sum, sum as _reduce_sum
from .registry import METHODS, Case, U, defop, export
from .shape import normalize_axis, transpose
from .sorting import sort_with_indices

_CASES = [Case(U(2, 3), axes=(0, 1), keepdims=False), Case(U(2, 3), axes=(1,), keepdims=True),
          Case(U(2, 3, 2), axes=(0, 2), keepdims=False), Case(U(), axes=(), keepdims=False),
          Case(U(0, 3), axes=(0,), keepdims=False)]

# ---------------------------------------------------------------------- prod


def _others(x, axes):
    """For each entry, the product of the other entries over ``axes``: running products
    from the front and from the back, shifted by one and multiplied (no division)."""
    if not axes:
        return ones(*x.shape, dtype=x.dtype, device=x.device)
    keep = tuple(d for d in range(x.ndim) if d not in axes)
    perm = keep + tuple(axes)
    moved = transpose(x, perm) if perm != tuple(range(x.ndim)) else x
    flat = moved.reshape(moved.shape[:len(keep)] + (-1,))
    ax = flat.ndim - 1
    before = _shift(_cumprod(flat, axis=ax, reverse=False), ax, 1, 1)
    after = _shift(_cumprod(flat, axis=ax, reverse=True), ax, -1, 1)
    others = (before * after).reshape(moved.shape)
    return transpose(others, tuple(np.argsort(perm))) if moved is not x else others


_prod = defop("prod", lambda B, x, axes, keepdims: B.reduce("prod", x, axes, keepdims),
              vjp=lambda g, ans, x, axes, keepdims: _spread(g, x.shape, axes, keepdims) *
              _others(x, axes),
              jvp=lambda t, ans, x, axes, keepdims: _sum(t * _others(x, axes), axes=axes,
                                                         keepdims=keepdims),
              cases=_CASES)


def _axes_of(x, axis, dim, keepdims, keepdim, name):
    """``(x, axes, keepdims)`` from numpy's or PyTorch's spelling."""
    x, axes = _prepare(x, axis, name, dim)
    return x, axes, _keep(keepdims, keepdim)


@export(methods=("prod",), primitive="ReduceProd")
def prod(x, axis=None, keepdims=False, dtype=None, *, dim=None, keepdim=None):
    """Product over ``axis`` (None: all); exact gradients where entries are 0: one zero
    gets the product of the others, two or more zeros give 0.

    >>> x = eagerad.tensor([2.0, 0.0, 3.0], requires_grad=True)
    >>> prod(x).backward(); x.grad.tolist()
    [0.0, 6.0, 0.0]
    """
    x, axes, keepdims = _axes_of(x, axis, dim, keepdims, keepdim, "prod")
    if dtype is not None:
        x = x.astype(dtype)
    elif x.dtype == dt.bool_:
        x = x.astype(dt.int64)
    return _prod(x, axes=axes, keepdims=keepdims)

# ----------------------------------------------------------------- var, std


def _count(shape, axes):
    return _math.prod(shape[a] for a in axes)


def _var_forward(B, x, axes, keepdims, ddof):
    n = _count(x.shape, axes)
    centered = B.binary("sub", x, B.binary("div", B.reduce("sum", x, axes, True), n))
    squares = B.reduce("sum", B.binary("mul", centered, centered), axes, keepdims)
    return B.binary("div", squares, max(n - ddof, 0))


def _var_slope(x, axes, ddof):
    """d var / d x: ``2 (x - mean) / (n - ddof)``."""
    n = _count(x.shape, axes)
    centered = x - _sum(x, axes=axes, keepdims=True) / n if n else x
    return centered * (2.0 / (n - ddof) if n - ddof > 0 else float("inf"))


_var = defop("var", _var_forward,
             vjp=lambda g, ans, x, axes, keepdims, ddof: _spread(g, x.shape, axes, keepdims) *
             _var_slope(x, axes, ddof),
             jvp=lambda t, ans, x, axes, keepdims, ddof: _sum(t * _var_slope(x, axes, ddof),
                                                              axes=axes, keepdims=keepdims),
             cases=[Case(*c.args, **c.kwargs, ddof=d) for c, d in zip(
                 _CASES[:4] + [Case(U(0, 3), axes=(1,), keepdims=False)], (1, 0, 1, 0, 0))])


def _std_scale(ans):
    """``1 / (2 std)``, and 0 where std is 0 (PyTorch's choice: no inf/nan there, also in
    higher derivatives)."""
    zero = ans == 0
    return where(zero, 0.0, 0.5 / where(zero, 1.0, ans))


_std = defop("std", lambda B, x, axes, keepdims, ddof: B.unary("sqrt", _var_forward(
    B, x, axes, keepdims, ddof)),
             vjp=lambda g, ans, x, axes, keepdims, ddof: _spread(
                 g * _std_scale(ans), x.shape, axes, keepdims) * _var_slope(x, axes, ddof),
             jvp=lambda t, ans, x, axes, keepdims, ddof: _std_scale(ans) * _sum(
                 t * _var_slope(x, axes, ddof), axes=axes, keepdims=keepdims),
             save_output=True, cases=_var.cases[:3] + (Case(U(1, 3), axes=(1,), keepdims=True,
                                                            ddof=0),))
for _op in (_prod, _var, _std):
    batch_along_axes(_op)


def _correction(ddof, correction, unbiased, name):
    """The ``ddof`` to use: numpy's ``ddof``, PyTorch's ``correction`` or ``unbiased``
    (also a bool in ``ddof``'s place, as ``torch.var(x, 0, False)``).  None given is
    an error here: PyTorch's default is 1 and MindSpore's 0, so each face passes its own."""
    if isinstance(ddof, bool):
        ddof, unbiased = None, ddof
    given = [v for v in (ddof, correction, unbiased) if v is not None]
    if len(given) > 1:
        raise TypeError(f"{name}: give one of ddof, correction and unbiased")
    if not given:
        raise ambiguous(f"{name}() without a correction", "divides by n - 1",
                        "divides by n", "pass ddof= (or correction=/unbiased=)")
    if unbiased is not None:
        return int(bool(unbiased))
    value = given[0]
    if not isinstance(value, numbers.Number) or value != int(value):
        raise TypeError(f"{name}: ddof (correction) must be an integer, got {value!r}")
    return int(value)


def _spread_stat(op, name, x, axis, ddof, keepdims, dim, correction, unbiased, keepdim):
    ddof = _correction(ddof, correction, unbiased, name)
    x, axes, keepdims = _axes_of(x, axis, dim, keepdims, keepdim, name)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    return op(x, axes=axes, keepdims=keepdims, ddof=ddof)


@export(methods=("var",))
def var(x, axis=None, ddof=None, keepdims=False, *, dim=None, correction=None, unbiased=None,
        keepdim=None):
    """Variance over ``axis``, dividing by ``n - ddof``; ``correction=`` and ``unbiased=``
    are PyTorch's names for ``ddof``.  One of them must be given: PyTorch's default is 1,
    MindSpore's 0 (``eagerad.torch.var`` and ``eagerad.mindspore.ops.var`` use theirs).

    >>> x = eagerad.tensor([1.0, 2.0, 3.0, 4.0])
    >>> var(x, ddof=0).item(), var(x, ddof=1).item(), x.var(dim=0, correction=1).item()
    (1.25, 1.6666666269302368, 1.6666666269302368)
    """
    return _spread_stat(_var, "var", x, axis, ddof, keepdims, dim, correction, unbiased, keepdim)


@export(methods=("std",))
def std(x, axis=None, ddof=None, keepdims=False, *, dim=None, correction=None, unbiased=None,
        keepdim=None):
    """Standard deviation over ``axis`` (``ddof`` as in ``var``); its gradient is 0
    where the deviation is 0 (PyTorch's convention), not nan.

    >>> x = eagerad.tensor([2.0, 2.0], requires_grad=True)
    >>> s = std(x, ddof=1); s.backward(); s.item(), x.grad.tolist()
    (0.0, [0.0, 0.0])
    """
    return _spread_stat(_std, "std", x, axis, ddof, keepdims, dim, correction, unbiased, keepdim)

# ---------------------------------------------------------- counts, nan-aware


@export(methods=("count_nonzero",))
def count_nonzero(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """Number of nonzero entries over ``axis`` (int64; not differentiable).

    >>> count_nonzero(eagerad.tensor([[0.0, 1.0], [2.0, 3.0]]), axis=1).tolist()
    [1, 2]
    """
    x, axes, keepdims = _axes_of(x, axis, dim, keepdims, keepdim, "count_nonzero")
    return _reduce_sum((x != 0).astype(dt.int64), axes, keepdims)


@export(methods=("nansum",))
def nansum(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """Sum over ``axis`` treating NaN as 0 (NaN entries get gradient 0).

    >>> nansum(eagerad.tensor([1.0, float("nan"), 2.0])).item()
    3.0
    """
    x, axes, keepdims = _axes_of(x, axis, dim, keepdims, keepdim, "nansum")
    return _reduce_sum(where(isnan(x), 0, x) if x.dtype.kind == "f" else x, axes, keepdims)


@export(methods=("nanmean",))
def nanmean(x, axis=None, keepdims=False, *, dim=None, keepdim=None):
    """Mean over ``axis`` of the entries that are not NaN.

    >>> nanmean(eagerad.tensor([1.0, float("nan"), 2.0])).item()
    1.5
    """
    x, axes, keepdims = _axes_of(x, axis, dim, keepdims, keepdim, "nanmean")
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    present = ~isnan(x)
    return _reduce_sum(where(present, x, 0), axes, keepdims) / \
        _reduce_sum(present.astype(x.dtype), axes, keepdims)

# ------------------------------------------------------------ order statistics


_METHODS = ("linear", "lower", "higher", "nearest", "midpoint")


def _positions(q, n, method):
    """Lower and upper sorted positions and the weight of the upper one, per quantile."""
    pos = q * (n - 1)
    lo = np.floor(pos)
    frac = pos - lo
    if method == "lower":
        frac = np.zeros_like(frac)
    elif method == "higher":
        frac = np.ceil(frac)
    elif method == "nearest":
        frac = (np.round(pos) > lo).astype(np.float64)
    elif method == "midpoint":
        frac = np.where(frac > 0, 0.5, 0.0)
    lo = lo.astype(np.int64)
    return lo, np.minimum(lo + 1, n - 1), frac


@export(methods=("quantile",))
def quantile(x, q, axis=None, keepdims=False, method="linear", *, dim=None, keepdim=None,
             interpolation=None):
    """The ``q``-th quantiles over ``axis`` (None flattens) with numpy's default linear
    interpolation between sorted entries (``method``/``interpolation``: 'linear',
    'lower', 'higher', 'nearest', 'midpoint'); ``q`` in [0, 1], a number or a 1-D
    sequence (its axis comes first in the result, as numpy and PyTorch).  The gradient
    goes to the (one or two) entries each quantile interpolates.

    >>> quantile(eagerad.tensor([1.0, 2.0, 3.0, 4.0]), 0.5).item()
    2.5
    """
    method = interpolation or method
    if method not in _METHODS:
        raise ValueError(f"quantile: method must be one of {_METHODS}, got {method!r}")
    qs = np.asarray(q.numpy() if isinstance(q, Tensor) else q, dtype=np.float64)
    if qs.ndim > 1 or not np.all((qs >= 0) & (qs <= 1)):
        raise ValueError(f"quantile: q must be a number or a 1-D sequence in [0, 1], got {q!r}")
    x = as_tensor(x)
    if keepdim is not None:
        keepdims = keepdim
    shape = x.shape
    x, ax = one_axis(x, axis, dim, "quantile")
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    if x.ndim == 0:
        x, ax = x.reshape(1), 0
    n = x.shape[ax]
    if n == 0:
        raise ValueError(f"quantile: the input of shape {shape} has no entries along the axis")
    values = sort_with_indices(x, ax).values
    lo, hi, frac = _positions(qs.reshape(-1), n, method)
    lead = (slice(None),) * ax
    low = values[lead + (lo,)]
    w = Tensor(frac.reshape((-1,) + (1,) * (x.ndim - ax - 1)), dtype=x.dtype, device=x.device)
    out = low + (values[lead + (hi,)] - low) * w
    out = transpose(out, (ax,) + tuple(d for d in range(out.ndim) if d != ax))    # q first
    if keepdims:
        kept = (1,) * len(shape) if axis is None and dim is None else \
            tuple(1 if d == ax else s for d, s in enumerate(shape))
        out = out.reshape((len(lo),) + kept)
    return out[0] if qs.ndim == 0 else out


@export
def median(x, axis=None, keepdims=False):
    """numpy's median over ``axis``: the mean of the two middle entries for an even
    count (the 0.5 quantile).  The Tensor method ``x.median(dim=None)`` is PyTorch's
    (the lower middle entry, with indices when ``dim`` is given).

    >>> median(eagerad.tensor([4.0, 1.0, 3.0, 2.0])).item()
    2.5
    """
    return quantile(x, 0.5, axis, keepdims)


def median_lower(x, dim=None, keepdim=False, *, axis=None):
    """PyTorch's ``median``: the lower of the two middle entries; over all entries
    (``dim`` None) the value alone, along ``dim`` ``(values, indices)``.  The gradient
    goes to the selected entry.

    >>> median_lower(eagerad.tensor([4.0, 1.0, 3.0, 2.0])).item()
    2.0
    >>> median_lower(eagerad.tensor([[4.0, 1.0, 3.0]]), 1).indices.tolist()
    [2]
    """
    if axis is not None:
        dim = axis
    x = as_tensor(x)
    flat = dim is None
    x, ax = one_axis(x, None, dim, "median")
    if x.ndim == 0:
        return x if flat else ValuesIndices(x, full((), 0, dtype=dt.int64, device=x.device))
    n = x.shape[ax]
    if n == 0:
        raise ValueError(f"median: no entries along dim {ax} of shape {x.shape}")
    values, indices = sort_with_indices(x, ax)
    index = (slice(None),) * ax + (slice((n - 1) // 2, (n + 1) // 2) if keepdim else (n - 1) // 2,)
    if flat:
        return values[index]
    return ValuesIndices(values[index], indices[index])


METHODS["median"] = median_lower
