"""Printing per face: PyTorch's format for tensors made with PyTorch's spellings,
MindSpore's for MindSpore's (eagerad.printing); literal outputs from both frameworks."""
import numpy as np
import pytest

import eagerad
from eagerad import nn


@pytest.fixture(autouse=True)
def _auto_style():
    yield
    eagerad.set_printoptions(profile="default", style="auto")


def test_pytorch_spelling_prints_pytorch_format():
    x = eagerad.tensor(1.0, requires_grad=True)
    y = eagerad.tensor(2.0, requires_grad=True)
    z = x ** 2 + y
    assert str(z) == "tensor(3., grad_fn=<AddBackward0>)"
    assert repr(x) == "tensor(1., requires_grad=True)"
    z.backward()
    assert str(x.grad) == "tensor(2.)"
    assert repr(eagerad.tensor([[0.1, 0.2]])) == "tensor([[0.1000, 0.2000]])"
    assert repr(eagerad.tensor([1.0, 2.0])) == "tensor([1., 2.])"
    assert repr(eagerad.tensor([1e-5, 1.0])) == "tensor([1.0000e-05, 1.0000e+00])"
    assert repr(eagerad.tensor([1.5], dtype=eagerad.float64)) == "tensor([1.5000], dtype=torch.float64)"
    assert repr(eagerad.tensor([1, 2])) == "tensor([1, 2])"
    assert repr(eagerad.tensor([True, False])) == "tensor([ True, False])"
    assert repr(eagerad.zeros(0, 3)) == "tensor([], size=(0, 3))"
    assert repr(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])) == "tensor([[1., 2.],\n        [3., 4.]])"
    assert repr(eagerad.tensor([[1.0, 2.0]]).shape) == "torch.Size([1, 2])"
    assert str(eagerad.tensor([[1.0, 2.0]]).size()) == "torch.Size([1, 2])"


def test_pytorch_parameter_and_grad_fn_repr():
    p = nn.Parameter(eagerad.tensor([1.0, 2.0]))
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert repr(nn.Parameter(eagerad.tensor([1.0]), False)) == "Parameter containing:\ntensor([1.])"


def test_module_spelling_sets_the_face():
    class Poly(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(1, 1)

        def forward(self, x):
            return self.lin(x)

    eagerad.set_seed(0)                       # MindSpore's face current
    m = Poly()
    m.lin.bias.set_data(eagerad.Tensor([0.5]))
    assert str(m.lin.bias) == "Parameter containing:\ntensor([0.5000], requires_grad=True)"

    class Net(nn.Cell):
        def construct(self, x):
            return x

    Net()
    assert repr(eagerad.ones(1)).startswith("Tensor(shape=[1]")


def test_mindspore_spelling_keeps_mindspore_format():
    eagerad.tensor(1.0)                      # the other face was current just before
    assert repr(eagerad.Tensor([21.536])) == "Tensor(shape=[1], dtype=Float32, value= [ 2.15359993e+01])"
    x = eagerad.Tensor([1.0, 2.0])
    y = eagerad.ops.mul(x, 2)
    assert repr(y) == "Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00  4.00000000e+00])"
    assert str(y) == "[2. 4.]" and y.shape == (2,) and repr(y.shape) == "(2,)"
    w = eagerad.Parameter(eagerad.Tensor([1.0]), name="w")
    assert repr(w) == "Parameter (name=w, shape=(1,), dtype=Float32, requires_grad=True)"


def test_results_keep_the_face_they_were_made_under():
    a = eagerad.tensor([1.0, 2.0]) * 2          # PyTorch face
    b = eagerad.Tensor([1.0, 2.0]) * 2          # MindSpore face
    assert repr(a) == "tensor([2., 4.])" and repr(b).startswith("Tensor(shape=[2]")


def test_set_printoptions_forces_a_style_and_precision():
    t = eagerad.Tensor([1 / 3])
    eagerad.set_printoptions(style="torch", precision=2)
    assert repr(t) == "tensor([0.33])"
    eagerad.set_printoptions(style="mindspore", precision=4)
    assert repr(eagerad.tensor([0.5])) == "Tensor(shape=[1], dtype=Float32, value= [ 5.00000000e-01])"
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
        assert repr(eagerad.tensor(arr)) == repr(torch.tensor(arr))
    if a.dtype.kind == "f" and a.size:
        mine = eagerad.tensor(a, requires_grad=True) * 2
        theirs = torch.tensor(a, requires_grad=True) * 2
        assert repr(mine) == repr(theirs)
