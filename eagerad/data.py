"""Feeding data to a training loop PyTorch's way, plus a progress bar.

``TensorDataset`` / any ``Dataset`` (``__getitem__`` + ``__len__``) and a
``DataLoader`` with ``batch_size``, ``shuffle`` (seeded by ``generator=`` or
eagerad's global seed), ``drop_last`` and ``collate_fn``.  Batches stack samples
into Tensors (numbers and arrays alike); tuples and dicts keep their structure.
MindSpore's pipelines (``NumpySlicesDataset``, ``GeneratorDataset``, ``map``/``batch``,
vision transforms) live in ``eagerad.dataset``.

>>> import numpy as np
>>> x, y = np.arange(10.0).reshape(5, 2), np.arange(5)
>>> loader = DataLoader(TensorDataset(x, y), batch_size=2, drop_last=True)
>>> [(bx.shape, by.tolist()) for bx, by in loader]
[((2, 2), [0, 1]), ((2, 2), [2, 3])]
"""
import sys
import time

import numpy as np

from .dtype import float64
from .tensor import Tensor, rand


def _permutation(n):
    """A random order of ``range(n)`` from eagerad's global seed (``set_seed``)."""
    return np.argsort(rand(n, dtype=float64).numpy(), kind="stable") if n else np.arange(0)


class Dataset:
    """A map-style dataset: subclasses give ``__getitem__(i)`` and ``__len__()``.

    >>> class Squares(Dataset):
    ...     def __len__(self):
    ...         return 3
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> [b.tolist() for b in DataLoader(Squares(), batch_size=2)]
    [[0, 1], [4]]
    """

    def __getitem__(self, index):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class TensorDataset(Dataset):
    """Samples are the ``i``-th rows of each array/Tensor (all of one length).

    >>> TensorDataset(np.zeros((3, 2)), np.arange(3))[1]
    (array([0., 0.]), 1)
    """

    def __init__(self, *arrays):
        if not arrays:
            raise ValueError("TensorDataset needs at least one array")
        self.arrays = [a.numpy() if isinstance(a, Tensor) else np.asarray(a) for a in arrays]
        lengths = {len(a) for a in self.arrays}
        if len(lengths) != 1:
            raise ValueError(f"TensorDataset: the arrays have different first dimensions "
                             f"{[a.shape for a in self.arrays]}")

    def __len__(self):
        return len(self.arrays[0])

    def __getitem__(self, index):
        return tuple(a[index].item() if a.ndim == 1 else a[index] for a in self.arrays)


def default_collate(samples):
    """Stack a list of samples into a batch: Tensors for numbers and arrays, tuples,
    lists and dicts element by element (PyTorch's ``default_collate``).

    >>> default_collate([(1.0, {'a': 2}), (3.0, {'a': 4})])
    (tensor([1., 3.], dtype=eagerad.float64), {'a': tensor([2, 4])})
    """
    first = samples[0]
    if isinstance(first, dict):
        return {k: default_collate([s[k] for s in samples]) for k in first}
    if isinstance(first, (tuple, list)):
        columns = [default_collate(list(col)) for col in zip(*samples)]
        return tuple(columns) if isinstance(first, tuple) else columns
    if isinstance(first, Tensor):
        return Tensor(np.stack([s.numpy() for s in samples]))
    if isinstance(first, (str, bytes)):
        return list(samples)
    return Tensor(np.stack([np.asarray(s) for s in samples]))


class DataLoader:
    """Iterate a dataset in batches (a fresh shuffle each epoch when ``shuffle``).

    ``generator`` (a ``numpy.random.Generator`` or an int seed) makes the order
    reproducible; without it the order comes from eagerad's global seed
    (``eagerad.set_seed``/``manual_seed``).

    >>> loader = DataLoader(TensorDataset(np.arange(6)), batch_size=4, shuffle=True, generator=0)
    >>> len(loader), sorted(v for (b,) in loader for v in b.tolist())
    (2, [0, 1, 2, 3, 4, 5])
    """

    def __init__(self, dataset, batch_size=1, shuffle=False, drop_last=False, collate_fn=None,
                 generator=None, sampler=None, num_workers=0, pin_memory=False):
        if batch_size is not None and (not isinstance(batch_size, int) or batch_size < 1):
            raise ValueError(f"batch_size must be a positive int (or None), got {batch_size!r}")
        if shuffle and sampler is not None:
            raise ValueError("give shuffle=True or a sampler, not both")
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"num_workers must be a non-negative int, got {num_workers!r}")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.drop_last, self.sampler = drop_last, sampler
        self.collate_fn = collate_fn or default_collate
        self.generator = np.random.default_rng(generator) if isinstance(generator, int) \
            else generator

    def _order(self):
        if self.sampler is not None:
            return list(self.sampler)
        n = len(self.dataset)
        if not self.shuffle:
            return range(n)
        return self.generator.permutation(n) if self.generator is not None else _permutation(n)

    def __iter__(self):
        order = self._order()
        if self.batch_size is None:
            for i in order:
                yield self.dataset[int(i)]
            return
        for start in range(0, len(order), self.batch_size):
            idx = order[start:start + self.batch_size]
            if len(idx) < self.batch_size and self.drop_last:
                return
            yield self.collate_fn([self.dataset[int(i)] for i in idx])

    def __len__(self):
        n = len(self.sampler) if self.sampler is not None else len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


# ------------------------------------------------------------------ progress

class progress:
    """A dependency-free progress bar over an iterable, on one line (tqdm's spelling:
    ``for batch in progress(loader, desc='epoch 1')``); ``set_postfix(loss=...)`` adds
    values. Writes to stderr unless ``file=`` says otherwise.

    >>> import io
    >>> out = io.StringIO()
    >>> total = sum(progress(range(4), desc='demo', file=out, width=8))
    >>> total, out.getvalue().strip().splitlines()[-1]
    (6, 'demo [########] 4/4')
    """

    def __init__(self, iterable, desc="", total=None, file=None, width=20):
        self.iterable, self.desc, self.width = iterable, desc, width
        self.total = total if total is not None else (len(iterable) if hasattr(iterable, "__len__")
                                                      else None)
        self.file = file if file is not None else sys.stderr
        self.postfix = ""
        self.count = 0

    def set_postfix(self, **values):
        """Show ``name=value`` pairs after the bar (numbers and 0-d Tensors get 4 digits)."""
        self.postfix = " ".join(f"{k}={float(v):.4g}" if isinstance(v, (float, Tensor)) else
                                f"{k}={v}" for k, v in values.items())
        self._draw()

    def _draw(self, end=""):
        if self.total:
            filled = self.width * self.count // self.total
            bar = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.count}/{self.total}"
        else:
            bar = f"{self.count} it"
        text = " ".join(t for t in (self.desc, bar, self.postfix) if t)
        self.file.write("\r" + text + end)
        self.file.flush()

    def __iter__(self):
        start, last = time.perf_counter(), 0.0
        for item in self.iterable:
            yield item
            self.count += 1
            now = time.perf_counter()
            if now - last > 0.1 or self.count == self.total:
                self._draw()
                last = now
        self._draw("\n")
        self.elapsed = time.perf_counter() - start

    def __len__(self):
        return self.total
