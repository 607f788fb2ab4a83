"""The rest of ``torch``'s top-level functions real programs call: dtype and shape queries
(``is_signed``, ``broadcast_shapes``, ``typename``), creation with PyTorch's
rules (``range`` with its inclusive end, ``scalar_tensor``, ``asarray``, ``frombuffer``,
``empty_strided``), index and counting helpers (``unravel_index``, ``unique_consecutive``,
``histogram``, ``histogramdd``), ``binomial`` samples, the deprecated norms
(``frobenius_norm``, ``nuclear_norm``, ``matrix_rank``), anomaly switches, ``cond`` and
``while_loop`` run eagerly, and the ``sym_*`` helpers on plain Python numbers.

>>> import eagerad.torch as torch
>>> torch.range(1, 3), torch.broadcast_shapes((2, 1), (3,))
(tensor([1., 2., 3.]), torch.Size([2, 3]))
"""
import builtins
import collections
import math
import warnings

import numpy as np

from .. import dtype as dt
from .. import sampling
from ..autograd import is_grad_enabled
from ..autograd.anomaly import anomaly
from ..autograd.grad_mode import no_grad
from ..face import stamp
from ..tensor import Tensor
from ._creation import as_tensor, empty, from_numpy, tensor
from ._face import TORCH, Size
from .func import vmap  # noqa: F401  (torch.vmap)
from .linalg import matrix_norm as _matrix_norm, matrix_rank as _matrix_rank


def _torch(obj):
    return stamp(obj, TORCH)


# ---------------------------------------------------------------- queries
def is_signed(input):
    """``torch.is_signed``: whether the dtype holds negative numbers (float and signed int).

    >>> import eagerad.torch as torch
    >>> torch.is_signed(torch.ones(1)), torch.is_signed(torch.ones(1, dtype=torch.uint8))
    (True, False)
    """
    return input.dtype.kind in "fic"


def is_same_size(input, other):
    """``torch.is_same_size``: whether the two shapes are equal.

    >>> import eagerad.torch as torch
    >>> torch.is_same_size(torch.ones(2, 3), torch.zeros(2, 3))
    True
    """
    return tuple(input.shape) == tuple(other.shape)


def get_device(input):
    """``torch.get_device``: the CUDA device index, -1 on the CPU.

    >>> import eagerad.torch as torch
    >>> torch.get_device(torch.ones(1))
    -1
    """
    device = input.device
    return -1 if device.type == "cpu" else (device.index or 0)


def typename(obj):
    """``torch.typename``: ``'torch.FloatTensor'`` for tensors, else the type's dotted name.

    >>> import eagerad.torch as torch
    >>> torch.typename(torch.ones(1)), torch.typename(1.5)
    ('torch.FloatTensor', 'float')
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(obj, "__module__", "") or ""
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", None) \
        or type(obj).__qualname__
    if module in ("", "builtins") or not isinstance(obj, type) and not callable(obj):
        module = "" if type(obj).__module__ == "builtins" else type(obj).__module__
        name = name if isinstance(obj, type) or callable(obj) else type(obj).__qualname__
    return f"{module}.{name}" if module else name


def broadcast_shapes(*shapes):
    """``torch.broadcast_shapes``: the shape the given shapes broadcast to (ints count as
    1-D shapes).

    >>> import eagerad.torch as torch
    >>> torch.broadcast_shapes(2, (3, 1))
    torch.Size([3, 2])
    """
    as_tuples = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    try:
        return Size(np.broadcast_shapes(*as_tuples))
    except ValueError:
        raise RuntimeError(f"broadcast_shapes: shapes {as_tuples} cannot be broadcast "
                           "together") from None


# ---------------------------------------------------------------- anomaly, modes, settings
def is_anomaly_enabled():
    """``torch.is_anomaly_enabled``.

    >>> import eagerad.torch as torch
    >>> torch.is_anomaly_enabled()
    False
    """
    return anomaly.enabled


def is_anomaly_check_nan_enabled():
    """``torch.is_anomaly_check_nan_enabled``: anomaly mode always checks for NaN here."""
    return anomaly.enabled


def set_anomaly_enabled(enabled, check_nan=True):
    """``torch.set_anomaly_enabled``: switch anomaly mode on or off.

    >>> import eagerad.torch as torch
    >>> torch.set_anomaly_enabled(True); torch.is_anomaly_enabled()
    True
    >>> torch.set_anomaly_enabled(False)
    """
    anomaly.enabled = bool(enabled)


_inference = [0]


class inference_mode(no_grad):
    """``torch.inference_mode(mode=True)``: no graph is recorded (as ``no_grad``), and
    ``torch.is_inference_mode_enabled()`` says so.

    >>> import eagerad.torch as torch
    >>> with torch.inference_mode():
    ...     print(torch.is_inference_mode_enabled(), (torch.ones(1, requires_grad=True) * 2).requires_grad)
    True False
    """

    def __new__(cls, mode=True):
        if callable(mode):              # ``@torch.inference_mode`` without parentheses
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode=True):
        self._on = bool(mode)

    def _args(self):
        return (self._on,)

    def __enter__(self):
        if self._on:
            _inference[0] += 1
            return super().__enter__()
        return None

    def __exit__(self, *exc):
        if self._on:
            _inference[0] -= 1
            return super().__exit__(*exc)
        return False


def is_inference_mode_enabled():
    """``torch.is_inference_mode_enabled``: true inside ``inference_mode()``.

    >>> import eagerad.torch as torch
    >>> torch.is_inference_mode_enabled()
    False
    """
    return _inference[0] > 0 and not is_grad_enabled()


_settings = {"warn_always": False, "interop_threads": 1, "debug_mode": 0}


def set_warn_always(b):
    """``torch.set_warn_always``: remembered for ``is_warn_always_enabled``."""
    _settings["warn_always"] = bool(b)


def is_warn_always_enabled():
    """``torch.is_warn_always_enabled``.

    >>> import eagerad.torch as torch
    >>> torch.is_warn_always_enabled()
    False
    """
    return _settings["warn_always"]


def set_num_interop_threads(num):
    """``torch.set_num_interop_threads``: remembered (eagerad runs ops on one thread)."""
    if int(num) < 1:
        raise ValueError(f"set_num_interop_threads: num must be positive, got {num!r}")
    _settings["interop_threads"] = int(num)


def get_num_interop_threads():
    """``torch.get_num_interop_threads``.

    >>> import eagerad.torch as torch
    >>> torch.get_num_interop_threads() >= 1
    True
    """
    return _settings["interop_threads"]


def set_flush_denormal(mode):
    """``torch.set_flush_denormal``: not supported here, so ``False`` (as PyTorch answers
    on CPUs without the feature)."""
    return False


def set_deterministic_debug_mode(debug_mode):
    """``torch.set_deterministic_debug_mode``: 0/'default', 1/'warn', 2/'error'."""
    modes = {"default": 0, "warn": 1, "error": 2}
    mode = modes.get(debug_mode, debug_mode)
    if mode not in (0, 1, 2):
        raise RuntimeError(f"set_deterministic_debug_mode: debug_mode must be one of "
                           f"{sorted(modes)} or 0, 1, 2, got {debug_mode!r}")
    _settings["debug_mode"] = mode


def get_deterministic_debug_mode():
    """``torch.get_deterministic_debug_mode``.

    >>> import eagerad.torch as torch
    >>> torch.get_deterministic_debug_mode()
    0
    """
    return _settings["debug_mode"]


# ---------------------------------------------------------------- creation
def range(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """``torch.range`` (deprecated in PyTorch): ``start, start + step, ...`` up to and
    including ``end``, in the default float dtype.

    >>> import eagerad.torch as torch
    >>> torch.range(0, 1, 0.5)
    tensor([0.0000, 0.5000, 1.0000])
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release "
                  "because its behavior is inconsistent with Python's range builtin. Instead, "
                  "use torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    if end is None:
        start, end = 0, start
    if step == 0:
        raise ValueError("range: step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError(f"range: upper bound and larger bound inconsistent with step sign "
                           f"(start={start}, end={end}, step={step})")
    n = int(math.floor((end - start) / step)) + 1
    values = start + step * np.arange(n, dtype=np.float64)
    return tensor(values, dtype=dtype or dt.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def scalar_tensor(s, *, dtype=None, layout=None, device=None, pin_memory=None,
                  requires_grad=False):
    """``torch.scalar_tensor``: a 0-d tensor, float by default (even for an int).

    >>> import eagerad.torch as torch
    >>> torch.scalar_tensor(3)
    tensor(3.)
    """
    return tensor(s, dtype=dtype or dt.get_default_dtype(), device=device,
                  requires_grad=requires_grad)


def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    """``torch.asarray``: a tensor from ``obj``, sharing memory where it can (unless
    ``copy=True``).

    >>> import eagerad.torch as torch, numpy as np
    >>> a = np.zeros(2, dtype=np.float32); t = torch.asarray(a); a[0] = 5; t
    tensor([5., 0.])
    """
    if copy:
        result = tensor(obj.detach() if isinstance(obj, Tensor) else obj, dtype=dtype,
                        device=device)
    else:
        result = as_tensor(obj, dtype=dtype, device=device)
    if copy is False and isinstance(obj, np.ndarray) and not np.shares_memory(
            np.asarray(result.detach().cpu()._data), obj):
        raise ValueError("asarray: copy=False, but a copy is needed (dtype or device change)")
    return result.requires_grad_(True) if requires_grad else result


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """``torch.frombuffer``: a 1-D tensor over the bytes of ``buffer`` (shares its memory).

    >>> import eagerad.torch as torch
    >>> torch.frombuffer(bytearray(b"\\x01\\x02\\x03"), dtype=torch.uint8, offset=1)
    tensor([2, 3], dtype=torch.uint8)
    """
    array = np.frombuffer(buffer, dtype=dt.as_dtype(dtype), count=count, offset=offset)
    result = from_numpy(array)
    return result.requires_grad_(True) if requires_grad else result


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """``torch.empty_strided``: an uninitialised tensor of ``size`` (eagerad lays it out
    contiguously; ``stride`` must have one entry per dimension).

    >>> import eagerad.torch as torch
    >>> torch.empty_strided((2, 3), (1, 2)).shape
    torch.Size([2, 3])
    """
    if len(tuple(stride)) != len(tuple(size)):
        raise RuntimeError(f"empty_strided: size {tuple(size)} and stride {tuple(stride)} "
                           "need the same length")
    return empty(*size, dtype=dtype, device=device, requires_grad=requires_grad)


# ---------------------------------------------------------------- sampling
def binomial(count, prob, generator=None):
    """``torch.binomial``: successes in ``count`` trials of probability ``prob``.

    >>> import eagerad.torch as torch
    >>> torch.binomial(torch.tensor([5.0, 3.0]), torch.tensor([1.0, 0.0]))
    tensor([5., 0.])
    """
    n, p = sampling._host(count), sampling._host(prob)
    if (p < 0).any() or (p > 1).any() or not np.isfinite(p).all():
        raise ValueError("binomial: prob must be in [0, 1]")
    if (n < 0).any() or not np.isfinite(n).all():
        raise ValueError("binomial: count must be finite and non-negative")
    draws = sampling._rng(generator).binomial(n.astype(np.int64), p)
    return _torch(sampling._like(draws.astype(n.dtype), count))


# ---------------------------------------------------------------- indices and counting
def unravel_index(indices, shape):
    """``torch.unravel_index``: flat indices as a tuple of coordinate tensors (int64).

    >>> import eagerad.torch as torch
    >>> torch.unravel_index(torch.tensor([5, 1]), (2, 3))
    (tensor([1, 0]), tensor([2, 1]))
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    flat = np.asarray(indices.cpu()._data if isinstance(indices, Tensor) else indices)
    if flat.dtype.kind not in "iu":
        raise TypeError(f"unravel_index: indices must be integers, got {flat.dtype}")
    size = int(np.prod(shape))
    if ((flat < -size) | (flat >= builtins.max(size, 1))).any() or (size == 0 and flat.size):
        raise ValueError(f"unravel_index: an index in indices is out of range for shape {shape}")
    coords = np.unravel_index(np.where(flat < 0, flat + size, flat), shape)
    device = indices.device if isinstance(indices, Tensor) else None
    return tuple(tensor(c.astype(np.int64), device=device) for c in coords)


def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``torch.unique_consecutive``: drop runs of repeated values (or slices along ``dim``).

    >>> import eagerad.torch as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
    (tensor([1, 2, 3, 1]), tensor([2, 2, 1, 1]))
    """
    data = np.asarray(input.detach().cpu()._data)
    if dim is None:
        data = data.reshape(-1)
        axis = 0
    else:
        axis = dim + data.ndim if dim < 0 else dim
        if not 0 <= axis < data.ndim:
            raise IndexError(f"unique_consecutive: dim={dim} is out of range for a tensor with "
                             f"{data.ndim} dimensions")
    moved = np.moveaxis(data, axis, 0)
    n = moved.shape[0]
    if n == 0:
        starts = np.zeros(0, dtype=np.int64)
    else:
        flat = moved.reshape(n, -1)
        changed = (flat[1:] != flat[:-1]).any(axis=1) if flat.shape[1] else np.zeros(n - 1, bool)
        starts = np.concatenate([[0], np.nonzero(changed)[0] + 1])
    values = np.moveaxis(moved[starts], 0, axis)
    out = [tensor(np.ascontiguousarray(values), device=input.device)]
    if return_inverse:
        inverse = np.cumsum(np.isin(np.arange(n), starts)) - 1
        if dim is None:
            inverse = inverse.reshape(input.shape)
        out.append(tensor(inverse.astype(np.int64), device=input.device))
    if return_counts:
        counts = np.diff(np.append(starts, n))
        out.append(tensor(counts.astype(np.int64), device=input.device))
    return _torch(out[0] if len(out) == 1 else tuple(out))


_Histogram = collections.namedtuple("histogram", ["hist", "bin_edges"])
_HistogramDD = collections.namedtuple("histogramdd", ["hist", "bin_edges"])


def _host_or_none(t):
    return None if t is None else np.asarray(t.detach().cpu()._data if isinstance(t, Tensor)
                                             else t)


def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """``torch.histogram``: ``(hist, bin_edges)``; ``bins`` a count or the edges (the last
    bin includes its right edge).

    >>> import eagerad.torch as torch
    >>> torch.histogram(torch.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0)).hist
    tensor([0., 2., 1., 0.])
    """
    if input.dtype.kind != "f":
        raise RuntimeError(f"histogram: input must be floating point, got {input.dtype}")
    data = _host_or_none(input).reshape(-1)
    edges = _host_or_none(bins) if isinstance(bins, Tensor) else int(bins)
    w = _host_or_none(weight)
    hist, edges = np.histogram(data, bins=edges, range=range,
                               weights=None if w is None else w.reshape(-1), density=density)
    kw = {"dtype": input.dtype, "device": input.device}
    return _torch(_Histogram(tensor(hist, **kw), tensor(edges, **kw)))


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """``torch.histogramdd``: the histogram of the points in the rows of ``input`` (..., D);
    ``bins`` an int, D ints, or D edge tensors; ``range`` the flat (min, max) pairs.

    >>> import eagerad.torch as torch
    >>> torch.histogramdd(torch.tensor([[0.0, 0.0], [1.0, 1.0]]), bins=2).hist
    tensor([[1., 0.],
            [0., 1.]])
    """
    if input.dtype.kind != "f":
        raise RuntimeError(f"histogramdd: input must be floating point, got {input.dtype}")
    points = _host_or_none(input)
    d = points.shape[-1]
    points = points.reshape(-1, d)
    if isinstance(bins, int):
        bins = [bins] * d
    bins = [_host_or_none(b) if isinstance(b, Tensor) else int(b) for b in bins]
    ranges = None if range is None else [tuple(range[2 * i:2 * i + 2]) for i in
                                         builtins.range(d)]
    w = _host_or_none(weight)
    hist, edges = np.histogramdd(points, bins=bins, range=ranges,
                                 weights=None if w is None else w.reshape(-1), density=density)
    kw = {"dtype": input.dtype, "device": input.device}
    return _torch(_HistogramDD(tensor(hist, **kw), [tensor(e, **kw) for e in edges]))


# ---------------------------------------------------------------- deprecated norms
def frobenius_norm(input, dim=(-2, -1), keepdim=False):
    """``torch.frobenius_norm``: the square root of the sum of squares over ``dim``.

    >>> import eagerad.torch as torch
    >>> torch.frobenius_norm(torch.tensor([[3.0, 4.0]]))
    tensor(5.)
    """
    return input.norm("fro", dim=(dim,) if isinstance(dim, int) else tuple(dim),
                      keepdim=keepdim)


def nuclear_norm(input, dim=None, keepdim=False):
    """``torch.nuclear_norm``: the sum of the singular values (of the last two dims, or
    ``dim``).

    >>> import eagerad.torch as torch
    >>> torch.nuclear_norm(torch.tensor([[2.0, 0.0], [0.0, -3.0]]))
    tensor(5.)
    """
    if isinstance(dim, bool):          # torch.nuclear_norm(input, keepdim)
        dim, keepdim = None, dim
    return _matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else tuple(dim),
                        keepdim=keepdim)


def matrix_rank(input, tol=None, symmetric=False):
    """``torch.matrix_rank`` (removed from recent PyTorch; ``torch.linalg.matrix_rank``'s
    rule): singular values above ``tol``, by default ``max(S) * max(m, n) * eps``.

    >>> import eagerad.torch as torch
    >>> torch.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]]))
    tensor(1)
    """
    return _torch(_matrix_rank(input, tol=tol, hermitian=symmetric))


# ---------------------------------------------------------------- control flow, sym_*
def cond(pred, true_fn, false_fn, operands=()):
    """``torch.cond``: run eagerly, ``true_fn(*operands)`` if ``pred`` else ``false_fn``.

    >>> import eagerad.torch as torch
    >>> torch.cond(torch.tensor(True), lambda x: x + 1, lambda x: x - 1, (torch.ones(1),))
    tensor([2.])
    """
    return (true_fn if bool(pred) else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """``torch.while_loop``: run eagerly, ``carried = body_fn(*carried)`` while
    ``cond_fn(*carried)``.

    >>> import eagerad.torch as torch
    >>> torch.while_loop(lambda i: i < 3, lambda i: (i + 1,), (torch.tensor(0),))
    (tensor(3),)
    """
    carried = tuple(carried_inputs)
    while bool(cond_fn(*carried)):
        carried = tuple(body_fn(*carried))
    return carried


def sym_int(a):
    """``torch.sym_int``: ``int`` (rounds toward zero) for plain numbers."""
    return int(a)


def sym_float(a):
    """``torch.sym_float``: ``float`` for plain numbers."""
    return float(a)


def sym_max(a, b):
    """``torch.sym_max``: ``max(a, b)``."""
    return builtins.max(a, b)


def sym_min(a, b):
    """``torch.sym_min``: ``min(a, b)``."""
    return builtins.min(a, b)


def sym_not(a):
    """``torch.sym_not``: ``not a``."""
    return not a


def sym_sqrt(a):
    """``torch.sym_sqrt``: ``math.sqrt(a)``."""
    return math.sqrt(a)


def sym_sum(args):
    """``torch.sym_sum``: ``sum(args)``."""
    return builtins.sum(args)


def sym_ite(b, t, f):
    """``torch.sym_ite``: ``t if b else f``."""
    return t if b else f


__all__ = [_n for _n in dir() if not _n.startswith("_") and _n not in (
    "builtins", "collections", "math", "warnings", "np", "dt", "sampling", "anomaly",
    "no_grad", "stamp", "Tensor", "as_tensor", "empty", "from_numpy", "tensor", "TORCH",
    "Size", "is_grad_enabled")]
