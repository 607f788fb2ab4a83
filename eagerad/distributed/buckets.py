"""Gradient buckets: many small gradients packed into a few flat buffers, so that one
all-reduce per buffer replaces one per gradient (fewer, larger messages).

``plan`` groups tensors (in the order given, which for DDP is the reverse of the
parameters' order: roughly the order backward produces their gradients) into buckets of
one dtype each, at most ``cap_bytes`` apiece (a tensor larger than the cap gets a bucket
of its own).  ``allreduce_arrays`` is the one-shot use: reduce a list of host arrays
through buckets (``DistributedGradReducer``).

>>> [b.members for b in plan([((2,), np.float64), ((3,), np.float64), ((1,), np.int64)], 24)]
[[0], [1], [2]]
>>> [b.members for b in plan([((2,), np.float64), ((1,), np.float64)], 24)]
[[0, 1]]
"""
import numpy as np

from .process_group import mpi
from .work import Work


class Bucket:
    """One flat buffer: ``members`` (indices into the planned list), each at
    ``offsets[k]`` with ``shapes[k]``; ``numel`` elements of ``dtype``.

    >>> b = plan([((2, 2), np.float32)], 1 << 20)[0]; b.numel, b.offsets
    (4, [0])
    """
    __slots__ = ("members", "offsets", "shapes", "numel", "dtype")

    def __init__(self, dtype):
        self.members, self.offsets, self.shapes = [], [], []
        self.numel, self.dtype = 0, np.dtype(dtype)

    def add(self, index, shape):
        self.members.append(index)
        self.offsets.append(self.numel)
        self.shapes.append(tuple(shape))
        self.numel += int(np.prod(shape, dtype=np.int64))

    def view(self, buffer, k):
        """Member ``k``'s slot of ``buffer`` (a view of its shape).

        >>> b = plan([((2,), np.float64), ((1,), np.float64)], 64)[0]
        >>> b.view(np.arange(3.0), 1)
        array([2.])
        """
        start = self.offsets[k]
        size = int(np.prod(self.shapes[k], dtype=np.int64))
        return buffer[start:start + size].reshape(self.shapes[k])


def plan(items, cap_bytes):
    """Buckets for ``items`` = [(shape, dtype), ...], in order, one dtype per bucket,
    each up to ``cap_bytes`` (see the module's examples)."""
    if cap_bytes <= 0:
        raise ValueError(f"bucket cap must be positive, got {cap_bytes} bytes")
    open_buckets, done = {}, []
    for i, (shape, dtype) in enumerate(items):
        dtype = np.dtype(dtype)
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        b = open_buckets.get(dtype)
        if b is not None and b.numel and (b.numel * dtype.itemsize + nbytes > cap_bytes):
            done.append(b)
            b = None
        if b is None:
            b = open_buckets[dtype] = Bucket(dtype)
        b.add(i, shape)
    done.extend(open_buckets.values())
    return sorted(done, key=lambda b: b.members[0])


def start_allreduce(g, buffer, what):
    """Start a summing all-reduce of host ``buffer`` in place; returns its ``Work``
    (no argument check: the callers verified the layout when they were built).

    >>> buf = np.ones(2)
    >>> start_allreduce(pg.group(), buf, "bucket").wait(), buf
    (True, array([1., 1.]))
    """
    MPI = mpi()
    op = MPI.LOR if buffer.dtype == np.bool_ else MPI.SUM
    return Work(g["comm"].Iallreduce(MPI.IN_PLACE, buffer, op=op), what, g["rank"],
                g["timeout"], keep=(buffer,), engine=g["engine"])


def allreduce_arrays(g, arrays, mean, cap_bytes, what):
    """Sum (or average, when ``mean``) the host arrays across ranks through buckets;
    returns new arrays of the same shapes (views of the bucket buffers).

    >>> allreduce_arrays(pg.group(), [np.ones(2), np.zeros(1)], True, 1 << 20, "grads")
    [array([1., 1.]), array([0.])]
    """
    buckets = plan([(a.shape, a.dtype) for a in arrays], cap_bytes)
    out = [None] * len(arrays)
    works = []
    for b in buckets:
        buf = np.empty(b.numel, b.dtype)
        for k, i in enumerate(b.members):
            np.copyto(b.view(buf, k), arrays[i])
            out[i] = b.view(buf, k)
        works.append((start_allreduce(g, buf, what), buf))
    for work, buf in works:
        work.wait()
        if mean:
            np.divide(buf, g["size"], out=buf)
    return out
