"""Activation Cells in both spellings: each Cell equals its op (with its defaults), the
faces' differing defaults, and gradients flowing through a small network."""
import math

import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops
from eagerad.nn import activation as A
from eagerad.nn.cell import Cell

X = np.array([-4.0, -1.0, -0.25, 0.0, 0.5, 2.0, 7.0])

CELLS = [
    (A.GELU("none"), lambda x: ops.gelu(x)),
    (A.GELU(approximate="tanh"), lambda x: ops.gelu(x, approximate="tanh")),
    (A.SiLU(), ops.silu), (A.ELU(alpha=0.5), lambda x: ops.elu(x, 0.5)),
    (A.SELU(), ops.selu), (A.SeLU(), ops.selu), (A.CELU(2.0), lambda x: ops.celu(x, 2.0)),
    (A.LeakyReLU(0.3), lambda x: ops.leaky_relu(x, 0.3)),
    (A.Hardtanh(-2.0, 2.0), lambda x: ops.hardtanh(x, -2.0, 2.0)), (A.ReLU6(), ops.relu6),
    (A.Hardsigmoid(), ops.hardsigmoid), (A.HSigmoid(), ops.hardsigmoid),
    (A.Hardswish(), ops.hardswish), (A.HSwish(), ops.hardswish), (A.Mish(), ops.mish),
    (A.Softsign(), ops.softsign), (A.Softplus(beta=2.0, threshold=3.0),
                                   lambda x: ops.softplus(x, 2.0, 3.0)),
    (A.LogSigmoid(), ops.log_sigmoid), (A.Tanhshrink(), lambda x: x - ops.tanh(x)),
]


@pytest.mark.parametrize("cell,fn", CELLS, ids=[repr(c) for c, _ in CELLS])
def test_cell_is_its_op(cell, fn):
    x = eagerad.tensor(X, dtype=eagerad.float64)
    assert isinstance(cell, Cell)
    np.testing.assert_array_equal(cell(x).numpy(), fn(x).numpy())


def test_values_of_the_cells_at_known_points():
    x = eagerad.tensor([-1.0, 1.0], dtype=eagerad.float64)
    phi = 0.5 * (1 + math.erf(1 / math.sqrt(2)))
    np.testing.assert_allclose(A.GELU("none")(x).numpy(), [-(1 - phi), phi], rtol=1e-14)
    np.testing.assert_allclose(A.ReLU6()(eagerad.tensor([-1.0, 3.0, 9.0])).numpy(), [0, 3, 6])
    np.testing.assert_allclose(A.ELU()(x).numpy(), [math.expm1(-1), 1.0], rtol=1e-14)
    np.testing.assert_allclose(A.SELU()(x).numpy(),
                               [1.0507009873554805 * 1.6732632423543772 * math.expm1(-1),
                                1.0507009873554805], rtol=1e-14)


def test_defaults_that_differ_between_the_faces():
    import eagerad.mindspore as ms
    import eagerad.torch as torch
    x = eagerad.tensor([-1.0, 1.0], dtype=eagerad.float64)
    # PyTorch: exact GELU; MindSpore's nn.GELU() is the tanh approximation (approximate=True)
    assert torch.nn.GELU()(x).tolist() == ops.gelu(x).tolist()
    assert ms.nn.GELU()(x).tolist() == ops.gelu(x, approximate="tanh").tolist()
    assert ms.nn.LeakyReLU()(x).tolist() == [-0.2, 1.0]
    for ambiguous in (A.GELU, A.LeakyReLU):         # the engine's own cell: no default to pick
        with pytest.raises(TypeError, match="eagerad.torch.*eagerad.mindspore"):
            ambiguous()
    assert A.GELU(approximate=True)(x).tolist() == ops.gelu(x, approximate="tanh").tolist()
    assert A.GELU(approximate=False)(x).tolist() == ops.gelu(x).tolist()
    # LeakyReLU: PyTorch's negative_slope=0.01 by default, MindSpore's alpha keyword
    assert torch.nn.LeakyReLU()(x).tolist() == [-0.01, 1.0]
    assert A.LeakyReLU(alpha=0.2)(x).tolist() == [-0.2, 1.0]
    assert A.LeakyReLU(negative_slope=0.1, inplace=True)(x).tolist() == [-0.1, 1.0]
    assert repr(A.LeakyReLU(alpha=0.2)) == "LeakyReLU<negative_slope=0.2>"


def test_gradients_flow_through_a_network_of_activation_cells():
    from eagerad import nn
    eagerad.set_seed(0)
    net = nn.SequentialCell(nn.Dense(3, 4), A.GELU("none"), nn.Dense(4, 4), A.Mish(), nn.Dense(4, 1),
                            A.Softplus())
    x = eagerad.tensor(np.random.default_rng(0).normal(size=(5, 3)).astype(np.float32))
    loss = net(x).sum()
    grads = autograd.grad(loss, net.trainable_params())
    assert all(np.isfinite(g.numpy()).all() and np.abs(g.numpy()).sum() > 0 for g in grads)


def test_activation_names_resolve_to_cells():
    assert all(isinstance(make(), A.Activation) for make in A.ACTIVATIONS.values())
    assert A.ACTIVATIONS["gelu"]().params == {"approximate": "tanh"}       # MindSpore's defaults
    assert A.ACTIVATIONS["leakyrelu"]().params == {"negative_slope": 0.2}
    assert isinstance(A.ACTIVATIONS["hswish"](), A.Hardswish)
