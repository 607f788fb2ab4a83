"""vmap's levels and the batched tensor that carries a batch axis through unchanged code.

Inside ``vmap`` each argument becomes a ``BatchedTensor``: a view, at one vmap level,
of a value whose axis 0 is the batch.  Its ``shape``/``ndim``/``size`` hide that axis,
so user code and op wrappers see one sample; ``ops.registry.apply`` unwraps the
innermost level and runs the op's batching rule on the values.  Nested vmaps nest
these wrappers, the newest level outermost, so the fully unwrapped ("physical")
tensor has one leading axis per level, oldest first.  Graph recording and tangents
live only on physical tensors: autodiff never sees a ``BatchedTensor``.

>>> import eagerad
>>> b = BatchedTensor(eagerad.ones(5, 2), push(5)); b.shape
(2,)
>>> pop()
"""
import itertools
import threading

from .. import _upcalls
from ..tensor import Size, Tensor

# Open vmap levels -> batch size, of every thread (a level's number is unique in the process,
# so a lookup by level is safe from any thread; empty: vmap costs nothing, which is all the
# per-op hot path asks).  Which levels are open *here* is per thread: ``active()``.
levels = {}
_numbers = itertools.count(1)    # next() is atomic: two threads never share a level


class _Open(threading.local):
    """This thread's open vmap levels, oldest first."""
    def __init__(self):
        self.stack = []


_open = _Open()


def push(size):
    """Open a vmap level of ``size`` samples on this thread; returns it.

    >>> level = push(3); levels[level], active() == [level]
    (3, True)
    >>> pop()
    """
    level = next(_numbers)
    levels[level] = size
    _open.stack.append(level)
    return level


def pop():
    """Close this thread's newest vmap level.

    >>> level = push(2); pop(); level in levels
    False
    """
    del levels[_open.stack.pop()]


def active():
    """The vmap levels open on this thread, oldest first (empty outside vmap).

    >>> active()
    []
    """
    return list(_open.stack)


class BatchedTensor(Tensor):
    """``value`` seen at vmap ``level`` with its axis 0 as the batch: one sample's view.

    >>> b = BatchedTensor(eagerad.ones(4, 2, 3), push(4))
    >>> b.shape, b.ndim, int(b.size)
    ((2, 3), 2, 6)
    >>> pop()
    """
    __slots__ = ("_value", "_level")

    def __init__(self, value, level):
        self._init(value._data, value._device, version=value._version)
        self._value = value
        self._level = level

    @property
    def shape(self):
        """The shape of one sample (the batch axis hidden).

        >>> b = BatchedTensor(eagerad.ones(4, 2), push(4)); b.shape
        (2,)
        >>> pop()
        """
        return self._value.shape[1:]

    @property
    def ndim(self):
        """Dimensions of one sample.

        >>> b = BatchedTensor(eagerad.ones(4, 2), push(4)); b.ndim
        1
        >>> pop()
        """
        return len(self._value.shape) - 1

    @property
    def size(self):
        """Elements of one sample.

        >>> b = BatchedTensor(eagerad.ones(4, 2), push(4)); int(b.size)
        2
        >>> pop()
        """
        return Size(self.shape)

    @property
    def requires_grad(self):
        """Whether the physical tensor underneath requires grad.

        >>> b = BatchedTensor(eagerad.ones(4, 2), push(4)); b.requires_grad
        False
        >>> pop()
        """
        return unwrap(self)[0]._requires_grad

    def requires_grad_(self, requires_grad=True):
        """Make the physical tensor underneath a leaf that requires grad (PyTorch's face
        inside vmap); ``autograd.grad`` then differentiates per sample.

        >>> b = BatchedTensor(eagerad.ones(4, 2), push(4)); b.requires_grad_().requires_grad
        True
        >>> pop()
        """
        unwrap(self)[0].requires_grad_(requires_grad)
        return self

    def detach(self):
        """The batched value cut from the graph.

        >>> b = BatchedTensor(eagerad.ones(4, 2), push(4)); b.detach().shape
        (2,)
        >>> pop()
        """
        return BatchedTensor(self._value.detach(), self._level)

    def _no_value(self, *args, **kwargs):
        raise RuntimeError(f"a tensor batched by vmap (level {self._level}, {self.shape} per "
                           f"sample) has no single value inside the vmapped function; return it "
                           "from the function instead of reading it (numpy(), item(), bool(), ...)")

    numpy = asnumpy = item = tolist = __array__ = __float__ = __int__ = __index__ = \
        __bool__ = _no_value

    def __repr__(self):
        return f"BatchedTensor(level={self._level}, shape={self.shape}, value={self._value!r})"

    __str__ = __repr__


def unwrap(x):
    """``(physical tensor, levels it is batched at, oldest first)``.

    >>> p, lv = unwrap(eagerad.ones(2)); lv
    []
    """
    lv = []
    while type(x) is BatchedTensor:
        lv.append(x._level)
        x = x._value
    return x, lv[::-1]


def wrap(p, lv):
    """Inverse of ``unwrap``: ``p``'s leading axes become the levels ``lv`` (oldest first).

    >>> level = push(3); wrap(eagerad.ones(3, 2), [level]).shape
    (2,)
    >>> pop()
    """
    for level in lv:
        p = BatchedTensor(p, level)
    return p


def apply_per_sample(fn, args):
    """``fn(*args)`` when some ``args`` are batched and ``fn`` has no batching rule (a custom
    ``autograd.Function``): one call per sample of the newest level, results stacked.

    >>> level = push(2)
    >>> out = apply_per_sample(lambda a: a * 3, (BatchedTensor(eagerad.ones(2, 1), level),))
    >>> pop(); out._value.tolist()
    [[3.0], [3.0]]
    """
    level = max(a._level for a in args if type(a) is BatchedTensor)
    here = [type(a) is BatchedTensor and a._level == level for a in args]
    out = _upcalls.get("map_samples")(fn, [a._value if h else a for a, h in zip(args, here)],
                      [0 if h else None for h in here], levels[level])
    if isinstance(out, Tensor):
        return BatchedTensor(out, level)
    return tuple(BatchedTensor(o, level) for o in out)
