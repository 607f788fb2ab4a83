"""Less common torch names of the API sweep (issue 20) against PyTorch: ATen forms,
bit shifts, copies, low-rank SVD/PCA, legacy types, storages."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")


def same(ours, theirs, atol=1e-6):
    np.testing.assert_allclose(np.asarray(ours.detach()._data), theirs.detach().numpy(),
                               atol=atol)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("dims", [1, 2])
def test_convolution(transposed, dims):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 4) + (5,) * dims)
    w = rng.normal(size=((4, 3) if transposed else (6, 2)) + (3,) * dims)
    b = rng.normal(size=6 if not transposed else 6)
    args = ([2] * dims, [1] * dims, [1] * dims, transposed, [1 if transposed else 0] * dims, 2)
    same(torch.convolution(torch.tensor(x), torch.tensor(w), torch.tensor(b), *args),
         pt.convolution(pt.tensor(x), pt.tensor(w), pt.tensor(b), *args))


def test_grid_sampler_and_norm_except_dim():
    rng = np.random.default_rng(1)
    x, g = rng.normal(size=(1, 2, 4, 4)), rng.uniform(-1, 1, size=(1, 3, 3, 2))
    for mode in (0, 1):
        for pad in (0, 1, 2):
            same(torch.grid_sampler(torch.tensor(x), torch.tensor(g), mode, pad, False),
                 pt.grid_sampler(pt.tensor(x), pt.tensor(g), mode, pad, False))
    v = rng.normal(size=(3, 4, 2))
    for dim in (0, 1, 2, -1):
        same(torch.norm_except_dim(torch.tensor(v), 2, dim), pt.norm_except_dim(pt.tensor(v), 2, dim))


def test_native_dropout():
    out, mask = torch.native_dropout(torch.ones(1000), 0.25, True)
    assert mask.dtype == torch.bool
    kept = mask.numpy()
    assert 0.6 < kept.mean() < 0.9
    np.testing.assert_allclose(out.numpy()[kept], 1 / 0.75, rtol=1e-6)
    assert (out.numpy()[~kept] == 0).all()


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_bit_shifts(dtype):
    a = np.array([1, 5, 100, 7], dtype=dtype)
    s = np.array([0, 1, 3, 2], dtype=dtype)
    for name in ("bitwise_left_shift", "bitwise_right_shift"):
        ours = getattr(torch, name)(torch.tensor(a), torch.tensor(s))
        theirs = getattr(pt, name)(pt.tensor(a), pt.tensor(s))
        assert ours.tolist() == theirs.tolist() and ours.dtype == getattr(torch, dtype)
    x = torch.tensor(a)
    assert x.bitwise_left_shift_(1) is x and x.tolist() == (pt.tensor(a) << 1).tolist()
    assert torch.bitwise_right_shift(torch.tensor([-8]), 1).tolist() == [-4]
    with pytest.raises(TypeError, match="integer"):
        torch.bitwise_left_shift(torch.ones(1), 1)


def test_copies_and_static_nonzero():
    x = np.arange(12.0).reshape(3, 4)
    same(torch.select_copy(torch.tensor(x), 1, 2), pt.select_copy(pt.tensor(x), 1, 2))
    same(torch.slice_copy(torch.tensor(x), 1, 1, 4, 2), pt.slice_copy(pt.tensor(x), 1, 1, 4, 2))
    for o, t in zip(torch.split_copy(torch.tensor(x), 2), pt.split_copy(pt.tensor(x), 2)):
        same(o, t)
    for o, t in zip(torch.unsafe_split_with_sizes(torch.tensor(x), [1, 3], 1),
                    pt.unsafe_split_with_sizes(pt.tensor(x), [1, 3], 1)):
        same(o, t)
    m = np.array([[0, 1], [1, 1]])
    for size in (1, 3, 5):
        assert torch.nonzero_static(torch.tensor(m), size=size).tolist() == \
            pt.nonzero_static(pt.tensor(m), size=size).tolist() == \
            torch.tensor(m).nonzero_static(size=size, fill_value=-1).tolist()
    assert [p.shape[0] for p in torch.arange(5).unsafe_split_with_sizes([4, 1])] == [4, 1]


def test_low_rank():
    rng = np.random.default_rng(2)
    a = rng.normal(size=(6, 4))
    U, S, V = torch.svd_lowrank(torch.tensor(a), q=2)
    s_true = np.linalg.svd(a, compute_uv=False)[:2]
    np.testing.assert_allclose(S.numpy(), s_true, rtol=1e-10)
    u, s, vh = np.linalg.svd(a)
    np.testing.assert_allclose((U * S) @ V.T, (u[:, :2] * s[:2]) @ vh[:2], atol=1e-10)
    _, Sp, _ = torch.pca_lowrank(torch.tensor(a), q=3)
    np.testing.assert_allclose(Sp.numpy(), np.linalg.svd(a - a.mean(0), compute_uv=False)[:3],
                               rtol=1e-10)


def test_legacy_types():
    assert torch.FloatTensor([1, 2]).dtype == torch.float32
    assert torch.LongTensor(2, 3).shape == (2, 3) and torch.LongTensor(2, 3).dtype == torch.int64
    assert isinstance(torch.ones(1), torch.FloatTensor)
    assert not isinstance(torch.ones(1), torch.DoubleTensor)
    assert isinstance(torch.ones(1, dtype=torch.float64), torch.DoubleTensor)
    try:
        torch.set_default_tensor_type("torch.DoubleTensor")
        assert torch.zeros(1).dtype == torch.float64
    finally:
        torch.set_default_tensor_type(torch.FloatTensor)
    assert torch.zeros(1).dtype == torch.float32
    with pytest.raises(TypeError, match="floating"):
        torch.set_default_tensor_type(torch.LongTensor)


def test_storage_and_flags():
    x = torch.arange(6.0)
    v = x[2:]
    assert v.untyped_storage().data_ptr() == x.untyped_storage().data_ptr() == x.data_ptr()
    assert x.untyped_storage().nbytes() == pt.arange(6.0).untyped_storage().nbytes()
    assert len(v.storage()) == 6
    assert not x.is_xpu and not x.is_mps and x.is_cpu
    assert x.reshape(2, 3).t().dim_order() == pt.arange(6.0).reshape(2, 3).t().dim_order()
    a = torch.zeros(1)
    a.set_(x)
    assert a.is_set_to(x) and not a.is_set_to(v)
    with pytest.raises(RuntimeError, match="requires grad"):
        torch.ones(1, requires_grad=True).set_(x)
