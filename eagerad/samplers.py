"""PyTorch's samplers: the order in which a ``DataLoader`` visits a map-style dataset.
All are iterated lazily (a sampler may be infinite); random ones draw from
``generator`` (an int seed or ``numpy.random.Generator``) or, without one, from
eagerad's global seed (``manual_seed``), anew each epoch.

>>> list(BatchSampler(SequentialSampler(range(5)), batch_size=2, drop_last=False))
[[0, 1], [2, 3], [4]]
"""
import numpy as np

from .dtype import float64
from .tensor import Tensor, rand

_CHUNK = 1 << 16     # indices drawn at once by samplers with replacement


def _permutation(n):
    """A random order of ``range(n)`` from eagerad's global seed (``set_seed``)."""
    return np.argsort(rand(n, dtype=float64).numpy(), kind="stable") if n else np.arange(0)


class Generator:
    """PyTorch's ``torch.Generator`` for the data pipeline (``random_split``, samplers,
    ``DataLoader(generator=)``): a seedable random stream whose state advances with use.

    >>> g = Generator().manual_seed(42); g.initial_seed()
    42
    >>> float(as_rng(g).random()) == float(np.random.default_rng(42).random())
    True
    """

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(int(np.random.SeedSequence().entropy % 2 ** 63))

    def manual_seed(self, seed):
        """Restart the stream from ``seed``; returns the generator (PyTorch's chaining)."""
        self._seed = int(seed)
        self._numpy_rng = np.random.default_rng(self._seed)
        return self

    def initial_seed(self):
        """The seed the stream started from."""
        return self._seed

    def seed(self):
        """Reseed from fresh entropy; returns the new seed."""
        self.manual_seed(int(np.random.SeedSequence().entropy % 2 ** 63))
        return self._seed

    def get_state(self):
        """The stream's state (to ``set_state`` later)."""
        return dict(self._numpy_rng.bit_generator.state)

    def set_state(self, state):
        """Go back to a state from ``get_state``."""
        self._numpy_rng.bit_generator.state = state
        return self


def as_rng(generator):
    """A ``numpy.random.Generator`` for ``generator=``: itself, a seeded one for an int,
    the seed of an object with ``initial_seed()``, or one seeded from eagerad's global seed.

    >>> float(as_rng(3).random()) == float(np.random.default_rng(3).random())
    True
    """
    if isinstance(generator, np.random.Generator):
        return generator
    if isinstance(generator, Generator):
        return generator._numpy_rng
    if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
        return np.random.default_rng(int(generator))
    if generator is None:
        return np.random.default_rng(int(rand(1, dtype=float64).numpy()[0] * 2 ** 53))
    if hasattr(generator, "initial_seed"):
        return np.random.default_rng(int(generator.initial_seed()))
    raise TypeError(f"generator must be None, an int seed, a numpy.random.Generator or have "
                    f"initial_seed(), got {type(generator).__name__}")


class Sampler:
    """Base class: subclasses give ``__iter__`` (indices) and, if finite, ``__len__``.

    >>> class Evens(Sampler):
    ...     def __iter__(self):
    ...         return iter(range(0, 6, 2))
    >>> list(Evens())
    [0, 2, 4]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``.

    >>> list(SequentialSampler('abc'))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


class RandomSampler(Sampler):
    """PyTorch's ``RandomSampler(data_source, replacement=False, num_samples=None,
    generator=None)``: a fresh permutation each epoch (concatenated ones when
    ``num_samples`` exceeds the length), or ``num_samples`` draws with replacement.

    >>> sorted(RandomSampler(range(4), generator=0))
    [0, 1, 2, 3]
    >>> len(list(RandomSampler(range(3), replacement=True, num_samples=7)))
    7
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"replacement must be a bool, got {replacement!r}")
        if num_samples is not None and (not isinstance(num_samples, int) or num_samples <= 0):
            raise ValueError(f"num_samples must be a positive int, got {num_samples!r}")
        self.data_source, self.replacement = data_source, replacement
        self._num_samples, self.generator = num_samples, generator
        if isinstance(generator, (int, np.integer)):
            self.generator = np.random.default_rng(int(generator))

    @property
    def num_samples(self):
        """How many indices an epoch yields (the dataset's length by default)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n, count = len(self.data_source), self.num_samples
        if self.replacement:            # in chunks: num_samples=int(1e10) is an endless stream
            rng = as_rng(self.generator)
            while count > 0:
                chunk = rng.integers(0, n, min(count, _CHUNK))
                yield from (int(i) for i in chunk)
                count -= len(chunk)
            return
        if self.generator is None and count == n:
            yield from (int(i) for i in _permutation(n))
            return
        rng = as_rng(self.generator)
        while count > 0:
            order = rng.permutation(n)[:count]
            yield from (int(i) for i in order)
            count -= len(order)

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in a random order each epoch.

    >>> sorted(SubsetRandomSampler([5, 7, 9], generator=1))
    [5, 7, 9]
    """

    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in as_rng(self.generator).permutation(len(self.indices)):
            yield self.indices[int(i)]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """PyTorch's ``WeightedRandomSampler(weights, num_samples, replacement=True,
    generator=None)``: index ``i`` drawn with probability ``weights[i] / sum(weights)``.

    >>> list(WeightedRandomSampler([0.0, 1.0, 0.0], 3))
    [1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        w = np.asarray(weights.numpy() if isinstance(weights, Tensor) else weights, dtype=float)
        if w.ndim != 1 or (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise ValueError("weights must be a 1-D sequence of finite non-negative numbers "
                             f"with a positive sum, got {w}")
        if not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(f"num_samples must be a positive int, got {num_samples!r}")
        if not replacement and num_samples > int((w > 0).sum()):
            raise ValueError(f"num_samples={num_samples} exceeds the {int((w > 0).sum())} "
                             "indices of non-zero weight (replacement=False)")
        self.weights, self.num_samples = w, num_samples
        self.replacement, self.generator = replacement, generator

    def __iter__(self):
        rng, p = as_rng(self.generator), self.weights / self.weights.sum()
        if not self.replacement:     # num_samples is at most the number of positive weights
            yield from (int(i) for i in rng.choice(len(p), self.num_samples, replace=False, p=p))
            return
        count = self.num_samples
        while count > 0:             # in chunks, as RandomSampler: the stream may be endless
            chunk = rng.choice(len(p), min(count, _CHUNK), p=p)
            yield from (int(i) for i in chunk)
            count -= len(chunk)

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Groups another sampler's indices into lists of ``batch_size`` (the last one
    shorter unless ``drop_last``), consuming it lazily.

    >>> list(BatchSampler(range(5), 2, drop_last=True))
    [[0, 1], [2, 3]]
    """

    def __init__(self, sampler, batch_size, drop_last):
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ValueError(f"batch_size must be a positive int, got {batch_size!r}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last must be a bool, got {drop_last!r}")
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for i in self.sampler:
            batch.append(int(i) if isinstance(i, (np.integer, Tensor)) else i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self):
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
