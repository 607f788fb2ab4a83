"""PyTorch's keywords and conventions over the neutral ops, for ``eagerad.torch``.

What PyTorch reads its own way and the core (shared with MindSpore) does not:

- ``dim=`` on ``cat``/``concat``/``concatenate``/``stack``/``unsqueeze``/``softmax``
- a 0-d tensor reduced over ``dim=0`` or ``-1`` (PyTorch treats it as 1-D)
- ``div(rounding_mode=)``, ``round(decimals=)``, ``clamp`` with tensor bounds
- ``flatten(start, end)`` over a single dimension is a no-op; ``expand(-1, ...)`` keeps a size
- ``x.select(dim, i)`` (MindSpore's ``select`` is ``where``), ``x.unfold(dim, size, step)``
  (MindSpore's ``unfold`` is im2col), ``torch.take_along_dim`` without ``dim``

The functions here are ``torch.*`` names; ``TENSOR_METHODS`` are installed as the methods
of tensors stamped by this face.

>>> import eagerad.torch as torch
>>> a = torch.ones(2, 3)
>>> torch.cat([a, a], dim=1).shape, a.flatten(1).shape, torch.sum(torch.tensor(2.0), 0)
(torch.Size([2, 6]), torch.Size([2, 3]), tensor(2.))
"""
import builtins
from collections import namedtuple as _namedtuple

from .. import linalg as _linalg
from .. import ops as _ops
from ..face import install as _install
from ..ops import shape as _shape
from ..ops.norms import vector_norm as _vector_norm
from ..tensor import Tensor as _Tensor, tensor as _tensor
from ._face import TORCH as _TORCH

# the same meaning in PyTorch and MindSpore: the core's own functions
from ..ops import (absolute, addbmm, addcdiv, addcmul, addmm, addmv, addr, arccos, arccosh,  # noqa: F401
                   arcsin, arcsinh, arctan, arctanh, baddbmm, bmm, clamp_max, clamp_min, fix,
                   frac, hardshrink, ldexp, lerp, mm, mv, positive, sgn, trunc, vdot)
from ..ops import (block_diag, cartesian_prod, diagflat, dist, expand_as, masked_scatter,  # noqa: F401
                   ravel, reshape_as, swapdims, unflatten, view_as)
from ..ops import outer as ger  # noqa: F401

__all__ = ["absolute", "addbmm", "addcdiv", "addcmul", "addmm", "addmv", "addr", "arccos",
           "arccosh", "arcsin", "arcsinh", "arctan", "arctanh", "baddbmm", "bmm", "clamp_max",
           "clamp_min", "fix", "frac", "ger", "hardshrink", "ldexp", "lerp", "mm", "mv",
           "positive", "sgn", "swapdims", "trunc", "vdot", "block_diag", "cartesian_prod",
           "diagflat", "dist", "expand_as", "masked_scatter", "ravel", "reshape_as", "unflatten",
           "view_as"]


def _public(fn):
    __all__.append(fn.__name__)
    return fn


def _made(fn, name, summary, example, result):
    """Name a generated ``torch.<name>`` function, give it a docstring whose doctest runs
    ``example`` (``torch.`` prefixed) expecting ``result``, and make it public."""
    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = (f"{summary}\n\n    >>> import eagerad.torch as torch\n"
                  f"    >>> {example}\n    {result}\n    ")
    return _public(fn)


# ----------------------------------------------------------------------------- dims

def _axis(dim, ndim):
    return _shape.normalize_axis(dim, ndim)[0]


def _dims(dim):
    return tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)


def _scalar_dims(input, dim, name):
    """PyTorch reduces a 0-d tensor over dim 0 or -1 as if it were 1-D: no dim left."""
    if input.ndim == 0 and dim is not None:
        bad = [d for d in _dims(dim) if d not in (0, -1)]
        if bad:
            raise IndexError(f"{name}: dim {bad[0]} is out of range for a 0-d tensor "
                             "(expected 0 or -1)")
        return None
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return None                         # dim=() or [] reduces every dimension
    return dim


def _reduction(name, core, has_dtype):
    def reduce(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None,
               keepdims=None):
        if keepdims is not None:
            keepdim = keepdims
        if axis is not None:                # the core's own spelling, used by its rules:
            return core(input, axis=axis, keepdims=keepdim)     # numpy's meaning of ()
        dim = _scalar_dims(input, dim, name)
        if dtype is not None:
            input = input.to(dtype=dtype)
        return core(input, dim=dim, keepdim=keepdim)
    return _made(reduce, name, f"``torch.{name}(input, dim=None, keepdim=False)``; a 0-d "
                 "input takes ``dim`` 0 or -1.", f"torch.{name}(torch.tensor(2.0), 0).shape",
                 "torch.Size([])")


sum = _reduction("sum", _ops.sum, True)
mean = _reduction("mean", _ops.mean, True)
nansum = _reduction("nansum", _ops.nansum, True)
nanmean = _reduction("nanmean", _ops.nanmean, True)
amax = _reduction("amax", _ops.amax, False)
amin = _reduction("amin", _ops.amin, False)
logsumexp = _reduction("logsumexp", _ops.logsumexp, False)


# ----------------------------------------------------------------------------- joining

@_public
def cat(tensors, dim=0, *, axis=None, out=None):
    """``torch.cat(tensors, dim=0)`` (``concat``, ``concatenate`` are its aliases).

    >>> import eagerad.torch as torch
    >>> torch.cat([torch.ones(1, 2), torch.zeros(1, 2)], dim=1).tolist()
    [[1.0, 1.0, 0.0, 0.0]]
    """
    return _ops.cat(list(tensors), dim if axis is None else axis)


concat = concatenate = cat
__all__ += ["concat", "concatenate"]


@_public
def stack(tensors, dim=0, *, axis=None, out=None):
    """``torch.stack(tensors, dim=0)`` (``axis=``, numpy's name, as PyTorch accepts it).

    >>> import eagerad.torch as torch
    >>> torch.stack([torch.ones(2), torch.zeros(2)], dim=1).shape
    torch.Size([2, 2])
    """
    return _ops.stack(list(tensors), dim if axis is None else axis)


@_public
def unsqueeze(input, dim=None, *, axis=None):
    """``torch.unsqueeze(input, dim)``.

    >>> import eagerad.torch as torch
    >>> torch.unsqueeze(torch.ones(2), dim=0).shape
    torch.Size([1, 2])
    """
    return _ops.unsqueeze(input, dim if axis is None else axis)


# ----------------------------------------------------------------------------- arithmetic

@_public
def div(input, other, *, rounding_mode=None, out=None):
    """``torch.div``: true division, or rounded toward zero (``'trunc'``) or down (``'floor'``).

    >>> import eagerad.torch as torch
    >>> x = torch.tensor([-7.0, 7.0])
    >>> torch.div(x, 2, rounding_mode="trunc").tolist(), torch.div(x, 2, rounding_mode="floor").tolist()
    ([-3.0, 3.0], [-4.0, 3.0])
    """
    quotient = _ops.div(input, other)
    if rounding_mode is None:
        return quotient
    if rounding_mode == "trunc":
        return trunc(quotient)
    if rounding_mode == "floor":
        return _ops.floor(quotient)
    raise ValueError(f"div: rounding_mode must be None, 'trunc' or 'floor', got {rounding_mode!r}")


divide = div
__all__.append("divide")


def _div_inplace(self, other, *, rounding_mode=None):
    """``Tensor.div_``: in place, rounded as ``torch.div`` rounds.

    >>> import eagerad.torch as torch
    >>> torch.tensor([-7.0, 7.0]).div_(2, rounding_mode="floor").tolist()
    [-4.0, 3.0]
    """
    if rounding_mode not in (None, "trunc", "floor"):
        raise ValueError(f"div_: rounding_mode must be None, 'trunc' or 'floor', got "
                         f"{rounding_mode!r}")
    _Tensor.div_(self, other)                  # (class access: the neutral method)
    return self if rounding_mode is None else getattr(self, rounding_mode + "_")()


@_public
def round(input, *, decimals=0, out=None):
    """``torch.round``: half to even, at ``decimals`` decimal places.

    >>> import eagerad.torch as torch
    >>> torch.round(torch.tensor([1.2345, 2.5]), decimals=2).tolist(), torch.round(torch.tensor(2.5)).item()
    ([1.23, 2.5], 2.0)
    """
    if decimals == 0:
        return _ops.round(input)
    scale = 10.0 ** decimals
    return _ops.round(input * scale) / scale


@_public
def clamp(input, min=None, max=None, *, out=None, clip_value_min=None, clip_value_max=None):
    """``torch.clamp``: bounds are numbers or broadcastable tensors; ``min > max`` gives ``max``.

    >>> import eagerad.torch as torch
    >>> torch.clamp(torch.tensor([-2.0, 0.5, 3.0]), min=torch.tensor([-1.0, 1.0, 1.0]), max=2.0).tolist()
    [-1.0, 1.0, 2.0]
    """
    min = clip_value_min if min is None else min
    max = clip_value_max if max is None else max
    if min is None and max is None:
        raise ValueError("clamp: at least one of min and max must be given")
    if not isinstance(min, _Tensor) and not isinstance(max, _Tensor):
        return _ops.clamp(input, min, max)
    out_ = input if min is None else clamp_min(input, min)
    return out_ if max is None else clamp_max(out_, max)


clip = clamp
__all__.append("clip")


def _softmax_family(name, core):
    def fn(input, dim=None, dtype=None, *, _stacklevel=3, axis=None):
        if axis is not None:
            dim = axis
        if dtype is not None:
            input = input.to(dtype=dtype)
        if dim is None:
            dim = 0 if input.ndim in (0, 1, 3) else 1     # PyTorch's legacy implicit dim
        return core(input, dim)
    return _made(fn, name, f"``torch.{name}(input, dim, dtype=None)``.",
                 f"torch.{name}(torch.zeros(2, 2), dim=1, dtype=torch.float64).dtype "
                 "== torch.float64", "True")


softmax = _softmax_family("softmax", _ops.softmax)
log_softmax = _softmax_family("log_softmax", _ops.log_softmax)


# ----------------------------------------------------------------------------- shapes

@_public
def flatten(input, start_dim=0, end_dim=-1):
    """``torch.flatten``: a 0-d input becomes 1-D; one dimension alone is left as it is.

    >>> import eagerad.torch as torch
    >>> torch.flatten(torch.ones(2, 3), 1).shape, torch.flatten(torch.tensor(1.0)).shape
    (torch.Size([2, 3]), torch.Size([1]))
    """
    if input.ndim == 0:
        _scalar_dims(input, (start_dim, end_dim), "flatten")
        return input.reshape(1)
    start, end = _axis(start_dim, input.ndim), _axis(end_dim, input.ndim)
    if start > end:
        raise ValueError(f"flatten: start_dim {start_dim} comes after end_dim {end_dim} "
                         f"for shape {tuple(input.shape)}")
    if start == end:
        return input.reshape(tuple(input.shape))
    return _ops.flatten(input, start, end)


@_public
def select(input, dim, index):
    """``torch.select``: the slice at ``index`` along ``dim``, that dimension removed.

    >>> import eagerad.torch as torch
    >>> torch.select(torch.arange(6).reshape(2, 3), 1, -1).tolist()
    [2, 5]
    """
    dim = _axis(dim, input.ndim)
    return input[(slice(None),) * dim + (index,)]


@_public
def tensordot(a, b, dims=2, out=None):
    """``torch.tensordot(a, b, dims)``.

    >>> import eagerad.torch as torch
    >>> torch.tensordot(torch.ones(2, 3), torch.ones(3, 4), dims=1).shape
    torch.Size([2, 4])
    """
    if isinstance(dims, _Tensor):
        dims = dims.tolist()
    if not isinstance(dims, int):           # a size-1 axis broadcasts against its partner
        a, b = _broadcast_contracted(a, b, [_dims(d) for d in dims])
    return _ops.tensordot(a, b, dims)


def _broadcast_contracted(a, b, dims):
    """``a`` and ``b`` with each contracted axis of size 1 expanded to its partner's size,
    as ``torch.tensordot`` broadcasts them."""
    sa, sb = list(a.shape), list(b.shape)
    for i, j in zip(*dims):
        if sa[i] != sb[j] and 1 in (sa[i], sb[j]):
            sa[i] = sb[j] = builtins.max(sa[i], sb[j])
    return (a if list(a.shape) == sa else a.broadcast_to(tuple(sa)),
            b if list(b.shape) == sb else b.broadcast_to(tuple(sb)))


@_public
def tensor_split(input, indices_or_sections, dim=0):
    """``torch.tensor_split``: a count of sections or the split indices, also as a tensor
    (0-d: a count; 1-D: indices).

    >>> import eagerad.torch as torch
    >>> [t.shape[0] for t in torch.tensor_split(torch.ones(5), torch.tensor([1, 3]))]
    [1, 2, 2]
    """
    if isinstance(indices_or_sections, _Tensor):
        indices_or_sections = indices_or_sections.tolist()
    return _ops.tensor_split(input, indices_or_sections, dim)


@_public
def take_along_dim(input, indices, dim=None, *, out=None):
    """``torch.take_along_dim``: without ``dim``, both are flattened first.

    >>> import eagerad.torch as torch
    >>> torch.take_along_dim(torch.tensor([[1.0, 5.0], [3.0, 2.0]]), torch.tensor([1, 2])).tolist()
    [5.0, 3.0]
    """
    if dim is None:
        return _ops.take_along_dim(input.reshape(-1), indices.reshape(-1), 0)
    return _ops.take_along_dim(input, indices, dim)


@_public
def index_select(input, dim=None, index=None, *, out=None, axis=None):
    """``torch.index_select``; a 0-d input is indexed as 1-D along dim 0.

    >>> import eagerad.torch as torch
    >>> torch.index_select(torch.tensor([[1.0, 2.0], [3.0, 4.0]]), 1, torch.tensor([1])).tolist()
    [[2.0], [4.0]]
    """
    if axis is not None:
        dim = axis
    if input.ndim == 0:
        _scalar_dims(input, dim, "index_select")
        return _ops.index_select(input.reshape(1), 0, index.reshape(-1)).reshape(())
    return _ops.index_select(input, dim, index)


@_public
def index_add(input, dim=None, index=None, source=None, *, alpha=1, out=None, axis=None):
    """``torch.index_add``; a 0-d input is treated as 1-D along dim 0.

    >>> import eagerad.torch as torch
    >>> torch.index_add(torch.zeros(3), 0, torch.tensor([0, 0]), torch.ones(2)).tolist()
    [2.0, 0.0, 0.0]
    """
    if axis is not None:
        dim = axis
    if input.ndim == 0:
        _scalar_dims(input, dim, "index_add")
        return _ops.index_add(input.reshape(1), 0, index.reshape(-1), source.reshape(-1),
                              alpha=alpha).reshape(())
    return _ops.index_add(input, dim, index, source, alpha=alpha)


def _expand(self, *sizes):
    """``x.expand(*sizes)``: ``-1`` keeps a size; new leading dimensions go in front."""
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    lead = len(sizes) - self.ndim
    if lead < 0:
        raise ValueError(f"expand: {len(sizes)} sizes for a tensor of shape {tuple(self.shape)}")
    shape = tuple(self.shape[i - lead] if s == -1 and i >= lead else s
                  for i, s in enumerate(sizes))
    return _ops.broadcast_to(self, shape)


def _unfold(self, dimension, size, step):
    """``x.unfold(dimension, size, step)``: windows of ``size`` every ``step`` along
    ``dimension``, as a new last dimension."""
    dim = _axis(dimension, builtins.max(self.ndim, 1))
    x = self.reshape(1) if self.ndim == 0 else self
    n = x.shape[dim]
    if size > n or step <= 0:
        raise ValueError(f"unfold: size {size} and step {step} do not fit dimension "
                         f"{dimension} of size {n}")
    starts = list(range(0, n - size + 1, step))
    index = _tensor([s + k for s in starts for k in range(size)])
    picked = _ops.index_select(x, dim, index)
    shape = tuple(x.shape)
    picked = picked.reshape(shape[:dim] + (len(starts), size) + shape[dim + 1:])
    out = _ops.movedim(picked, dim + 1, -1)
    return out.reshape(out.shape[:-1]) if self.ndim == 0 else out


# ----------------------------------------------------------------------------- more names

# torch.X spellings of nn.functional.X (same arguments)
from ..nn.functional import (celu, conv1d, conv2d, conv_transpose2d, cosine_similarity,  # noqa: E402,F401
                             group_norm, layer_norm, pairwise_distance, pixel_shuffle,
                             pixel_unshuffle, rms_norm, selu, threshold)
from ..nn.functional import avg_pool1d, adaptive_avg_pool2d, pdist, prelu  # noqa: E402,F401
from ..nn.functional import bilinear, channel_shuffle, instance_norm  # noqa: E402,F401
from ..ops import corrcoef, cov, float_power  # noqa: E402,F401
from ..ops import (as_strided, as_strided_scatter, index_put, diagonal_scatter, index_copy,  # noqa: E402,F401
                   index_fill, put, select_scatter, slice_scatter)
__all__ += ["celu", "conv1d", "conv2d", "conv_transpose2d", "cosine_similarity", "group_norm",
            "layer_norm", "pairwise_distance", "pixel_shuffle", "pixel_unshuffle", "rms_norm",
            "selu", "threshold", "avg_pool1d", "pdist", "prelu", "bilinear", "channel_shuffle",
            "instance_norm", "as_strided", "as_strided_scatter",
            "diagonal_scatter", "index_copy", "index_put", "index_fill", "put", "select_scatter",
            "slice_scatter", "corrcoef", "cov", "float_power"]


@_public
def permute(input, dims):
    """``torch.permute(input, dims)``.

    >>> import eagerad.torch as torch
    >>> torch.permute(torch.ones(2, 3, 4), (2, 0, 1)).shape
    torch.Size([4, 2, 3])
    """
    return input.permute(*dims)


def _scaled(name, other, alpha):
    """PyTorch's ``alpha * other`` of ``add``/``sub`` (``other`` itself for alpha 1)."""
    if isinstance(alpha, bool) or not isinstance(alpha, (int, builtins.float, builtins.complex)):
        raise TypeError(f"{name}(): alpha must be a number, got {type(alpha).__name__}")
    return other if alpha == 1 else other * alpha


@_public
def add(input, other, *, alpha=1, out=None):
    """``torch.add``: ``input + alpha * other``.

    >>> import eagerad.torch as torch
    >>> torch.add(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]), alpha=3).tolist()
    [4.0, 5.0]
    """
    return _ops.add(input, _scaled("add", other, alpha))


@_public
def sub(input, other, *, alpha=1, out=None):
    """``torch.sub``: ``input - alpha * other``.

    >>> import eagerad.torch as torch
    >>> torch.sub(torch.tensor([1.0, 2.0]), torch.tensor([1.0, 1.0]), alpha=3).tolist()
    [-2.0, -1.0]
    """
    return _ops.sub(input, _scaled("sub", other, alpha))


subtract = sub
__all__.append("subtract")


@_public
def rsub(input, other, *, alpha=1):
    """``other - alpha * input``.

    >>> import eagerad.torch as torch
    >>> torch.rsub(torch.tensor([1.0]), 5.0, alpha=2).tolist()
    [3.0]
    """
    return other - (input if alpha == 1 else input * alpha)


def _spread_and_mean(name, spread):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        from . import std, var
        stat = {"std": std, "var": var}[spread]
        if isinstance(dim, bool):           # torch.std_mean(x, True): ``unbiased``
            dim, unbiased = None, dim
        dim = _scalar_dims(input, dim, name)
        return (stat(input, dim, unbiased, keepdim, correction=correction),
                mean(input, dim, keepdim))
    expected = {"std": 1.4142135623730951, "var": 2.0}[spread]
    return _made(fn, name, f"``torch.{name}``: ``({spread}, mean)`` in one call.",
                 f"[t.item() for t in torch.{name}(torch.tensor([1.0, 3.0], "
                 "dtype=torch.float64))]", f"[{expected!r}, 2.0]")


std_mean = _spread_and_mean("std_mean", "std")
var_mean = _spread_and_mean("var_mean", "var")


@_public
def aminmax(input, *, dim=None, keepdim=False):
    """``torch.aminmax``: ``(min, max)`` over ``dim`` (all elements when None).

    >>> import eagerad.torch as torch
    >>> torch.aminmax(torch.tensor([[1.0, 5.0], [3.0, 2.0]]), dim=1)
    MinMax(min=tensor([1., 2.]), max=tensor([5., 3.]))
    """
    return _MinMax(amin(input, dim, keepdim), amax(input, dim, keepdim))


_MinMax = _namedtuple("MinMax", ["min", "max"])


def _trapezoid_parts(y, x, dx, dim):
    dim = _axis(dim, y.ndim)
    n = y.shape[dim]
    lo, hi = _ops.narrow(y, dim, 0, n - 1), _ops.narrow(y, dim, 1, n - 1)
    if x is None:
        return (lo + hi) * (0.5 * (1.0 if dx is None else dx)), dim
    if isinstance(x, _Tensor):
        if x.ndim == 1:
            shape = [1] * y.ndim
            shape[dim] = n
            x = x.reshape(shape)
        xd = _ops.diff(x, axis=dim if x.ndim == y.ndim else -1)
    else:
        raise TypeError(f"trapezoid: x must be a tensor, got {type(x).__name__}")
    return (lo + hi) * xd * 0.5, dim


@_public
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.trapezoid``: the trapezoid rule along ``dim``, spacing ``dx`` or points ``x``.

    >>> import eagerad.torch as torch
    >>> torch.trapezoid(torch.tensor([1.0, 2.0, 3.0])).item(), torch.trapezoid(torch.tensor([1.0, 3.0]), dx=2.0).item()
    (4.0, 4.0)
    """
    if y.shape[_axis(dim, y.ndim)] == 0:
        return sum(y, dim)
    parts, dim = _trapezoid_parts(y, x, dx, dim)
    return sum(parts, dim)


@_public
def trapz(y, x=None, *, dx=None, dim=-1):
    """``torch.trapz``: ``trapezoid``'s older name (``dx`` may be positional).

    >>> import eagerad.torch as torch
    >>> torch.trapz(torch.tensor([1.0, 3.0]), dx=2.0).item()
    4.0
    """
    if x is not None and not isinstance(x, _Tensor):
        x, dx = None, x
    return trapezoid(y, x, dx=dx, dim=dim)


@_public
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """``torch.cumulative_trapezoid``: running trapezoid sums along ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.cumulative_trapezoid(torch.tensor([1.0, 2.0, 3.0])).tolist()
    [1.5, 4.0]
    """
    parts, dim = _trapezoid_parts(y, x, dx, dim)
    return _ops.cumsum(parts, dim)


@_public
def combinations(input, r=2, with_replacement=False):
    """``torch.combinations``: the length-``r`` combinations of a 1-D tensor, one per row.

    >>> import eagerad.torch as torch
    >>> torch.combinations(torch.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    import itertools
    if input.ndim != 1:
        raise ValueError(f"combinations: input must be 1-D, got shape {tuple(input.shape)}")
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(pick(range(input.shape[0]), r))
    if not rows:
        return input[:0].reshape(0, r) if r else input[:0]
    return input[_tensor(rows)]


def _identity(name, doc):
    def fn(input):
        return input
    return _made(fn, name, doc, f"torch.{name}(torch.tensor([1.0])).tolist()", "[1.0]")


resolve_conj = _identity("resolve_conj", "``torch.resolve_conj``: conjugation is never lazy here.")
resolve_neg = _identity("resolve_neg", "``torch.resolve_neg``: negation is never lazy here.")
from ..ops.complex_ops import (angle, conj, imag, is_complex, polar, real,  # noqa: E402
                               view_as_complex, view_as_real)
from ..ops.complex_ops import complex_ as complex  # noqa: E402
from .fft import stft  # noqa: E402
conj_physical = conj
__all__ += ["angle", "complex", "conj", "conj_physical", "imag", "is_complex", "polar", "real",
            "stft", "view_as_complex", "view_as_real"]


def _copy_of(name, fn, args, result):
    def copy(input, *args, **kwargs):
        out = fn(input, *args, **kwargs)
        return [t.clone() for t in out] if isinstance(out, (tuple, list)) else out.clone()
    call = f"torch.{name}(torch.ones(2, 1){''.join(', ' + repr(a) for a in args)})"
    example = f"len({call})" if isinstance(result, int) else f"{call}.shape"
    return _made(copy, name, f"``torch.{name}``: ``{fn.__name__}`` as a new tensor (never "
                 "a view).", example, result)


@_public
def split_with_sizes(input, split_sizes, dim=0):
    """``torch.split_with_sizes``: pieces of the given sizes along ``dim``.

    >>> import eagerad.torch as torch
    >>> [t.shape[0] for t in torch.split_with_sizes(torch.ones(5), [2, 3])]
    [2, 3]
    """
    return _ops.split(input, list(split_sizes), dim)


def _narrow(input, dim, start, length):
    return _ops.narrow(input, dim, start, length)


def _view(input, *shape):
    return input.reshape(*shape)


def _expand_fn(input, size, *, implicit=False):
    return _expand(input, size)


alias_copy = _copy_of("alias_copy", lambda x: x, (), 'torch.Size([2, 1])')
expand_copy = _copy_of("expand_copy", _expand_fn, ((3, 2, 1),), 'torch.Size([3, 2, 1])')
permute_copy = _copy_of("permute_copy", permute, ((1, 0),), 'torch.Size([1, 2])')
diagonal_copy = _copy_of("diagonal_copy", _ops.diagonal, (), 'torch.Size([1])')
t_copy = _copy_of("t_copy", _ops.t, (), 'torch.Size([1, 2])')
transpose_copy = _copy_of("transpose_copy", _ops.swapaxes, (0, 1), 'torch.Size([1, 2])')
unsqueeze_copy = _copy_of("unsqueeze_copy", unsqueeze, (0,), 'torch.Size([1, 2, 1])')
unbind_copy = _copy_of("unbind_copy", _ops.unbind, (0,), 2)
view_copy = _copy_of("view_copy", _view, ((1, 2),), 'torch.Size([1, 2])')
narrow_copy = _copy_of("narrow_copy", _narrow, (0, 1, 1), 'torch.Size([1, 1])')
unfold_copy = _copy_of("unfold_copy", lambda x, d, size, step: _unfold(x, d, size, step), (0, 1, 1), 'torch.Size([2, 1, 1])')
split_with_sizes_copy = _copy_of("split_with_sizes_copy", split_with_sizes, ([1, 1],), 2)
unsafe_split = _copy_of("unsafe_split", _ops.split, (1,), 2)
unsafe_chunk = _copy_of("unsafe_chunk", _ops.chunk, (2,), 2)


def _squeeze_any(input, dim=None):
    return input.squeeze(dim)


squeeze_copy = _copy_of("squeeze_copy", _squeeze_any, (), 'torch.Size([2])')


def _sum_to_size(self, *size):
    """``x.sum_to_size(*size)``: summed down to ``size`` (the inverse of broadcasting)."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    lead = self.ndim - len(size)
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and self.shape[lead + i] != 1)
    out = _ops.sum(self, axis=axes, keepdims=True) if axes else self
    return out.reshape(size)


# ----------------------------------------------------------------------------- linear algebra
# and distances under PyTorch's older top-level names

@_public
def cholesky(input, upper=False, *, out=None):
    """``torch.cholesky``: the Cholesky factor (lower, or upper when ``upper``).

    >>> import eagerad.torch as torch
    >>> torch.cholesky(torch.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    return _linalg.cholesky(input, upper=upper)


@_public
def cholesky_solve(B, L, upper=False, *, out=None):
    """``torch.cholesky_solve(B, L)``: solves ``A X = B`` given ``A``'s Cholesky factor ``L``.

    >>> import eagerad.torch as torch
    >>> torch.cholesky_solve(torch.tensor([[2.0], [4.0]]), torch.tensor([[1.0, 0.0], [0.0, 2.0]])).tolist()
    [[2.0], [1.0]]
    """
    return _linalg.cholesky_solve(B, L, upper=upper)


@_public
def cholesky_inverse(L, upper=False, *, out=None):
    """``torch.cholesky_inverse``: the inverse of ``A = L L^T`` (``U^T U`` when ``upper``).

    >>> import eagerad.torch as torch
    >>> torch.cholesky_inverse(torch.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [[0.25, 0.0], [0.0, 1.0]]
    """
    factor = L.swapaxes(-1, -2) if upper else L
    eye = _ops.eye(L.shape[-1], dtype=L.dtype)
    return _linalg.cholesky_solve(_ops.broadcast_to(eye, tuple(L.shape)), factor)


@_public
def pinverse(input, rcond=1e-15):
    """``torch.pinverse``: the pseudo-inverse, singular values below ``rcond * max`` dropped.

    >>> import eagerad.torch as torch
    >>> torch.pinverse(torch.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    return _linalg.pinv(input, rtol=rcond)


_QR = _namedtuple("QR", ["Q", "R"])
_SVD = _namedtuple("SVD", ["U", "S", "V"])


@_public
def qr(input, some=True, *, out=None):
    """``torch.qr``: reduced (``some``) or complete ``(Q, R)``.

    >>> import eagerad.torch as torch
    >>> torch.qr(torch.eye(2)).R.tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _QR(*_linalg.qr(input, mode="reduced" if some else "complete"))


@_public
def svd(input, some=True, compute_uv=True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with ``V`` (not its transpose); without ``compute_uv``
    ``U`` and ``V`` are zeros.

    >>> import eagerad.torch as torch
    >>> torch.svd(torch.tensor([[3.0, 0.0], [0.0, 2.0]])).S.tolist()
    [3.0, 2.0]
    """
    u, s_, vh = _linalg.svd(input, full_matrices=not some)
    v = vh.swapaxes(-1, -2)
    if not compute_uv:
        return _SVD(u.detach() * 0, s_, v.detach() * 0)
    return _SVD(u, s_, v)


@_public
def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """``torch.cdist``: ``p``-norm distances between the rows of ``x1`` and of ``x2``.

    >>> import eagerad.torch as torch
    >>> torch.cdist(torch.tensor([[0.0, 0.0]]), torch.tensor([[3.0, 4.0], [0.0, 1.0]])).tolist()
    [[5.0, 1.0]]
    """
    diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return _vector_norm(diff, float(p), (diff.ndim - 1,), False)


@_public
def renorm(input, p, dim, maxnorm):
    """``torch.renorm``: each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` is
    scaled down to norm ``maxnorm``.

    >>> import eagerad.torch as torch
    >>> torch.renorm(torch.tensor([[3.0, 4.0], [0.3, 0.4]]), 2, 0, 1.0).tolist()
    [[0.6000000238418579, 0.800000011920929], [0.30000001192092896, 0.4000000059604645]]
    """
    dim = _axis(dim, input.ndim)
    others = tuple(d for d in range(input.ndim) if d != dim)
    norm = _vector_norm(input, float(p), others, True)
    scale = _ops.where(norm > maxnorm, maxnorm / (norm + 1e-7), norm * 0 + 1)
    return input * scale


@_public
def mvlgamma(input, p):
    """``torch.mvlgamma``: the multivariate log-gamma of dimension ``p``.

    >>> import eagerad.torch as torch
    >>> torch.mvlgamma(torch.tensor(2.5), 1).item()
    0.284683
    """
    import math
    total = input * 0 + p * (p - 1) / 4 * math.log(math.pi)
    for i in range(p):
        total = total + _ops.lgamma(input - i / 2)
    return total


@_public
def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``F.pad`` in constant mode (negative pads crop).

    >>> import eagerad.torch as torch
    >>> torch.constant_pad_nd(torch.ones(2), (1, 0)).tolist()
    [0.0, 1.0, 1.0]
    """
    return _ops.pad(input, tuple(pad), "constant", value)


@_public
def fill(input, value):
    """``torch.fill``: a tensor like ``input`` holding ``value`` (a number or a 0-d tensor,
    which then gets the gradient).

    >>> import eagerad.torch as torch
    >>> torch.fill(torch.zeros(2), 3.0).tolist()
    [3.0, 3.0]
    """
    return _ops.zeros_like(input) + value


@_public
def adjoint(input):
    """``torch.adjoint``: the last two dimensions swapped and conjugated.

    >>> import eagerad.torch as torch
    >>> torch.adjoint(torch.ones(2, 3)).shape
    torch.Size([3, 2])
    """
    return conj(input.swapaxes(-1, -2))


@_public
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """``torch.norm``: a number ``p`` is the vector norm over ``dim`` (all elements when
    None, a matrix included); ``'fro'`` the 2-norm over ``dim``; ``'nuc'`` the nuclear norm.

    >>> import eagerad.torch as torch
    >>> torch.norm(torch.tensor([[3.0, 0.0], [0.0, 4.0]])).item(), torch.norm(torch.tensor([[3.0, 0.0], [0.0, 4.0]]), 1).item()
    (5.0, 7.0)
    """
    if dtype is not None:
        input = input.to(dtype=dtype)
    if p is None:
        p = "fro"
    if p == "nuc":
        return _linalg.matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim),
                                   keepdim)
    if isinstance(p, str) and p != "fro":
        raise ValueError(f"norm: p must be a number, 'fro' or 'nuc', got {p!r}")
    order = 2.0 if p == "fro" else float(p)
    axes = None if dim is None else _shape.normalize_axis(dim, builtins.max(input.ndim, 1))
    if input.ndim == 0:
        return _vector_norm(input.reshape(1), order, None, False).reshape(
            (1,) if keepdim and axes else ())
    return _vector_norm(input, order, axes, keepdim)


def _to(self, *args, memory_format=None, non_blocking=False, copy=False, **kwargs):
    """PyTorch's ``x.to(...)``: ``memory_format``/``non_blocking`` accepted, ``copy=True``
    always returns a new tensor."""
    device, dtype = kwargs.pop("device", None), kwargs.pop("dtype", None)
    flags = []
    for a in args:
        if isinstance(a, _Tensor):
            device, dtype = a.device, a.dtype
        elif isinstance(a, bool):
            flags.append(a)                 # (non_blocking, copy) in this order
        elif isinstance(a, (str,)) or type(a).__name__ == "Device":
            device = a
        elif a is not None:
            dtype = a
    if len(flags) > 1:
        copy = flags[1]
    if kwargs:
        raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
    out = _NEUTRAL_TO(self, device, dtype)
    return out.clone() if copy and out is self else out


_NEUTRAL_TO = _Tensor.to


_Triangular = _namedtuple("TriangularSolve", ["solution", "cloned_coefficient"])


@_public
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``torch.triangular_solve(b, A)``: ``(X, A)`` with ``A X = b`` (``A^T X = b`` when
    ``transpose``), ``A`` upper (or lower) triangular.

    >>> import eagerad.torch as torch
    >>> torch.triangular_solve(torch.tensor([[2.0], [2.0]]), torch.tensor([[1.0, 1.0], [0.0, 2.0]])).solution.tolist()
    [[1.0], [1.0]]
    """
    a = A.swapaxes(-1, -2) if transpose else A
    x = _linalg.solve_triangular(a, b, upper=upper != transpose, unitriangular=unitriangular)
    return _Triangular(x, A.clone())


as_strided_copy = _copy_of("as_strided_copy", as_strided, ((1,), (1,)), "torch.Size([1])")


def _where_method(self, condition, other):
    """``x.where(condition, y)``: ``x`` where ``condition``, else ``y``."""
    return _ops.where(condition, self, other)


def _accept_memory_format(cast):
    def method(self, memory_format=None):
        return cast(self)
    method.__name__ = cast.__name__
    method.__doc__ = cast.__doc__
    return method


# Tensor methods of this face: where PyTorch's reading differs from the neutral method
TENSOR_METHODS = {
    "sum": sum, "mean": mean, "nansum": nansum, "nanmean": nanmean, "amax": amax,
    "amin": amin, "logsumexp": logsumexp, "div": div, "divide": divide, "round": round,
    "add": add, "sub": sub, "subtract": subtract, "div_": _div_inplace, "divide_": _div_inplace,
    "clamp": clamp, "clip": clip, "softmax": softmax, "log_softmax": log_softmax,
    "flatten": flatten, "unsqueeze": unsqueeze, "tensor_split": tensor_split, "take_along_dim": take_along_dim,
    "index_select": index_select, "index_add": index_add, "expand": _expand,
    "select": select, "unfold": _unfold, "ger": ger, "sum_to_size": _sum_to_size,
    "conj": conj, "conj_physical": conj_physical, "resolve_conj": resolve_conj,
    "resolve_neg": resolve_neg, "split_with_sizes": split_with_sizes,
    "unsafe_split": unsafe_split, "unsafe_chunk": unsafe_chunk, "narrow_copy": narrow_copy,
    "aminmax": aminmax, "norm": norm, "triangular_solve": triangular_solve, "to": _to, "cholesky": cholesky, "cholesky_solve": cholesky_solve,
    "cholesky_inverse": cholesky_inverse, "pinverse": pinverse, "qr": qr, "svd": svd,
    "renorm": renorm, "mvlgamma": mvlgamma, "angle": angle, "prelu": prelu,
    "adjoint": adjoint, "where": _where_method, "stft": stft,
    "real": property(real, doc="The real part (a real tensor is its own)."),
    "imag": property(imag, doc="The imaginary part of a complex tensor."),
    "__rdiv__": lambda self, other: _ops.div(other, self),
    "H": property(adjoint, doc="The conjugate transpose of a matrix."),
    "mH": property(adjoint, doc="The last two dimensions swapped and conjugated."),
}


def _install_methods():
    for name, impl in TENSOR_METHODS.items():
        if not hasattr(_Tensor, name):
            setattr(_Tensor, name, _not_neutral(name, isinstance(impl, property)))
        _install(_Tensor, name)
        _TORCH.attributes[name] = impl
    for name in ("float", "double", "half", "cfloat", "cdouble"):
        if hasattr(_Tensor, name):
            cast = getattr(_Tensor, name)           # the neutral method (class access)
            _install(_Tensor, name)
            _TORCH.attributes[name] = _accept_memory_format(cast)


def _not_neutral(name, is_property):
    """The neutral tensor's stand-in for a PyTorch-only method or property: it says where
    the name lives."""
    def method(self, *args, **kwargs):
        raise AttributeError(f"Tensor.{name} is PyTorch's (use a tensor from eagerad.torch); "
                             "the neutral tensor has no such attribute")
    method.__name__ = name
    return property(method) if is_property else method


_install_methods()


@_public
def embedding(weight, input, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding(weight, indices)``: ``F.embedding``'s rows with aten's argument
    order (a ``padding_idx`` of -1 means none).

    >>> import eagerad.torch as torch
    >>> torch.embedding(torch.eye(3), torch.tensor([2])).tolist()
    [[0.0, 0.0, 1.0]]
    """
    return _ops.embedding(input, weight, None if padding_idx == -1 else padding_idx,
                          scale_grad_by_freq=scale_grad_by_freq)
