"""Vector p-norms and the Frobenius norm: numpy's ``ops.norm`` and PyTorch's
``Tensor.norm`` against numpy, and PyTorch's gradient conventions (0 at 0, ties
of the inf-norm share, the 0-"norm" has gradient 0), to second order."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import grad, gradcheck, gradgradcheck

A = np.random.default_rng(0).normal(size=(3, 4))


def _t(values, requires_grad=True):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


@pytest.mark.parametrize("ord", [None, 1, 2, 3, 0.5, -1, np.inf, -np.inf, 0])
@pytest.mark.parametrize("axis", [0, 1])
def test_vector_norms_match_numpy(ord, axis):
    x = _t(A, False)
    np.testing.assert_allclose(ops.norm(x, ord, axis).numpy(), np.linalg.norm(A, ord, axis), rtol=1e-12)
    np.testing.assert_allclose(ops.norm(x, ord, axis, keepdims=True).numpy(),
                               np.linalg.norm(A, ord, axis, keepdims=True), rtol=1e-12)


def test_frobenius_and_the_two_spellings():
    x = _t(A, False)
    for value in (ops.norm(x), ops.norm(x, "fro"), ops.norm(x, None, (0, 1)), x.norm(),
                  x.norm("fro"), x.norm(2)):
        assert value.item() == pytest.approx(np.linalg.norm(A))
    assert x.norm(1).item() == pytest.approx(np.abs(A).sum())      # PyTorch: a vector norm
    np.testing.assert_allclose(x.norm(3, dim=1, keepdim=True).numpy(),
                               np.linalg.norm(A, 3, 1, keepdims=True), rtol=1e-12)
    assert ops.norm(eagerad.tensor([3, 4])).item() == 5.0
    with pytest.raises(ValueError, match="linalg"):
        ops.norm(x, 1)                   # numpy: a matrix norm, which is linalg's
    with pytest.raises(ValueError, match="linalg"):
        x.norm("nuc")
    with pytest.raises(ValueError, match="two axes"):
        ops.norm(x, "fro", 0)
    with pytest.raises(ValueError, match="ord must be"):
        ops.norm(x, "max")
    with pytest.raises(ValueError, match="ord must be a number"):
        x.norm("max", dim=1)


def test_two_norm_gradient_is_zero_at_zero_and_finite_after():
    z = _t([0.0, 0.0, 0.0])
    g, = grad(ops.norm(z), z, create_graph=True)
    assert g.tolist() == [0.0, 0.0, 0.0]
    h, = grad(g.sum(), z)
    assert np.isfinite(h.numpy()).all()
    x = _t([3.0, 0.0, -4.0])
    g, = grad(ops.norm(x), x, create_graph=True)
    np.testing.assert_allclose(g.numpy(), [0.6, 0.0, -0.8])
    # Hessian of |x|: (I - x x^T / |x|^2) / |x|
    rows = [grad(g[i], x, retain_graph=True)[0].numpy() for i in range(3)]
    a = x.numpy()
    np.testing.assert_allclose(rows, (np.eye(3) - np.outer(a, a) / 25) / 5, rtol=1e-12, atol=1e-15)


def test_inf_norm_ties_share_and_zero_norm_has_zero_gradient():
    y = _t([1.0, -3.0, 3.0, 0.0])
    assert grad(ops.norm(y, np.inf), y)[0].tolist() == [0.0, -0.5, 0.5, 0.0]
    assert grad(ops.norm(y, -np.inf), y)[0].tolist() == [0.0, 0.0, 0.0, 0.0]
    zero = ops.norm(y, 0)
    assert zero.item() == 3.0 and grad(zero, y)[0].tolist() == [0.0] * 4
    assert grad(ops.norm(y, 1), y)[0].tolist() == [1.0, -1.0, 1.0, 0.0]
    g, = grad(ops.norm(y, 0.5), y)                     # p < 1: 0 at the zero entry
    assert g.numpy()[3] == 0.0 and np.isfinite(g.numpy()).all()


@pytest.mark.parametrize("p", [1, 2, 3, 1.5, np.inf])
def test_norm_gradients_to_second_order(p):
    x = _t(A)
    assert gradcheck(lambda a: ops.norm(a, p, 1), x)
    assert gradgradcheck(lambda a: a.norm(p, dim=0, keepdim=True), x)
