"""numpy functions and ufuncs on tensors keep the graph or refuse (issue 12)."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd

F64 = eagerad.float64


def _x():
    return eagerad.tensor([0.5, -1.0, 2.0], dtype=F64, requires_grad=True)


@pytest.mark.parametrize("name, fn, grad", [
    ("np.sum", lambda t: np.sum(t), lambda v: np.ones(3)),
    ("np.mean", lambda t: np.mean(t), lambda v: np.full(3, 1 / 3)),
    ("np.exp", lambda t: np.sum(np.exp(t)), np.exp),
    ("np.add", lambda t: np.sum(np.add(t, 1) ** 2), lambda v: 2 * (v + 1)),
    ("np.multiply reflected", lambda t: np.sum(np.array([1.0, 2.0, 3.0]) * t),
     lambda v: np.array([1.0, 2.0, 3.0])),
    ("np.matmul", lambda t: np.matmul(t, t), lambda v: 2 * v),
    ("np.dot", lambda t: np.dot(t, t), lambda v: 2 * v),
    ("np.sum axis keepdims", lambda t: np.sum(np.sum(t.reshape(3, 1) * t, axis=0, keepdims=True)),
     lambda v: 2 * v.sum() * np.ones(3)),
    ("np.max", lambda t: np.max(t), lambda v: np.array([0.0, 0.0, 1.0])),
    ("np.concatenate", lambda t: np.sum(np.concatenate([t, t * 2]) ** 2), lambda v: 10 * v),
    ("np.sin via power", lambda t: np.sum(np.power(np.sin(t), 2)), lambda v: np.sin(2 * v)),
])
def test_numpy_calls_keep_the_graph(name, fn, grad):
    x = _x()
    y = fn(x)
    assert isinstance(y, eagerad.Tensor) and y.requires_grad, name
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), grad(x.numpy()), rtol=1e-12, err_msg=name)


def test_numpy_route_gradcheck():
    assert autograd.gradcheck(lambda t: np.mean(np.tanh(np.multiply(t, t))), (_x(),))


def test_numpy_without_equivalent_refuses_on_grad_tensors():
    x = _x()
    with pytest.raises(TypeError, match="numpy.cumsum has no eagerad equivalent"):
        np.cumsum(x)
    with pytest.raises(TypeError, match="numpy.add.accumulate"):
        np.add.accumulate(x)


def test_numpy_without_equivalent_works_on_plain_tensors_and_inspection():
    p = eagerad.Tensor([1.0, 2.0, 3.0])
    assert np.cumsum(p).tolist() == [1.0, 3.0, 6.0]
    x = _x()
    assert np.shape(x) == (3,) and np.argmax(x) == 2 and np.allclose(x, [0.5, -1.0, 2.0])
    a = np.zeros(3)
    a += p
    assert a.tolist() == [1.0, 2.0, 3.0]
