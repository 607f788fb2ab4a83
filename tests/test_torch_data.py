"""torch.utils.data of the PyTorch face: samplers, dataset combinators and the
DataLoader (lazy samplers, worker processes, iterable datasets)."""
import itertools
import os

import numpy as np
import pytest

import eagerad.torch as torch
from eagerad.torch.utils.data import (BatchSampler, ConcatDataset, DataLoader, Dataset,
                                      IterableDataset, RandomSampler, SequentialSampler, Subset,
                                      SubsetRandomSampler, TensorDataset, WeightedRandomSampler,
                                      get_worker_info, random_split)
from eagerad.torch.utils.data import dataloader, dataset, sampler


def _batches(loader):
    return [tuple(t.numpy().tolist() for t in b) if isinstance(b, (tuple, list))
            else b.numpy().tolist() for b in loader]


class Squares(Dataset):
    def __len__(self):
        return 10

    def __getitem__(self, i):
        return np.float64(i * i), i


class Failing(Squares):
    def __getitem__(self, i):
        if i == 7:
            raise KeyError(f"no sample {i}")
        return super().__getitem__(i)


class Forever:
    """An infinite sampler: 0, 1, 2, ... (mod 10)."""

    def __iter__(self):
        return (i % 10 for i in itertools.count())


class Stream(IterableDataset):
    """0..n-1, split between workers by get_worker_info()."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def test_import_paths():
    assert dataloader.DataLoader is DataLoader and sampler.RandomSampler is RandomSampler
    assert dataset.Subset is Subset and dataset.Dataset is Dataset
    assert sampler.BatchSampler is BatchSampler and dataloader.get_worker_info is get_worker_info


def test_samplers():
    assert list(SequentialSampler(range(4))) == [0, 1, 2, 3]
    order = list(RandomSampler(range(6), generator=5))
    assert sorted(order) == list(range(6))
    assert order == list(np.random.default_rng(5).permutation(6))
    long = list(RandomSampler(range(4), num_samples=10, generator=1))
    assert len(long) == 10 and sorted(long[:4]) == sorted(long[4:8]) == [0, 1, 2, 3]
    drawn = list(RandomSampler(range(3), replacement=True, num_samples=200, generator=2))
    assert set(drawn) == {0, 1, 2}
    assert sorted(SubsetRandomSampler([3, 8, 9], generator=0)) == [3, 8, 9]
    counts = np.bincount(list(WeightedRandomSampler([1.0, 3.0], 4000, generator=0)), minlength=2)
    assert abs(counts[1] / 4000 - 0.75) < 0.03          # 0.75 +- 4.4 sigma
    assert sorted(WeightedRandomSampler([1, 1, 1, 0], 3, replacement=False)) == [0, 1, 2]
    assert list(BatchSampler(range(7), 3, drop_last=False)) == [[0, 1, 2], [3, 4, 5], [6]]
    assert len(BatchSampler(range(7), 3, drop_last=True)) == 2
    with pytest.raises(ValueError, match="num_samples"):
        RandomSampler(range(3), num_samples=0)
    with pytest.raises(ValueError, match="weights"):
        WeightedRandomSampler([-1.0, 2.0], 2)


def test_subsets():
    s = Subset(Squares(), [3, 1])
    assert len(s) == 2 and s[0] == (9.0, 3)
    c = ConcatDataset([Squares(), Subset(Squares(), [2])])
    assert len(c) == 11 and c[10] == (4.0, 2) and c[-1] == (4.0, 2) and c[4] == (16.0, 4)
    with pytest.raises(IndexError):
        c[11]
    parts = random_split(Squares(), [0.5, 0.3, 0.2], generator=0)
    assert [len(p) for p in parts] == [5, 3, 2]
    assert sorted(i for p in parts for i in p.indices) == list(range(10))
    with pytest.raises(ValueError, match="lengths"):
        random_split(Squares(), [4, 4])


def test_infinite_sampler_is_iterated_lazily():
    loader = DataLoader(Squares(), batch_size=4, sampler=Forever())
    got = [b[1].numpy().tolist() for b in itertools.islice(loader, 3)]
    assert got == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 0, 1]]


def test_batch_sampler_and_unbatched():
    loader = DataLoader(Squares(), batch_sampler=[[1, 2], [5]])
    assert _batches(loader) == [([1.0, 4.0], [1, 2]), ([25.0], [5])]
    assert list(DataLoader(Squares(), batch_size=None, sampler=[2, 3])) == [(4.0, 2), (9.0, 3)]
    with pytest.raises(ValueError, match="batch_sampler"):
        DataLoader(Squares(), batch_size=2, batch_sampler=[[0]])


def test_collate_fn_and_drop_last():
    loader = DataLoader(Squares(), batch_size=4, drop_last=True, collate_fn=lambda s: len(s))
    assert list(loader) == [4, 4] and len(loader) == 2


@pytest.mark.parametrize("context", ["fork", "spawn"])
def test_workers_give_the_same_batches(context):
    data = TensorDataset(np.arange(23.0), np.arange(23))
    kw = dict(batch_size=3, shuffle=True)
    torch.manual_seed(4)
    serial = _batches(DataLoader(data, **kw))
    torch.manual_seed(4)
    loader = DataLoader(data, num_workers=2, multiprocessing_context=context, prefetch_factor=3,
                        pin_memory=True, **kw)
    assert _batches(loader) == serial and len(loader) == 8


def _record_pid(worker_id):
    info = get_worker_info()
    assert info.id == worker_id and info.num_workers == 3
    os.environ["EAGERAD_TEST_WORKER"] = str(worker_id)


class WhichWorker(Squares):
    def __getitem__(self, i):
        return int(os.environ.get("EAGERAD_TEST_WORKER", -1)), os.getpid()


def test_workers_run_in_processes_with_init_fn():
    loader = DataLoader(WhichWorker(), batch_size=2, num_workers=3, worker_init_fn=_record_pid)
    batches = list(loader)
    workers = [b[0].numpy().tolist() for b in batches]
    assert workers == [[0, 0], [1, 1], [2, 2], [0, 0], [1, 1]]     # round-robin
    pids = {int(p) for b in batches for p in b[1].numpy()}
    assert len(pids) == 3 and os.getpid() not in pids


def test_worker_exception_names_the_worker():
    loader = DataLoader(Failing(), batch_size=2, num_workers=2)
    with pytest.raises(KeyError, match="worker process 1"):   # indices 6, 7: batch 3
        list(loader)


def test_persistent_workers_survive_epochs():
    loader = DataLoader(WhichWorker(), batch_size=5, num_workers=2, persistent_workers=True)
    first = {int(p) for b in loader for p in b[1].numpy()}
    second = {int(p) for b in loader for p in b[1].numpy()}
    assert first == second and len(first) == 2
    with pytest.raises(ValueError, match="persistent_workers"):
        DataLoader(Squares(), persistent_workers=True)


def test_iterable_dataset():
    assert [b.numpy().tolist() for b in DataLoader(Stream(7), batch_size=3)] == \
        [[0, 1, 2], [3, 4, 5], [6]]
    assert len(DataLoader([1, 2, 3], batch_size=2)) == 2
    parallel = [b.numpy().tolist() for b in DataLoader(Stream(7), batch_size=2, num_workers=2)]
    assert parallel == [[0, 2], [1, 3], [4, 6], [5]]
    with pytest.raises(ValueError, match="IterableDataset"):
        DataLoader(Stream(3), shuffle=True)
    with pytest.raises(TypeError, match="IterableDataset"):
        Stream(3)[0]


def test_misuse():
    with pytest.raises(ValueError, match="prefetch_factor"):
        DataLoader(Squares(), prefetch_factor=2)
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(Squares(), batch_size=0)


def test_generator_advances_and_reseeds():
    g = torch.Generator().manual_seed(42)
    first = random_split(Squares(), [5, 5], generator=g)[0].indices
    second = random_split(Squares(), [5, 5], generator=g)[0].indices
    assert first != second                                   # the stream moved on
    again = random_split(Squares(), [5, 5], generator=torch.Generator().manual_seed(42))
    assert again[0].indices == first
    g = torch.Generator().manual_seed(3)
    state = g.get_state()
    a = list(RandomSampler(range(8), generator=g))
    assert list(RandomSampler(range(8), generator=g.set_state(state))) == a
    loader = DataLoader(Squares(), batch_size=5, shuffle=True, generator=torch.Generator().manual_seed(0))
    assert sorted(i for _, idx in loader for i in idx.numpy().tolist()) == list(range(10))
