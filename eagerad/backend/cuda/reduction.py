"""Reduction kernels: shared-memory tree reductions over contiguous segments, one launch.

The host side moves the reduced axes last, so the input is a contiguous
``(M, K)`` matrix.  Each row may be cut into ``C`` chunks of length ``L`` (long
rows with few outputs, e.g. a full sum); one block reduces one segment: its
threads stride over the segment, then combine their partial results in a
shared-memory tree.  A row cut into chunks is finished in the same launch: each
block writes its chunk's value, fences, and counts itself in with an atomic on
the row's counter; the block that counts last reduces the row's chunk values in
chunk order (so the result does not depend on which block finished when) and
sets the counter back to zero for the next launch.  The counters live in one
small device array per process (``C > 1`` only happens for fewer than
``SPLIT_ROWS`` rows).  Kernels are built once per (op, accumulator dtype) and
compiled by Numba once per input dtype.

>>> sorted(OPS)
['all', 'any', 'max', 'min', 'prod', 'sum']
"""
import numpy as np
from numba import cuda

from .launch import MAX_BLOCKS, RED_THREADS as THREADS, numba_type

SPLIT_ROWS = 1024               # rows from which each row is one block's work
CHUNK = THREADS * 16            # elements per block when a row is split across blocks


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

    if neutral is None:
        @cuda.jit(device=True)
        def pad_partial(p, start):
            return p[start]
    else:
        @cuda.jit(device=True)
        def pad_partial(p, start):
            return cast(neutral)

    @cuda.jit
    def kernel(out, a, n_segments, K, C, L, partial, counter):
        buf = cuda.shared.array(T, acc_t)
        last = cuda.shared.array(1, np.int32)
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
            if C == 1:
                if t == 0:
                    out[m] = buf[0]
            else:
                if t == 0:
                    partial[s] = buf[0]
                    cuda.threadfence()          # the value is visible before the count
                    last[0] = cuda.atomic.add(counter, m, 1) == C - 1
                cuda.syncthreads()
                if last[0]:                     # every chunk of row m is in: finish it
                    p0 = m * C
                    acc = partial[p0 + t] if t < C else pad_partial(partial, p0)
                    for j in range(t + T, C, T):
                        acc = combine(acc, partial[p0 + j])
                    buf[t] = acc
                    tree(t, buf, buf)
                    if t == 0:
                        out[m] = buf[0]
                        counter[m] = 0
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


_counters = {}


def _counter(M):
    """The process's zeroed int32 row counters (at least ``M``) for the current device;
    the kernels leave them zero."""
    from .. import cuda as B
    try:
        dev = cuda.get_current_device().id
    except Exception:               # the simulator has one device
        dev = 0
    c = _counters.get(dev)
    if c is None or c.size < M:
        c = _counters[dev] = B.from_numpy(np.zeros(max(M, SPLIT_ROWS), np.int32))
    return c


def segments(op, a, M, K, acc):
    """Reduce each of the ``M`` rows of length ``K`` of flat ``a`` with ``op`` into a new
    ``(M,)`` array of dtype ``acc``, in one launch (rows split into chunks when there are
    few of them and they are long)."""
    from .. import cuda as B
    C, L = 1, K
    if M < SPLIT_ROWS and K > CHUNK:
        C = -(-K // CHUNK)
        L = -(-K // C)
        C = -(-K // L)
    out = B._empty((M,), acc)
    partial, counter = (B._empty((M * C,), acc), _counter(M)) if C > 1 else (out, _counter(1))
    # a split row gets one block per chunk (no grid-stride): a block that finishes a row then
    # reads chunk values it has never read before, so no stale L1 line can hold them
    grid = M * C if C > 1 else max(1, min(M, MAX_BLOCKS))
    segment_kernel(op, acc)[grid, THREADS](out, a, M * C, K, C, L, partial, counter)
    return out
