"""Tensor.register_hook and Tensor.retain_grad on leaves and non-leaves."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd


def f64(data, requires_grad=True):
    return eagerad.tensor(data, dtype=eagerad.float64, requires_grad=requires_grad)


def test_leaf_hook_sees_and_replaces_gradient_then_is_removed():
    x = f64([1.0, 2.0])
    seen = []
    handle = x.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    (x * x).sum().backward()
    assert seen == [[2.0, 4.0]] and x.grad.tolist() == [20.0, 40.0]
    handle.remove()
    handle.remove()                              # twice is harmless
    x.grad = None
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0] and len(seen) == 1


def test_nonleaf_hook_changes_what_flows_upstream():
    x = f64([1.0, 2.0])
    y = x * 3
    y.register_hook(lambda g: g * 0 + 1.0)       # replace dL/dy by ones
    (y ** 2).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_hooks_run_in_order_and_see_summed_gradient():
    x = f64(2.0)
    y = x * 1
    calls = []
    y.register_hook(lambda g: calls.append(("a", g.item())) or g + 1)
    y.register_hook(lambda g: calls.append(("b", g.item())))
    (y * 3 + y * 4).backward()                   # both uses summed before the hooks
    assert calls == [("a", 7.0), ("b", 8.0)] and x.grad.item() == 8.0


def test_retain_grad_on_nonleaf_and_noop_on_leaf():
    x = f64([1.0, -2.0])
    y = x * x
    y.retain_grad()
    x.retain_grad()
    assert y.retains_grad and not x.retains_grad
    (y * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0] and y.grad.grad_fn is None
    assert x.grad.tolist() == [6.0, -12.0]
    z = x * 2
    (z.sum()).backward()
    with pytest.warns(UserWarning, match="not a leaf"):
        assert z.grad is None                    # not retained (PyTorch warns, so do we)


def test_retained_grad_sees_hooked_value():
    x = f64(1.0)
    y = x * 2
    y.retain_grad()
    y.register_hook(lambda g: g * 5)
    (y * 3).backward()
    assert y.grad.item() == 15.0 and x.grad.item() == 30.0


def test_hooks_with_create_graph_are_differentiable():
    x = f64(1.5)
    y = x ** 2
    y.register_hook(lambda g: g * y)             # dL/dy is multiplied by y, recorded
    (g,) = autograd.grad(y * 1.0, x, create_graph=True)
    assert g.item() == pytest.approx(2 * 1.5 ** 3)          # g = (1 * y) * 2x
    # the hook fires again in the second pass: dg/dx = 2y + (2x * y) * 2x = 2x^2 + 4x^4
    assert autograd.grad(g, x)[0].item() == pytest.approx(2 * 1.5 ** 2 + 4 * 1.5 ** 4)


def test_retain_grad_with_create_graph_keeps_graph():
    x = f64(2.0)
    y = x ** 3
    y.retain_grad()
    (y * y).backward(create_graph=True)
    assert y.grad.item() == pytest.approx(2 * 8.0) and y.grad.requires_grad
    (gg,) = autograd.grad(y.grad, x)            # d(2 x^3)/dx
    assert gg.item() == pytest.approx(6 * 4.0)


def test_hook_in_autograd_grad_applies_to_captured_input():
    x = f64([1.0, 2.0])
    x.register_hook(lambda g: -g)
    (g,) = autograd.grad((x * 4).sum(), x)
    assert g.tolist() == [-4.0, -4.0] and x.grad is None


def test_hook_errors():
    with pytest.raises(RuntimeError, match="does not require grad"):
        eagerad.tensor([1.0]).register_hook(lambda g: g)
    with pytest.raises(TypeError, match="hook must be callable"):
        f64([1.0]).register_hook(3)
    with pytest.raises(RuntimeError, match="retain_grad"):
        eagerad.tensor([1.0]).retain_grad()
    x = f64([1.0, 2.0])
    x.register_hook(lambda g: g.sum())
    with pytest.raises(RuntimeError, match=r"returned shape \(\).*\(2,\)"):
        (x * 2).sum().backward()
    x.grad = None


def test_handle_as_context_manager():
    x = f64(1.0)
    with x.register_hook(lambda g: g * 100):
        (x * 2).backward()
    (x * 2).backward()
    assert x.grad.item() == 202.0


def test_retain_grad_follows_inplace_rebase():
    x = f64([1.0, 2.0])
    h = x * 2
    h.retain_grad()
    h += 1.0
    (h * h).sum().backward()
    np.testing.assert_allclose(h.grad.numpy(), 2 * (2 * x.numpy() + 1))
