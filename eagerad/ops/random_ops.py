"""MindSpore's random ops (``ops.randn``, ``ops.rand``, ``ops.randint``) and the
``ops.tensor_dot`` spelling of ``tensordot``.

They draw from the generator ``mindspore.set_seed`` / ``eagerad.set_seed`` seeds; a
``seed=`` argument draws from a generator of its own, so that call is reproducible
by itself.  These are MindSpore spellings: results print MindSpore's way (see
``eagerad.printing``).

>>> from eagerad import ops
>>> ops.randn(2, 3).shape, ops.randint(0, 5, (4,)).dtype
((2, 3), dtype('int64'))
"""
import numpy as np

from .. import dtype as dt
from ..printing import speak
from ..tensor import Tensor, rand as _rand, randint as _randint, randn as _randn
from .contractions import tensordot
from .registry import export


def _shape(size):
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    return tuple(int(s) for s in size)


def _own_generator(seed, draw, dtype):
    """A draw from a generator seeded with ``seed`` only (MindSpore's per-op seed)."""
    return Tensor(np.asarray(draw(np.random.default_rng(seed))).astype(dtype))


def randn(*size, dtype=None, seed=None):
    """MindSpore's ``ops.randn(*size, dtype=None, seed=None)``: standard normal samples
    (float32 by default).

    >>> a = randn(3, seed=7); b = randn((3,), seed=7)
    >>> bool((a == b).all()), a.dtype
    (True, dtype('float32'))
    """
    speak("mindspore")
    shape, dtype = _shape(size), dt.as_dtype(dtype) or dt.float32
    if seed is not None:
        return _own_generator(seed, lambda g: g.standard_normal(shape), dtype)
    return _randn(shape, dtype=dtype)


def rand(*size, dtype=None, seed=None):
    """MindSpore's ``ops.rand(*size, dtype=None, seed=None)``: uniform samples in [0, 1).

    >>> u = rand(1000); bool((u >= 0).all() and (u < 1).all())
    True
    """
    speak("mindspore")
    shape, dtype = _shape(size), dt.as_dtype(dtype) or dt.float32
    if seed is not None:
        return _own_generator(seed, lambda g: g.random(shape), dtype)
    return _rand(shape, dtype=dtype)


def randint(low, high, size, seed=None, *, dtype=None):
    """MindSpore's ``ops.randint(low, high, size, seed=None, *, dtype=None)``: integers
    uniform in ``[low, high)`` (int64 by default).

    >>> r = randint(1, 3, (100,)); sorted(set(r.tolist()))
    [1, 2]
    """
    speak("mindspore")
    shape = (int(size),) if isinstance(size, (int, np.integer)) else _shape(tuple(size))
    dtype = dt.as_dtype(dtype) or dt.int64
    if seed is not None:
        if int(high) <= int(low):
            raise ValueError(f"randint: high ({high}) must be greater than low ({low})")
        return _own_generator(seed, lambda g: g.integers(low, high, shape), dtype)
    return _randint(low, high, shape, dtype=dtype)


def tensor_dot(x1, x2, axes):
    """MindSpore's ``ops.tensor_dot``: ``tensordot`` under MindSpore's older name.

    >>> tensor_dot(eagerad.ones(2, 3), eagerad.ones(3, 4), 1).shape
    (2, 4)
    """
    return tensordot(x1, x2, axes)


export(randn)
export(rand)
export(randint)
export(tensor_dot)
