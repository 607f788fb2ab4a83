"""Reduction kernels: shared-memory tree reductions over contiguous segments.

The host side moves the reduced axes last, so the input is a contiguous
``(M, K)`` matrix.  Each row may be cut into ``C`` chunks of length ``L`` (two
passes for long rows with few outputs, e.g. a full sum); one block reduces one
segment: its threads stride over the segment, then combine their partial
results in a shared-memory tree.  Kernels are built once per (op, accumulator
dtype) and compiled by Numba once per input dtype.
"""
import numpy as np
from numba import cuda

from .launch import RED_THREADS as THREADS, numba_type


def _sum(a, b):
    return a + b


def _prod(a, b):
    return a * b


def _max(a, b):
    return a if a > b or a != a else b


def _min(a, b):
    return a if a < b or a != a else b


# op -> (combine, neutral element or None when duplicates are harmless, load as truth value)
OPS = {"sum": (_sum, 0, False), "prod": (_prod, 1, False), "max": (_max, None, False),
       "min": (_min, None, False), "any": (_max, None, True), "all": (_min, None, True)}


def _tree(merge):
    """Device function: the shared-memory tree step every block ends with.

    Once every thread has written its slot, each step halves the live threads; thread ``t``
    calls ``merge(x, y, t, t + w)`` to fold slot ``t + w`` of the shared arrays ``x``/``y``
    into slot ``t``.  Every thread of the block must call it (it synchronises); the result
    lands in slot 0.
    """
    T = THREADS

    @cuda.jit(device=True)
    def tree(t, x, y):
        cuda.syncthreads()
        w = T // 2
        while w > 0:
            if t < w:
                merge(x, y, t, t + w)
            cuda.syncthreads()
            w //= 2
    return tree


def _segment_kernel(op, acc_dtype):
    combine, neutral, truth = OPS[op]
    combine = cuda.jit(device=True)(combine)

    @cuda.jit(device=True)
    def merge(buf, unused, t, u):
        buf[t] = combine(buf[t], buf[u])
    tree = _tree(merge)
    acc_t = numba_type(acc_dtype)
    cast = np.dtype(acc_dtype).type
    T = THREADS

    @cuda.jit(device=True)
    def load(a, i):
        return cast(a[i] != 0) if truth else cast(a[i])

    # What a thread past the end of its segment starts from, chosen here on the host so
    # the compiled kernel never sees a None: the neutral element, or for idempotent ops
    # (max/min/any/all) a duplicate of the segment's first element.
    if neutral is None:
        @cuda.jit(device=True)
        def pad(a, start):
            return load(a, start)
    else:
        @cuda.jit(device=True)
        def pad(a, start):
            return cast(neutral)

    @cuda.jit
    def kernel(out, a, n_segments, K, C, L):
        buf = cuda.shared.array(T, acc_t)
        t = cuda.threadIdx.x
        for s in range(cuda.blockIdx.x, n_segments, cuda.gridDim.x):
            m = s // C
            c = s - m * C
            start = m * K + c * L
            length = min(L, K - c * L)
            acc = load(a, start + t) if t < length else pad(a, start)
            for j in range(t + T, length, T):
                acc = combine(acc, load(a, start + j))
            buf[t] = acc
            tree(t, buf, buf)
            if t == 0:
                out[s] = buf[0]
            cuda.syncthreads()
    return kernel


def _arg_kernel(op, dtype):
    sign = 1 if op == "argmax" else -1
    # bool and float16 values are compared (exactly) as uint8 and float32: plain
    # types for the shared-memory slots and the comparisons on every GPU
    held = {np.dtype(np.bool_): np.uint8, np.dtype(np.float16): np.float32}.get(
        np.dtype(dtype), dtype)
    val_t = numba_type(held)
    cast = np.dtype(held).type
    T = THREADS

    @cuda.jit(device=True)
    def better(v, i, w, j):
        # NaN counts as the extreme (numpy returns the first NaN); ties go to the lower index.
        # Compared, never multiplied, so bool and unsigned values work too.
        if v != v or w != w:
            return v != v and (w == w or i < j)
        return (v > w if sign > 0 else v < w) or (v == w and i < j)

    @cuda.jit(device=True)
    def merge(vals, idxs, t, u):
        if better(vals[u], idxs[u], vals[t], idxs[t]):
            vals[t] = vals[u]
            idxs[t] = idxs[u]
    tree = _tree(merge)

    @cuda.jit
    def kernel(out, a, M, K):
        vals = cuda.shared.array(T, val_t)
        idxs = cuda.shared.array(T, np.int64)
        t = cuda.threadIdx.x
        for m in range(cuda.blockIdx.x, M, cuda.gridDim.x):
            start = m * K
            bi = min(t, K - 1)
            bv = cast(a[start + bi])
            for j in range(t + T, K, T):
                v = cast(a[start + j])
                if better(v, j, bv, bi):
                    bv = v
                    bi = j
            vals[t] = bv
            idxs[t] = bi
            tree(t, vals, idxs)
            if t == 0:
                out[m] = idxs[0]
            cuda.syncthreads()
    return kernel


_cache = {}


def segment_kernel(op, acc_dtype):
    """Tree-reduction kernel for ``op`` accumulating in ``acc_dtype`` (built once)."""
    key = (op, np.dtype(acc_dtype))
    k = _cache.get(key)
    if k is None:
        k = _cache[key] = (_arg_kernel if op.startswith("arg") else _segment_kernel)(op, acc_dtype)
    return k
