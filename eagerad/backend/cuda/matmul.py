"""Batched matrix product: a tiled shared-memory kernel.

Each block computes ``TILE x TILE`` tiles of the batch entries' outputs: the
threads load one tile of ``a`` and one of ``b`` into shared memory per step
along K, synchronise, and accumulate their dot-product pieces.  Operands are
flat contiguous buffers; a batch stride of 0 reuses one matrix for every batch
entry (broadcasting without a copy).  Built once per accumulator dtype.
"""
import numpy as np
from numba import cuda

from .launch import TILE, numba_type

_cache = {}


def _make(acc_dtype):
    acc_t = numba_type(acc_dtype)
    cast = np.dtype(acc_dtype).type
    T = TILE

    @cuda.jit
    def kernel(out, a, b, M, N, K, n_batch, batch_a, batch_b):
        sa = cuda.shared.array((T, T), acc_t)
        sb = cuda.shared.array((T, T), acc_t)
        tx = cuda.threadIdx.x
        ty = cuda.threadIdx.y
        col = cuda.blockIdx.x * T + tx
        # grid-stride over batch entries and row tiles (the y and z grid sizes are capped
        # at 65535); the loop bounds depend on the block only, so every thread of a block
        # reaches every barrier, and threads outside the matrix load zeros instead of
        # leaving early
        for z in range(cuda.blockIdx.z, n_batch, cuda.gridDim.z):
            a0 = z * batch_a
            b0 = z * batch_b
            for tile_row in range(cuda.blockIdx.y * T, M, cuda.gridDim.y * T):
                row = tile_row + ty
                acc = cast(0)
                for k0 in range(0, K, T):
                    ka = k0 + tx
                    kb = k0 + ty
                    sa[ty, tx] = cast(a[a0 + row * K + ka]) if row < M and ka < K else cast(0)
                    sb[ty, tx] = cast(b[b0 + kb * N + col]) if kb < K and col < N else cast(0)
                    cuda.syncthreads()
                    for k in range(T):
                        acc += sa[ty, k] * sb[k, tx]
                    cuda.syncthreads()
                if row < M and col < N:
                    out[z * M * N + row * N + col] = acc
    return kernel


def kernel(acc_dtype):
    """The tiled matmul kernel accumulating in ``acc_dtype`` (built once per dtype)."""
    key = np.dtype(acc_dtype)
    k = _cache.get(key)
    if k is None:
        k = _cache[key] = _make(key)
    return k
