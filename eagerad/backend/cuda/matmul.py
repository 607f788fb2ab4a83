"""Batched matrix products: a register-tiled kernel, or cuBLAS through CuPy.

The kernel (``kernel``) is the classic SGEMM/DGEMM blocking.  One block of ``TH``
threads owns a ``BM x BN`` tile of one batch entry's output; each thread owns a
``TM x TN`` micro-tile of it, kept in registers.  Along K the block walks slices
``BK`` wide: the ``BM x BK`` slice of ``a`` and the ``BK x BN`` slice of ``b`` go
into shared memory (two buffers: while the threads multiply out of one, the next
slice's values are already on their way from global memory into registers, then
land in the other buffer, so one barrier per slice is enough).  A thread's rows
are ``ty, ty + RY, ty + 2 RY, ...`` and its columns ``tx, tx + RX, ...`` (strided,
not contiguous): the warp's shared-memory reads hit distinct banks and its stores
to ``out`` are coalesced.  Shared rows are padded by 4 elements so the transposing
stores of a row-major slice do not collide in one bank.

Either operand may be stored transposed (``trans_a``: ``a`` holds ``A^T`` row-major,
as ``matmul_tn``'s left operand; ``trans_b``: ``b`` holds ``B^T``, as a linear
layer's weight): the kernel then reads it in its own order and no transposed copy
is made.  A batch stride of 0 reuses one matrix for every batch entry.  Edges are
zero-padded in the loads and masked in the stores, so every shape works (1 row,
primes, K smaller than a slice).  Two blockings exist, ``big`` (128 x 128, 8 x 8 per
thread) and ``small`` (64 x 64, 4 x 4), the small one when the big one would leave
most multiprocessors idle.  Under Numba's CUDA simulator both shrink to a few
threads so the tests cross many tile edges quickly.

``EAGERAD_CUDA_MATMUL`` picks the implementation: ``kernel`` (always this kernel),
``cublas`` (CuPy's ``matmul``, i.e. cuBLAS, for float32/float64 whenever CuPy
imports) or ``auto`` (the default: cuBLAS for float32/float64 products of at least
``CUBLAS_MIN_FLOPS`` multiply-adds when CuPy imports, else the kernel).
``benchmarks/gpu.py`` times both next to PyTorch so the default follows measurement.

>>> sorted(CONFIGS)
['big', 'small']
"""
import math
import os

import numpy as np
from numba import cuda

from .launch import GRID_YZ, SIMULATOR, numba_type

# name -> (BM, BN, BK, TM, TN): block tile, K slice, per-thread micro-tile
CONFIGS = ({"big": (8, 8, 4, 2, 2), "small": (4, 4, 2, 2, 2)} if SIMULATOR else
           {"big": (128, 128, 8, 8, 8), "small": (64, 64, 8, 4, 4)})
PAD = 1 if SIMULATOR else 4        # shared-row padding (elements) against bank conflicts
MULTIPROCESSORS = 132              # an H100 SXM; only steers the choice of blocking
CUBLAS_MIN_FLOPS = 1 << 21         # multiply-adds from which ``auto`` takes cuBLAS

_cache = {}


def _make(cfg, acc_dtype, trans_a, trans_b):
    BM, BN, BK, TM, TN = cfg
    RY, RX = BM // TM, BN // TN
    TH = RY * RX
    LA, LB = BM * BK // TH, BK * BN // TH      # slice elements each thread loads
    assert LA * TH == BM * BK and LB * TH == BK * BN, cfg
    SA, SB = BM + PAD, BN + PAD
    acc_t = numba_type(acc_dtype)
    cast = np.dtype(acc_dtype).type
    TA, TB = bool(trans_a), bool(trans_b)

    @cuda.jit
    def kernel(out, a, b, M, N, K, n_batch, batch_a, batch_b):
        As = cuda.shared.array((2, BK, SA), acc_t)
        Bs = cuda.shared.array((2, BK, SB), acc_t)
        acc = cuda.local.array((TM, TN), acc_t)
        ra = cuda.local.array(LA, acc_t)
        rb = cuda.local.array(LB, acc_t)
        fa = cuda.local.array(TM, acc_t)
        fb = cuda.local.array(TN, acc_t)
        t = cuda.threadIdx.x
        ty = t // RX
        tx = t - ty * RX
        n0 = cuda.blockIdx.x * BN
        nk = (K + BK - 1) // BK
        # grid-stride over batch entries and row tiles (y and z grids stop at 65535); the
        # bounds depend on the block only, so every thread reaches every barrier
        for z in range(cuda.blockIdx.z, n_batch, cuda.gridDim.z):
            a0 = z * batch_a
            b0 = z * batch_b
            for m0 in range(cuda.blockIdx.y * BM, M, cuda.gridDim.y * BM):
                for i in range(TM):
                    for j in range(TN):
                        acc[i, j] = cast(0)
                for kt in range(nk + 1):
                    # fetch slice kt into registers (zeros past the edges) ...
                    if kt < nk:
                        k0 = kt * BK
                        for r in range(LA):
                            e = t + TH * r
                            if TA:
                                mm = e % BM
                                kk = e // BM
                                ok = m0 + mm < M and k0 + kk < K
                                ra[r] = cast(a[a0 + (k0 + kk) * M + m0 + mm]) if ok else cast(0)
                            else:
                                kk = e % BK
                                mm = e // BK
                                ok = m0 + mm < M and k0 + kk < K
                                ra[r] = cast(a[a0 + (m0 + mm) * K + k0 + kk]) if ok else cast(0)
                        for r in range(LB):
                            e = t + TH * r
                            if TB:
                                kk = e % BK
                                nn = e // BK
                                ok = n0 + nn < N and k0 + kk < K
                                rb[r] = cast(b[b0 + (n0 + nn) * K + k0 + kk]) if ok else cast(0)
                            else:
                                nn = e % BN
                                kk = e // BN
                                ok = n0 + nn < N and k0 + kk < K
                                rb[r] = cast(b[b0 + (k0 + kk) * N + n0 + nn]) if ok else cast(0)
                    # ... multiply out of the buffer of slice kt - 1 meanwhile ...
                    if kt > 0:
                        cur = (kt - 1) & 1
                        for kk in range(BK):
                            for i in range(TM):
                                fa[i] = As[cur, kk, ty + RY * i]
                            for j in range(TN):
                                fb[j] = Bs[cur, kk, tx + RX * j]
                            for i in range(TM):
                                for j in range(TN):
                                    acc[i, j] += fa[i] * fb[j]
                    # ... then store slice kt into the other buffer; one barrier per slice:
                    # the buffer written here was last read before the previous barrier
                    if kt < nk:
                        nxt = kt & 1
                        for r in range(LA):
                            e = t + TH * r
                            if TA:
                                As[nxt, e // BM, e % BM] = ra[r]
                            else:
                                As[nxt, e % BK, e // BK] = ra[r]
                        for r in range(LB):
                            e = t + TH * r
                            if TB:
                                Bs[nxt, e % BK, e // BK] = rb[r]
                            else:
                                Bs[nxt, e // BN, e % BN] = rb[r]
                    cuda.syncthreads()
                o0 = z * M * N
                for i in range(TM):
                    row = m0 + ty + RY * i
                    if row < M:
                        for j in range(TN):
                            col = n0 + tx + RX * j
                            if col < N:
                                out[o0 + row * N + col] = acc[i, j]
    kernel.threads = TH
    return kernel


def kernel(acc_dtype, config="big", trans_a=False, trans_b=False):
    """The register-tiled kernel accumulating in ``acc_dtype`` with blocking ``config``
    (a key of ``CONFIGS``) and operand layouts ``trans_a``/``trans_b``; built once per key,
    compiled by Numba once per operand dtypes."""
    key = (np.dtype(acc_dtype), config, bool(trans_a), bool(trans_b))
    k = _cache.get(key)
    if k is None:
        k = _cache[key] = _make(CONFIGS[config], *key[:1], *key[2:])
    return k


def choose_config(M, N, n_batch, itemsize=4):
    """``big`` unless its tiles would leave most multiprocessors without two blocks, or its
    shared slices of 16-byte (complex128) elements would pass the 48 KB a block gets.

    >>> choose_config(1, 1, 1)        # one tile: the small blocking
    'small'
    """
    BM, BN, BK = CONFIGS["big"][:3]
    if 2 * BK * (BM + BN + 2 * PAD) * itemsize > 48 * 1024:
        return "small"
    tiles = -(-M // BM) * -(-N // BN) * n_batch
    return "big" if tiles >= 2 * MULTIPROCESSORS or SIMULATOR and tiles > 1 else "small"


def launch(out, a, b, M, N, K, n_batch, batch_a, batch_b, trans_a=False, trans_b=False,
           config=None):
    """``out[z] = op(a[z]) @ op(b[z])`` for ``z < n_batch`` with the tiled kernel, on flat
    buffers (``batch_*``: element stride between batch entries, 0 to share one matrix)."""
    config = config or choose_config(M, N, n_batch, out.dtype.itemsize)
    BM, BN = CONFIGS[config][:2]
    k = kernel(out.dtype, config, trans_a, trans_b)
    grid = (-(-N // BN), min(-(-M // BM), GRID_YZ), min(n_batch, GRID_YZ))
    k[grid, k.threads](out, a, b, M, N, K, n_batch, batch_a, batch_b)

# ------------------------------------------------------------------- cuBLAS


_cupy = []


def cupy_module():
    """CuPy when it imports and sees a device (never under the simulator), else None."""
    if not _cupy:
        mod = None
        if not SIMULATOR:
            try:
                import cupy
                cupy.cuda.runtime.getDeviceCount()
                mod = cupy
            except Exception:       # not installed, or no driver/device: the kernel serves
                mod = None
        _cupy.append(mod)
    return _cupy[0]


def _cupy_view(cp, x):
    """A CuPy array over the flat device buffer ``x`` (no copy, and no host synchronisation:
    ``cupy.asarray`` of a ``__cuda_array_interface__`` carrying a stream would wait for
    it).  CuPy and Numba both launch on the legacy default stream, so order holds."""
    ptr = x.__cuda_array_interface__["data"][0]
    mem = cp.cuda.UnownedMemory(ptr, x.size * x.dtype.itemsize, x)
    return cp.ndarray((x.size,), x.dtype, cp.cuda.MemoryPointer(mem, 0))


def cublas_launch(out, a, b, M, N, K, n_batch, batch_a, batch_b, trans_a=False, trans_b=False):
    """``launch``'s product by CuPy's ``matmul`` (cuBLAS) on the same buffers, no copies:
    CuPy views the device arrays' memory and writes ``out``."""
    cp = cupy_module()

    def operand(x, rows, cols, stride, trans):
        v = _cupy_view(cp, x)
        v = v.reshape((n_batch, cols, rows) if trans else (n_batch, rows, cols)) if stride \
            else v.reshape((cols, rows) if trans else (rows, cols))
        return v.swapaxes(-1, -2) if trans else v

    o = _cupy_view(cp, out).reshape((n_batch, M, N))
    ca = operand(a, M, K, batch_a, trans_a)
    cb = operand(b, K, N, batch_b, trans_b)
    if ca.ndim == 2 and cb.ndim == 2:
        if n_batch == 1:
            cp.matmul(ca, cb, out=o[0])
        else:
            o[...] = cp.matmul(ca, cb)
    else:
        cp.matmul(ca, cb, out=o)


def use_cublas(dtype, M, N, K):
    """Whether ``EAGERAD_CUDA_MATMUL`` (``auto``/``kernel``/``cublas``) sends this product to
    cuBLAS: only float32/float64, and only when CuPy imports.

    >>> use_cublas(np.int64, 512, 512, 512)
    False
    """
    mode = os.environ.get("EAGERAD_CUDA_MATMUL", "auto")
    if mode not in ("auto", "kernel", "cublas"):
        raise ValueError(f"EAGERAD_CUDA_MATMUL must be 'auto', 'kernel' or 'cublas', got {mode!r}")
    if mode == "kernel" or np.dtype(dtype) not in (np.float32, np.float64):
        return False
    if mode == "auto" and M * N * K < CUBLAS_MIN_FLOPS:
        return False
    return cupy_module() is not None

# --------------------------------------------------------------- host side


def _operand(B, x):
    """``(array, transposed)``: C-contiguous ``x`` as is; a matrix stored column-major (a
    transposed view) as its C-contiguous transpose (a view too) and True; anything else
    copied contiguous."""
    if x.is_c_contiguous():
        return x, False
    if x.ndim == 2 and x.is_f_contiguous() and 0 not in x.strides:
        return B.transpose(x, (1, 0)), True
    return B.copy(x), False


def product(a, b, trans_a=False, trans_b=False):
    """numpy's ``matmul(op(a), op(b))`` on device arrays, ``op`` a transpose of the last two
    axes where ``trans_*`` is set (only for matrices): 1-D promotion, broadcast batches,
    float16 accumulated in float32, bool in int64."""
    from .. import cuda as B
    if (trans_a or trans_b) and (a.ndim != 2 or b.ndim != 2):
        raise ValueError(f"matmul with a transposed operand takes matrices, got shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    a, ta = _operand(B, a)
    b, tb = _operand(B, b)
    ta, tb = ta != bool(trans_a), tb != bool(trans_b)
    a2 = a.reshape((1,) + a.shape) if a.ndim == 1 else a
    b2 = b.reshape(b.shape + (1,)) if b.ndim == 1 else b
    M, K = a2.shape[-2:][::-1] if ta else a2.shape[-2:]
    Kb, N = b2.shape[-2:][::-1] if tb else b2.shape[-2:]
    if Kb != K:
        raise ValueError(f"matmul: shapes {tuple(a.shape)} and {tuple(b.shape)} are not aligned"
                         + (" (after transposing)" if trans_a or trans_b else ""))
    batch = tuple(np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2]))
    n_batch = math.prod(batch)
    dtype = np.result_type(a.dtype, b.dtype)
    acc = np.float32 if dtype == np.float16 else np.int64 if dtype == np.bool_ else dtype
    if K == 0 or n_batch * M * N == 0:
        out = B.full((n_batch * M * N,), 0, acc)
    else:
        fa, sa = _batched(B, a2, batch)
        fb, sb = _batched(B, b2, batch)
        if fa.dtype != acc and use_cublas(acc, M, N, K):
            fa = B.astype(fa, acc)
        if fb.dtype != acc and use_cublas(acc, M, N, K):
            fb = B.astype(fb, acc)
        out = B._empty((n_batch * M * N,), acc)
        if fa.dtype == fb.dtype == acc and use_cublas(acc, M, N, K):
            cublas_launch(out, fa, fb, M, N, K, n_batch, sa, sb, ta, tb)
        else:
            launch(out, fa, fb, M, N, K, n_batch, sa, sb, ta, tb)
    if out.dtype != dtype:
        out = B.astype(out, dtype)
    shape = batch + ((M,) if a.ndim > 1 else ()) + ((N,) if b.ndim > 1 else ())
    return out.reshape(shape)


def _batched(B, x, batch):
    """Flat buffer of ``x`` (..., R, C) and its batch stride for ``batch`` (0: shared)."""
    if math.prod(x.shape[:-2]) == 1:
        return x.reshape(x.size), 0
    if x.shape[:-2] != batch:
        x = B.copy(B.broadcast_to(x, batch + x.shape[-2:]))
    return x.reshape(x.size), math.prod(x.shape[-2:])


def matmul_nt(a, b):
    """``a @ b.T`` for matrices, reading ``b`` in place (no transposed copy).

    >>> import eagerad
    >>> eagerad.ones(2, 3, device="cuda").matmul(eagerad.ones(4, 3, device="cuda").T).shape  # doctest: +SKIP
    (2, 4)
    """
    return product(a, b, trans_b=True)


def matmul_tn(a, b):
    """``a.T @ b`` for matrices, reading ``a`` in place (no transposed copy).

    >>> import eagerad
    >>> eagerad.ones(3, 2, device="cuda").T.matmul(eagerad.ones(3, 4, device="cuda")).shape  # doctest: +SKIP
    (2, 4)
    """
    return product(a, b, trans_a=True)
