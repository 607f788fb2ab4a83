"""Printing per face: PyTorch's format for tensors made through ``eagerad.torch``,
MindSpore's for tensors made through ``eagerad.mindspore``, the engine's own for the
neutral top level ``eagerad`` (eagerad.printing); literal outputs from both frameworks."""
import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
import eagerad.torch as et


@pytest.fixture(autouse=True)
def _auto_style():
    yield
    eagerad.set_printoptions(profile="default", style="auto")


def test_pytorch_spelling_prints_pytorch_format():
    x = et.tensor(1.0, requires_grad=True)
    y = et.tensor(2.0, requires_grad=True)
    z = x ** 2 + y
    assert str(z) == "tensor(3., grad_fn=<AddBackward0>)"
    assert repr(x) == "tensor(1., requires_grad=True)"
    z.backward()
    assert str(x.grad) == "tensor(2.)"
    assert repr(et.tensor([[0.1, 0.2]])) == "tensor([[0.1000, 0.2000]])"
    assert repr(et.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(et.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(et.tensor([1.5], dtype=et.float64)) == "tensor([1.5000], dtype=torch.float64)"
    assert repr(et.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(et.tensor([True, False])) == "tensor([ True, False])"
    assert repr(et.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(et.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(et.tensor([[1.0, 2.0]]).shape) == "torch.Size([1, 2])"
    assert str(et.tensor([[1.0, 2.0]]).size()) == "torch.Size([1, 2])"


def test_neutral_top_level_prints_its_own_names():
    assert repr(eagerad.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(eagerad.tensor([1.5], dtype=eagerad.float64)) == \
        "tensor([1.5000], dtype=eagerad.float64)"
    assert repr(eagerad.tensor([1.0], requires_grad=True) * 2) == \
        "tensor([2.], grad_fn=<MulBackward0>)"
    assert str(eagerad.tensor([1.0, 2.0])) == "[1. 2.]"
    assert eagerad.tensor([[1.0, 2.0]]).shape == (1, 2)
    assert repr(eagerad.tensor([[1.0, 2.0]]).shape) == "(1, 2)"


def test_pytorch_parameter_and_grad_fn_repr():
    p = et.nn.Parameter(et.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(et.nn.Parameter(et.tensor([1.0]), False)) == "Parameter containing:\ntensor([1.])"


def test_module_parameters_speak_pytorch_and_cell_parameters_mindspore():
    class Poly(et.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = et.nn.Linear(1, 1)

        def forward(self, x):
            return self.lin(x)

    ms.set_seed(0)                            # MindSpore's spelling: no face changes
    m = Poly()
    m.lin.bias.set_data(ms.Tensor([0.5]))
    assert str(m.lin.bias) == "Parameter containing:\ntensor([0.5000], requires_grad=True)"

    class Net(ms.nn.Cell):
        def __init__(self):
            super().__init__()
            self.w = ms.Parameter(ms.Tensor([1.0]), name="w")

        def construct(self, x):
            return x * self.w

    net = Net()
    assert repr(net.w) == "Parameter (name=w, shape=(1,), dtype=Float32, requires_grad=True)"
    assert repr(ms.ops.ones(1)).startswith("Tensor(shape=[1]")
    assert repr(et.ones(1)) == "tensor([1.])"          # the Cell changed nothing for torch


def test_mindspore_spelling_keeps_mindspore_format():
    et.tensor(1.0)                           # the other face made a tensor just before
    assert repr(ms.Tensor([21.536])) == "Tensor(shape=[1], dtype=Float32, value= [ 2.15359993e+01])"
    x = ms.Tensor([1.0, 2.0])
    y = ms.ops.mul(x, 2)
    assert repr(y) == "Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00  4.00000000e+00])"
    assert str(y) == "[2. 4.]" and y.shape == (2,) and repr(y.shape) == "(2,)"
    w = ms.Parameter(ms.Tensor([1.0]), name="w")
    assert repr(w) == "Parameter (name=w, shape=(1,), dtype=Float32, requires_grad=True)"


def test_results_keep_the_face_they_were_made_under():
    a = et.tensor([1.0, 2.0]) * 2               # PyTorch face
    b = ms.Tensor([1.0, 2.0]) * 2               # MindSpore face
    assert repr(a) == "tensor([2., 4.])" and repr(b).startswith("Tensor(shape=[2]")


def test_set_printoptions_forces_a_style_and_precision():
    t = ms.Tensor([1 / 3])
    eagerad.set_printoptions(style="torch", precision=2)
    assert repr(t) == "tensor([0.33])"
    eagerad.set_printoptions(style="mindspore", precision=4)
    assert repr(et.tensor([0.5])) == "Tensor(shape=[1], dtype=Float32, value= [ 5.00000000e-01])"
    with pytest.raises(ValueError, match="style"):
        eagerad.set_printoptions(style="jax")


def test_error_messages_show_shapes_as_tuples():
    with pytest.raises(ValueError, match=r"\(2, 3\).*\(4,\)"):
        eagerad.tensor(np.ones((2, 3))) + eagerad.tensor(np.ones(4))


CASES = [np.array(3.0), np.array([[0.1, 0.2]]), np.array([1e-5, 1.0]), np.arange(2000.0),
         np.array([1.0, np.inf, -np.inf, np.nan]), np.array([1e9, 1.0]), np.array([-0.0, 0.0]),
         np.array([123456789.5]), np.arange(12.0).reshape(2, 3, 2), np.zeros((0, 3)),
         np.array([1, 2, 300000]), np.array([1, 2], np.int32), np.array([0.1, 0.2], np.float16),
         np.random.default_rng(0).standard_normal((40, 40)) * 100]


@pytest.mark.parametrize("k", range(len(CASES)))
def test_repr_matches_pytorch(k):
    torch = pytest.importorskip("torch")
    a = CASES[k].astype(np.float32) if CASES[k].dtype == np.float64 else CASES[k]
    for arr in (a, CASES[k]):
        assert repr(et.tensor(arr)) == repr(torch.tensor(arr))
    if a.dtype.kind == "f" and a.size:
        mine = et.tensor(a, requires_grad=True) * 2
        theirs = torch.tensor(a, requires_grad=True) * 2
        assert repr(mine) == repr(theirs)
