"""glibc's malloc kept from handing large blocks back to the kernel after every op.

Why: an eager step makes and drops hundreds of result arrays of 0.1-10 MB.  With glibc's
defaults a block above the mmap threshold (128 KiB, raised only by its own heuristics)
is a fresh ``mmap`` each time and ``munmap``-ed at free, so every page of every new
result faults when first written: a small transformer's step took ~1600 page faults
against PyTorch's ~470 (PyTorch keeps its own caching allocator), and its matrix
products ran 1.5x their isolated time.  Raising the thresholds once at import (as
``MALLOC_MMAP_THRESHOLD_``/``MALLOC_TRIM_THRESHOLD_`` in the environment would) lets
freed blocks be reused from the heap: the same memory at the peak, no faults in the
steady state.

Nothing happens where the C library is not glibc, where either variable is set in the
environment (the user's choice), or with ``EAGERAD_MALLOC_POLICY=0``.

>>> from eagerad.backend.cpu import allocator
>>> allocator.MMAP_THRESHOLD >= 1 << 20
True
"""
import ctypes
import ctypes.util
import os

MMAP_THRESHOLD = 64 << 20        # blocks below this come from the heap and are reused
TRIM_THRESHOLD = 256 << 20       # free heap top kept before it is returned to the kernel
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3       # mallopt parameters (malloc.h)
_ENV = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_")


def apply_policy():
    """Raise glibc's mmap and trim thresholds; True when they were set.

    >>> apply_policy() in (True, False)
    True
    """
    if os.environ.get("EAGERAD_MALLOC_POLICY", "1") == "0" or any(k in os.environ for k in _ENV):
        return False
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):       # not glibc (macOS, musl, Windows)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and \
        bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD))
