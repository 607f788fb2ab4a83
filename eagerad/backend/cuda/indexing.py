"""cuda backend: sorting and cumulative (scan) kernels.

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cuda/__init__.py``.  The scanned axis is
moved last, so the input is a contiguous ``(M, K)`` matrix, and one thread runs
along each row (grid-stride over rows): cumulative sum/product/log-sum-exp,
running max/min indices and the first-order linear recurrence of the cumulative
ops' derivative rules.  ``argsort`` is a documented host round trip (copy to the
host, numpy's stable sort, copy the indices back): there is no device sort yet.
"""
import math
import sys

import numpy as np
from numba import cuda

from ..cpu import indexing as host
from .launch import blocks, launch, THREADS

__all__ = ["cumulative", "cumextreme", "linear_scan", "argsort"]

_core = sys.modules[__package__]       # the backend module (complete once a function runs)


def _sum(a, b):
    return a + b


def _prod(a, b):
    return a * b


def _logaddexp(a, b):
    if a != a or b != b:
        return a + b
    m = max(a, b)
    if m == -math.inf:
        return m
    return m + math.log(math.exp(a - m) + math.exp(b - m))


_COMBINE = {"sum": _sum, "prod": _prod, "logsumexp": _logaddexp}
_kernels = {}


def _scan_kernel(op):
    """Running ``op`` along each row, from either end (built once per op)."""
    kernel = _kernels.get(op)
    if kernel is None:
        combine = cuda.jit(device=True)(_COMBINE[op])

        @cuda.jit(cache=True)
        def kernel(out, a, M, K, reverse):
            for m in range(cuda.grid(1), M, cuda.gridsize(1)):
                first = m * K + K - 1 if reverse else m * K
                step = -1 if reverse else 1
                out[first] = a[first]
                acc = out[first]
                for j in range(1, K):
                    i = first + j * step
                    acc = combine(acc, a[i])
                    out[i] = acc
        _kernels[op] = kernel
    return kernel


@cuda.jit(cache=True)
def _linear_scan_kernel(out, a, b, M, K, reverse):
    for m in range(cuda.grid(1), M, cuda.gridsize(1)):
        h = 0.0
        for j in range(K):
            i = m * K + (K - 1 - j if reverse else j)
            h = a[i] * h + b[i]
            out[i] = h


def _extreme_kernel(op):
    """Index of the running max/min along each row: ties take the later index, a NaN
    wins and stays (PyTorch's cummax/cummin)."""
    kernel = _kernels.get("arg" + op)
    if kernel is None:
        is_max = op == "max"

        @cuda.jit(cache=True)
        def kernel(idx, a, M, K):
            for m in range(cuda.grid(1), M, cuda.gridsize(1)):
                base = m * K
                best = a[base]
                at = 0
                idx[base] = 0
                for j in range(1, K):
                    v = a[base + j]
                    if v != v or (best == best and (v >= best if is_max else v <= best)):
                        best = v
                        at = j
                    idx[base + j] = at
        _kernels["arg" + op] = kernel
    return kernel


def _rows(x, axis):
    """``x`` with ``axis`` moved last as a flat contiguous buffer, M rows, K, and a function
    that puts an ``(M * K,)`` result back into ``x``'s layout."""
    rows, M, K = _core._rows(x, (axis,))
    moved = tuple(s for d, s in enumerate(x.shape) if d != axis) + (x.shape[axis],)
    back = tuple(range(axis)) + (x.ndim - 1,) + tuple(range(axis, x.ndim - 1))

    def restore(flat):
        out = flat.reshape(moved)
        return out if axis == x.ndim - 1 else _core.copy(_core.transpose(out, back))
    return rows, M, K, restore


def _launch(kernel, M, *args):
    if M:
        launch(kernel, blocks(M), THREADS, *args)


def _as_work(v):
    """``v`` in the dtype the kernels compute in (float16 as float32, bool as uint8)."""
    work = host.work_dtype(v.dtype)
    return v if work == v.dtype else _core.astype(v, work)


def _as_result(out, dtype):
    return out if out.dtype == dtype else _core.astype(out, dtype)


def cumulative(op, x, axis, reverse):
    """Running ``op`` (sum, prod or logsumexp) along ``axis``; ``reverse`` runs from the end."""
    dtype = host._result_dtype(op, x.dtype)
    rows, M, K, restore = _rows(_as_work(x), axis)
    out = _core._empty((M * K,), host.work_dtype(dtype))
    if K:
        _launch(_scan_kernel(op), M, out, rows, M, K, bool(reverse))
    return _as_result(restore(out), dtype)


def cumextreme(op, x, axis):
    """Where the running max (``op='max'``) or min along ``axis`` was attained (int64)."""
    rows, M, K, restore = _rows(_as_work(x), axis)
    idx = _core._empty((M * K,), np.int64)
    if K:
        _launch(_extreme_kernel(op), M, idx, rows, M, K)
    return restore(idx)


def linear_scan(a, b, axis, reverse):
    """``h[i] = a[i] * h[i-1] + b[i]`` along ``axis`` from ``h[-1] = 0`` (``reverse``: from
    the end); a float result, as gradients are."""
    dtype = np.result_type(a.dtype, b.dtype, np.float16)
    work = host.work_dtype(dtype)
    shape = np.broadcast_shapes(a.shape, b.shape)
    a, b = ((_core.broadcast_to(v, shape) if v.shape != shape else v) for v in (a, b))
    a, b = ((_core.astype(v, work) if v.dtype != work else v) for v in (a, b))
    ra, M, K, restore = _rows(a, axis)
    rb = _rows(b, axis)[0]
    out = _core._empty((M * K,), work)
    if K:
        _launch(_linear_scan_kernel, M, out, ra, rb, M, K, bool(reverse))
    return _as_result(restore(out), dtype)


def argsort(x, axis, descending):
    """Stable sorting indices along ``axis``: a host round trip (numpy's sort)."""
    return _core.from_numpy(host.argsort(_core.to_numpy(x), axis, descending))
