"""In-place ops: values, version counters, rebased histories and refusals."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd


def f64(data, requires_grad=False):
    return eagerad.tensor(data, dtype=eagerad.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("method, other, expected", [
    ("add_", 2.0, [3.0, 4.0]), ("sub_", 0.5, [0.5, 1.5]), ("mul_", 3.0, [3.0, 6.0]),
    ("div_", 4.0, [0.25, 0.5]), ("add_", [10.0, 20.0], [11.0, 22.0]),
])
def test_binary_inplace_values_and_version(method, other, expected):
    x = eagerad.tensor([1.0, 2.0])
    other = eagerad.tensor(other) if isinstance(other, list) else other
    buffer = x.numpy()
    out = getattr(x, method)(other)
    assert out is x and x.version == 1
    assert x.tolist() == expected
    if x.device.type == "cpu":     # a CUDA tensor's numpy() is a host copy
        assert x.numpy() is buffer                 # same memory, changed in place


def test_augmented_assignment_keeps_identity_and_broadcasts():
    x = eagerad.zeros(2, 3)
    ident = id(x)
    x += eagerad.tensor([1.0, 2.0, 3.0])
    x -= 1.0
    x *= 2.0
    x /= 4.0
    assert id(x) == ident and x.version == 4
    np.testing.assert_allclose(x.numpy(), [[0.0, 0.5, 1.0]] * 2)


def test_fill_zero_clamp_and_setitem_values():
    x = eagerad.tensor([-2.0, 0.5, 3.0])
    assert x.clamp_(-1.0, 1.0).tolist() == [-1.0, 0.5, 1.0]
    assert x.clamp_(min=0.0).tolist() == [0.0, 0.5, 1.0]
    x[0] = 7.0
    x[eagerad.tensor([1, 2])] = eagerad.tensor([8.0, 9.0])
    assert x.tolist() == [7.0, 8.0, 9.0]
    x[x > 7.5] = 0.0
    assert x.tolist() == [7.0, 0.0, 0.0]
    assert x.fill_(2.5).tolist() == [2.5] * 3
    assert x.zero_().tolist() == [0.0] * 3
    assert x.version == 7


def test_setitem_float64_keeps_precision():
    x = eagerad.zeros(2, dtype=eagerad.float64)
    x[1] = 0.1
    assert x.numpy()[1] == 0.1


def test_view_shares_memory_and_version():
    base = eagerad.zeros(2, 3)
    row = base[0]
    flat = base.reshape(6)
    row += 1.0
    assert base.tolist()[0] == [1.0, 1.0, 1.0] and flat.version == base.version == 1


def test_saved_tensor_modified_raises_naming_op_and_versions():
    w = eagerad.tensor([1.0, 2.0], requires_grad=True)
    z = eagerad.tensor([3.0, 4.0])
    y = (w * z).sum()
    z.mul_(2.0)
    with pytest.raises(RuntimeError, match=r"MulBackward.*version 1; expected version 0"):
        y.backward()


def test_saved_output_modified_raises():
    a = eagerad.tensor([1.0, 2.0], requires_grad=True)
    e = a.exp()
    e += 1.0                                      # allowed now, caught at backward
    with pytest.raises(RuntimeError, match=r"output of ExpBackward.*version 1; expected version 0"):
        e.sum().backward()


def test_leaf_requiring_grad_refuses_inplace_except_under_no_grad():
    w = eagerad.tensor([1.0, 2.0], requires_grad=True)
    for action in (lambda: w.add_(1.0), lambda: w.zero_(), lambda: w.__setitem__(0, 1.0)):
        with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
            action()
    assert w.tolist() == [1.0, 2.0] and w.version == 0
    with eagerad.no_grad():
        w -= 0.5
        w.clamp_(max=1.0)
    assert w.tolist() == [0.5, 1.0] and w.is_leaf and w.requires_grad


def test_rebased_history_gives_exact_gradients():
    x = f64([1.0, 2.0, 3.0], requires_grad=True)
    y = f64([0.5, -1.0, 2.0], requires_grad=True)
    h = x * 2
    h += y                    # h = 2x + y
    h *= h                    # h = (2x + y)^2  (multiplying by itself)
    h /= y                    # h = (2x + y)^2 / y
    h.sub_(x)                 # h = (2x + y)^2 / y - x
    assert h.grad_fn.name == "SubBackward" and not h.is_leaf
    h.sum().backward()
    xv, yv = x.numpy(), y.numpy()
    u = 2 * xv + yv
    np.testing.assert_allclose(x.grad.numpy(), 4 * u / yv - 1)
    np.testing.assert_allclose(y.grad.numpy(), 2 * u / yv - u ** 2 / yv ** 2)


def test_inplace_on_constant_with_grad_operand_records():
    y = f64(3.0, requires_grad=True)
    acc = eagerad.zeros(2, dtype=eagerad.float64)
    acc += y * y
    acc[0] = y
    assert acc.requires_grad and acc.grad_fn.name == "SetitemBackward"
    acc.sum().backward()                      # acc = [y, y^2]
    assert y.grad.item() == pytest.approx(1 + 2 * 3.0)


def test_setitem_clamp_fill_gradients():
    x = f64([0.5, -2.0, 3.0], requires_grad=True)
    h = x * 1
    h.clamp_(-1.0, 1.0)                        # passes only the first entry
    np.testing.assert_allclose(autograd.grad(h.sum(), x)[0].numpy(), [1.0, 0.0, 0.0])
    h = x * 3
    h.fill_(4.0)
    assert autograd.grad(h.sum(), x)[0].tolist() == [0.0, 0.0, 0.0]
    v = f64([10.0, 20.0], requires_grad=True)
    h = x * x
    h[1:] = v * x[0]
    gx, gv = autograd.grad((h * f64([1.0, 2.0, 3.0])).sum(), (x, v))
    # h = [x0^2, v0 x0, v1 x0]
    np.testing.assert_allclose(gx.numpy(), [2 * 0.5 + 2 * 10.0 + 3 * 20.0, 0.0, 0.0])
    np.testing.assert_allclose(gv.numpy(), [2 * 0.5, 3 * 0.5])


def test_inplace_second_order():
    x = f64(1.5, requires_grad=True)
    h = x * x
    h *= x                                      # x^3
    (g,) = autograd.grad(h, x, create_graph=True)
    assert g.item() == pytest.approx(3 * 1.5 ** 2)
    assert autograd.grad(g, x)[0].item() == pytest.approx(6 * 1.5)


def test_inplace_rebase_with_a_live_view_keeps_both_histories_right():
    a = eagerad.tensor([1.0, 2.0], requires_grad=True)
    b = a * 2
    v = b[0]
    b.mul_(3.0)                                 # v sees the change and its new history
    assert v.item() == 6.0
    (v * 10 + b.sum()).backward()               # d/da: [60 + 6, 6]
    assert a.grad.tolist() == [66.0, 6.0]
    a.grad = None
    b = a * 2
    v = b[1]
    v.mul_(5.0)                                 # through the view: b's history is rewritten
    assert b.tolist() == [2.0, 20.0]
    b.sum().backward()
    assert a.grad.tolist() == [2.0, 10.0]


def test_view_of_leaf_refuses_recorded_inplace():
    a = eagerad.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match="view"):
        a.reshape(2).add_(1.0)
    assert a.tolist() == [[1.0, 2.0]]


def test_broadcast_view_is_read_only():
    b = eagerad.ones(3).broadcast_to((2, 3))
    with pytest.raises(RuntimeError, match="read-only broadcast view.*clone"):
        b.add_(1.0)
    c = b.clone()
    c.add_(1.0)
    assert c.tolist() == [[2.0] * 3] * 2


@pytest.mark.parametrize("action, error, words", [
    (lambda x: x.add_(eagerad.ones(3)), ValueError, "other of shape"),
    (lambda x: x.add_(eagerad.ones(2, 2)), ValueError, "self's shape"),
    (lambda x: x.add_("a"), TypeError, "other must be"),
    (lambda x: eagerad.tensor([1, 2]).add_(0.5), TypeError, "dtype int64"),
    (lambda x: eagerad.tensor([1, 2]).div_(2), TypeError, "floating point"),
    (lambda x: x.__setitem__(5, 1.0), IndexError, "shape"),
    (lambda x: x.__setitem__(0, eagerad.ones(3)), ValueError, "value of shape"),
])
def test_bad_inplace_arguments(action, error, words):
    x = eagerad.zeros(2)
    with pytest.raises(error, match=words):
        action(x)
    assert x.tolist() == [0.0, 0.0] and x.version == 0


def test_optimizer_style_update_with_grad_zeroing():
    w = f64([1.0, -1.0], requires_grad=True)
    for _ in range(3):
        ((w - 3.0) ** 2).sum().backward()
        with eagerad.no_grad():
            w -= 0.25 * w.grad
        w.grad.zero_()
    # w <- w - 0.5 (w - 3): distance to 3 halves each step
    np.testing.assert_allclose(w.numpy(), [3 - 2 / 8, 3 - 4 / 8])


def test_pytorch_inplace_twins_record_and_sample():
    import eagerad.torch as torch
    x = torch.tensor([0.5, 1.0], dtype=torch.float64, requires_grad=True)
    y = x * 1
    y.exp_().pow_(2)                                # exp(2x), recorded through both rewrites
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp(2 * np.array([0.5, 1.0])), rtol=1e-14)
    z = torch.zeros(3)
    assert z.add_(torch.ones(3), alpha=2).tolist() == [2.0, 2.0, 2.0]
    assert z.sub_(torch.ones(3), alpha=0.5).tolist() == [1.5, 1.5, 1.5]
    a = torch.zeros(2)
    assert a.lerp_(torch.ones(2), 0.25).tolist() == [0.25, 0.25]
    torch.manual_seed(0)
    w = torch.empty(20000, dtype=torch.float64).normal_(1.0, 2.0)
    assert abs(w.mean().item() - 1.0) < 0.05 and abs(w.std().item() - 2.0) < 0.05
    u = torch.empty(20000).uniform_(-1.0, 3.0)
    assert u.min().item() >= -1.0 and u.max().item() < 3.0 and abs(u.mean().item() - 1.0) < 0.05
