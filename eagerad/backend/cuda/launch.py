"""Launch configuration and index arithmetic shared by every CUDA kernel module.

Block and grid sizes are fixed once at import: real GPUs get 256-thread blocks
and grid-stride loops over at most ``MAX_BLOCKS`` blocks; under Numba's CUDA
simulator (``NUMBA_ENABLE_CUDASIM=1``), where every thread is a Python thread,
blocks shrink so the test-suite stays quick.  The same kernels run either way.

>>> from eagerad.backend.cuda.launch import collapse
>>> collapse((2, 3, 4), [(12, 4, 1)])
((24,), [(1,)])
"""
import sys
import threading

import numpy as np
from numba import config, cuda

SIMULATOR = bool(config.ENABLE_CUDASIM)
THREADS = 32 if SIMULATOR else 256          # elementwise blocks
RED_THREADS = 8 if SIMULATOR else 256       # reduction blocks (a power of two)
MAX_BLOCKS = 8 if SIMULATOR else 4096       # grid-stride loops cover the rest
TILE = 4 if SIMULATOR else 16               # matmul tile edge (TILE x TILE threads)
GRID_YZ = 65535                             # CUDA's limit on the y and z grid sizes


def _atomic_simulated_shared_arrays():
    """Make the simulator hand every thread of a block the same static shared array.

    numba-cuda's simulator (0.30) creates a block's ``cuda.shared.array`` when the
    first thread reaches it, with an unlocked look-up-then-insert keyed by the
    calling line.  Two threads arriving together each create and keep their own
    array, so the block's threads write to different buffers and the tree
    reductions and tiled matmul read stale slots: random wrong results, not a race
    in the kernels (their barriers are in place).  This replacement does the
    look-up and the insert under one lock (and skips the simulator's full stack
    extraction, which only needs the caller's line).  Dynamic shared memory
    (``shape == 0``) keeps the simulator's own code, which has no such race.
    """
    from numba.cuda.simulator import kernelapi
    shared = kernelapi.FakeCUDAShared
    if getattr(shared.array, "race_free", False):
        return
    lock = threading.Lock()
    original = shared.array

    def array(self, shape, dtype, alignment=None):
        if shape == 0 or alignment is not None:
            return original(self, shape, dtype, alignment)
        caller = sys._getframe(1)
        where = (caller.f_code.co_filename, caller.f_lineno)
        with lock:
            buf = self._allocations.get(where)
            if buf is None:
                buf = self._allocations[where] = np.empty(shape, _as_dtype(kernelapi, dtype))
        return buf
    array.race_free = True
    shared.array = array


def _as_dtype(kernelapi, dtype):
    """The numpy dtype of a Numba type or numpy dtype, converted as the simulator does."""
    if isinstance(dtype, kernelapi.types.Type):
        return kernelapi.numpy_support.as_dtype(dtype)
    return np.dtype(dtype)


if SIMULATOR:
    _atomic_simulated_shared_arrays()


def blocks(n):
    """Number of blocks for ``n`` independent work items (grid-stride beyond that)."""
    return max(1, min((n + THREADS - 1) // THREADS, MAX_BLOCKS))


def numba_type(dtype):
    """The Numba scalar type of a numpy dtype (for shared-memory arrays)."""
    from numba import from_dtype
    return from_dtype(np.dtype(dtype))


def contiguous_strides(shape):
    """C-order strides of ``shape`` in elements.

    >>> contiguous_strides((2, 3, 4))
    (12, 4, 1)
    """
    out, step = [], 1
    for s in reversed(shape):
        out.append(step)
        step *= s
    return tuple(reversed(out))


def broadcast_strides(shape, target):
    """Element strides that read a contiguous ``shape`` broadcast up to ``target``.

    >>> broadcast_strides((3, 1), (2, 3, 4))
    (0, 1, 0)
    """
    own = contiguous_strides(shape)
    lead = len(target) - len(shape)
    return (0,) * lead + tuple(0 if s == 1 and t != 1 else st
                               for s, t, st in zip(shape, target[lead:], own))


def collapse(shape, strides):
    """Drop size-1 dimensions and merge dimensions every operand walks contiguously.

    Fewer dimensions mean fewer divisions per element and fewer compiled variants
    (kernels specialise on the number of dimensions).  At least one dimension is kept.
    """
    keep = [d for d, s in enumerate(shape) if s != 1]
    shape = [shape[d] for d in keep]
    strides = [[st[d] for d in keep] for st in strides]
    d = len(shape) - 2
    while d >= 0:
        if all(st[d] == st[d + 1] * shape[d + 1] for st in strides):
            shape[d] *= shape[d + 1]
            del shape[d + 1]
            for st in strides:
                st[d] = st[d + 1]
                del st[d + 1]
        d -= 1
    if not shape:
        return (1,), [(0,) for _ in strides]
    return tuple(shape), [tuple(st) for st in strides]


@cuda.jit(device=True)
def offset(i, shape, strides):
    """Element offset of flat (C-order) position ``i`` of ``shape`` under ``strides``."""
    off = 0
    for d in range(len(shape) - 1, -1, -1):
        q = i // shape[d]
        off += (i - q * shape[d]) * strides[d]
        i = q
    return off
