"""Numeric edges against PyTorch: binary cross-entropy at predictions of exactly 0 or 1
(finite loss and gradient, as PyTorch's clamped logs and its gradient floor), and
atan2's gradient at (0, 0)."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.func import jvp
from eagerad.ops.losses import binary_cross_entropy

torch = pytest.importorskip("torch")

# p exactly 0 or 1 (right and wrong), sigmoid(20.) (1.0 in float32), tiny and interior values
P = [0.0, 1.0, 1.0, 0.0, 0.3, 1e-7, 1 - 1e-7, "s20", "s20", 1e-13, 0.5, 1e-30]
T = [0.0, 1.0, 0.0, 1.0, 0.7, 0.0, 1.0, 1.0, 0.0, 0.0, 0.25, 1.0]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bce_values_and_gradients_match_pytorch(dtype, reduction, weighted):
    tdt = getattr(torch, dtype)
    s20 = torch.sigmoid(torch.tensor(20.0, dtype=tdt)).item()
    p = np.array([s20 if v == "s20" else v for v in P], dtype=dtype)
    t = np.array(T, dtype=dtype)
    w = np.linspace(0.5, 2.0, len(P)).astype(dtype) if weighted else None
    if dtype == "float32":
        assert s20 == 1.0                     # the case the issue met: a saturated sigmoid
    x = eagerad.tensor(p, requires_grad=True)
    loss = binary_cross_entropy(x, eagerad.tensor(t), None if w is None else eagerad.tensor(w),
                                reduction=reduction)
    loss.sum().backward() if reduction == "none" else loss.backward()
    xt = torch.tensor(p, requires_grad=True)
    ref = torch.nn.functional.binary_cross_entropy(xt, torch.tensor(t), None if w is None else
                                                   torch.tensor(w), reduction=reduction)
    ref.sum().backward() if reduction == "none" else ref.backward()
    rtol = 1e-6 if dtype == "float32" else 1e-13
    assert np.isfinite(loss.detach().numpy()).all() and np.isfinite(x.grad.numpy()).all()
    np.testing.assert_allclose(loss.detach().numpy(), ref.detach().numpy(), rtol=rtol, atol=0)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=rtol, atol=0)
    assert x.grad.dtype == x.dtype


def test_bce_right_prediction_at_one_has_zero_gradient_and_second_order_is_finite():
    x = eagerad.tensor([1.0, 0.0, 0.25], dtype=eagerad.float64, requires_grad=True)
    t = eagerad.tensor([1.0, 0.0, 1.0], dtype=eagerad.float64)
    (g,) = eagerad.autograd.grad(binary_cross_entropy(x, t, reduction="sum"), x, create_graph=True)
    assert g.tolist()[:2] == [0.0, 0.0] and g.tolist()[2] == pytest.approx(-4.0, rel=1e-15)
    (h,) = eagerad.autograd.grad(g.sum(), x)
    assert np.isfinite(h.numpy()).all() and h.tolist()[2] == pytest.approx(16.0, rel=1e-14)


def test_bce_refuses_targets_outside_unit_interval():
    with pytest.raises(ValueError, match="target should be between 0 and 1"):
        binary_cross_entropy(eagerad.tensor([0.5]), eagerad.tensor([1.5]))
    with pytest.raises(ValueError, match="target should be between 0 and 1"):
        binary_cross_entropy(eagerad.tensor([0.5]), eagerad.tensor([-0.1]))


@pytest.mark.parametrize("dtype", [eagerad.float32, eagerad.float64])
def test_atan2_gradient_at_origin_is_zero_as_pytorch(dtype):
    yv, xv = [0.0, -0.0, 0.0, 1.0, 2.0], [0.0, 0.0, -0.0, 0.0, -3.0]
    y = eagerad.tensor(yv, dtype=dtype, requires_grad=True)
    x = eagerad.tensor(xv, dtype=dtype, requires_grad=True)
    ops.atan2(y, x).sum().backward()
    yt = torch.tensor(yv, dtype=getattr(torch, str(dtype)), requires_grad=True)
    xt = torch.tensor(xv, dtype=getattr(torch, str(dtype)), requires_grad=True)
    torch.atan2(yt, xt).sum().backward()
    np.testing.assert_allclose(y.grad.numpy(), yt.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-6)
    _, tangent = jvp(ops.atan2, (eagerad.tensor([0.0]), eagerad.tensor([0.0])),
                     (eagerad.tensor([1.0]), eagerad.tensor([1.0])))
    assert tangent.tolist() == [0.0]
