"""RMSprop, Adagrad, Adadelta, Adamax, NAdam and Adam(amsgrad): three steps against
numpy transcriptions of PyTorch's documented update rules; state_dict resumes exactly;
MindSpore dynamic learning rates."""
import numpy as np
import pytest

import eagerad
from eagerad import nn

P0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
C = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, 0.2]])
D = np.array([[0.1, -0.3, 0.2], [0.0, 0.4, -0.1]])


def grad_at(p):
    return C * p + D          # gradient of sum(C p^2 / 2 + D p)


def run(opt_cls, steps=3, **kw):
    p = eagerad.Parameter(eagerad.tensor(P0.copy()), name="p")
    opt = opt_cls([p], **kw)
    for _ in range(steps):
        opt.zero_grad()
        (eagerad.tensor(C) * p * p * 0.5 + eagerad.tensor(D) * p).sum().backward()
        opt.step()
    return p.numpy()


def np_rmsprop(lr, alpha, eps, wd=0.0, momentum=0.0, centered=False, steps=3):
    p, v, m, buf = P0.copy(), np.zeros_like(P0), np.zeros_like(P0), np.zeros_like(P0)
    for _ in range(steps):
        g = grad_at(p) + wd * p
        v = alpha * v + (1 - alpha) * g * g
        avg = v
        if centered:
            m = alpha * m + (1 - alpha) * g
            avg = v - m * m
        avg = np.sqrt(avg) + eps
        if momentum:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
    return p


def np_adagrad(lr, lr_decay=0.0, wd=0.0, init=0.0, eps=1e-10, steps=3):
    p, s = P0.copy(), np.full_like(P0, init)
    for t in range(1, steps + 1):
        g = grad_at(p) + wd * p
        s = s + g * g
        p = p - lr / (1 + (t - 1) * lr_decay) * g / (np.sqrt(s) + eps)
    return p


def np_adadelta(lr, rho, eps, wd=0.0, steps=3):
    p, v, u = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    for _ in range(steps):
        g = grad_at(p) + wd * p
        v = rho * v + (1 - rho) * g * g
        delta = np.sqrt(u + eps) / np.sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta
        p = p - lr * delta
    return p


def np_adamax(lr, b1, b2, eps, wd=0.0, steps=3):
    p, m, u = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    for t in range(1, steps + 1):
        g = grad_at(p) + wd * p
        m = b1 * m + (1 - b1) * g
        u = np.maximum(b2 * u, np.abs(g) + eps)
        p = p - lr / (1 - b1 ** t) * m / u
    return p


def np_nadam(lr, b1, b2, eps, wd=0.0, psi=4e-3, steps=3):
    p, m, v, prod = P0.copy(), np.zeros_like(P0), np.zeros_like(P0), 1.0
    for t in range(1, steps + 1):
        g = grad_at(p) + wd * p
        mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
        mu1 = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
        prod *= mu
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        denom = np.sqrt(v / (1 - b2 ** t)) + eps
        p = p - lr * (1 - mu) / (1 - prod) * g / denom - lr * mu1 / (1 - prod * mu1) * m / denom
    return p


def np_amsgrad(lr, b1, b2, eps, steps=3):
    p, m, v, vmax = P0.copy(), np.zeros_like(P0), np.zeros_like(P0), np.zeros_like(P0)
    for t in range(1, steps + 1):
        g = grad_at(p)
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        p = p - lr / (1 - b1 ** t) * m / (np.sqrt(vmax) / np.sqrt(1 - b2 ** t) + eps)
    return p


@pytest.mark.parametrize("cls,kw,ref", [
    (nn.RMSprop, dict(lr=0.01), lambda: np_rmsprop(0.01, 0.99, 1e-8)),
    (nn.RMSprop, dict(lr=0.01, alpha=0.9, momentum=0.5, centered=True, weight_decay=0.1),
     lambda: np_rmsprop(0.01, 0.9, 1e-8, wd=0.1, momentum=0.5, centered=True)),
    (nn.Adagrad, dict(lr=0.1), lambda: np_adagrad(0.1)),
    (nn.Adagrad, dict(lr=0.1, lr_decay=0.5, weight_decay=0.2, initial_accumulator_value=0.3),
     lambda: np_adagrad(0.1, 0.5, 0.2, 0.3)),
    (nn.Adadelta, dict(), lambda: np_adadelta(1.0, 0.9, 1e-6)),
    (nn.Adadelta, dict(lr=0.5, rho=0.8, eps=1e-4, weight_decay=0.1),
     lambda: np_adadelta(0.5, 0.8, 1e-4, 0.1)),
    (nn.Adamax, dict(), lambda: np_adamax(2e-3, 0.9, 0.999, 1e-8)),
    (nn.Adamax, dict(lr=0.1, betas=(0.8, 0.9), weight_decay=0.1),
     lambda: np_adamax(0.1, 0.8, 0.9, 1e-8, 0.1)),
    (nn.NAdam, dict(), lambda: np_nadam(2e-3, 0.9, 0.999, 1e-8)),
    (nn.NAdam, dict(lr=0.1, betas=(0.8, 0.9), weight_decay=0.1, momentum_decay=0.01),
     lambda: np_nadam(0.1, 0.8, 0.9, 1e-8, 0.1, 0.01)),
    (nn.Adam, dict(lr=0.1, amsgrad=True), lambda: np_amsgrad(0.1, 0.9, 0.999, 1e-8)),
])
def test_three_steps_match_pytorch_rule(cls, kw, ref):
    np.testing.assert_allclose(run(cls, **kw), ref(), rtol=1e-12, atol=1e-14)


def test_mindspore_rmsprop_puts_eps_inside_the_square_root():
    w = eagerad.Parameter(eagerad.tensor([1.0], dtype=eagerad.float64))
    nn.RMSprop([w], learning_rate=0.1, decay=0.0, epsilon=1.0)((eagerad.tensor([3.0], dtype=eagerad.float64),))
    assert w.item() == pytest.approx(1.0 - 0.1 * 3.0 / np.sqrt(9.0 + 1.0), rel=1e-14)


@pytest.mark.parametrize("cls,kw", [
    (nn.SGD, dict(lr=0.1, momentum=0.9)), (nn.Adam, dict(lr=0.1, amsgrad=True)),
    (nn.AdamW, dict(lr=0.1)), (nn.RMSprop, dict(lr=0.01, centered=True, momentum=0.3)),
    (nn.Adagrad, dict(lr=0.1)), (nn.Adadelta, dict()), (nn.Adamax, dict(lr=0.1)),
    (nn.NAdam, dict(lr=0.1)),
])
def test_state_dict_resumes_exactly(cls, kw):
    def steps(p, opt, n):
        for _ in range(n):
            opt.zero_grad()
            (eagerad.tensor(C) * p * p * 0.5 + eagerad.tensor(D) * p).sum().backward()
            opt.step()

    p = eagerad.Parameter(eagerad.tensor(P0.copy()))
    opt = cls([p], **kw)
    steps(p, opt, 2)
    saved, saved_p = opt.state_dict(), p.numpy().copy()
    steps(p, opt, 3)
    straight = p.numpy().copy()

    q = eagerad.Parameter(eagerad.tensor(saved_p))
    opt2 = cls([q], **kw)
    opt2.load_state_dict(saved)
    steps(q, opt2, 3)
    np.testing.assert_array_equal(q.numpy(), straight)


def test_state_dict_is_a_snapshot_and_checks_groups():
    p = eagerad.Parameter(eagerad.tensor([1.0]))
    opt = nn.SGD([p], lr=0.1, momentum=0.9)
    opt((eagerad.tensor([1.0]),))
    sd = opt.state_dict()
    opt((eagerad.tensor([1.0]),))
    assert sd["state"][0]["momentum_buffer"].tolist() == [1.0]
    other = nn.SGD([p, eagerad.Parameter(eagerad.zeros(2))], lr=0.1)
    other.add_param_group({"params": [eagerad.Parameter(eagerad.zeros(1))]})
    with pytest.raises(ValueError, match="parameter groups"):
        other.load_state_dict(sd)


def test_mindspore_dynamic_learning_rate_list_and_schedule():
    w = eagerad.Parameter(eagerad.tensor([0.0], dtype=eagerad.float64))
    opt = nn.SGD([w], learning_rate=[0.1, 0.2, 0.3])
    for _ in range(4):
        opt((eagerad.tensor([-1.0], dtype=eagerad.float64),))
    assert w.item() == pytest.approx(0.1 + 0.2 + 0.3 + 0.3)

    v = eagerad.Parameter(eagerad.tensor([0.0], dtype=eagerad.float64))
    opt = nn.SGD([v], learning_rate=lambda step: 0.5 ** (int(step) + 1))
    for _ in range(3):
        opt((eagerad.tensor([-1.0], dtype=eagerad.float64),))
    assert v.item() == pytest.approx(0.5 + 0.25 + 0.125)
