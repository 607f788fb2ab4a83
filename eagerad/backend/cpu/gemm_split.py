"""Split matrix products as one Numba ``prange`` kernel making one BLAS call per block.

Why: ``threads.share`` hands a product's blocks to a Python pool, and a hand-off costs
~50 us to submit plus a thread wake-up each way -- on a 2-core VM that ate the whole
gain of splitting a 0.3 ms product (a transformer's 1024x64 @ 64x192) in two.  Here
the split is one kernel: its ``prange`` runs on Numba's OpenMP workers, kept
warm between kernels by ``threads``'s wait policy, and each block is one call of
numpy's own ``cblas_?gemm`` (through its address, an argument, so the kernel is
cached on disk like every other).  Measured there: 0.30 -> 0.20 ms for that product,
36 -> 21 us for an LSTM step's 16x128 @ 128x512.  Launched as every parallel kernel
is (``parallel.kernel``: one launch at a time per process).

The blocks are those ``threads`` chooses (row blocks at multiples of
``threads.ROW_ALIGN``, shape-only column blocks, whole matrices of a stack), so the
bits are what the pool's split gives.  ``run`` returns False -- the caller keeps its
own path -- where numpy's BLAS is not an OpenBLAS with 64-bit integers (the
``scipy_openblas64_`` numpy's wheels bundle), the dtypes are not one of float32 /
float64, or an operand's layout is not one BLAS reads in place.  Imported at the
first split product.

>>> a = np.ones((200, 8)); b = np.ones((8, 3)); out = np.empty((200, 3))
>>> run(a, b, out, ROWS, [(0, 96), (96, 200)]) is False or bool((out == 8).all())
True
>>> product = plan(a, b, out, ROWS, [(0, 96), (96, 200)])
>>> product is None or product(a + 1, b, out) or bool((out == 16).all())
True
"""
import time

import numpy as np
from llvmlite import ir
from numba import prange, types
from numba.extending import intrinsic

from . import jit_cache, openblas, parallel

CACHE = jit_cache.enabled()
ROWS, COLUMNS, MATRICES = 0, 1, 2         # how ``run`` splits (its ``mode``)
_ROW_MAJOR, _PLAIN, _TRANSPOSED = 101, 111, 112      # CBLAS's enum values


@intrinsic
def _gemm(typingctx, addr, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, one):
    """``c = a @ b`` by the row-major 64-bit-integer ``cblas_?gemm`` at ``addr``;
    ``a``, ``b``, ``c`` are addresses, ``one`` is alpha in the product's dtype."""
    sig = types.void(addr, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, one)

    def codegen(context, builder, signature, args):
        addr, ta, tb, m, n, k, a, lda, b, ldb, c, ldc, one = args
        i32, i64, ptr = ir.IntType(32), ir.IntType(64), ir.IntType(8).as_pointer()
        real = context.get_value_type(signature.args[-1])
        fnty = ir.FunctionType(ir.VoidType(), [i32, i32, i32, i64, i64, i64, real, ptr, i64,
                                               ptr, i64, real, ptr, i64])
        fn = builder.inttoptr(addr, fnty.as_pointer())
        builder.call(fn, [ir.Constant(i32, _ROW_MAJOR), builder.trunc(ta, i32),
                          builder.trunc(tb, i32), m, n, k, one, builder.inttoptr(a, ptr), lda,
                          builder.inttoptr(b, ptr), ldb, ir.Constant(real, 0.0),
                          builder.inttoptr(c, ptr), ldc])
        return context.get_dummy_value()
    return sig, codegen


@parallel.kernel(cache=CACHE)
def _blocks(p, bounds, one):
    """Block ``i`` covers ``bounds[i]:bounds[i + 1]`` of c's rows (mode 0), columns
    (mode 1) or stack matrices (mode 2, each with ``inner`` matrices of a second batch
    axis).  ``p`` holds, in order: the gemm's address, mode, transpose flags of a and
    b, m, n, k, addresses and leading dimensions of a, b and c, then the byte strides
    of a, b, c along what is split and along the inner batch axis, and ``inner``
    (one array: Numba's dispatch costs ~0.4 us an argument)."""
    addr, mode, ta, tb, m, n, k = p[0], p[1], p[2], p[3], p[4], p[5], p[6]
    a, lda, b, ldb, c, ldc = p[7], p[8], p[9], p[10], p[11], p[12]
    for i in prange(bounds.shape[0] - 1):
        lo, hi = bounds[i], bounds[i + 1]
        if mode == 0:
            _gemm(addr, ta, tb, hi - lo, n, k, a + lo * p[13], lda, b, ldb, c + lo * p[15], ldc, one)
        elif mode == 1:
            _gemm(addr, ta, tb, m, hi - lo, k, a, lda, b + lo * p[14], ldb, c + lo * p[15], ldc, one)
        else:
            for j in range(lo, hi):
                for q in range(p[19]):
                    _gemm(addr, ta, tb, m, n, k, a + j * p[13] + q * p[16], lda,
                          b + j * p[14] + q * p[17], ldb, c + j * p[15] + q * p[18], ldc, one)


def _layout(x):
    """``(transpose flag, leading dimension)`` under which BLAS reads the matrix made
    of ``x``'s last two axes in place (rows contiguous, or a transposed view), or
    None."""
    rows, cols = x.shape[-2:]
    s_row, s_col = x.strides[-2:]
    item = x.itemsize
    if (s_col == item or cols == 1) and (rows == 1 or (s_row % item == 0 and s_row >= cols * item)):
        return _PLAIN, (s_row // item if rows > 1 else max(cols, 1))
    if (s_row == item or rows == 1) and (cols == 1 or (s_col % item == 0 and s_col >= rows * item)):
        return _TRANSPOSED, (s_col // item if cols > 1 else max(rows, 1))
    return None


class Plan:
    """A split product prepared for operands of given shapes, layouts and dtype:
    ``plan(a, b, out)`` computes ``out[...] = a @ b`` for any such operands (the
    recurrent layers' per-step products build one per sequence; ~1 us of Python a
    call instead of ~10).  Not for two threads at once."""
    __slots__ = ("_params", "_bounds", "_one", "_key", "_chunks")

    def __init__(self, params, bounds, one, chunks):
        self._params, self._bounds, self._one = params, bounds, one
        # what sizes the work (``parallel``'s timing): mode, m, n, k, inner, blocks, dtype
        self._key = ("gemm", int(params[1]), int(params[4]), int(params[5]), int(params[6]),
                     int(params[19]), bounds.shape[0], one.dtype.char)
        self._chunks = [tuple(c) for c in chunks]

    def _serial(self, a, b, out):
        """The same blocks one by one with numpy (the same GEMM calls: the same bits)."""
        mode = self._params[1]
        with np.errstate(all="ignore"):
            if mode == MATRICES:                   # numpy's loop: one GEMM per matrix
                np.matmul(a, b, out=out)
                return
            for lo, hi in self._chunks:
                if mode == ROWS:
                    np.matmul(a[lo:hi], b, out=out[lo:hi])
                else:
                    np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])

    def __call__(self, a, b, out):
        if parallel.paused() or parallel.unmeasured(self._key):
            start = time.perf_counter()
            self._serial(a, b, out)
            parallel.measured(self._key, time.perf_counter() - start)
            return
        params = self._params
        params[7], params[9], params[11] = a.ctypes.data, b.ctypes.data, out.ctypes.data
        _blocks(params, self._bounds, self._one, key=self._key)


def plan(a, b, out, mode, chunks):
    """A ``Plan`` for ``out[...] = a @ b`` with the blocks ``chunks`` (contiguous
    ``(lo, hi)`` ranges, in order) computed in parallel; ``mode`` says what they
    split: ``ROWS`` or ``COLUMNS`` of 2-D operands, or ``MATRICES`` of the first batch
    axis of stacks ``a`` (..., m, k), ``b`` (..., k, n) with at most two batch axes,
    where a 2-D operand is used whole with every matrix.  ``out`` is C-contiguous.
    None where this does not apply."""
    char = out.dtype.char
    if a.dtype != out.dtype or b.dtype != out.dtype or char not in "fd" or out.ndim > 4 \
            or not out.flags.c_contiguous or not out.flags.writeable \
            or out.shape[-2:] != (a.shape[-2], b.shape[-1]) or a.shape[-1] != b.shape[-2]:
        return None                 # (the kernel writes out's memory by its own strides)
    addr = openblas.gemm_address(char)
    la, lb = _layout(a), _layout(b)
    if not addr or la is None or lb is None or min(a.strides) < 0 or min(b.strides) < 0:
        return None
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    if mode == ROWS:
        steps = (a.strides[0], 0, out.strides[0], 0, 0, 0, 1)
    elif mode == COLUMNS:
        steps = (0, b.strides[1], out.itemsize, 0, 0, 0, 1)
    else:
        def batch(x, axis):         # byte stride of x along out's batch axis ``axis``
            lead = out.ndim - x.ndim
            return 0 if axis < lead or x.shape[axis - lead] == 1 else x.strides[axis - lead]
        steps = (batch(a, 0), batch(b, 0), out.strides[0]) + (
            (batch(a, 1), batch(b, 1), out.strides[1], out.shape[1]) if out.ndim == 4 else (0, 0, 0, 1))
    bounds = [lo for lo, _ in chunks]
    bounds.append(chunks[-1][1])
    params = np.array((addr, mode, la[0], lb[0], m, n, k, 0, la[1], 0, lb[1], 0, n) + steps, np.int64)
    return Plan(params, np.array(bounds, np.int64), out.dtype.type(1), chunks)


def run(a, b, out, mode, chunks):
    """``plan(a, b, out, mode, chunks)`` run once: False, computing nothing, where it
    does not apply."""
    prepared = plan(a, b, out, mode, chunks)
    if prepared is None:
        return False
    prepared(a, b, out)
    return True
