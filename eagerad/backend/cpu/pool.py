"""Reusable memory for large CPU outputs.

A fresh multi-megabyte ndarray comes from ``mmap``: every 4 KiB page faults on
first write, which costs about as much as the arithmetic itself (W3 in
benchmarks/RESULTS.md: ~20 ms of ~100 ms).  The pool keeps the byte buffers of
large outputs and hands one out again once nothing can see it any more.

Safety rests on reference counts, checked under a lock at hand-out time: every
array the pool gives out is a view whose ``.base`` is the pool's byte buffer,
and numpy collapses view chains, so each live array derived from it (slices,
reshapes, ``.numpy()`` results, Tensors' data, memoryviews through those)
holds a reference to that buffer.  A buffer is reused only when the pool's own
list is its sole holder.

>>> from eagerad.backend.cpu import pool
>>> a = pool.empty((300_000,), "float64")
>>> a.base is not None and a.base.dtype == "uint8"
True
"""
import os
import sys
import threading

import numpy as np

MIN_BYTES = 1 << 20
# bytes of idle buffers kept; EAGERAD_CPU_POOL_MB=0 turns the pool off
LIMIT = int(float(os.environ.get("EAGERAD_CPU_POOL_MB", "512")) * (1 << 20))
_PAGE = 1 << 16

_buckets = {}            # rounded byte size -> list of uint8 owner arrays
_lock = threading.Lock()


def _idle(bucket):
    """The most recently handed out buffer of ``bucket`` that only the bucket
    references (likeliest still in cache), moved to the end; else None."""
    for i in range(len(bucket) - 1, -1, -1):
        buf = bucket[i]
        # references: the list slot, ``buf`` and getrefcount's argument
        if sys.getrefcount(buf) <= _ALONE:
            bucket.append(bucket.pop(i))
            return buf
    return None


def _alone_count():
    probe = [np.empty(1, np.uint8)]
    buf = probe[0]
    return sys.getrefcount(buf)


_ALONE = _alone_count()


def _trim(keep):
    """Drop idle buffers (other than in ``keep``) until the idle total fits LIMIT."""
    idle = [(size, i) for size, bucket in _buckets.items() for i, buf in enumerate(bucket)
            if sys.getrefcount(buf) <= _ALONE]
    total = sum(size for size, _ in idle)
    dropped = set()          # (size, position): ``list.remove`` would compare arrays by value
    for size, i in idle:
        if total <= LIMIT:
            break
        if size != keep:
            dropped.add((size, i))
            total -= size
    for size in {size for size, _ in dropped}:
        _buckets[size] = [buf for i, buf in enumerate(_buckets[size]) if (size, i) not in dropped]


def empty(shape, dtype):
    """An uninitialised C-contiguous array, from the pool when it is large.

    >>> empty((2, 3), "float32").shape
    (2, 3)
    """
    dtype = np.dtype(dtype)
    count = 1
    for n in shape:
        count *= n
    nbytes = count * dtype.itemsize
    if nbytes < MIN_BYTES or LIMIT <= 0:
        return np.empty(shape, dtype)
    size = -(-nbytes // _PAGE) * _PAGE
    with _lock:
        bucket = _buckets.setdefault(size, [])
        buf = _idle(bucket)
        if buf is None:
            _trim(size)
            buf = np.empty(size, np.uint8)
            bucket.append(buf)
        return buf[:nbytes].view(dtype).reshape(shape)


def empty_like(x):
    """``empty(x.shape, x.dtype)``.

    >>> empty_like(np.zeros((2, 3), "float32")).dtype
    dtype('float32')
    """
    return empty(x.shape, x.dtype)


def held_bytes():
    """Bytes of all buffers the pool holds (in use or idle); for tests and tuning.

    >>> held_bytes() >= 0
    True
    """
    with _lock:
        return sum(size * len(bucket) for size, bucket in _buckets.items())
