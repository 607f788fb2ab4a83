"""CUDA backend: arrays are numba-cuda ``DeviceNDArray``s; the same functions as ``cpu``.

Importing this module checks that CUDA (or Numba's CUDA simulator, with
``NUMBA_ENABLE_CUDASIM=1``) is usable and raises a RuntimeError saying what is
missing otherwise; nothing imports it before a tensor is put on ``'cuda'``.

Views are views, as on the CPU: basic indexing, transpose, broadcast_to,
diagonal and the reshapes numpy makes without copying return device arrays on
their base's memory (``views``), so an in-place write through one reaches the
base.  Every other result is a new C-contiguous array.  Kernels work on flat
buffers with element strides: a function without a strided path of its own gets
non-contiguous operands as contiguous copies (``_contiguous_operands``, for
reading), and writes into a view (``inplace``, ``setitem``) go to its own memory
through the strided-copy kernel.  Output dtypes follow numpy's promotion rules, found once per
(op, dtypes) by asking numpy about empty arrays.  Random numbers are drawn on the
host from the generator shared with the CPU backend and copied over, so one
``set_seed`` gives the same values on every device.

>>> import eagerad
>>> eagerad.ones(2, device="cuda").sum().item()  # doctest: +SKIP
2.0
"""
import math

import numpy as np

from .. import require_cuda

require_cuda()

from numba import cuda  # noqa: E402  (after the check, which explains a missing package)

from .. import cpu  # noqa: E402
from . import (elementwise as ew, matmul as mm, memory, movement as mv,  # noqa: E402
               reduction as red, rows)
from .launch import (GRID_YZ, MAX_BLOCKS, RED_THREADS, SIMULATOR, THREADS, TILE,  # noqa: E402
                     blocks, broadcast_strides, collapse, contiguous_strides)
from .launch import launch as _launch  # noqa: E402  (the module keeps the name ``launch``)
from .views import (element_strides, is_contiguous, layout, may_share_memory,  # noqa: E402
                    nocopy_strides, strided_view)

if SIMULATOR:
    _new_array = memory.host_array
else:
    memory.install()            # before numba makes its context: its arrays use the cache
    _new_array = memory.device_array

name = "cuda"

# --------------------------------------------------------------------- helpers


def _is_device(a):
    return hasattr(a, "copy_to_host")


def _empty(shape, dtype):
    """A new C-contiguous device array (uninitialised) from the caching allocator."""
    return _new_array(tuple(shape), dtype, memory.allocator())


def _flat(a):
    """``a`` as a flat row-major buffer: itself when contiguous, else a contiguous copy
    (for reading: writes into a view go through ``_copy_into``)."""
    if not is_contiguous(a):
        a = copy(a)
    return a if a.ndim == 1 else a.reshape(a.size)


def _run(kernel, n, *args):
    if n:
        _launch(kernel, blocks(n), THREADS, *args)


_dtypes = {}


def _result_dtype(table, op, *operands):
    """numpy's output dtype for ``op`` on these operands (Python scalars stay weak)."""
    key = (op,) + tuple(o.dtype if _is_device(o) else type(o) for o in operands)
    d = _dtypes.get(key)
    if d is None:
        probes = [np.empty(0, o.dtype) if _is_device(o) else o for o in operands]
        d = _dtypes[key] = table[op](*probes).dtype
    return d


def _operand(v, dtype):
    """A device array for ``v``: device arrays pass, numpy arrays are copied, scalars filled."""
    if _is_device(v):
        return v
    if isinstance(v, np.ndarray) and v.ndim:
        return from_numpy(v.astype(dtype, copy=False))
    return full((), v, dtype)


def _copy_into(dst, src, shape, dst_off, dst_st, src_off, src_st):
    """Strided copy of a logical ``shape`` from ``src`` into ``dst`` (element offsets and
    strides from each array's element 0; either may be a view, ``dst``'s memory is
    written)."""
    n = math.prod(shape)
    if n:
        fd, od, _ = layout(dst)
        fs, os_, _ = layout(src)
        cshape, (ds, ss) = collapse(shape, [dst_st, src_st])
        _launch(mv.copy_strided, blocks(n), THREADS, fd, fs, cshape, n,
                dst_off + od, ds, src_off + os_, ss)


def _assign(dst, src):
    """``dst[...] = src`` (``src`` broadcasts to ``dst``'s shape; either may be a view)."""
    _copy_into(dst, src, dst.shape, 0, element_strides(dst), 0,
               broadcast_strides(src.shape, dst.shape, element_strides(src)))

# ----------------------------------------------------------------- creation


def asarray(data, dtype=None):
    """A device array of ``data`` (device array, numpy array, nested list, scalar)."""
    if _is_device(data):
        return data if dtype is None or data.dtype == dtype else astype(data, dtype)
    return from_numpy(np.asarray(data, dtype=dtype))


def to_numpy(a):
    """Copy a device array to a new host ndarray."""
    return (a if is_contiguous(a) else copy(a)).copy_to_host()


def from_numpy(a):
    """Copy a host ndarray to a new C-contiguous device array."""
    a = np.asarray(a)
    out = _empty(a.shape, a.dtype)
    if a.size:      # flat on both sides: numba compares "cores" (size-1 axes may differ)
        _flat(out).copy_to_device(np.ascontiguousarray(a).reshape(-1))
    return out


def full(shape, value, dtype):
    out = _empty(shape, dtype)
    _run(mv.fill, out.size, _flat(out), np.dtype(dtype).type(value))
    return out


def arange(start, stop, step, dtype):
    return from_numpy(np.arange(start, stop, step, dtype=dtype))


def copy(a):
    """A new C-contiguous array with ``a``'s values (``a`` may be a view)."""
    out = _empty(a.shape, a.dtype)
    if a.size:
        if is_contiguous(a):
            out.copy_to_device(a)
        else:
            _assign(out, a)
    return out


def astype(a, dtype):
    dtype = np.dtype(dtype)
    if a.dtype.kind == "c" and dtype.kind != "c":     # complex to real keeps the real part
        a = complex_unary("real", a)
    return unary("nonzero" if dtype == np.bool_ else "identity", a, dtype)

# ------------------------------------------------------------- elementwise


# The kernels' scalar functions are ``elementwise.UNARY``/``BINARY``; the result dtype
# is the one numpy's ufunc of the same name gives (the CPU backend's ``UNARY``/``BINARY``).


# the scalar functions of ``elementwise`` that are right for complex numbers (the others
# use ``math``, which is real-only); any other op on complex operands raises, naming it
_COMPLEX_UNARY = {"identity", "nonzero", "neg", "square", "reciprocal", "logical_not"}
_COMPLEX_BINARY = {"add", "sub", "mul", "div", "eq", "ne"}


def _real_only(op, table, *operands):
    """NotImplementedError when a complex operand meets an op with no complex kernel here."""
    if op not in table and any(isinstance(v, complex) or _is_device(v) and v.dtype.kind == "c"
                               for v in operands):
        raise NotImplementedError(f"{op}: complex tensors have no kernel for this op on the "
                                  "cuda device; compute it on the CPU (x.cpu())")


def unary(op, x, dtype=None):
    """Elementwise ``op`` (a key of ``elementwise.UNARY``; an internal one needs ``dtype``)."""
    _real_only(op, _COMPLEX_UNARY, x)
    out = _empty(x.shape, dtype if dtype is not None else _result_dtype(cpu.UNARY, op, x))
    _run(ew.unary_kernel(op), x.size, _flat(out), _flat(x))
    return out


def binary(op, x, y):
    """Broadcasting elementwise ``op`` (a key of ``elementwise.BINARY``); either side may be a
    Python scalar."""
    if not _is_device(x) and not _is_device(y):
        return from_numpy(cpu.binary(op, x, y))
    _real_only(op, _COMPLEX_BINARY, x, y)
    return _binary(op, x, y, _result_dtype(cpu.BINARY, op, x, y))


def _binary(op, x, y, dtype, out=None):
    ks = ew.binary_kernels(op)
    if not _is_device(y):
        out = out if out is not None else _empty(x.shape, dtype)
        _run(ks.scalar_right, out.size, _flat(out), _flat(x), _weak(x, y))
    elif not _is_device(x):
        out = out if out is not None else _empty(y.shape, dtype)
        _run(ks.scalar_left, out.size, _flat(out), _weak(y, x), _flat(y))
    elif x.shape == y.shape and (out is None or out.shape == x.shape):
        out = out if out is not None else _empty(x.shape, dtype)
        _run(ks.flat, out.size, _flat(out), _flat(x), _flat(y))
    else:
        shape = out.shape if out is not None else np.broadcast_shapes(x.shape, y.shape)
        out = out if out is not None else _empty(shape, dtype)
        cshape, (sx, sy) = collapse(shape, [broadcast_strides(x.shape, shape),
                                            broadcast_strides(y.shape, shape)])
        _run(ks.strided, out.size, _flat(out), _flat(x), _flat(y), cshape, sx, sy)
    return out


def _weak(arr, s):
    """Python scalar ``s`` as the dtype numpy computes ``arr op s`` in; float32 for a
    float16 result, so the kernel computes in float32 and rounds once at the store
    (``x / 100000`` must not divide by float16(1e5) = inf)."""
    dtype = np.result_type(arr.dtype, s)
    return (np.float32 if dtype == np.float16 else dtype.type)(s)


def inplace(op, x, y):
    """``x op= y`` in place (``op`` a key of ``elementwise.BINARY``); returns ``x``.
    ``x`` may be a view (its base changes); a ``y`` overlapping ``x``'s memory is read
    before anything is written, as numpy does."""
    if _is_device(y) and np.broadcast_shapes(x.shape, y.shape) != x.shape:
        raise ValueError(f"in-place {op}: shape {y.shape} cannot be broadcast to {x.shape}")
    _real_only(op, _COMPLEX_BINARY, x, y)
    if is_contiguous(x) and (y is x or not _is_device(y) or not may_share_memory(x, y)):
        return _binary(op, x, y, x.dtype, out=x)
    _assign(x, _binary(op, x, y, x.dtype))
    return x


def where(cond, x, y):
    dtype = np.result_type(*(v.dtype if _is_device(v) else v for v in (x, y)))
    ops = (_operand(cond, np.bool_), _operand(x, dtype), _operand(y, dtype))
    shape = np.broadcast_shapes(*(v.shape for v in ops))
    out = _empty(shape, dtype)
    cshape, strides = collapse(shape, [broadcast_strides(v.shape, shape) for v in ops])
    _run(ew.where_strided, out.size, _flat(out), *(_flat(v) for v in ops), cshape, *strides)
    return out


def clip(x, lo, hi):
    out = x
    if lo is not None:
        out = binary("maximum", out, lo)
    if hi is not None:
        out = binary("minimum", out, hi)
    return copy(out) if out is x else out


def fused_grad(op, g, saved):
    """tanh/sigmoid/relu input gradient from ``g`` and the saved array in one kernel, or None."""
    if op not in ("tanh", "sigmoid", "relu") or g.dtype != saved.dtype or g.shape != saved.shape \
            or g.dtype.kind != "f":
        return None
    return _binary(op + "_grad", g, saved, g.dtype)


def fused_deriv(op, g, x, n=None):
    """``g * op'(x)`` in one kernel for sin, cos and pow by a number (``fused.fused_deriv``),
    or None: callers run the differentiable rule."""
    from .fused import fused_deriv as one_pass
    return one_pass(op, g, x, n)

# -------------------------------------------------------------- reductions


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    return tuple(sorted(int(a) % max(ndim, 1) for a in axes))


def _rows(x, axes):
    """``x`` with ``axes`` moved last, as a flat contiguous (M, K) buffer, and M, K."""
    keep = tuple(d for d in range(x.ndim) if d not in axes)
    K = math.prod(x.shape[d] for d in axes)
    M = math.prod(x.shape[d] for d in keep)
    perm = keep + axes
    if perm != tuple(range(x.ndim)):
        x = transpose(x, perm)
    return _flat(x), M, K


def _segments(op, a, M, K, acc):
    """Reduce each of M rows of length K (one launch: ``reduction.segments``)."""
    return red.segments(op, a, M, K, acc)


_NEUTRAL = {"sum": 0, "prod": 1, "any": False, "all": True}


def reduce(op, x, axis, keepdims):
    """``op`` in sum/mean/max/min/prod/any/all over ``axis`` (None, int or tuple); float16
    accumulates in float32 and rounds once."""
    if op == "mean":
        axes = _axes(axis, x.ndim)
        count = math.prod(x.shape[d] for d in axes)
        wide = _computing(x) if x.dtype.kind == "f" else x
        total = reduce("sum", wide, axes, keepdims)
        return _rounded(binary("div", total, count) if count else
                        binary("mul", total, float("nan")), x)
    axes = _axes(axis, x.ndim)
    shape = tuple(1 if d in axes else s for d, s in enumerate(x.shape)) if keepdims else \
        tuple(s for d, s in enumerate(x.shape) if d not in axes)
    dtype = np.dtype(bool) if op in ("any", "all") else \
        getattr(np, op)(np.ones(1, x.dtype)).dtype
    rows, M, K = _rows(x, axes)
    if M == 0 or K == 0:
        if K == 0 and op not in _NEUTRAL:
            raise ValueError(f"{op} of an empty array of shape {x.shape} has no identity")
        return full(shape, _NEUTRAL.get(op, 0), dtype)
    acc = np.uint8 if op in ("any", "all") else np.float32 if dtype == np.float16 else dtype
    out = _segments(op, rows, M, K, acc)
    if out.dtype != dtype:
        out = astype(out, dtype)
    return out.reshape(shape)


def argreduce(op, x, axis, keepdims):
    """``op`` in argmax/argmin: index of the first extreme (NaN counts as extreme)."""
    if axis is None:
        rows, M, K = _flat(x), 1, x.size
        shape = (1,) * x.ndim if keepdims else ()
    else:
        axis = int(axis) % max(x.ndim, 1)
        rows, M, K = _rows(x, (axis,))
        shape = tuple(1 if d == axis else s for d, s in enumerate(x.shape)) if keepdims else \
            tuple(s for d, s in enumerate(x.shape) if d != axis)
    if K == 0:
        raise ValueError(f"{op} of an empty array of shape {x.shape}")
    out = _empty((M,), np.int64)
    if M:
        _launch(red.segment_kernel(op, x.dtype), min(M, MAX_BLOCKS), RED_THREADS, out, rows, M, K)
    return out.reshape(shape)


def _computing(x):
    """``x`` in the float type its exp-and-sum reductions run in (see ``cpu._computing``)."""
    return astype(x, np.float32) if x.dtype.kind != "f" or x.dtype == np.float16 else x


def _rounded(out, x):
    return astype(out, np.float16) if x.dtype == np.float16 else out


def logsumexp(x, axis, keepdims):
    """``log(sum(exp(x)))`` over ``axis``: one launch (``rows``)."""
    return rows.logsumexp(x, axis, keepdims)


def softmax(x, axis):
    """Softmax along ``axis``: one launch (``rows``)."""
    return rows.softmax(x, axis)


def log_softmax(x, axis):
    """Log-softmax along ``axis``: one launch (``rows``)."""
    return rows.log_softmax(x, axis)

# ------------------------------------------------------------- linear algebra


def matmul(a, b):
    """numpy's matmul (1-D promotion, broadcast batches): ``matmul.product``'s
    register-tiled kernel, or cuBLAS where ``EAGERAD_CUDA_MATMUL`` and CuPy allow."""
    return mm.product(a, b)

# ---------------------------------------------------------------- movement


def reshape(x, shape):
    """``x`` with a new ``shape``: a view where numpy's reshape gives one (a contiguous
    ``x``, or strides that allow it), else a contiguous copy."""
    shape = tuple(shape)
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        shape = tuple(x.size // known if s == -1 and known else s for s in shape)
    if math.prod(shape) != x.size:
        raise ValueError(f"cannot reshape array of size {x.size} into shape {shape}")
    if is_contiguous(x):
        return x.reshape(shape)
    strides = nocopy_strides(x.shape, element_strides(x), shape)
    if strides is None:
        return copy(x).reshape(shape)
    return strided_view(x, 0, shape, strides)


def transpose(x, axes):
    """``x`` with its axes permuted (a view)."""
    axes = tuple(axes)
    st = element_strides(x)
    return strided_view(x, 0, tuple(x.shape[a] for a in axes), tuple(st[a] for a in axes))


def broadcast_to(x, shape):
    """A read-only view of ``x`` repeated to ``shape`` (zero strides)."""
    shape = tuple(shape)
    if np.broadcast_shapes(x.shape, shape) != shape:
        raise ValueError(f"cannot broadcast shape {x.shape} to {shape}")
    return strided_view(x, 0, shape, broadcast_strides(x.shape, shape, element_strides(x)),
                        readonly=True)


def concat(arrays, axis):
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = _empty(shape, np.result_type(*(a.dtype for a in arrays)))
    dst = contiguous_strides(shape)
    start = 0
    for a in arrays:
        _copy_into(out, a, a.shape, start * dst[axis], dst, 0, element_strides(a))
        start += a.shape[axis]
    return out


def stack(arrays, axis):
    return concat([reshape(a, a.shape[:axis] + (1,) + a.shape[axis:]) for a in arrays], axis)


def _plan(shape, index, strides=None):
    """Where ``index`` reads in an array of ``shape`` with element ``strides`` (default:
    contiguous).

    Returns ``(result shape, (offset, strides) or None, positions or None)``: basic
    indexing (ints, slices, None, ...) is an element offset and strides, found by
    letting numpy index a zero-copy strided probe; advanced indexing is a host int64
    array of element offsets (from element 0), found by indexing a grid of them on the
    host.  numpy does the bounds checks, so errors read as on the CPU.
    """
    strides = contiguous_strides(shape) if strides is None else tuple(strides)
    items = index if isinstance(index, tuple) else (index,)
    host = tuple(i.copy_to_host() if _is_device(i) else i for i in items)
    if any(isinstance(i, (np.ndarray, list)) for i in host):
        grid = np.zeros(shape, np.int64)
        for d, (n, st) in enumerate(zip(shape, strides)):
            grid += (np.arange(n, dtype=np.int64) * st).reshape((n,) + (1,) * (len(shape) - d - 1))
        pos = grid[host]
        return pos.shape, None, pos
    if not any(i is Ellipsis for i in host):
        host += (Ellipsis,)              # so integer indices still give a view, not a scalar
    probe = np.lib.stride_tricks.as_strided(np.zeros(1, np.int64), shape,
                                            tuple(8 * s for s in strides), writeable=False)
    view = probe[host]
    off = (view.__array_interface__["data"][0] - probe.__array_interface__["data"][0]) // 8
    return view.shape, (off, tuple(s // 8 for s in view.strides)), None


def diagonal(x, offset):
    """Diagonal ``offset`` of the last two axes as the last axis: a writable view."""
    n, m = x.shape[-2:]
    r0, c0 = max(-offset, 0), max(offset, 0)
    k = max(0, min(n - r0, m - c0))
    st = element_strides(x)
    return strided_view(x, (r0 * st[-2] + c0 * st[-1]) if k else 0, x.shape[:-2] + (k,),
                        st[:-2] + (st[-2] + st[-1],))


def getitem(x, index):
    """``x[index]``: a view for basic indexing, a gathered copy for advanced indexing."""
    shape, strided, pos = _plan(x.shape, index, element_strides(x))
    if strided is not None:
        return strided_view(x, strided[0], shape, strided[1])
    out = _empty(shape, x.dtype)
    if pos.size:
        flat, base, _ = layout(x)
        _run(mv.gather, out.size, _flat(out), flat, from_numpy(pos.reshape(-1) + base))
    return out


def _fit_value(v, shape, dtype, what):
    """Device array of ``v`` that broadcasts to ``shape`` (leading 1s dropped)."""
    v = _operand(v, dtype)
    while v.ndim > len(shape) and v.shape[0] == 1:
        v = reshape(v, v.shape[1:])
    if v.ndim > len(shape) or np.broadcast_shapes(v.shape, shape) != tuple(shape):
        raise ValueError(f"{what}: value of shape {v.shape} cannot be broadcast to {tuple(shape)}")
    return v


def setitem(x, index, value):
    """``x[index] = value`` in ``x``'s memory (``x`` may be a view: its base changes); a
    ``value`` overlapping ``x``'s memory is read before anything is written."""
    try:
        shape, strided, pos = _plan(x.shape, index, element_strides(x))
    except IndexError as err:
        raise IndexError(f"__setitem__: index out of range for a tensor of shape {x.shape}: "
                         f"{err}") from None
    v = _fit_value(value, shape, x.dtype, "setitem")
    if not is_contiguous(v) or (v is not x and may_share_memory(x, v)):
        v = copy(v)
    vs = broadcast_strides(v.shape, shape)
    if strided is not None:
        _copy_into(x, v, shape, *strided, 0, vs)
    elif pos.size:
        flat, base, _ = layout(x)
        cshape, (cvs,) = collapse(shape, [vs])
        _run(mv.scatter, pos.size, flat, _flat(v), from_numpy(pos.reshape(-1) + base),
             cshape, cvs)


# dtypes cuda.atomic.add supports; the others accumulate in the wider type of the same
# kind (bool as int64: a nonzero sum is True, as numpy's add.at gives)
_ATOMIC = {np.dtype(d) for d in (np.int32, np.int64, np.uint32, np.uint64, np.float32,
                                 np.float64)}


def _atomic_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype in _ATOMIC:
        return dtype
    return np.dtype({"f": np.float32, "u": np.uint64}.get(dtype.kind, np.int64))


def index_add(shape, dtype, index, values):
    """Zeros of ``shape`` with ``values`` added at ``index``; repeated indices accumulate."""
    rshape, strided, pos = _plan(tuple(shape), index)
    v = _fit_value(values, rshape, dtype, "index_add")
    if np.dtype(dtype).kind == "c":     # the atomics are real: the two parts accumulate apart
        part = np.float32 if np.dtype(dtype) == np.complex64 else np.float64
        return complex_join(*(index_add(shape, part, index, complex_unary(p, v))
                              for p in ("real", "imag")))
    if strided is not None:      # basic indexing never repeats a position
        out = full(shape, 0, dtype)
        _copy_into(out, v, rshape, *strided, 0,
                   broadcast_strides(v.shape, rshape, element_strides(v)))
        return out
    acc = _atomic_dtype(dtype)
    out = full(shape, 0, acc)
    if pos.size:
        if v.shape != rshape or v.dtype != acc:
            v = astype(broadcast_to(v, rshape), acc)
        _run(mv.scatter_add, pos.size, _flat(out), _flat(v), from_numpy(pos.reshape(-1)))
    return out if acc == np.dtype(dtype) else astype(out, dtype)


# ------------------------------------------------------------------ random
# Drawn on the host from the CPU backend's generator, then copied: the same seed
# gives the same numbers on every device.


def seed(value):
    """No-op: CUDA shares the CPU backend's generator, which ``set_seed`` seeds."""


def uniform(shape, low, high, dtype):
    return from_numpy(cpu.uniform(shape, low, high, dtype))


def normal(shape, mean, std, dtype):
    return from_numpy(cpu.normal(shape, mean, std, dtype))


def bernoulli(shape, p, dtype):
    return from_numpy(cpu.bernoulli(shape, p, dtype))


def integers(shape, low, high, dtype):
    return from_numpy(cpu.integers(shape, low, high, dtype))


# op families keep their kernels in modules of their own; their public names join this module
from .special import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .linalg import *  # noqa: E402,F401,F403
from .nn import *  # noqa: E402,F401,F403
from .fused import *  # noqa: E402,F401,F403
from .spectral import *  # noqa: E402,F401,F403
from .losses import *  # noqa: E402,F401,F403

# ------------------------------------------------- operands of the row-major kernels
# The functions below read views in place or write into them; every other function of
# this backend (the contract's and the families') gets its non-contiguous array
# operands, also inside lists and tuples, as contiguous copies, which it only reads.
# ``unary``, ``binary`` and ``where`` read through ``_flat``, which copies the same way.

_VIEW_AWARE = frozenset((
    "asarray", "to_numpy", "from_numpy", "copy", "astype", "unary", "binary", "where",
    "inplace", "reshape", "transpose", "broadcast_to", "concat", "stack", "getitem",
    "setitem", "diagonal", "index_add", "matmul", "matmul_nt", "matmul_tn"))


def _strided(v):
    if type(v) in (list, tuple):
        return any(map(_strided, v))
    return _is_device(v) and not is_contiguous(v)


def _compact(v):
    if type(v) in (list, tuple):
        return type(v)(map(_compact, v))
    return copy(v) if _is_device(v) and not is_contiguous(v) else v


def _contiguous_operands(fn):
    """``fn`` with its non-contiguous device-array operands replaced by contiguous
    copies (for kernels that walk row-major buffers; the copies are only read)."""
    import functools

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if any(map(_strided, args)) or any(map(_strided, kwargs.values())):
            args = tuple(map(_compact, args))
            kwargs = {k: _compact(v) for k, v in kwargs.items()}
        return fn(*args, **kwargs)
    return run


def _wrap_row_major():
    from .. import api
    from . import fused, indexing, linalg, losses, nn, special, spectral
    names = set(api.FUNCTIONS)
    for family in (special, indexing, linalg, nn, fused, spectral, losses):
        names.update(family.__all__)
    for n in sorted(names - _VIEW_AWARE):
        fn = globals().get(n)
        if callable(fn):
            globals()[n] = _contiguous_operands(fn)


_wrap_row_major()
