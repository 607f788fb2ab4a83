"""DistributedSampler and shard_indices (no MPI needed): each epoch the shards cover the
data set exactly once (plus the padding repeats), have equal lengths, agree across
ranks on the permutation, change with set_epoch, and refuse bad arguments."""
import collections
import math

import numpy as np
import pytest

from eagerad.data import DataLoader, TensorDataset
from eagerad.distributed.sampler import DistributedSampler, shard_indices


@pytest.mark.parametrize("n", [0, 1, 7, 8, 10, 13])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("shuffle", [False, True])
def test_shards_cover_the_data_once_per_epoch(n, replicas, shuffle):
    for epoch in range(3):
        shards = []
        for rank in range(replicas):
            s = DistributedSampler(range(n), num_replicas=replicas, rank=rank, shuffle=shuffle,
                                   seed=5)
            s.set_epoch(epoch)
            shards.append(list(s))
            assert len(shards[-1]) == len(s) == math.ceil(n / replicas)
        seen = collections.Counter(i for shard in shards for i in shard)
        assert set(seen) == set(range(n))
        padding = math.ceil(n / replicas) * replicas - n
        assert sum(seen.values()) == n + padding
        assert sum(c - 1 for c in seen.values()) == padding     # repeats are the padding only


@pytest.mark.parametrize("n, replicas", [(10, 3), (9, 3), (5, 4)])
def test_drop_last_trims_to_equal_disjoint_shards(n, replicas):
    shards = [list(DistributedSampler(range(n), replicas, r, shuffle=True, drop_last=True))
              for r in range(replicas)]
    flat = [i for s in shards for i in s]
    assert len(flat) == len(set(flat)) == (n // replicas) * replicas
    assert {len(s) for s in shards} == {n // replicas}


def test_shuffle_is_per_epoch_and_the_same_on_every_rank():
    def epoch_order(epoch):
        parts = []
        for rank in range(2):
            s = DistributedSampler(range(12), 2, rank, seed=3)
            s.set_epoch(epoch)
            parts.append(list(s))
        order = np.empty(12, int)
        order[0::2], order[1::2] = parts
        return order
    first, second = epoch_order(0), epoch_order(1)
    assert sorted(first) == list(range(12)) and sorted(second) == list(range(12))
    assert not np.array_equal(first, second)
    assert np.array_equal(first, np.random.default_rng(3).permutation(12))
    assert np.array_equal(epoch_order(1), second)


def test_shard_indices_is_mindsporelike_interleaving_with_wraparound():
    assert shard_indices(7, 3, 0).tolist() == [0, 3, 6]
    assert shard_indices(7, 3, 1).tolist() == [1, 4, 0]
    assert shard_indices(7, 3, 2).tolist() == [2, 5, 1]
    assert shard_indices(2, 4, 3).tolist() == [1]          # more shards than rows: wraps


def test_sampler_drives_a_dataloader():
    data = TensorDataset(np.arange(10.0))
    sampler = DistributedSampler(data, num_replicas=2, rank=1, shuffle=False)
    batches = [b[0].tolist() if isinstance(b, (list, tuple)) else b.tolist()
               for b in DataLoader(data, batch_size=2, sampler=sampler)]
    assert batches == [[1.0, 3.0], [5.0, 7.0], [9.0]]


@pytest.mark.parametrize("kwargs, message", [
    (dict(num_replicas=0, rank=0), "num_replicas must be a positive int"),
    (dict(num_replicas=2, rank=2), r"rank must be an int in \[0, 2\)"),
    (dict(num_replicas=2, rank=-1), r"rank must be an int in \[0, 2\)"),
])
def test_bad_arguments_name_themselves(kwargs, message):
    with pytest.raises(ValueError, match=message):
        DistributedSampler(range(4), **kwargs)
    with pytest.raises(ValueError, match="shard_id must be an int"):
        shard_indices(4, 2, 5)
