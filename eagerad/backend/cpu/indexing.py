"""cpu backend: sorting and cumulative (scan) kernels.

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cpu/__init__.py``.  Cumulative sums,
products and log-sum-exps are numpy's ``accumulate`` loops; the first-order
linear recurrence that the cumulative ops' derivative rules need is a Numba
kernel, compiled at its first call (``cache=True``), so importing compiles nothing.
"""
import numpy as np

__all__ = ["cumulative", "cumextreme", "linear_scan", "argsort"]

_ACCUMULATE = {"sum": np.add, "prod": np.multiply, "logsumexp": np.logaddexp}


def _result_dtype(op, dtype):
    """numpy's dtype for ``cumsum``/``cumprod`` of ``dtype`` (small ints widen to int64)."""
    if op == "logsumexp":
        return np.dtype(dtype)
    return getattr(np, "cum" + op)(np.ones(1, dtype)).dtype


def work_dtype(dtype):
    """The dtype scan kernels compute in for ``dtype``: float16 in float32 (Numba has no
    float16 arithmetic), bool as uint8, others as they are.

    >>> work_dtype(np.float16), work_dtype(np.float64)
    (dtype('float32'), dtype('float64'))
    """
    dtype = np.dtype(dtype)
    return np.dtype({"e": np.float32, "?": np.uint8}.get(dtype.char, dtype))


def cumulative(op, x, axis, reverse):
    """Running ``op`` (sum, prod or logsumexp) along ``axis``; ``reverse`` runs from the end.

    >>> cumulative("sum", np.array([1, 2, 3]), 0, False), cumulative("prod", np.array([1, 2, 3]), 0, True)
    (array([1, 3, 6]), array([6, 6, 3]))
    """
    dtype = _result_dtype(op, x.dtype)
    src = np.flip(x, axis) if reverse else x
    out = _ACCUMULATE[op].accumulate(src, axis=axis, dtype=dtype)
    return np.ascontiguousarray(np.flip(out, axis)) if reverse else out


def cumextreme(op, x, axis):
    """Where the running max (``op='max'``) or min along ``axis`` was attained (int64):
    the last index of a tie, and once a NaN is seen the latest NaN, as PyTorch's
    ``cummax``/``cummin`` (the values are ``x`` taken at these indices).

    >>> cumextreme("max", np.array([1.0, 3.0, 2.0, 3.0]), 0)
    array([0, 1, 1, 3])
    """
    ufunc = np.maximum if op == "max" else np.minimum
    hit = x == ufunc.accumulate(x, axis=axis)
    if x.dtype.kind == "f":
        hit |= np.isnan(x)
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    positions = np.arange(x.shape[axis], dtype=np.int64).reshape(shape)
    return np.maximum.accumulate(np.where(hit, positions, 0), axis=axis)


_scan_kernel = None


def _kernel():
    """The Numba row-scan kernel (compiled on first use, cached on disk)."""
    global _scan_kernel
    if _scan_kernel is None:
        from numba import njit
        from .jit_cache import enabled

        @njit(cache=enabled(), nogil=True)
        def scan(a, b, out):
            for m in range(out.shape[0]):
                h = 0.0      # float64 accumulator, as the CUDA kernel
                for k in range(out.shape[1]):
                    h = a[m, k] * h + b[m, k]
                    out[m, k] = h
        _scan_kernel = scan
    return _scan_kernel


def linear_scan(a, b, axis, reverse):
    """``h[i] = a[i] * h[i-1] + b[i]`` along ``axis`` from ``h[-1] = 0`` (``reverse``: from
    the end, ``h[i] = a[i] * h[i+1] + b[i]``); ``a`` and ``b`` have one shape.  The
    derivative rules of the cumulative ops are such recurrences.

    >>> linear_scan(np.array([5.0, 2.0, 3.0]), np.array([1.0, 1.0, 1.0]), 0, False)
    array([ 1.,  3., 10.])
    """
    dtype = np.result_type(a.dtype, b.dtype, np.float16)     # a float, as gradients are
    if a.size == 0:
        return np.zeros(a.shape, dtype)
    work = work_dtype(dtype)
    rows = [np.moveaxis(np.asarray(v, work), axis, -1) for v in np.broadcast_arrays(a, b)]
    if reverse:
        rows = [r[..., ::-1] for r in rows]
    shape = rows[0].shape
    flat = [np.ascontiguousarray(r).reshape(-1, shape[-1]) for r in rows]
    out = np.empty(flat[0].shape, work)
    _kernel()(flat[0], flat[1], out)
    out = out.reshape(shape)
    if reverse:
        out = out[..., ::-1]
    return np.ascontiguousarray(np.moveaxis(out, -1, axis), dtype=dtype)


def argsort(x, axis, descending):
    """Indices (int64) that sort ``x`` along ``axis``, stable (ties keep their order);
    NaN sorts as the largest value (last ascending, first descending), as PyTorch.

    >>> argsort(np.array([2.0, np.nan, 1.0, 2.0]), 0, True)
    array([1, 0, 3, 2])
    """
    if descending:
        n = x.shape[axis]
        idx = n - 1 - np.flip(np.argsort(np.flip(x, axis), axis=axis, kind="stable"), axis)
    else:
        idx = np.argsort(x, axis=axis, kind="stable")
    return np.ascontiguousarray(idx, dtype=np.int64)
