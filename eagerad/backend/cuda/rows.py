"""Row kernels: softmax, log_softmax, logsumexp and their gradients, one launch each.

One block owns one row (the reduced axis) at a time and makes its passes over it
in the same launch: the row's maximum and its sum of ``exp(x - max)`` are block
reductions in shared memory, and the elementwise result is written by the same
threads, so the whole op reads its input from device memory once or twice and
writes once, with no temporaries.  A row need not be contiguous: an array of
shape ``(pre, K, post)`` reduced over ``K`` has rows ``m = p * post + q`` whose
elements lie ``post`` apart, so an inner axis needs no transposed copy.  Short
rows (``K <= SHORT_ROW``) get 32-thread blocks, long rows 256 (fewer under the
simulator).  float16 computes in float32 and rounds once at the store; the
arithmetic is the CPU backend's (``exp(x - m) / sum``, ``x - (log(sum) + m)``
with an infinite maximum taken as 0).

>>> sorted(KINDS)
['log_softmax', 'log_softmax_backward', 'logsumexp', 'softmax', 'softmax_backward']
"""
import math

import numpy as np
from numba import cuda

from .launch import MAX_BLOCKS, SIMULATOR, numba_type

THREADS = (4, 8) if SIMULATOR else (32, 256)     # (short rows, long rows)
SHORT_ROW = 16 if SIMULATOR else 256

KINDS = ("softmax", "log_softmax", "logsumexp", "softmax_backward", "log_softmax_backward")


def _block_reducer(combine, T):
    """Device function ``r(buf, t, v)``: ``combine`` of every thread's ``v``, returned to
    every thread of the block (all must call it; ``buf`` is a shared array of ``T``)."""
    @cuda.jit(device=True)
    def reduce(buf, t, v):
        cuda.syncthreads()          # the previous reduction's readers are done with buf
        buf[t] = v
        cuda.syncthreads()
        w = T // 2
        while w > 0:
            if t < w:
                buf[t] = combine(buf[t], buf[t + w])
            cuda.syncthreads()
            w //= 2
        return buf[0]
    return reduce


@cuda.jit(device=True)
def _max(a, b):
    return a if a > b or a != a else b       # NaN wins, as numpy.max


@cuda.jit(device=True)
def _add(a, b):
    return a + b


def _make(kind, acc_dtype, T):
    acc_t = numba_type(acc_dtype)
    cast = np.dtype(acc_dtype).type
    rmax = _block_reducer(_max, T)
    rsum = _block_reducer(_add, T)
    ninf = cast(-np.inf)

    finite_shift = kind != "softmax"

    @cuda.jit(device=True)
    def shifted_sum(buf, t, x, base, K, post):
        """(shift, sum(exp(x - shift))) of one row, to every thread: the shift is the row's
        maximum (for the log forms 0 where that is not finite, as the CPU backend)."""
        mx = ninf
        for j in range(t, K, T):
            mx = _max(mx, cast(x[base + j * post]))
        mx = rmax(buf, t, mx)
        if finite_shift and not math.isfinite(mx):
            mx = cast(0)
        s = cast(0)
        for j in range(t, K, T):
            s += math.exp(cast(x[base + j * post]) - mx)
        return mx, rsum(buf, t, s)

    if kind == "softmax":
        @cuda.jit
        def kernel(out, x, y, M, K, post):
            buf = cuda.shared.array(T, acc_t)
            t = cuda.threadIdx.x
            for m in range(cuda.blockIdx.x, M, cuda.gridDim.x):
                base = (m // post) * K * post + m % post
                mx, s = shifted_sum(buf, t, x, base, K, post)
                for j in range(t, K, T):
                    i = base + j * post
                    out[i] = math.exp(cast(x[i]) - mx) / s
    elif kind in ("log_softmax", "logsumexp"):
        lse_only = kind == "logsumexp"

        @cuda.jit
        def kernel(out, x, y, M, K, post):
            buf = cuda.shared.array(T, acc_t)
            t = cuda.threadIdx.x
            for m in range(cuda.blockIdx.x, M, cuda.gridDim.x):
                base = (m // post) * K * post + m % post
                mx, s = shifted_sum(buf, t, x, base, K, post)
                lse = (math.log(s) if s != 0 else ninf) + mx     # log(0): -inf, also here
                if lse_only:
                    if t == 0:
                        out[m] = lse
                else:
                    for j in range(t, K, T):
                        i = base + j * post
                        out[i] = cast(x[i]) - lse
    else:
        soft = kind == "softmax_backward"

        @cuda.jit
        def kernel(out, g, ans, M, K, post):
            buf = cuda.shared.array(T, acc_t)
            t = cuda.threadIdx.x
            for m in range(cuda.blockIdx.x, M, cuda.gridDim.x):
                base = (m // post) * K * post + m % post
                s = cast(0)
                for j in range(t, K, T):
                    i = base + j * post
                    s += cast(g[i]) * cast(ans[i]) if soft else cast(g[i])
                s = rsum(buf, t, s)
                for j in range(t, K, T):
                    i = base + j * post
                    if soft:
                        out[i] = cast(ans[i]) * (cast(g[i]) - s)
                    else:
                        out[i] = cast(g[i]) - math.exp(cast(ans[i])) * s
    return kernel


_cache = {}


def row_kernel(kind, acc_dtype, long_rows):
    """The one-launch kernel of ``kind`` (a name in ``KINDS``) accumulating in
    ``acc_dtype``, with the block size for long or short rows (built once per key)."""
    key = (kind, np.dtype(acc_dtype), bool(long_rows))
    k = _cache.get(key)
    if k is None:
        k = _cache[key] = _make(kind, key[1], THREADS[key[2]])
        k.threads = THREADS[key[2]]
    return k


def _run(kind, out, a, b, M, K, post):
    acc = np.float32 if a.dtype == np.float16 else a.dtype
    k = row_kernel(kind, acc, K > SHORT_ROW)
    if M and (K or kind == "logsumexp"):
        k[max(1, min(M, MAX_BLOCKS * 8)), k.threads](out.reshape(out.size), a.reshape(a.size),
                                                      b.reshape(b.size), M, K, post)
    return out


def _floating(x):
    """``x`` in the float dtype numpy's ``exp`` gives it (integers and bools convert)."""
    from .. import cuda as B
    if x.dtype.kind == "f":
        return x
    return B.astype(x, np.exp(np.zeros(0, x.dtype)).dtype)


def _single_axis(axis, ndim):
    """The one axis that ``axis`` (int or 1-tuple) names, else None."""
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            return None
        axis = axis[0]
    return int(axis) % max(ndim, 1)


def _geometry(shape, axis):
    """(M rows, K row length, post element stride) of ``shape`` reduced over ``axis``.

    >>> _geometry((2, 3, 4), 1)
    (8, 3, 4)
    """
    post = math.prod(shape[axis + 1:])
    return math.prod(shape[:axis]) * post, (shape[axis] if shape else 1), post


def _along(kind, a, b, axis):
    """Run row kernel ``kind`` over the one axis ``axis`` names; the result has ``b``'s
    shape and dtype."""
    from .. import cuda as B
    ax = _single_axis(axis, b.ndim)
    if ax is None:
        raise ValueError(f"{kind}: axis must name one axis, got {axis!r}")
    M, K, post = _geometry(b.shape, ax)
    return _run(kind, B._empty(b.shape, b.dtype), a, b, M, K, max(post, 1))


def softmax(x, axis):
    """``exp(x - max) / sum(exp(x - max))`` along ``axis``, one launch."""
    x = _floating(x)
    return _along("softmax", x, x, axis)


def log_softmax(x, axis):
    """``x - logsumexp(x)`` along ``axis``, one launch."""
    x = _floating(x)
    return _along("log_softmax", x, x, axis)


def logsumexp(x, axis, keepdims):
    """``log(sum(exp(x)))`` over ``axis`` (None, int or tuple) without overflow, one launch
    (several axes are first moved last, one copy)."""
    from .. import cuda as B
    if x.dtype.kind != "f":             # as the CPU backend: integers in float32
        x = B.astype(x, np.float32)
    axes = B._axes(axis, x.ndim)
    kept = tuple(1 if d in axes else s for d, s in enumerate(x.shape))
    if len(axes) == 1:
        M, K, post = _geometry(x.shape, axes[0])
        src = x
    else:
        src, M, K = B._rows(x, axes)
        post = 1
    out = _run("logsumexp", B._empty((M,), x.dtype), src, src, M, K, max(post, 1))
    return out.reshape(kept if keepdims else tuple(s for d, s in enumerate(x.shape)
                                                   if d not in axes))


def softmax_backward(g, ans, axis):
    """``ans * (g - sum(g * ans, axis))``: softmax's input gradient, one launch."""
    return _along("softmax_backward", g, ans, axis)


def log_softmax_backward(g, ans, axis):
    """``g - exp(ans) * sum(g, axis)``: log_softmax's input gradient, one launch."""
    return _along("log_softmax_backward", g, ans, axis)
