"""Optimizers: three steps against hand-written numpy updates, both calling styles,
argument handling, and memory staying flat over a long training loop."""
import gc
import os

import numpy as np
import pytest

import eagerad
from eagerad import nn

P0 = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])
C = np.array([[1.0, 2.0, 0.5], [3.0, 1.0, 0.2]])
D = np.array([[0.1, -0.3, 0.2], [0.0, 0.4, -0.1]])


def quad_loss(p):
    """sum(C p^2 / 2 + D p): gradient C p + D, so each step sees a new gradient."""
    return (eagerad.tensor(C) * p * p * 0.5 + eagerad.tensor(D) * p).sum()


def run(opt_cls, steps=3, **kw):
    p = eagerad.Parameter(eagerad.tensor(P0.copy()), name="p")
    opt = opt_cls([p], **kw)
    for _ in range(steps):
        opt.zero_grad()
        quad_loss(p).backward()
        opt.step()
    return p.numpy()


def np_sgd(lr, momentum=0.0, dampening=0.0, wd=0.0, nesterov=False, steps=3):
    p, buf = P0.copy(), None
    for _ in range(steps):
        g = C * p + D + wd * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def np_adam(lr, b1, b2, eps, wd=0.0, decoupled=False, steps=3):
    p, m, v = P0.copy(), np.zeros_like(P0), np.zeros_like(P0)
    for t in range(1, steps + 1):
        g = C * p + D
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        p = p - lr / (1 - b1 ** t) * m / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
    return p


@pytest.mark.parametrize("kw", [
    dict(learning_rate=0.1),
    dict(learning_rate=0.1, momentum=0.9),
    dict(lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.01),
    dict(learning_rate=0.1, momentum=0.9, nesterov=True, weight_decay=0.1),
])
def test_sgd_three_steps(kw):
    ref = np_sgd(kw.get("learning_rate", kw.get("lr")), kw.get("momentum", 0.0),
                 kw.get("dampening", 0.0), kw.get("weight_decay", 0.0), kw.get("nesterov", False))
    np.testing.assert_allclose(run(nn.SGD, **kw), ref, rtol=1e-12, atol=1e-14)


def test_momentum_is_mindspore_momentum():
    ref = np_sgd(0.1, momentum=0.9)
    np.testing.assert_allclose(run(nn.Momentum, learning_rate=0.1, momentum=0.9), ref, rtol=1e-12)
    ref_nesterov = np_sgd(0.1, momentum=0.9, nesterov=True)
    np.testing.assert_allclose(run(nn.Momentum, learning_rate=0.1, momentum=0.9, use_nesterov=True),
                               ref_nesterov, rtol=1e-12)


@pytest.mark.parametrize("cls,kw,ref_kw", [
    (nn.Adam, dict(learning_rate=0.1), dict(lr=0.1, b1=0.9, b2=0.999, eps=1e-8)),
    (nn.Adam, dict(lr=0.05, betas=(0.8, 0.99), eps=1e-6, weight_decay=0.1),
     dict(lr=0.05, b1=0.8, b2=0.99, eps=1e-6, wd=0.1)),
    (nn.Adam, dict(learning_rate=0.05, beta1=0.7, beta2=0.9), dict(lr=0.05, b1=0.7, b2=0.9, eps=1e-8)),
    (nn.AdamW, dict(lr=0.1), dict(lr=0.1, b1=0.9, b2=0.999, eps=1e-8, wd=0.01, decoupled=True)),
    (nn.AdamW, dict(learning_rate=0.1, weight_decay=0.5),
     dict(lr=0.1, b1=0.9, b2=0.999, eps=1e-8, wd=0.5, decoupled=True)),
])
def test_adam_three_steps(cls, kw, ref_kw):
    np.testing.assert_allclose(run(cls, **kw), np_adam(**ref_kw), rtol=1e-12, atol=1e-14)


def test_first_adam_step_moves_each_weight_by_lr():
    # with bias correction the first step is lr * g / (|g| + eps): a step of ~lr
    p = run(nn.Adam, steps=1, lr=0.01)
    np.testing.assert_allclose(np.abs(p - P0), 0.01, rtol=1e-5)


def test_mindspore_call_equals_pytorch_step():
    p1 = eagerad.Parameter(eagerad.tensor(P0.copy()), name="a")
    p2 = eagerad.Parameter(eagerad.tensor(P0.copy()), name="b")
    o1, o2 = nn.Adam([p1], 0.1), nn.Adam([p2], lr=0.1)
    for _ in range(3):
        (g,) = eagerad.grad(quad_loss, grad_position=0)(p1),
        assert o1((g,)) is True
        o2.zero_grad()
        quad_loss(p2).backward()
        o2.step()
    assert np.array_equal(p1.numpy(), p2.numpy())


def make_mlp():
    eagerad.set_seed(123)
    return nn.SequentialCell(nn.Dense(2, 16), nn.Tanh(), nn.Dense(16, 3))


def test_two_training_styles_give_identical_params():
    rng = np.random.default_rng(0)
    x = eagerad.Tensor(rng.standard_normal((32, 2)).astype(np.float32))
    y = eagerad.Tensor(rng.integers(0, 3, 32))
    loss_fn = nn.CrossEntropyLoss()

    ms_net = make_mlp()
    ms_opt = nn.Adam(ms_net.trainable_params(), learning_rate=0.01)

    def forward(data, label):
        return loss_fn(ms_net(data), label)

    grad_fn = eagerad.value_and_grad(forward, None, ms_opt.parameters)
    for _ in range(5):
        loss, grads = grad_fn(x, y)
        ms_opt(grads)

    pt_net = make_mlp()
    pt_opt = nn.Adam(pt_net.parameters(), lr=0.01)
    for _ in range(5):
        pt_opt.zero_grad()
        loss_fn(pt_net(x), y).backward()
        pt_opt.step()

    ms_params, pt_params = ms_net.parameters_dict(), pt_net.parameters_dict()
    assert list(ms_params) == list(pt_params) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for name in ms_params:
        assert np.array_equal(ms_params[name].numpy(), pt_params[name].numpy()), name
    assert not np.array_equal(ms_params["0.weight"].numpy(), make_mlp()[0].weight.numpy())


def test_update_is_in_place_and_records_no_graph():
    p = eagerad.Parameter(eagerad.tensor([1.0, 2.0]), name="p")
    view = p.numpy()
    version = p.version
    opt = nn.SGD([p], learning_rate=0.5)
    opt((eagerad.tensor([2.0, 2.0]),))
    assert view.tolist() == [0.0, 1.0]           # same buffer, new values
    assert p.grad_fn is None and p.requires_grad and p.version == version + 1
    # a graph that saved the old value now refuses to run backward
    q = eagerad.Parameter(eagerad.tensor([3.0]), name="q")
    y = (q * q).sum()
    nn.SGD([q], 0.1)((eagerad.tensor([1.0]),))
    with pytest.raises(RuntimeError):
        y.backward()


def test_param_groups_and_skipped_grads():
    a = eagerad.Parameter(eagerad.tensor([1.0]), name="a")
    b = eagerad.Parameter(eagerad.tensor([1.0]), name="b")
    opt = nn.SGD([{"params": [a], "lr": 1.0}, {"params": [b], "learning_rate": 0.25}], lr=0.5)
    opt((eagerad.tensor([1.0]), eagerad.tensor([1.0])))
    assert (a.item(), b.item()) == (0.0, 0.75)
    opt((None, eagerad.tensor([1.0])))           # None: leave a alone
    assert (a.item(), b.item()) == (0.0, 0.5)
    b.grad = eagerad.tensor([2.0])
    opt.step()                                    # a has no .grad: skipped
    assert (a.item(), b.item()) == (0.0, 0.0)
    assert opt.get_lr() == 1.0


def test_loss_scale_divides_gradients():
    p = eagerad.Parameter(eagerad.tensor([1.0]), name="p")
    nn.SGD([p], learning_rate=1.0, loss_scale=4.0)((eagerad.tensor([2.0]),))
    assert p.item() == 0.5


@pytest.mark.parametrize("make,match", [
    (lambda p: nn.SGD([p], learning_rate=0.1, lr=0.1), "learning_rate or lr"),
    (lambda p: nn.SGD([], 0.1), "empty"),
    (lambda p: nn.SGD([p], learning_rate=-1.0), "learning_rate"),
    (lambda p: nn.SGD([p], 0.1, nesterov=True), "nesterov"),
    (lambda p: nn.Adam([p], beta1=1.0), "beta1"),
    (lambda p: nn.SGD([p, p], 0.1), "more than once"),
])
def test_bad_arguments(make, match):
    p = eagerad.Parameter(eagerad.tensor([1.0]), name="p")
    with pytest.raises(ValueError, match=match):
        make(p)


def test_bad_gradients_name_shapes():
    p = eagerad.Parameter(eagerad.tensor([1.0, 2.0]), name="w")
    opt = nn.SGD([p], 0.1)
    with pytest.raises(ValueError, match="2 gradients for 1 parameters"):
        opt((eagerad.tensor([1.0, 1.0]), eagerad.tensor([1.0])))
    with pytest.raises(ValueError, match=r"\(3,\).*w.*\(2,\)"):
        opt((eagerad.tensor([1.0, 1.0, 1.0]),))
    with pytest.raises(TypeError, match="single Tensor"):
        nn.SGD(p, 0.1)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.mark.skipif(not os.path.exists("/proc/self/statm"), reason="needs Linux /proc")
def test_memory_flat_over_10000_steps():
    # RSS and the live-object count, not tracemalloc: tracing every allocation makes
    # 10k steps ~5x slower, and a leaked graph per step shows in both measures anyway
    net = nn.WithLossCell(nn.Dense(2, 1), nn.MSELoss())
    step = nn.TrainOneStepCell(net, nn.Momentum(net.trainable_params(), 0.01, 0.9))
    x, y = eagerad.randn(8, 2), eagerad.randn(8, 1)
    for _ in range(200):                          # warm caches before measuring
        step(x, y)
    gc.collect()
    rss, objects = _rss_bytes(), len(gc.get_objects())
    for _ in range(10_000):
        loss = step(x, y)
    gc.collect()
    growth = _rss_bytes() - rss
    assert growth < 5 * 2 ** 20, f"RSS grew by {growth / 2 ** 20:.2f} MB over 10k steps"
    assert len(gc.get_objects()) - objects < 100
    assert np.isfinite(loss.item())
