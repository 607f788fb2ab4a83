"""PyTorch/MindSpore Tensor API the official tutorials use: new, copy, as_tensor, random
creators, default dtype/device, accelerator, Size, non-leaf .grad warning, ops.randn."""
import warnings

import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
import eagerad.torch as torch
from eagerad import ops


def test_randn_scalar_is_a_writable_0d_tensor():
    a = eagerad.randn((), requires_grad=True)
    b = eagerad.randn(())
    b -= 0.5 * b                       # in place on a 0-d draw (PyTorch tutorials' SGD)
    assert a.shape == () and b.shape == ()
    with eagerad.no_grad():
        a -= 1.0
    assert a.numpy().flags.writeable


def test_new_and_copy():
    x = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64)
    assert x.new(2, 3).shape == (2, 3) and x.new(2, 3).dtype == eagerad.float64
    assert x.new([4, 5]).tolist() == [4.0, 5.0] and x.new().shape == (0,)
    assert x.new(eagerad.Size([2])).shape == (2,)
    y = eagerad.Tensor([1.0, 2.0], dtype=eagerad.float32)
    z = y.copy()
    z[0] = 9.0
    assert y.tolist() == [1.0, 2.0] and z.tolist() == [9.0, 2.0]


def test_as_tensor_shares_memory_when_it_can():
    a = np.array([1.0, 2.0])
    t = eagerad.as_tensor(a)
    a[0] = 7.0
    assert t.tolist() == [7.0, 2.0] and t.dtype == eagerad.float64
    c = eagerad.as_tensor(a, dtype=eagerad.float32)
    a[1] = 8.0
    assert c.tolist() == [7.0, 2.0]            # a dtype change copies
    assert eagerad.as_tensor(t) is t
    assert eagerad.as_tensor([1, 2]).dtype == eagerad.int64


def test_random_likes_and_randint():
    base = eagerad.zeros(3, 4, dtype=eagerad.float64)
    assert eagerad.rand_like(base).dtype == eagerad.float64
    assert eagerad.randn_like(base).shape == (3, 4)
    eagerad.manual_seed(0)
    r = eagerad.randint(2, 5, (2000,))
    assert r.dtype == eagerad.int64 and set(r.tolist()) == {2, 3, 4}
    assert eagerad.randint(3, (4,)).shape == (4,)
    assert eagerad.randint_like(base, 10).dtype == eagerad.float64
    with pytest.raises(ValueError, match="high"):
        eagerad.randint(5, 5, (2,))
    assert eagerad.empty(2, 3).shape == (2, 3) and eagerad.empty_like(base).shape == (3, 4)
    u = eagerad.rand_like(eagerad.zeros(10000))
    assert 0.0 <= float(u.min()) and float(u.max()) < 1.0 and abs(float(u.mean()) - 0.5) < 0.02


def test_default_dtype():
    try:
        torch.set_default_dtype(torch.float64)
        assert torch.get_default_dtype() == torch.float64
        assert torch.tensor(1.5).dtype == torch.float64
        assert torch.randn(2).dtype == torch.float64
        assert torch.zeros(2).dtype == torch.float64
        assert repr(torch.tensor([1.5])) == "tensor([1.5000])"
        assert repr(torch.tensor([1.5], dtype=torch.float32)) == \
            "tensor([1.5000], dtype=torch.float32)"
        with pytest.raises(TypeError, match="floating"):
            torch.set_default_dtype(torch.int32)
    finally:
        torch.set_default_dtype(torch.float32)
    assert torch.tensor(1.5).dtype == torch.float32


def test_default_device_and_accelerator():
    eagerad.set_default_device("cpu")
    assert eagerad.get_default_device() == "cpu" and eagerad.zeros(1).device == "cpu"
    acc = eagerad.accelerator.current_accelerator()
    assert eagerad.accelerator.is_available() == (acc is not None)
    if acc is not None:
        assert acc.type == "cuda"


def test_size():
    t = torch.tensor([[1.0, 2.0, 3.0]])
    assert t.size() == (1, 3) and t.size(1) == 3 and t.size(-1) == 3
    assert isinstance(t.size(), torch.Size) and repr(t.size()) == "torch.Size([1, 3])"
    assert torch.Size([2, 3]).numel() == 6
    assert int(ms.Tensor([[1.0, 2.0]]).size) == 2      # MindSpore's element count


def test_non_leaf_grad_warns_like_pytorch():
    x = eagerad.tensor([1.0], requires_grad=True)
    y = x * 2
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert y.grad is None
    y.retain_grad()
    y.sum().backward()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert y.grad.tolist() == [1.0] and x.grad.tolist() == [2.0]
    assert x.requires_grad_(False) is x and not x.requires_grad


def test_mindspore_random_ops_and_tensor_dot():
    a = ms.ops.randn(2, 3, seed=5)
    b = ms.ops.randn((2, 3), seed=5)
    assert a.shape == (2, 3) and np.array_equal(a.numpy(), b.numpy())
    assert repr(a).startswith("Tensor(shape=[2, 3], dtype=Float32")
    ms.set_seed(3)
    c = ms.ops.rand(4)
    ms.set_seed(3)
    assert np.array_equal(c.numpy(), ms.ops.rand(4).numpy())
    r = ms.ops.randint(0, 3, (500,))
    assert set(r.tolist()) == {0, 1, 2} and r.dtype == ms.int64
    x, y = np.arange(6.0).reshape(2, 3), np.arange(12.0).reshape(3, 4)
    got = ms.ops.tensor_dot(ms.Tensor(x), ms.Tensor(y), 1)
    np.testing.assert_allclose(got.numpy(), x @ y)
