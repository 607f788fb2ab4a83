"""Tensor construction, dtype rules, attributes, printing, indexing and conversions."""
import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
from eagerad import Tensor
from eagerad import dtype as mstype


def test_python_floats_default_to_float32_and_numpy_keeps_its_dtype():
    assert Tensor(1.5).dtype == eagerad.float32
    assert Tensor([1.5, 2]).dtype == eagerad.float32
    assert Tensor(3).dtype == eagerad.int64
    assert Tensor(True).dtype == eagerad.bool_
    assert Tensor(np.array([1.0, 2.0])).dtype == eagerad.float64
    assert Tensor(np.array([1, 2], np.int32)).dtype == eagerad.int32
    assert Tensor(np.float32(2.0)).dtype == eagerad.float32
    assert Tensor([1, 2], dtype=mstype.float64).dtype == eagerad.float64
    assert eagerad.tensor([1.0], dtype="float16").dtype == eagerad.float16
    assert mstype.float32 is eagerad.float32


def test_python_scalars_are_weak_in_arithmetic():
    f32 = Tensor([1.0, 2.0])
    assert (f32 * 2.0).dtype == eagerad.float32
    assert (2.0 * f32).dtype == eagerad.float32
    assert (f32 + 1).dtype == eagerad.float32
    assert (Tensor([1.0], eagerad.float16) * 3.0).dtype == eagerad.float16
    i32 = Tensor(np.array([1, 2], np.int32))
    assert (i32 * 2).dtype == eagerad.int32
    assert (i32 * 2.0).dtype == eagerad.float32
    assert (i32 * 2.0).tolist() == [2.0, 4.0]
    assert (i32 / 2).dtype == eagerad.float32
    # tensor-tensor: a float tensor keeps its width against integers
    assert (Tensor([1.0], eagerad.float16) + Tensor(np.array([1], np.int64))).dtype == eagerad.float16
    assert (f32 + Tensor(np.array([1.0]))).dtype == eagerad.float64


def test_bad_data_is_a_type_error():
    with pytest.raises(TypeError, match="cannot make a Tensor from list"):
        Tensor([[1.0, 2.0], [3.0]])
    with pytest.raises(TypeError, match="uint16"):
        Tensor([1.0], dtype=np.uint16)


def test_attributes():
    x = eagerad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    assert x.shape == (2, 3) and x.ndim == 2 and x.size == 6 and x.dtype == eagerad.float32
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    assert str(x.device) == "cpu"
    y = x.sum()
    assert y.shape == () and not y.is_leaf and y.grad_fn.name == "SumBackward"
    assert not x.detach().requires_grad and x.detach().numpy() is x.numpy()
    assert Tensor([1.0]).requires_grad_().requires_grad


def test_str_prints_like_numpy_seed_values():
    y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)
    grad_x = eagerad.ones(2, 3) @ y.T      # the row sums of y, as in MindSpore's MatMul seed
    assert str(grad_x) == "[[4.5099998 2.7       3.6000001]\n [4.5099998 2.7       3.6000001]]"
    assert str(Tensor([2.0, 2.0, 2.0])) == "[2. 2. 2.]"
    assert str(Tensor(2.5)) == "2.5"


def test_repr_is_mindspore_style():
    assert repr(ms.Tensor([21.536])) == "Tensor(shape=[1], dtype=Float32, value= [ 2.15359993e+01])"
    assert repr(ms.Tensor(20.0)) == "Tensor(shape=[], dtype=Float32, value= 20)"
    assert repr(ms.Tensor(0.5)) == "Tensor(shape=[], dtype=Float32, value= 0.5)"
    assert repr(ms.Tensor(np.array([1, 2], np.int32))) == "Tensor(shape=[2], dtype=Int32, value= [1, 2])"   # MindSpore 2.10
    assert repr(ms.Tensor([[1.0, 2.0]])) == \
        "Tensor(shape=[1, 2], dtype=Float32, value=\n[[ 1.00000000e+00,  2.00000000e+00]])"


def test_basic_indexing_with_gradients():
    x = eagerad.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    assert x[1, 2].item() == 6.0
    assert x[-1].tolist() == [8.0, 9.0, 10.0, 11.0]
    assert x[:, None].shape == (3, 1, 4) and x[..., 0].tolist() == [0.0, 4.0, 8.0]
    assert x[::2, 1:3].tolist() == [[1.0, 2.0], [9.0, 10.0]]
    (x[::2, 1:3] * 3).sum().backward()
    expected = np.zeros((3, 4))
    expected[::2, 1:3] = 3
    np.testing.assert_array_equal(x.grad.numpy(), expected)
    with pytest.raises(IndexError, match=r"\(3, 4\)"):
        x[5]


def test_advanced_indexing_accumulates_repeated_indices():
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[[0, 0, 2, 0]]
    assert y.tolist() == [1.0, 1.0, 3.0, 1.0]
    (y * eagerad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad.tolist() == [7.0, 0.0, 3.0]
    m = eagerad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    picked = m[eagerad.tensor([1, 0, 1]), eagerad.tensor([2, 1, 2])]
    assert picked.tolist() == [5.0, 1.0, 5.0]
    picked.sum().backward()
    assert m.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0]]


def test_boolean_mask_indexing_with_gradients():
    x = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x[x > 2]
    assert y.tolist() == [3.0, 4.0]
    (y * y).sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [6.0, 8.0]]
    with pytest.raises(IndexError, match="float32"):
        x[eagerad.tensor([0.0])]


def test_conversions():
    x = Tensor([[1.0, 2.0], [3.0, 4.0]])
    assert isinstance(np.asarray(x), np.ndarray) and np.asarray(x).dtype == np.float32
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    assert len(x) == 2 and float(Tensor([2.5])) == 2.5 and Tensor([[7]]).item() == 7
    assert isinstance(Tensor([7]).item(), int)
    assert x.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    assert x.asnumpy() is x.numpy()
    with pytest.raises(TypeError, match="0-d"):
        len(Tensor(1.0))
    with pytest.raises(ValueError, match=r"\(2, 2\)"):
        x.item()


def test_comparisons_are_not_differentiable():
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    for result in (x > 1.5, x >= 2, x < 2, x <= 2, x == 2.0, x != 2.0, x > x * 0.5):
        assert result.dtype == eagerad.bool_
        assert not result.requires_grad and result.grad_fn is None
    assert (x > 1.5).tolist() == [False, True, True]
    assert (x == 2.0).tolist() == [False, True, False]


def test_reflected_operators_and_methods():
    x = Tensor([1.0, 2.0])
    assert (1 - x).tolist() == [0.0, -1.0]
    assert (2 / x).tolist() == [2.0, 1.0]
    assert (2 ** x).tolist() == [2.0, 4.0]
    assert (-x).tolist() == [-1.0, -2.0]
    assert (np.array([1.0, 1.0]) + x).tolist() == [2.0, 3.0]
    m = Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    assert m.T.shape == (3, 2) and m.flatten().shape == (6,)
    assert m.expand_dims(0).shape == (1, 2, 3) and m.expand_dims(0).squeeze().shape == (2, 3)
    assert m.sum(axis=1).tolist() == [3.0, 12.0] and m.mean().item() == 2.5
    assert m.max(axis=0, keepdims=True).tolist() == [[3.0, 4.0, 5.0]] and m.min().item() == 0.0
    assert m.astype(eagerad.int32).dtype == eagerad.int32


def test_permute_with_two_dims_is_a_permutation_not_a_swap():
    x = eagerad.tensor(np.arange(6.0).reshape(2, 3))
    assert x.permute(0, 1).tolist() == x.tolist()
    assert x.permute(1, 0).tolist() == x.numpy().T.tolist()
    y = eagerad.tensor(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(y.permute((2, 0, 1)).numpy(), y.numpy().transpose(2, 0, 1))
    np.testing.assert_array_equal(y.transpose(0, 2).numpy(), y.numpy().swapaxes(0, 2))
