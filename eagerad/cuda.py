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


def _index(device):
    """The device number of ``device`` (None, an int, 'cuda', 'cuda:N' or a device)."""
    if device is None:
        return 0
    if isinstance(device, int) and not isinstance(device, bool):
        return device
    text = str(device)
    if text == "cuda":
        return 0
    if text.startswith("cuda:") and text[5:].isdigit():
        return int(text[5:])
    raise ValueError(f"expected a CUDA device (an int, 'cuda' or 'cuda:N'), got {device!r}")


def _gpu(device=None):
    """numba-cuda's device ``device``; a RuntimeError naming the problem without one."""
    problem = cuda_problem()
    if problem is not None:
        raise RuntimeError(f"no CUDA device: {problem}")
    index = _index(device)
    if not 0 <= index < device_count():
        raise ValueError(f"CUDA device {index} does not exist ({device_count()} found)")
    from numba import cuda
    return cuda.gpus[index]


def current_device():
    """The index of the device CUDA tensors go to: 0 (eagerad uses the first GPU).

    >>> current_device() == 0 if is_available() else True
    True
    """
    _gpu()
    return 0


def set_device(device):
    """Choose the device CUDA tensors go to: eagerad puts them on the first GPU, so only it
    is accepted (a ValueError names any other: one process per GPU needs
    ``CUDA_VISIBLE_DEVICES``).

    >>> set_device(0) if is_available() else None
    """
    index = _index(device)
    _gpu(index)
    if index != 0:
        raise ValueError(f"set_device({device!r}): eagerad uses CUDA device 0; start the process "
                         f"with CUDA_VISIBLE_DEVICES={index} to run on device {index}")


def get_device_name(device=None):
    """The name of CUDA device ``device`` (default: the current one).

    >>> isinstance(get_device_name(), str) if is_available() else True
    True
    """
    name = getattr(_gpu(device), "name", "Numba CUDA simulator")   # (the simulator has none)
    return name.decode() if isinstance(name, bytes) else str(name)


def get_device_capability(device=None):
    """``(major, minor)``: the compute capability of CUDA device ``device``.

    >>> len(get_device_capability()) if is_available() else 2
    2
    """
    return tuple(_gpu(device).compute_capability)


def get_device_properties(device=None):
    """What PyTorch's ``get_device_properties`` tells of CUDA device ``device``: ``name``,
    ``major``, ``minor``, ``total_memory`` (bytes), ``multi_processor_count``.

    >>> get_device_properties().major >= 3 if is_available() else True
    True
    """
    import math
    import types
    from numba import cuda
    gpu = _gpu(device)
    major, minor = get_device_capability(device)
    total = float(cuda.current_context().get_memory_info()[1])
    return types.SimpleNamespace(
        name=get_device_name(device), major=major, minor=minor,
        total_memory=int(total) if math.isfinite(total) else 0,     # (the simulator: inf)
        multi_processor_count=int(getattr(gpu, "MULTIPROCESSOR_COUNT", 0)))


def is_bf16_supported(including_emulation=True):
    """False: eagerad has no bfloat16 dtype (numpy has none), so programs that choose
    bfloat16 when this says True take float16/float32 instead.

    >>> is_bf16_supported()
    False
    """
    return False


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
