"""Masked reductions and normalizations (PyTorch's ``torch.masked``), over eagerad's ops.

Each function takes PyTorch's arguments and a keyword ``mask`` (a bool tensor that
broadcasts to the input; None keeps every entry).  Masked-out entries are replaced by the
identity of the operation (0 for sums and norms, 1 for products, -inf for amax,
logsumexp and softmax, +inf for amin and softmin, NaN for the median), so they take no
part: a fully masked-out slice gives that identity (sum 0, amax -inf, ...), and ``nan``
where none exists (mean, median, var, std), as in PyTorch.  The gradient of a
masked-out entry is 0.  ``dtype=`` casts as PyTorch does.

>>> import eagerad
>>> from eagerad.ops import masked
>>> x = eagerad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
>>> m = eagerad.tensor([[True, False, True], [False, False, False]])
>>> masked.sum(x, 1, mask=m).tolist(), masked.amax(x, 1, mask=m).tolist()
([4.0, 0.0], [3.0, -inf])
"""
import builtins
import numbers

import numpy as np

from .. import dtype as dt
from . import cumulative as _cum, reduction as _red, statistics as _stats
from ..tensor import full
from .math import as_tensor, maximum, sqrt, where
from .nn_ops import log_softmax as _log_softmax, softmax as _softmax
from .norms import vector_norm as _vector_norm
from .order_statistics import nanmedian_lower
from .shape import clone
from .special import logaddexp as _logaddexp

_SMALL_INTS = (dt.bool_, dt.uint8, dt.int8, dt.int16, dt.int32)
__all__ = ["sum", "prod", "cumsum", "cumprod", "amax", "amin", "argmax", "argmin", "mean",
           "median", "logsumexp", "logaddexp", "norm", "var", "std", "softmax", "log_softmax",
           "softmin", "normalize"]

# ------------------------------------------------------------------ helpers


def _identity(kind, x, ord=None):
    """The value a masked-out entry takes for an operation of ``kind``."""
    if kind == "sum":
        return 0
    if kind == "prod":
        return 1
    if kind == "norm":
        return np.inf if ord == -np.inf else 0
    if kind == "median":
        return np.nan
    if x.dtype.kind == "f":
        return -np.inf if kind == "max" else np.inf
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        return info.min if kind == "max" else info.max
    raise TypeError(f"masked: no identity of {kind} for dtype {x.dtype}")


def _input_mask(x, mask, name):
    """``mask`` as a bool tensor of ``x``'s shape (None stays None)."""
    if mask is None:
        return None
    mask = as_tensor(mask, x)
    if mask.ndim > x.ndim:
        raise IndexError(f"masked.{name}: the mask has {mask.ndim} dimensions ({mask.shape}), "
                         f"more than the input's {x.ndim} ({x.shape})")
    try:
        np.broadcast_shapes(mask.shape, x.shape)
    except ValueError:
        raise ValueError(f"masked.{name}: a mask of shape {mask.shape} does not broadcast to "
                         f"the input's shape {x.shape}") from None
    if mask.shape != x.shape:
        mask = mask.broadcast_to(x.shape)
    return mask if mask.dtype == dt.bool_ else mask.astype(dt.bool_)


def _dims(dim, ndim, name):
    """PyTorch's reading of ``dim``: None or () all dimensions, else sorted and checked."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, numbers.Integral) else tuple(dim)
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"masked.{name}: dim {d} is out of range for {ndim} dimensions")
        d = d % max(ndim, 1)
        if d in out:
            raise RuntimeError(f"masked.{name}: dim {d} appears more than once in {dim!r}")
        out.append(d)
    return tuple(sorted(out))


class _Args:
    """The input (a 0-d one read as 1-D), its mask and dims, and how to shape the result."""

    def __init__(self, input, mask, dim, name, single=False):
        x = as_tensor(input)
        if single and not isinstance(dim, numbers.Integral):
            raise TypeError(f"masked.{name}: dim must be an int, got {dim!r}")
        self.dims = _dims(dim, x.ndim, name)
        self.mask = _input_mask(x, mask, name)
        self.scalar = x.ndim == 0
        if self.scalar:
            x = x.reshape(1)
            self.mask = None if self.mask is None else self.mask.reshape(1)
        self.x = x

    def filled(self, kind, x=None, ord=None):
        """The input with masked-out entries replaced by ``kind``'s identity."""
        x = self.x if x is None else x
        if self.mask is None:
            return x
        out = where(self.mask, x, _identity(kind, x, ord))
        return out if out.dtype == x.dtype else out.astype(x.dtype)

    def done(self, out):
        return out.reshape(()) if self.scalar else out

    @property
    def dim(self):
        return self.dims[0]


def _cast(t, dtype):
    return t if dtype is None or t.dtype == dtype else t.astype(dtype)


def _sum_dtype(x, dtype):
    """PyTorch's: small integer (and bool) sums and products are int64."""
    if dtype is not None:
        return dtype
    return dt.int64 if x.dtype in _SMALL_INTS else x.dtype

# --------------------------------------------------------------- reductions


def _total(name, kind, reduce, example):
    def fn(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        a = _Args(input, mask, dim, name)
        x = _cast(a.filled(kind), _sum_dtype(a.x, dtype))
        return a.done(reduce(x, axis=a.dims, keepdims=bool(keepdim)))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""{name.capitalize()} of the entries ``mask`` keeps over ``dim`` ({int(kind == 'prod')}
    where it keeps none); small integer types give int64, as PyTorch.

    >>> {name}(eagerad.tensor([2.0, 3.0, 4.0]), mask=eagerad.tensor([True, False, True])).item()
    {example}
    """
    return fn


sum = _total("sum", "sum", _red.sum, 6.0)
prod = _total("prod", "prod", _stats.prod, 8.0)


def cumsum(input, dim, *, dtype=None, mask=None):
    """Running sum along ``dim`` in which masked-out entries count as 0.

    >>> cumsum(eagerad.tensor([1.0, 2.0, 4.0]), 0, mask=eagerad.tensor([True, False, True])).tolist()
    [1.0, 1.0, 5.0]
    """
    a = _Args(input, mask, dim, "cumsum", single=True)
    return a.done(_cast(_cum.cumsum(_cast(a.filled("sum"), dtype), axis=a.dim), dtype or a.x.dtype))


def cumprod(input, dim, *, dtype=None, mask=None):
    """Running product along ``dim`` in which masked-out entries count as 1.

    >>> cumprod(eagerad.tensor([2.0, 0.0, 4.0]), 0, mask=eagerad.tensor([True, False, True])).tolist()
    [2.0, 2.0, 8.0]
    """
    a = _Args(input, mask, dim, "cumprod", single=True)
    return a.done(_cast(_cum.cumprod(_cast(a.filled("prod"), dtype), axis=a.dim),
                        dtype or a.x.dtype))


def _extreme(name, kind, reduce):
    def fn(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        a = _Args(input, mask, dim, name)
        return a.done(_cast(reduce(a.filled(kind), axis=a.dims, keepdims=bool(keepdim)),
                            dtype or a.x.dtype))
    fn.__name__ = fn.__qualname__ = name
    fill = "-inf" if kind == "max" else "inf"
    fn.__doc__ = f"""``{name}`` of the entries ``mask`` keeps over ``dim`` ({fill} where it keeps
    none); ties share the gradient.

    >>> {name}(eagerad.tensor([1.0, 9.0, 4.0]), mask=eagerad.tensor([True, False, True])).item()
    {dict(max=4.0, min=1.0)[kind]}
    """
    return fn


amax = _extreme("amax", "max", _red.amax)
amin = _extreme("amin", "min", _red.amin)


def _arg(name, kind, reduce):
    def fn(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        a = _Args(input, mask, dim, name)
        if dim is None:
            out = reduce(a.filled(kind), keepdims=bool(keepdim))
        else:
            out = reduce(a.filled(kind), axis=a.dim, keepdims=bool(keepdim))
        return a.done(_cast(out, dtype or a.x.dtype))
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"""Index of the {kind}imum of the entries ``mask`` keeps along ``dim``, in the
    input's dtype (as PyTorch's ``masked.{name}``).

    >>> {name}(eagerad.tensor([1.0, 9.0, 4.0]), 0, mask=eagerad.tensor([True, False, True])).item()
    {dict(max=2.0, min=0.0)[kind]}
    """
    return fn


argmax = _arg("argmax", "max", _red.argmax)
argmin = _arg("argmin", "min", _red.argmin)


def _count(a, keepdim):
    """How many entries each result sees (int64)."""
    if a.mask is None:
        n = 1
        for d in a.dims:
            n *= a.x.shape[d]
        shape = tuple(1 if d in a.dims else s for d, s in enumerate(a.x.shape)) if keepdim else \
            tuple(s for d, s in enumerate(a.x.shape) if d not in a.dims)
        return full(shape, n, dtype=dt.int64, device=a.x.device)
    return _red.sum(a.mask.astype(dt.int64), axis=a.dims, keepdims=bool(keepdim))


def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Mean of the entries ``mask`` keeps over ``dim`` (nan where it keeps none); the
    result is floating point (``dtype`` or the input's).

    >>> mean(eagerad.tensor([1.0, 9.0, 4.0]), mask=eagerad.tensor([True, False, True])).item()
    2.5
    """
    a = _Args(input, mask, dim, "mean")
    want = dtype or a.x.dtype
    if want.kind != "f":
        raise ValueError(f"masked.mean: the result dtype must be floating point, got {want}")
    total = _red.sum(_cast(a.filled("sum"), want), axis=a.dims, keepdims=bool(keepdim))
    return a.done(total / _count(a, keepdim))


def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    """Lower median of the entries ``mask`` keeps along ``dim`` (nan where it keeps none);
    the gradient goes to the entry picked.

    >>> median(eagerad.tensor([1.0, 9.0, 4.0, 2.0]), mask=eagerad.tensor([True, False, True, True])).item()
    2.0
    """
    a = _Args(input, mask, dim, "median", single=True)
    is_float = a.x.dtype.kind == "f"
    x = a.x if is_float else a.x.astype(dt.float32)
    out = nanmedian_lower(a.filled("median", x), a.dim, bool(keepdim)).values
    if not is_float:
        if bool(out.isnan().any()):
            raise ValueError("masked.median: a fully masked-out slice has no median in a "
                             "non-floating-point dtype")
        out = out.astype(dtype or a.x.dtype)
    return a.done(out)


def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    """``log(sum(exp(x)))`` of the entries ``mask`` keeps over ``dim`` (-inf where none).

    >>> round(logsumexp(eagerad.tensor([0.0, 5.0, 0.0]), mask=eagerad.tensor([True, False, True])).item(), 4)
    0.6931
    """
    a = _Args(input, mask, dim, "logsumexp")
    out = _red.logsumexp(a.filled("max"), axis=a.dims, keepdims=bool(keepdim))
    return a.done(_cast(out, dtype or a.x.dtype))


def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    """``log(exp(input) + exp(other))`` with the masked-out entries of each left out
    (-inf where both are).

    >>> x, y = eagerad.tensor([0.0, 0.0]), eagerad.tensor([0.0, 3.0])
    >>> logaddexp(x, y, input_mask=eagerad.tensor([True, False])).tolist()
    [0.6931471824645996, 3.0]
    """
    a = _Args(input, input_mask, None, "logaddexp")
    b = _Args(other, other_mask, None, "logaddexp")
    out = _logaddexp(a.done(a.filled("max")), b.done(b.filled("max")))
    return _cast(out, dtype or a.x.dtype)


def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    """Vector ``ord``-norm of the entries ``mask`` keeps over ``dim`` (0 where none, inf
    for ``ord=-inf``).

    >>> norm(eagerad.tensor([3.0, 9.0, 4.0]), 2.0, mask=eagerad.tensor([True, False, True])).item()
    5.0
    """
    a = _Args(input, mask, dim, "norm")
    x = _cast(a.filled("norm", ord=ord), dtype)
    return a.done(_vector_norm(x, ord, a.dims, bool(keepdim)))


def _spread(name, input, dim, unbiased, correction, keepdim, dtype, mask, root):
    if unbiased is not None and correction is not None:
        raise TypeError(f"masked.{name}: give unbiased or correction, not both")
    correction = float(correction if correction is not None else
                       1.0 if unbiased is None else float(bool(unbiased)))
    a = _Args(input, mask, dim, name)
    if dtype is None:
        dtype = a.x.dtype if a.x.dtype.kind == "f" else dt.float32
    work = dtype if dtype.kind == "f" else dt.float32
    count = _count(a, True)
    mean_ = _red.sum(_cast(a.filled("sum"), dtype), axis=a.dims, keepdims=True) / count
    centred = a.x - mean_
    total = _red.sum(_cast(a.filled("sum", centred * centred), work), axis=a.dims,
                     keepdims=bool(keepdim))
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        count = maximum(count.astype(work) - correction, 0.0)
    out = _cast(total / count, dtype)
    return a.done(sqrt(out) if root else out)


def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Variance of the entries ``mask`` keeps over ``dim``, dividing by ``count -
    correction`` (PyTorch's default correction 1; nan where that is not positive).

    >>> var(eagerad.tensor([1.0, 9.0, 3.0]), mask=eagerad.tensor([True, False, True])).item()
    2.0
    """
    return _spread("var", input, dim, unbiased, correction, keepdim, dtype, mask, False)


def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None, mask=None):
    """Standard deviation: the square root of ``var`` (same arguments).

    >>> std(eagerad.tensor([1.0, 9.0, 3.0]), mask=eagerad.tensor([True, False, True]), correction=0).item()
    1.0
    """
    return _spread("std", input, dim, unbiased, correction, keepdim, dtype, mask, True)

# ------------------------------------------------------------ normalizations


def _normalizer(name, kind, fn, negate=False):
    def op(input, dim, *, dtype=None, mask=None):
        a = _Args(input, mask, dim, name, single=True)
        x = _cast(a.filled(kind), dtype)
        if x.size == 0:       # nothing to normalize (the backend's softmax needs an entry)
            return a.done(clone(x))
        return a.done(fn(-x if negate else x, a.dim))
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"""``{name}`` along ``dim`` over the entries ``mask`` keeps (the others get
    {'-inf' if name == 'log_softmax' else '0'}; nan where it keeps none).

    >>> {name}(eagerad.tensor([1.0, 9.0, 1.0]), 0, mask=eagerad.tensor([True, False, True])).tolist()
    {[-0.6931471824645996, float('-inf'), -0.6931471824645996] if name == 'log_softmax' else [0.5, 0.0, 0.5]}
    """
    return op


softmax = _normalizer("softmax", "max", _softmax)
log_softmax = _normalizer("log_softmax", "max", _log_softmax)
softmin = _normalizer("softmin", "min", _softmax, negate=True)


def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    """``input`` divided by the ``ord``-norm of the entries ``mask`` keeps along ``dim``
    (at least ``eps``); masked-out entries become 0.

    >>> normalize(eagerad.tensor([3.0, 9.0, 4.0]), 2.0, 0, mask=eagerad.tensor([True, False, True])).tolist()
    [0.6, 0.0, 0.8]
    """
    a = _Args(input, mask, dim, "normalize")
    denom = norm(a.x, ord, a.dims, keepdim=True, dtype=dtype, mask=a.mask)
    return a.done(a.filled("sum") / maximum(denom, builtins.float(eps)))
