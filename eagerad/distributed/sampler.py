"""Which examples each rank reads: ``shard_indices`` (MindSpore's ``num_shards``/
``shard_id``) and ``DistributedSampler`` (PyTorch's), one rule for both.

The (optionally shuffled) index list is padded by repeating its start until its length
divides by the number of shards, and shard k takes every ``num_shards``-th index from
position k: all shards have the same length (so every rank runs the same number of
steps) and together they cover the data set once, plus the few padding repeats.
``drop_last=True`` trims the tail instead of padding.

>>> shard_indices(5, 2, 0).tolist(), shard_indices(5, 2, 1).tolist()
([0, 2, 4], [1, 3, 0])
"""
import math

import numpy as np


def _check_shard(num_shards, shard_id, names=("num_shards", "shard_id")):
    if not isinstance(num_shards, (int, np.integer)) or num_shards < 1:
        raise ValueError(f"{names[0]} must be a positive int, got {num_shards!r}")
    if not isinstance(shard_id, (int, np.integer)) or not 0 <= shard_id < num_shards:
        raise ValueError(f"{names[1]} must be an int in [0, {num_shards}), got {shard_id!r}")


def shard_indices(n, num_shards, shard_id, order=None, drop_last=False):
    """The positions of shard ``shard_id`` of ``num_shards`` among ``n`` examples, taken
    from ``order`` (a permutation; default ``0 ... n-1``); see the module.

    >>> shard_indices(4, 2, 1, order=np.array([3, 2, 1, 0])).tolist()
    [2, 0]
    >>> shard_indices(5, 2, 1, drop_last=True).tolist()
    [1, 3]
    """
    _check_shard(num_shards, shard_id)
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"n must be a non-negative int, got {n!r}")
    order = np.arange(n) if order is None else np.asarray(order)
    if len(order) != n:
        raise ValueError(f"order has {len(order)} entries for n={n} examples")
    if drop_last:
        total = (n // num_shards) * num_shards
        order = order[:total]
    else:
        total = math.ceil(n / num_shards) * num_shards
        if total > n and n:
            order = np.concatenate([order] * math.ceil(total / n))[:total]
    return order[shard_id:total:num_shards]


class DistributedSampler:
    """Indices of this rank's share of ``dataset`` for a DataLoader's ``sampler=``
    (PyTorch's ``torch.utils.data.distributed.DistributedSampler``).

    ``shuffle`` draws a fresh permutation per epoch from ``seed + epoch`` (numpy's
    generator: the same permutation on every rank); call ``set_epoch(e)`` at the start of
    each epoch.  ``num_replicas``/``rank`` default to the process group's.

    >>> s = DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False)
    >>> list(s), len(s)
    ([1, 3, 0], 3)
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from . import process_group as pg
            num_replicas = pg.get_world_size() if num_replicas is None else num_replicas
            rank = pg.get_rank() if rank is None else rank
        _check_shard(num_replicas, rank, ("num_replicas", "rank"))
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.drop_last, self.epoch = shuffle, seed, drop_last, 0
        n = len(dataset)
        self.num_samples = n // num_replicas if drop_last else math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas

    def __iter__(self):
        n = len(self.dataset)
        order = (np.random.default_rng(self.seed + self.epoch).permutation(n) if self.shuffle
                 else None)
        return iter(shard_indices(n, self.num_replicas, self.rank, order, self.drop_last).tolist())

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Use epoch ``epoch``'s permutation (same on every rank, new each epoch).

        >>> s = DistributedSampler(range(6), num_replicas=2, rank=0, seed=3)
        >>> first = list(s); s.set_epoch(1)
        >>> first, list(s)
        ([2, 4, 3], [1, 0, 4])
        """
        self.epoch = int(epoch)
