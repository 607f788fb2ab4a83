"""Stacked products whose batch axes cannot be merged, split over threads.

Attention's products run on views: ``q`` of a (batch, seq, 3d) projection reshaped to
(batch, seq, heads, hd) and swapped to (batch, heads, seq, hd) has batch axes (batch,
heads) that no reshape merges into one without a copy, so ``threads.matmul`` (which
splits stacks it can view as 3-D) leaves them to one ``np.matmul``.  Splitting along
the first batch axis instead needs no copy: each block of it is one call of
``gemm_split``'s kernel (one GEMM per matrix), else a pool share running
``np.matmul`` on ``a[lo:hi]`` and ``b[lo:hi]`` into ``out[lo:hi]``; numpy makes one
BLAS call per matrix of the stack either way, so the result is bit-identical to the
unsplit product under any thread count.

>>> a = np.ones((4, 2, 8, 3), np.float32)[:, :, :, :2]; b = np.ones((4, 2, 2, 5), np.float32)
>>> out = split_stacked(a, b, min_work=0); out is None or bool((out == 2).all())
True
"""
import numpy as np

from . import threads

# multiply-adds below which a split costs more than it saves (threads.MATMUL_SPLIT's
# reasoning: a share of the work should be ~0.1 ms of BLAS)
MIN_WORK = 1 << 22


def split_stacked(a, b, min_work=MIN_WORK):
    """``np.matmul(a, b)`` for stacks ``a`` (..., m, k) and ``b`` (..., k, n) of the
    same batch shape (at least 3-D, float), split along the first batch axis
    (``gemm_split``, else ``threads.share`` from ``min_work`` multiply-adds); None
    where this does not apply (other shapes or dtypes, small products, one thread),
    for the caller to run ``np.matmul``."""
    if a.ndim < 3 or a.ndim != b.ndim or a.shape[:-2] != b.shape[:-2] \
            or a.dtype != b.dtype or a.dtype.char not in "fd" or a.shape[-1] != b.shape[-2]:
        return None
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    work_size = a.size // max(k, 1) * k * n
    if (work_size < min_work and not threads.kernel_splits(work_size)) or a.shape[0] < 2 \
            or threads.kernel_threads() < 2:
        return None
    out = np.empty(a.shape[:-1] + (n,), a.dtype)
    chunks = threads.row_chunks(a.shape[0])
    if a.ndim <= 4 and threads.gemm_split().run(a, b, out, 2, chunks):
        return out
    if work_size < min_work or threads.shares() < 2:
        return None

    def work(i):
        lo, hi = chunks[i]
        with np.errstate(all="ignore"):
            np.matmul(a[lo:hi], b[lo:hi], out=out[lo:hi])
    threads.share(work, len(chunks))
    return out
