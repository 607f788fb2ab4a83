"""MindSpore's ``ops.randint`` (``ops.rand``/``ops.randn`` live with the other creators in
``ops/creation.py``).

It draws from the generator ``mindspore.set_seed`` / ``eagerad.set_seed`` seeds; a
``seed=`` argument draws from a generator of its own, so that call is reproducible
by itself.  A MindSpore spelling: results print MindSpore's way (see
``eagerad.printing``).

>>> from eagerad import ops
>>> ops.randint(0, 5, (4,)).dtype
dtype('int64')
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor, randint as _randint
from .registry import export


def _own_generator(seed, draw, dtype):
    """A draw from a generator seeded with ``seed`` only (MindSpore's per-op seed)."""
    return Tensor(np.asarray(draw(np.random.default_rng(seed))).astype(dtype))


def randint(low, high, size, seed=None, *, dtype=None):
    """MindSpore's ``ops.randint(low, high, size, seed=None, *, dtype=None)``: integers
    uniform in ``[low, high)`` (int64 by default).

    >>> r = randint(1, 3, (100,)); sorted(set(r.tolist()))
    [1, 2]
    """
    shape = (int(size),) if isinstance(size, (int, np.integer)) else tuple(int(s) for s in size)
    dtype = dt.as_dtype(dtype) or dt.int64
    if seed is not None:
        if int(high) <= int(low):
            raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
        return _own_generator(seed, lambda g: g.integers(low, high, shape), dtype)
    return _randint(low, high, shape, dtype=dtype)


export(randint)
