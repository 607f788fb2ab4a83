"""Data loading: batches, shuffling (seeded, a fresh order each epoch, every sample once),
drop_last, nested collation, the progress bar (MindSpore's pipelines: test_dataset.py)."""
import io

import numpy as np
import pytest

import eagerad
from eagerad.data import DataLoader, Dataset, TensorDataset, progress


def test_batches_cover_the_data_in_order():
    x = np.arange(20.0).reshape(10, 2)
    y = np.arange(10)
    batches = list(DataLoader(TensorDataset(x, y), batch_size=4))
    assert [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    np.testing.assert_array_equal(np.concatenate([b[0].numpy() for b in batches]), x)
    assert np.concatenate([b[1].numpy() for b in batches]).tolist() == list(range(10))
    assert len(DataLoader(TensorDataset(x), batch_size=4, drop_last=True)) == 2


def test_shuffle_is_a_permutation_seeded_and_new_each_epoch():
    data = TensorDataset(np.arange(50))
    loader = DataLoader(data, batch_size=7, shuffle=True, generator=np.random.default_rng(3))
    first = [v for (b,) in loader for v in b.tolist()]
    second = [v for (b,) in loader for v in b.tolist()]
    assert sorted(first) == sorted(second) == list(range(50))
    assert first != second and first != list(range(50))
    eagerad.set_seed(11)
    a = [v for (b,) in DataLoader(data, batch_size=50, shuffle=True) for v in b.tolist()]
    eagerad.set_seed(11)
    b = [v for (b,) in DataLoader(data, batch_size=50, shuffle=True) for v in b.tolist()]
    assert a == b


def test_custom_dataset_with_dict_samples_and_collate_fn():
    class Pairs(Dataset):
        def __len__(self):
            return 3

        def __getitem__(self, i):
            return {"x": np.full(2, i, dtype=np.float32), "label": i % 2}

    (batch,) = list(DataLoader(Pairs(), batch_size=3))
    assert batch["x"].shape == (3, 2) and batch["x"].dtype == eagerad.float32
    assert batch["label"].tolist() == [0, 1, 0]
    firsts = list(DataLoader(Pairs(), batch_size=2, collate_fn=lambda s: s[0]["label"]))
    assert firsts == [0, 0]


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match="batch_size"):
        DataLoader(TensorDataset(np.zeros(3)), batch_size=0)
    with pytest.raises(ValueError, match="different first dimensions"):
        TensorDataset(np.zeros(3), np.zeros(4))


def test_progress_bar_counts_and_shows_postfix():
    out = io.StringIO()
    bar = progress(range(3), desc="epoch 1", file=out, width=6)
    for _ in bar:
        bar.set_postfix(loss=eagerad.tensor(0.123456))
    last = out.getvalue().split("\r")[-1]
    assert last.strip() == "epoch 1 [######] 3/3 loss=0.1235"
