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
import collections
import itertools
import sys
import time

import numpy as np

from .loader_workers import _EXHAUSTED, WorkerPool, _next_batch, fetch, get_worker_info  # noqa: F401
from .samplers import BatchSampler, RandomSampler, SequentialSampler, _permutation, as_rng
from .face import stamp
from .tensor import Tensor


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


class IterableDataset(Dataset):
    """A stream dataset: subclasses give ``__iter__``.  With worker processes each
    worker iterates its own copy; ``get_worker_info()`` tells it which share to yield.

    >>> class Count(IterableDataset):
    ...     def __iter__(self):
    ...         return iter(range(5))
    >>> [b.tolist() for b in DataLoader(Count(), batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    def __iter__(self):
        raise NotImplementedError

    def __getitem__(self, index):
        raise TypeError(f"{type(self).__name__} is an IterableDataset: iterate it, do not index it")


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
    if isinstance(first, Tensor):    # the batch speaks as its samples do
        return stamp(Tensor(np.stack([s.numpy() for s in samples])), first._face)
    if isinstance(first, (str, bytes)):
        return list(samples)
    return Tensor(np.stack([np.asarray(s) for s in samples]))


class DataLoader:
    """PyTorch's ``DataLoader(dataset, batch_size=1, shuffle=False, sampler=None,
    batch_sampler=None, num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
    timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None, *,
    prefetch_factor=None, persistent_workers=False)``: batches of a map-style dataset in
    the order of a sampler (iterated lazily, so it may be infinite; a fresh shuffle each
    epoch with ``shuffle``), or of an ``IterableDataset``.

    ``generator`` (an int seed or a ``numpy.random.Generator``) makes the order
    reproducible; without it the order comes from eagerad's global seed
    (``manual_seed``).  ``num_workers > 0`` loads in worker processes (``fork`` by
    default, or ``multiprocessing_context='spawn'``) and yields the same batches in the
    same order; ``pin_memory`` changes nothing on the CPU.

    >>> loader = DataLoader(TensorDataset(np.arange(6)), batch_size=4, shuffle=True, generator=0)
    >>> len(loader), sorted(v for (b,) in loader for v in b.tolist())
    (2, [0, 1, 2, 3, 4, 5])
    """

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False, timeout=0,
                 worker_init_fn=None, multiprocessing_context=None, generator=None, *,
                 prefetch_factor=None, persistent_workers=False, pin_memory_device=""):
        if batch_size is not None and (isinstance(batch_size, bool) or
                                       not isinstance(batch_size, int) or batch_size < 1):
            raise ValueError(f"batch_size must be a positive int (or None), got {batch_size!r}")
        if isinstance(num_workers, bool) or not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError(f"num_workers must be a non-negative int, got {num_workers!r}")
        if prefetch_factor is not None and num_workers == 0:
            raise ValueError("prefetch_factor is for num_workers > 0 only (PyTorch's rule)")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers=True needs num_workers > 0")
        iterable = isinstance(dataset, IterableDataset)
        if iterable and (shuffle or sampler is not None or batch_sampler is not None):
            raise ValueError("an IterableDataset takes no shuffle, sampler or batch_sampler "
                             "(it gives its own order)")
        if shuffle and sampler is not None:
            raise ValueError("give shuffle=True or a sampler, not both")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None
                                          or drop_last):
            raise ValueError("batch_sampler excludes batch_size, shuffle, sampler and drop_last")
        if isinstance(generator, (int, np.integer)) and not isinstance(generator, bool):
            generator = np.random.default_rng(int(generator))
        self.dataset, self.num_workers, self.drop_last = dataset, num_workers, drop_last
        self.collate_fn = collate_fn or default_collate
        self.pin_memory, self.timeout, self.worker_init_fn = pin_memory, timeout, worker_init_fn
        self.multiprocessing_context, self.generator = multiprocessing_context, generator
        self.prefetch_factor = 2 if prefetch_factor is None else prefetch_factor
        self.persistent_workers, self._pool, self._epoch = persistent_workers, None, 0
        self.shuffle = bool(shuffle)
        if batch_sampler is not None:
            batch_size = None
        self.batch_size = batch_size
        if iterable:
            self.sampler = self.batch_sampler = None
            return
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle \
                else SequentialSampler(dataset)
        if batch_sampler is None and batch_size is not None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.sampler, self.batch_sampler = sampler, batch_sampler

    def _indices(self):
        """What to fetch, lazily: lists of indices (batches) or single indices."""
        return iter(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    _face = None     # a face's loader stamps its batches (see eagerad.face)

    def __iter__(self):
        if self.num_workers == 0:
            batches = self._serial()
        elif self.sampler is None:
            batches = self._parallel_iterable()
        else:
            batches = self._parallel()
        return batches if self._face is None else (stamp(b, self._face) for b in batches)

    def _serial(self):
        if self.sampler is None:
            iterator = iter(self.dataset)
            while True:
                batch = _next_batch(iterator, self.batch_size, self.drop_last, self.collate_fn)
                if batch is _EXHAUSTED:
                    return
                yield batch
        collate = self.collate_fn if self.batch_sampler is not None else None
        for indices in self._indices():
            yield fetch(self.dataset, collate, indices)

    def _workers(self):
        """The worker pool: the persistent one, or a new one for this epoch."""
        if self._pool is not None:
            return self._pool
        seed = int(as_rng(self.generator).integers(0, 2 ** 62))
        job = {"dataset": self.dataset, "collate": self.collate_fn, "batch_size": self.batch_size,
               "drop_last": self.drop_last, "worker_init_fn": self.worker_init_fn}
        pool = WorkerPool(job, self.num_workers, seed, self.multiprocessing_context, self.timeout)
        if self.persistent_workers:
            self._pool = pool
        return pool

    def _finish(self, pool):
        if pool is not self._pool:
            pool.shutdown()

    def _parallel(self):
        indices = self._indices()
        first = next(indices, _EXHAUSTED)       # the sampler draws before the workers' seed
        if first is _EXHAUSTED:
            return
        pool, epoch = self._workers(), self._epoch
        self._epoch += 1
        window = self.prefetch_factor * self.num_workers
        sent = received = 0
        try:
            for batch in itertools.chain([first], indices):
                pool.put(sent % self.num_workers, "map", (epoch, sent), batch)
                sent += 1
                if sent - received >= window:
                    yield pool.get((epoch, received))
                    received += 1
            while received < sent:
                yield pool.get((epoch, received))
                received += 1
        finally:
            self._finish(pool)

    def _parallel_iterable(self):
        pool, epoch = self._workers(), self._epoch
        self._epoch += 1
        active, pending, sent, turn = list(range(self.num_workers)), collections.deque(), 0, 0
        window = self.prefetch_factor * self.num_workers
        try:
            for w in active:
                pool.put(w, "reset", (epoch, -1))
            while active or pending:
                while active and len(pending) < window:
                    w = active[turn % len(active)]
                    turn += 1
                    pool.put(w, "next", (epoch, sent))
                    pending.append((sent, w))
                    sent += 1
                tag, w = pending.popleft()
                data = pool.get((epoch, tag))
                if isinstance(data, str) and data == _EXHAUSTED:
                    if w in active:
                        active.remove(w)
                    continue
                yield data
        finally:
            self._finish(pool)

    def __len__(self):
        if self.sampler is None:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __del__(self):
        pool = self.__dict__.get("_pool")
        if pool is not None:
            self._pool = None
            pool.shutdown()


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
