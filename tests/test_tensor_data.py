"""Tensors own their data; zero-copy exchange only under explicit names; creation,
printing, formatting and copying of tensors (issue 12)."""
import copy
import pickle

import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
from eagerad import autograd, nn
from eagerad.tensor import from_dlpack, from_numpy


@pytest.mark.parametrize("make", [
    lambda a: eagerad.tensor(a, requires_grad=True),
    lambda a: eagerad.Tensor(a).requires_grad_(),
    lambda a: eagerad.Parameter(eagerad.Tensor(a), name="w"),
    lambda a: eagerad.Parameter(a, name="w"),
])
def test_constructors_copy_so_later_changes_to_the_array_do_not_reach_gradients(make):
    a = np.array([1.0, 2.0])
    x = make(a)
    y = (x * x).sum()          # saves x = [1, 2]
    a[:] = [10.0, 20.0]
    y.backward()
    assert x.grad.tolist() == [2.0, 4.0] and x.tolist() == [1.0, 2.0]


def test_tensor_of_a_tensor_copies():
    t = eagerad.Tensor([1.0, 2.0])
    u = eagerad.Tensor(t)
    u[0] = 9.0
    assert t.tolist() == [1.0, 2.0]


def test_optimizer_step_does_not_write_into_the_users_array():
    a = np.array([1.0, 2.0], np.float32)
    w = eagerad.Parameter(a, name="w")
    opt = eagerad.nn.SGD([w], learning_rate=0.5)
    (w * w).sum().backward()
    opt.step()
    assert a.tolist() == [1.0, 2.0] and w.tolist() == [0.0, 0.0]


@pytest.mark.cpu_only("from_numpy wraps host memory: a CPU tensor")
def test_from_numpy_shares_memory_and_version_counter():
    a = np.array([1.0, 2.0])
    t = from_numpy(a)
    a[0] = 5.0
    assert t.tolist() == [5.0, 2.0]
    t.add_(1.0)
    assert a.tolist() == [6.0, 3.0]
    x = eagerad.tensor([1.0, 1.0], dtype=eagerad.float64, requires_grad=True)
    y = (x * from_numpy(a)).sum()                 # saves the from_numpy tensor
    from_numpy(a[:1]).mul_(2.0)                   # another tensor over the same memory
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


def test_from_numpy_refuses_what_it_cannot_share():
    with pytest.raises(TypeError, match="uint16"):
        from_numpy(np.zeros(2, np.uint16))
    with pytest.raises(TypeError, match="ndarray"):
        from_numpy([1.0])


@pytest.mark.cpu_only("numpy's DLPack exchange is with CPU tensors")
def test_dlpack_round_trip_is_zero_copy():
    t = eagerad.Tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(t)
    a[0] = 7.0
    assert t.tolist() == [7.0, 2.0, 3.0]
    assert t.__dlpack_device__() == (1, 0)
    b = np.arange(3.0)
    u = from_dlpack(b)
    b[2] = -1.0
    assert u.tolist() == [0.0, 1.0, -1.0] and u.dtype == eagerad.float64


def test_complex_input_keeps_numpy_dtype_and_python_complex_is_complex64():
    a = np.array([1 + 2j])
    t = eagerad.Tensor(a)
    assert t.dtype == eagerad.complex128 and t.tolist() == [1 + 2j]
    a[0] = 0                                     # a copy, as for real data
    assert t.tolist() == [1 + 2j]
    assert eagerad.tensor([1 + 2j, 3.0]).dtype == eagerad.complex64     # PyTorch's default
    assert from_numpy(a)._data is a


def test_big_endian_input_keeps_its_dtype_and_value():
    t = eagerad.Tensor(np.array([1e300, -2.5], dtype=">f8"))
    assert t.dtype == eagerad.float64 and t.tolist() == [1e300, -2.5]
    i = eagerad.Tensor(np.array([3, -4], dtype=">i4"))
    assert i.dtype == eagerad.int32 and i.tolist() == [3, -4]


@pytest.mark.parametrize("value, dtype, expected", [
    (np.float32(3.5), eagerad.float32, 3.5), (np.float64(-1.25), eagerad.float32, -1.25),
    (np.int32(3), eagerad.int64, 3), (eagerad.Tensor(2.5), eagerad.float32, 2.5),
    (eagerad.Tensor(np.float64(0.1)), eagerad.float64, 0.1), (True, eagerad.bool_, True),
])
def test_full_keeps_numpy_and_tensor_fill_values(value, dtype, expected):
    t = eagerad.full((2,), value)
    assert t.dtype == dtype and t.tolist() == [expected, expected]


@pytest.mark.parametrize("init, expected", [("ones", 1.0), ("zeros", 0.0), (2.5, 2.5)])
def test_tensor_shape_init_fills_as_mindspore(init, expected):
    t = eagerad.Tensor(shape=(2, 3), dtype=eagerad.float64, init=init)
    assert t.dtype == eagerad.float64 and t.shape == (2, 3)
    assert np.all(t.numpy() == expected)


def test_tensor_shape_init_random_and_unknown():
    eagerad.set_seed(0)
    t = eagerad.Tensor(shape=(200,), init="normal")
    assert t.dtype == eagerad.float32 and 0 < t.numpy().std() < 1
    with pytest.raises(ValueError, match="unknown initializer"):
        eagerad.Tensor(shape=(2,), init="bogus")


def test_linspace_is_differentiable_in_start_and_end():
    def f(a, b):
        return (eagerad.linspace(a, b, 5) ** 2).sum()
    a = eagerad.tensor(0.5, dtype=eagerad.float64, requires_grad=True)
    b = eagerad.tensor(2.0, dtype=eagerad.float64, requires_grad=True)
    assert autograd.gradcheck(f, (a, b))
    y = eagerad.linspace(a, b, 5)
    np.testing.assert_allclose(y.numpy(), np.linspace(0.5, 2.0, 5), rtol=1e-15)
    y.sum().backward()          # d/da sum(a + (b-a)k/4) = 5 - 2.5, d/db = 2.5
    assert a.grad.item() == pytest.approx(2.5) and b.grad.item() == pytest.approx(2.5)


def test_linspace_pytorch_keywords():
    assert eagerad.linspace(0, end=1, steps=5).tolist() == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert eagerad.linspace(start=-1.0, end=1.0, steps=3).tolist() == [-1.0, 0.0, 1.0]


def test_arange_refuses_bounds_that_require_grad():
    x = eagerad.tensor(3.0, requires_grad=True)
    with pytest.raises(TypeError, match="stop|start.*requires grad"):
        eagerad.arange(x)
    assert eagerad.arange(eagerad.Tensor(3)).tolist() == [0, 1, 2]


@pytest.mark.parametrize("values", [
    [np.nan, np.inf, -np.inf, 1.5],
    [[np.nan, 1.0], [np.inf, -np.inf]],
    [[[np.nan, 2.0]], [[-np.inf, np.inf]]],
    [[np.nan, np.nan], [np.nan, np.nan]],
])
def test_repr_of_tensors_with_nan_and_inf(values):
    text = repr(ms.Tensor(values))
    assert "nan" in text and text.startswith("Tensor(shape=")
    if np.isinf(np.asarray(values)).any():
        assert "inf" in text


def test_repr_of_empty_tensors():
    assert repr(ms.ops.zeros((0, 3))).startswith("Tensor(shape=[0, 3]")
    assert repr(ms.ops.zeros(0)).startswith("Tensor(shape=[0]")


def test_format_of_a_scalar_tensor_like_a_float():
    loss = eagerad.tensor(2.0) / 3
    assert f"{loss:.4f}" == "0.6667" and f"{loss:>8.2e}" == "6.67e-01"
    assert f"{eagerad.tensor(7):03d}" == "007"
    assert f"{eagerad.Tensor([1, 2])}" == "[1 2]"
    with pytest.raises(TypeError, match="0-d tensor.*shape \\(2,\\)"):
        f"{eagerad.Tensor([1.0, 2.0]):.2f}"


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda p: pickle.loads(pickle.dumps(p))])
def test_parameter_copy_keeps_name_values_and_repr(clone):
    p = ms.Parameter(ms.Tensor([1.0, 2.0]), name="w", requires_grad=True)
    q = clone(p)
    assert isinstance(q, ms.Parameter) and q.name == "w" and q.requires_grad
    assert q.tolist() == [1.0, 2.0] and "name=w" in repr(q)
    q.set_data(ms.Tensor([3.0, 4.0]))
    assert p.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("clone", [copy.deepcopy, lambda c: pickle.loads(pickle.dumps(c))])
def test_cell_copy_keeps_parameter_names_and_computes_the_same(clone):
    net = nn.Dense(3, 2)
    other = clone(net)
    assert [p.name for p in other.trainable_params()] == [p.name for p in net.trainable_params()]
    x = eagerad.ones(1, 3)
    np.testing.assert_array_equal(other(x).numpy(), net(x).numpy())
    assert other.weight is not net.weight


def test_parameter_set_data_takes_a_copy():
    t = eagerad.Tensor([1.0, 2.0])
    w = eagerad.Parameter(eagerad.zeros(2), name="w")
    w.set_data(t)
    with eagerad.no_grad():
        w.mul_(10.0)
    assert t.tolist() == [1.0, 2.0] and w.tolist() == [10.0, 20.0]
    w.set_data(eagerad.Tensor([1, 2]))          # cast to the parameter's dtype
    assert w.dtype == eagerad.float32 and w.tolist() == [1.0, 2.0]


def test_loaded_checkpoint_parameters_own_their_arrays(tmp_path):
    from eagerad.serialization import load_checkpoint, save_checkpoint
    path = str(tmp_path / "w.ckpt")
    save_checkpoint({"w": eagerad.Tensor([1.0, 2.0])}, path)
    params = load_checkpoint(path)
    assert params["w"].name == "w" and params["w"].tolist() == [1.0, 2.0]
    assert params["w"].numpy().flags.writeable


@pytest.mark.cpu_only("np.asarray shares a CPU tensor's buffer; of a CUDA tensor it is a host copy")
def test_np_array_of_a_tensor_is_a_copy_and_asarray_shares():
    t = eagerad.Tensor([1.0, 2.0])
    a = np.array(t)
    a[0] = 9.0
    assert t.tolist() == [1.0, 2.0]
    b = np.asarray(t)
    b[1] = 7.0
    assert t.tolist() == [1.0, 7.0]
    assert np.array(t, dtype=np.float64).dtype == np.float64
