"""Caching device allocator: every CUDA result of eagerad comes from here.

Asking the driver for memory per result is slow (numba's ``cuda.device_array`` costs
tens of microseconds), so freed blocks are kept in a cache of size classes and handed
out again.  All of eagerad's kernels and copies run on one stream (the legacy default
stream), so a block freed on the host can be reused at once: the stream runs the next
user of the block after every earlier reader.

Where the memory comes from (the "arena"):

- on a GPU, the driver's stream-ordered memory pool through ``cuda.core``
  (``DeviceMemoryResource.allocate`` on the default stream; numba's ``cuMemAlloc`` if
  the device has no pool);
- under Numba's CUDA simulator, numpy buffers: the same bookkeeping, so the tests of
  the counters, the cap and the reuse run without a GPU.

The counters answer ``eagerad.cuda.memory_allocated()`` and its neighbours:
*allocated* is the bytes of blocks held by live arrays (block sizes, rounded up to
the size class), *reserved* adds the cached free blocks.  ``EAGERAD_CUDA_MEMORY_LIMIT``
(bytes, or with a K/M/G suffix) caps *reserved*: past it the cache is emptied and, if
live arrays alone would still exceed it, a ``MemoryError`` names the request and what
is held.

On a GPU the allocator is also installed as numba-cuda's External Memory Management
plugin (``EagerMemoryManager``), so the arrays numba allocates itself
(``cuda.to_device`` and friends) come from the same cache; that needs installing
before numba creates its CUDA context, which ``install()`` checks.

>>> round_size(1), round_size(513), round_size(5000)
(512, 1024, 5120)
>>> parse_limit("2K"), parse_limit("1.5M"), parse_limit("")
(2048, 1572864, None)
"""
import os
import threading

import numpy as np

LIMIT_ENV = "EAGERAD_CUDA_MEMORY_LIMIT"
SMALL = 512                     # the finest size class, bytes


def round_size(nbytes):
    """The block size serving a request of ``nbytes``: multiples of 512 bytes up to
    8 KiB, then steps of 1/16 to 1/8 of the size (at most 12.5% of slack)."""
    nbytes = max(int(nbytes), 1)
    step = max(SMALL, 1 << max(0, nbytes.bit_length() - 4))
    return -(-nbytes // step) * step


def parse_limit(text):
    """Bytes from ``EAGERAD_CUDA_MEMORY_LIMIT``'s spelling (``"1000"``, ``"512M"``,
    ``"2G"``); None when unset or empty.  A bad spelling raises ValueError naming it."""
    text = (text or "").strip()
    if not text:
        return None
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
    unit = text[-1].upper()
    try:
        if unit in scale:
            value = float(text[:-1]) * scale[unit]
        elif unit == "B" and text[-2:-1].upper() in scale:
            value = float(text[:-2]) * scale[text[-2].upper()]
        else:
            value = float(text)
    except ValueError:
        value = -1
    if value < 0:
        raise ValueError(f"{LIMIT_ENV}={text!r} is not a byte count (e.g. 1000000, 512M, 2G)")
    return int(value)


_classes = {}           # request -> block size (round_size, remembered)


class OutOfMemory(Exception):
    """Raised by an arena when the device has no memory left for a request."""


class Allocator:
    """Size-class cache over an arena, with the counters eagerad.cuda reports.

    ``malloc(nbytes)`` returns ``(handle, block_size)``; ``free(handle, block_size)``
    puts the block back in the cache.  The arena has ``alloc(nbytes) -> handle`` and
    ``free(handle)`` and raises ``OutOfMemory`` when the device is full.
    """

    def __init__(self, arena, limit=None):
        self.arena = arena
        self.limit = limit
        self._free = {}            # block size -> [handle, ...]
        # re-entrant: a garbage collection inside malloc may free arrays (and so blocks)
        self._lock = threading.RLock()
        self.allocated = self.reserved = 0
        self.peak_allocated = self.peak_reserved = 0
        self.hits = self.misses = 0
        self.epoch = 0             # bumped by forget(): older blocks are gone

    def malloc(self, nbytes):
        size = _classes.get(nbytes)
        if size is None:
            if len(_classes) > 65536:
                _classes.clear()
            size = _classes[nbytes] = round_size(nbytes)
        with self._lock:
            cached = self._free.get(size)
            if cached:
                handle = cached.pop()
                self.hits += 1
            else:
                handle = self._fresh(size, nbytes)
                self.misses += 1
                self.reserved += size
                if self.reserved > self.peak_reserved:
                    self.peak_reserved = self.reserved
            self.allocated += size
            if self.allocated > self.peak_allocated:
                self.peak_allocated = self.allocated
        return handle, size

    def _fresh(self, size, nbytes):
        """A new block from the arena, emptying the cache first when the cap or the
        device would otherwise refuse it (the lock is held)."""
        if self.limit is not None and self.reserved + size > self.limit:
            self._release_cached()
            if self.allocated + size > self.limit:
                raise MemoryError(
                    f"CUDA memory limit exceeded: {nbytes} bytes requested ({size} as a "
                    f"block), {self.allocated} bytes held by live arrays, limit "
                    f"{self.limit} bytes set by {LIMIT_ENV}")
        try:
            return self.arena.alloc(size)
        except OutOfMemory:
            self._release_cached()
            try:
                return self.arena.alloc(size)
            except OutOfMemory:
                raise MemoryError(
                    f"CUDA out of memory: {nbytes} bytes requested ({size} as a block), "
                    f"{self.allocated} bytes held by live arrays and nothing cached "
                    "(free tensors, or lower the batch size)") from None

    def free(self, handle, size, epoch=None):
        """Return a block to the cache (called when the array holding it dies); a
        block from before a context reset (``epoch``) is dropped."""
        if epoch is not None and epoch != self.epoch:
            return
        with self._lock:
            self._free.setdefault(size, []).append(handle)
            self.allocated -= size

    def _release_cached(self):
        while self._free:           # popitem: a block freed meanwhile is not skipped
            size, handles = self._free.popitem()
            while handles:
                self.arena.free(handles.pop())
                self.reserved -= size

    def empty_cache(self):
        """Give every cached (unused) block back to the device."""
        with self._lock:
            self._release_cached()

    def forget(self):
        """Drop every block without freeing (the CUDA context was reset and took the
        memory with it); arrays still alive then are not counted any more."""
        with self._lock:
            self._free.clear()
            self.allocated = self.reserved = 0
            self.epoch += 1

    def reset_peak(self):
        with self._lock:
            self.peak_allocated = self.allocated
            self.peak_reserved = self.reserved

    def stats(self):
        """The counters as a dict (PyTorch's ``memory_stats`` spelling where one exists)."""
        return {"allocated_bytes.all.current": self.allocated,
                "allocated_bytes.all.peak": self.peak_allocated,
                "reserved_bytes.all.current": self.reserved,
                "reserved_bytes.all.peak": self.peak_reserved,
                "num_alloc_retries": 0, "cache_hits": self.hits, "cache_misses": self.misses,
                "limit": self.limit}

# ------------------------------------------------------------------- arenas


class HostArena:
    """numpy buffers standing in for device memory (the simulator's arena)."""

    def alloc(self, nbytes):
        return np.empty(nbytes, np.uint8)

    def free(self, handle):
        pass


class PoolArena:
    """The driver's stream-ordered memory pool through ``cuda.core``: allocations and
    frees are ordered on the legacy default stream, where eagerad's kernels run."""

    def __init__(self):
        from cuda.core import LEGACY_DEFAULT_STREAM, Device, DeviceMemoryResource
        device = Device()
        device.set_current()
        self._mr = DeviceMemoryResource(device)
        self._stream = LEGACY_DEFAULT_STREAM
        self._buffers = {}

    def alloc(self, nbytes):
        try:
            buf = self._mr.allocate(nbytes, stream=self._stream)
        except Exception as err:
            if "OUT_OF_MEMORY" in str(err):
                raise OutOfMemory(str(err)) from None
            raise
        ptr = int(buf.handle)
        self._buffers[ptr] = buf
        return ptr

    def free(self, handle):
        self._buffers.pop(handle).close(self._stream)


class DriverArena:
    """Plain ``cuMemAlloc``/``cuMemFree`` through numba's driver (devices without a
    stream-ordered pool)."""

    def __init__(self):
        from numba.cuda.cudadrv.driver import driver
        self._driver = driver

    def alloc(self, nbytes):
        try:
            return int(self._driver.cuMemAlloc(nbytes))
        except Exception as err:
            if "OUT_OF_MEMORY" in str(err):
                raise OutOfMemory(str(err)) from None
            raise

    def free(self, handle):
        self._driver.cuMemFree(handle)

# ----------------------------------------------------------------- the one allocator


_allocator = None
_lock = threading.RLock()


def allocator():
    """The process's allocator, made on first use (the arena fits the platform)."""
    global _allocator
    if _allocator is None:
        with _lock:
            if _allocator is None:
                _allocator = Allocator(_make_arena(), parse_limit(os.environ.get(LIMIT_ENV)))
    return _allocator


def current():
    """The allocator if one was made, else None (the counters then read 0)."""
    return _allocator


def _make_arena():
    from .launch import SIMULATOR
    if SIMULATOR:
        return HostArena()
    from numba.cuda.cudadrv.devices import get_context
    get_context()           # numba's context first (with the plugin, if installed)
    try:
        return PoolArena()
    except Exception:       # no stream-ordered pool on this device or driver
        return DriverArena()

# ---------------------------------------------------------- arrays on the blocks


class _HostLease:
    """Owner of one simulated block: numpy views of it keep it alive, and the block
    goes back to the cache when the last of them dies."""

    __slots__ = ("__array_interface__", "_block", "_size", "_alloc")

    def __init__(self, alloc, block, size):
        self._alloc, self._block, self._size = alloc, block, size
        self.__array_interface__ = {"shape": (size,), "typestr": "|u1", "version": 3,
                                    "data": (block.ctypes.data, False)}

    def __del__(self):
        self._alloc.free(self._block, self._size)


def host_array(shape, dtype, alloc):
    """A simulator device array of ``shape``/``dtype`` on a cached block."""
    from numba.cuda.simulator.cudadrv.devicearray import FakeCUDAArray
    dtype = np.dtype(dtype)
    n = 1
    for s in shape:
        n *= s
    nbytes = n * dtype.itemsize
    block, size = alloc.malloc(nbytes)
    raw = np.asarray(_HostLease(alloc, block, size))
    return FakeCUDAArray(raw[:nbytes].view(dtype).reshape(shape))


_pointer_class = None


def pointer_class():
    """numba's ``MemoryPointer`` subclass for a cached block (made on first use: the
    simulator has no such class).  The block returns to the cache when the pointer
    dies, that is when the last array on it dies (views hold the pointer)."""
    global _pointer_class
    if _pointer_class is None:
        import ctypes

        from cuda.bindings import driver as binding
        from numba.cuda.cudadrv.driver import MemoryPointer

        class CachedPointer(MemoryPointer):
            """A block of the caching allocator seen as numba's ``MemoryPointer``."""

            device_ctypes_pointer = None      # a plain attribute here (a property above)

            def __init__(self, context, ptr, size, alloc):
                # MemoryPointer's fields, without its weakref finalizer (``__del__``
                # does that job for a fraction of the cost)
                self.context = context
                self.device_pointer = self.handle = binding.CUdeviceptr(ptr)
                self.device_ctypes_pointer = ctypes.c_size_t(ptr)
                self.size = self._cuda_memsize_ = size
                self.is_managed = True
                self.refct = 1
                self._owner = None
                self._ptr, self._alloc, self._epoch = ptr, alloc, alloc.epoch

            def free(self):
                alloc, self._alloc = self._alloc, None
                if alloc is not None:
                    alloc.free(self._ptr, self.size, self._epoch)

            def __del__(self):
                self.free()

        _pointer_class = CachedPointer
    return _pointer_class


_context = _launch = None
_templates = {}          # (shape, dtype) -> (DeviceNDArray fields but its memory, bytes)


def _template(shape, dtype):
    """The fields numba's ``DeviceNDArray.__init__`` sets for a C-order ``shape`` and
    ``dtype`` (all but ``gpu_data``), and the byte size; made by that ``__init__``."""
    global _context, _launch
    import weakref

    from numba.cuda.cudadrv.devicearray import DeviceNDArray

    from . import launch as _launch
    from numba.cuda.cudadrv.devices import get_context
    if _context is None:
        _context = weakref.proxy(get_context())
    pointer_class()
    key, dtype = (shape, dtype), np.dtype(dtype)
    strides, step = [], dtype.itemsize
    for s in reversed(shape):
        strides.append(step)
        step *= s
    probe = DeviceNDArray(shape, tuple(reversed(strides)), dtype,
                          gpu_data=None if step == 0 else _context)
    fields = dict(vars(probe))
    del fields["gpu_data"]
    if len(_templates) > 4096:
        _templates.clear()
    entry = _templates[key] = (DeviceNDArray, fields, step)
    return entry


def device_array(shape, dtype, alloc):
    """A numba ``DeviceNDArray`` (C order) of ``shape``/``dtype`` on a cached block.

    Built from a per-(shape, dtype) copy of the fields numba's own constructor sets,
    so an eager result costs a dictionary update instead of numba's shape and stride
    arithmetic (the tests compare the two)."""
    entry = _templates.get((shape, dtype)) or _template(shape, dtype)
    cls, fields, nbytes = entry
    if not getattr(_launch._thread, "ready", False):
        _launch.thread_context()
    if nbytes == 0:                # numba makes its own NULL pointer for empty arrays
        return cls(shape, fields["strides"], fields["dtype"])
    ptr, size = alloc.malloc(nbytes)
    arr = cls.__new__(cls)
    arr.__dict__.update(fields)
    arr.gpu_data = _pointer_class(_context, ptr, size, alloc)
    return arr


# ------------------------------------------------------------ the numba EMM plugin


_plugin_class = None


def plugin_class():
    """numba-cuda's External Memory Management plugin over this allocator (made on
    first use; ``numba.cuda.set_memory_manager`` takes it)."""
    global _plugin_class
    if _plugin_class is None:
        import weakref
        from numba.cuda.cudadrv.driver import (GetIpcHandleMixin, HostOnlyCUDAMemoryManager,
                                               MemoryInfo)

        class EagerMemoryManager(GetIpcHandleMixin, HostOnlyCUDAMemoryManager):
            """numba's device allocations served by eagerad's caching allocator."""

            def initialize(self):
                pass        # the allocator is made on the first request, outside
                # numba's context set-up (its arena asks for that same context)

            def memalloc(self, size):
                alloc = allocator()
                ptr, block = alloc.malloc(size)
                return pointer_class()(weakref.proxy(self.context), ptr, block, alloc)

            def get_memory_info(self):
                from numba.cuda.cudadrv.driver import driver
                free, total = driver.cuMemGetInfo()
                return MemoryInfo(free=free, total=total)

            def reset(self):
                super().reset()
                if _allocator is not None:
                    _allocator.forget()

            @property
            def interface_version(self):
                return 1

        _plugin_class = EagerMemoryManager
    return _plugin_class


def install():
    """Make numba allocate through eagerad's cache; True when the plugin is in use.

    numba reads its memory manager when it creates the CUDA context, so this works
    before any CUDA work in the process (or with ``NUMBA_CUDA_MEMORY_MANAGER`` naming
    this module); later it leaves numba's own manager, and only eagerad's results
    (made by ``device_array``) come from the cache.
    """
    from numba.cuda.cudadrv import driver
    if driver._memory_manager is None:
        driver.set_memory_manager(plugin_class())
    return driver._memory_manager is _plugin_class


def __getattr__(name):
    # ``NUMBA_CUDA_MEMORY_MANAGER=eagerad.backend.cuda.memory`` reads this attribute
    if name == "_numba_memory_manager":
        return plugin_class()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
