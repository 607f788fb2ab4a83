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


def broadcast_strides(shape, target, strides=None):
    """Element strides that read an array of ``shape`` (contiguous, or with element
    ``strides``) broadcast up to ``target``.

    >>> broadcast_strides((3, 1), (2, 3, 4)), broadcast_strides((3,), (2, 3), (2,))
    ((0, 1, 0), (0, 2))
    """
    own = contiguous_strides(shape) if strides is None else strides
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

# ------------------------------------------------------------------ launching
# numba's ``kernel[grid, block](*args)`` infers every argument's Numba type, looks the
# overload up, wraps each array and converts each scalar on every call (tens of
# microseconds).  ``launch`` does that work once per (kernel, argument kinds): the
# kinds are read off the arguments cheaply (dtype and ndim of a C-contiguous device
# array, the Python type of a scalar), the overload is compiled (or loaded from the
# disk cache) for the signature that numba's own typing gives those arguments, and
# the plan keeps the loaded function, a converter per argument and the launch
# configurations.  A call then only flattens its arguments the way numba's
# ``_Kernel.launch`` does and hands them to ``cuda.core.launch`` on the default
# stream: no type inference, no synchronisation.  Under the simulator (no driver)
# ``launch`` is numba's own call.


_SCALARS = frozenset((int, float, bool, complex, np.float16, np.float32, np.float64,
                      np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32,
                      np.uint64, np.bool_, np.complex64, np.complex128))


def _arg_kind(v):
    """A cheap hashable summary of one argument fixing its Numba type, or None when
    only numba's typing can tell (then the launch takes numba's path)."""
    t = type(v)
    if t in _SCALARS:
        return t
    if t is tuple:
        kinds = tuple(type(e) for e in v)
        return None if tuple in kinds else (tuple,) + kinds
    dummy = getattr(v, "_dummy", None)
    if dummy is not None and dummy.is_c_contig and 0 not in v.strides:
        return (v.dtype.str, v.ndim)      # a C-contiguous numba DeviceNDArray
    return None


def _flattener(ty):
    """A function appending one argument of Numba type ``ty`` to the raw argument list,
    as numba-cuda's ``_Kernel._prepare_args`` lays it out."""
    import ctypes

    from numba.cuda import types
    if isinstance(ty, types.Array):
        from numba.cuda.np.numpy_support import as_dtype
        itemsize = as_dtype(ty.dtype).itemsize

        def array(v, out):
            out += (0, 0, v.size, itemsize, v.device_ctypes_pointer.value or 0)
            out += v.shape
            out += v.strides
        return array
    if isinstance(ty, types.BaseTuple):
        parts = [_flattener(t) for t in ty]
        if parts and all(isinstance(t, types.Integer) for t in ty) and \
                len({str(t) for t in ty}) == 1:
            c = getattr(ctypes, f"c_{ty[0]}")
            return lambda v, out: out.extend(map(c, v))

        def tup(v, out):
            for part, e in zip(parts, v):
                part(e, out)
        return tup
    if isinstance(ty, types.Integer):
        c = getattr(ctypes, f"c_{ty}")
        return lambda v, out: out.append(c(v))
    if ty == types.float16:
        return lambda v, out: out.append(ctypes.c_uint16(np.float16(v).view(np.uint16)))
    if ty == types.float32:
        return lambda v, out: out.append(ctypes.c_float(v))
    if ty == types.float64:
        return lambda v, out: out.append(ctypes.c_double(v))
    if ty == types.boolean:
        return lambda v, out: out.append(bool(v))
    if ty in (types.complex64, types.complex128):
        c = ctypes.c_float if ty == types.complex64 else ctypes.c_double
        return lambda v, out: out.extend((c(v.real), c(v.imag)))
    return None


class Plan:
    """One kernel overload ready to launch: the loaded function, the argument
    flatteners and a launch configuration per (grid, block)."""

    __slots__ = ("function", "flatten", "configs", "signature")

    def __init__(self, kernel, args):
        from numba.cuda.typing.typeof import Purpose, typeof
        self.signature = tuple(typeof(v, Purpose.argument) for v in args)
        compiled = kernel.compile(self.signature)     # once; the disk cache if present
        compiled.bind()
        flatten = [_flattener(t) for t in self.signature]
        if compiled.debug or compiled.cooperative or None in flatten:
            self.function = None                     # numba's path does these
        else:
            self.function = compiled._codelibrary.get_cufunc().kernel
        self.flatten = flatten
        self.configs = {}

    def config(self, grid, block):
        cfg = self.configs.get((grid, block))
        if cfg is None:
            from cuda.core import LaunchConfig
            cfg = self.configs[grid, block] = LaunchConfig(grid=grid, block=block)
        return cfg


_plans = {}
_stream = None
_thread = threading.local()


def thread_context():
    """Make numba's CUDA context current in this thread (numba does it in each of its
    own calls; the prepared launch and the allocator's pool need it too, once per
    thread)."""
    from numba.cuda.cudadrv.devices import get_context
    get_context()
    _thread.ready = True


def _core_launch(stream, config, function, *raw):
    """``cuda.core.launch`` (a seam for the tests without a GPU)."""
    global _core_launch
    from cuda.core import launch as core_launch
    _core_launch = core_launch
    core_launch(stream, config, function, *raw)


def prepared(kernel, args):
    """The ``Plan`` of ``kernel`` for arguments like ``args``, or None when numba's own
    launch must run (an argument whose type only numba's typing can tell)."""
    kinds = tuple(map(_arg_kind, args))
    if None in kinds:
        return None
    key = (kernel, kinds)
    plan = _plans.get(key)
    if plan is None:
        plan = _plans[key] = Plan(kernel, args)
    return plan if plan.function is not None else None


def launch(kernel, grid, block, *args):
    """Launch ``kernel`` on ``grid`` x ``block`` threads with ``args`` on the default
    stream, through a prepared plan (numba's own launch under the simulator)."""
    global _stream
    if SIMULATOR:
        kernel[grid, block](*args)
        return
    plan = _plans.get((kernel, tuple(map(_arg_kind, args))))   # prepared(), inlined
    if plan is None or plan.function is None:
        plan = prepared(kernel, args)
        if plan is None:
            kernel[grid, block](*args)
            return
    raw = []
    for flatten, v in zip(plan.flatten, args):
        flatten(v, raw)
    if _stream is None:
        from cuda.core import LEGACY_DEFAULT_STREAM
        _stream = LEGACY_DEFAULT_STREAM
    if not getattr(_thread, "ready", False):
        thread_context()
    _core_launch(_stream, plan.config(grid, block), plan.function, *raw)
