"""PyTorch's ``torch.cuda`` questions, answered for eagerad's CUDA backend.

``is_available()`` is True only when numba-cuda finds a usable GPU (or Numba's CUDA
simulator is switched on with ``NUMBA_ENABLE_CUDASIM=1``); it never raises.

>>> import eagerad
>>> eagerad.cuda.is_available() in (True, False)
True
"""
from .context import cuda_problem
from .tensor import manual_seed as _manual_seed


def is_available():
    """Whether tensors can be put on ``'cuda'``.

    >>> isinstance(is_available(), bool)
    True
    """
    return cuda_problem() is None


def device_count():
    """How many CUDA devices numba-cuda sees (0 without a usable GPU).

    >>> device_count() >= 0
    True
    """
    if not is_available():
        return 0
    from numba import cuda
    return len(cuda.gpus)


def synchronize(device=None):
    """Wait for all queued GPU work (a no-op without a GPU).

    >>> synchronize()
    """
    if is_available():
        from .backend import cuda as _backend  # noqa: F401  (its allocator joins numba first)
        from numba import cuda
        cuda.synchronize()


def manual_seed(seed):
    """Seed the random numbers drawn for CUDA tensors (they come from eagerad's one
    generator, shared with the CPU, so this is ``eagerad.manual_seed``).

    >>> manual_seed(0)
    """
    _manual_seed(seed)


manual_seed_all = manual_seed

# ------------------------------------------------------------------- memory
# Every CUDA result comes from a caching allocator (eagerad/backend/cuda/memory.py):
# freed blocks stay reserved for reuse.  These read its counters without starting
# CUDA: before the first CUDA tensor they are all 0.


def _allocator():
    import sys
    module = sys.modules.get("eagerad.backend.cuda.memory")
    return module.current() if module is not None else None


def _counter(name):
    alloc = _allocator()
    return getattr(alloc, name) if alloc is not None else 0


def memory_allocated(device=None):
    """Bytes of device memory held by live CUDA arrays (block sizes of the caching
    allocator); it falls back when the arrays are dropped.

    >>> memory_allocated() >= 0
    True
    """
    return _counter("allocated")


def max_memory_allocated(device=None):
    """The most ``memory_allocated()`` has been since the start or the last
    ``reset_peak_memory_stats()``.

    >>> max_memory_allocated() >= memory_allocated()
    True
    """
    return _counter("peak_allocated")


def memory_reserved(device=None):
    """Bytes the allocator holds from the device: live arrays plus cached free blocks
    (capped by the EAGERAD_CUDA_MEMORY_LIMIT environment variable).

    >>> memory_reserved() >= memory_allocated()
    True
    """
    return _counter("reserved")


def max_memory_reserved(device=None):
    """The most ``memory_reserved()`` has been since the start or the last reset.

    >>> max_memory_reserved() >= memory_reserved()
    True
    """
    return _counter("peak_reserved")


def empty_cache():
    """Give the cached free blocks back to the device (live arrays keep theirs).

    >>> empty_cache(); memory_reserved() == memory_allocated()
    True
    """
    alloc = _allocator()
    if alloc is not None:
        alloc.empty_cache()


def reset_peak_memory_stats(device=None):
    """Start the peaks (``max_memory_allocated``/``max_memory_reserved``) afresh.

    >>> reset_peak_memory_stats(); max_memory_allocated() == memory_allocated()
    True
    """
    alloc = _allocator()
    if alloc is not None:
        alloc.reset_peak()


reset_max_memory_allocated = reset_peak_memory_stats


def memory_stats(device=None):
    """The allocator's counters as a dict (PyTorch's key names where they exist).

    >>> memory_stats()["allocated_bytes.all.current"] == memory_allocated()
    True
    """
    alloc = _allocator()
    if alloc is None:
        return {"allocated_bytes.all.current": 0, "allocated_bytes.all.peak": 0,
                "reserved_bytes.all.current": 0, "reserved_bytes.all.peak": 0}
    return alloc.stats()
