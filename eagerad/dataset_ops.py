"""Datasets built from datasets (PyTorch's ``Subset``, ``ConcatDataset``,
``ChainDataset``, ``random_split``).

>>> parts = random_split(range(10), [0.7, 0.3], generator=0)
>>> [len(p) for p in parts], sorted(parts[0].indices + parts[1].indices) == list(range(10))
([7, 3], True)
"""
import bisect
import itertools
import math

from .data import Dataset, IterableDataset
from .samplers import as_rng


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    >>> Subset('abcd', [3, 0])[0], len(Subset('abcd', [3, 0]))
    ('d', 2)
    """

    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        if isinstance(index, list):
            return [self.dataset[self.indices[i]] for i in index]
        return self.dataset[self.indices[index]]

    def __len__(self):
        return len(self.indices)


class ConcatDataset(Dataset):
    """Map-style datasets one after the other.

    >>> d = ConcatDataset(['ab', 'cde']); len(d), d[2], d[-1]
    (5, 'c', 'e')
    """

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise ValueError("ConcatDataset: datasets should not be empty")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise TypeError("ConcatDataset does not take an IterableDataset (use ChainDataset)")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, index):
        if index < 0:
            if -index > len(self):
                raise IndexError(f"index {index} out of range for ConcatDataset of length {len(self)}")
            index += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, index)
        if which == len(self.datasets):
            raise IndexError(f"index {index} out of range for ConcatDataset of length {len(self)}")
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][index - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after the other.

    >>> list(ChainDataset([range(2), range(3)]))
    [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def __iter__(self):
        for d in self.datasets:
            yield from d

    def __len__(self):
        return sum(len(d) for d in self.datasets)


def random_split(dataset, lengths, generator=None):
    """``dataset`` cut at random into ``Subset``s of the given ``lengths`` (counts summing
    to ``len(dataset)``, or fractions summing to 1: the remainder goes one by one to the
    first parts, as PyTorch does).

    >>> [len(p) for p in random_split(range(5), [2, 3], generator=1)]
    [2, 3]
    """
    n = len(dataset)
    lengths = list(lengths)
    if lengths and all(isinstance(f, float) for f in lengths) and math.isclose(sum(lengths), 1):
        counts = [int(math.floor(n * f)) for f in lengths]
        for i in range(n - sum(counts)):
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n or any(not isinstance(k, int) or k < 0 for k in lengths):
        raise ValueError(f"random_split: lengths {lengths} must be non-negative ints summing to "
                         f"the dataset's length {n} (or fractions summing to 1)")
    order = as_rng(generator).permutation(n).tolist()
    bounds = list(itertools.accumulate(lengths))
    return [Subset(dataset, order[end - k:end]) for k, end in zip(lengths, bounds)]
