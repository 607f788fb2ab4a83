"""nn: Cell registration and traversal, layers, initialisers, losses, train wrappers,
gradient accumulation, clipping and loss scaling in a step."""
import doctest
import importlib
import math
import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import eagerad
from eagerad import nn, ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2)
        self.head = nn.SequentialCell(nn.ReLU(), nn.Dense(2, 1, has_bias=False))
        self.scale = eagerad.Parameter(eagerad.tensor([2.0]), requires_grad=False)

    def construct(self, x):
        return self.head(self.fc(x)) * self.scale


def test_registration_names_and_traversal():
    net = Net()
    assert [n for n, _ in net.parameters_and_names()] == \
        ["scale", "fc.weight", "fc.bias", "head.1.weight"]
    assert [p.name for p in net.get_parameters()] == ["scale", "fc.weight", "fc.bias", "head.1.weight"]
    assert [p.name for p in net.trainable_params()] == ["fc.weight", "fc.bias", "head.1.weight"]
    assert [p.name for p in net.untrainable_params()] == ["scale"]
    assert [n for n, _ in net.cells_and_names()] == ["", "fc", "head", "head.0", "head.1"]
    assert list(net.name_cells()) == ["fc", "head"]
    assert list(net.parameters_dict()) == [n for n, _ in net.named_parameters()]
    # reassigning to a non-parameter unregisters; a shared parameter is listed once
    net.scale = 3.0
    net.fc2 = net.fc
    assert [n for n, _ in net.parameters_and_names()] == ["fc.weight", "fc.bias", "head.1.weight"]
    del net.fc2
    assert list(net.name_cells()) == ["fc", "head"]


def test_seed_002_weight_name_and_output(net):
    (param,) = net.trainable_params()
    assert param.name == "fc.weight" and param.data.asnumpy().tolist() == [[2.0, 3.0, 4.0]]
    loss, logits = net(eagerad.Tensor([[1, 2, 3]], eagerad.float32), eagerad.Tensor(19, eagerad.float32))
    assert (loss.item(), logits.item()) == (1.0, 20.0)


def test_module_alias_forward_train_eval_zero_grad():
    class TorchNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = nn.Linear(2, 1)
            self.drop = nn.Dropout(p=0.5)

        def forward(self, x):
            return self.drop(self.lin(x))

    net = TorchNet()
    assert net.training and net.drop.training
    net.eval()
    assert not net.drop.training
    x = eagerad.ones(4, 2)
    out = net(x)
    np.testing.assert_allclose(out.numpy(), net.lin(x).numpy())
    np.testing.assert_allclose(net.forward(x).numpy(), out.numpy())
    out.sum().backward()
    np.testing.assert_allclose(net.lin.weight.grad.numpy(), [[4.0, 4.0]])
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())
    assert net.train() is net and net.drop.training
    with pytest.raises(NotImplementedError, match="construct"):
        nn.Cell()(x)


def test_dense_matches_numpy_and_checks_input():
    d = nn.Dense(3, 2, activation="tanh")
    x = np.random.default_rng(1).standard_normal((5, 3)).astype(np.float32)
    ref = np.tanh(x @ d.weight.numpy().T + d.bias.numpy())
    np.testing.assert_allclose(d(eagerad.Tensor(x)).numpy(), ref, rtol=1e-6)
    assert d.weight.shape == (2, 3) and d.bias.shape == (2,)
    with pytest.raises(ValueError, match=r"\(5, 4\).*in_channels=3"):
        d(eagerad.ones(5, 4))
    with pytest.raises(ValueError, match="out_channels"):
        nn.Dense(3, 0)
    with pytest.raises(ValueError, match="unknown activation"):
        nn.Dense(3, 1, activation="swoosh")


def test_default_init_bounds_and_seed():
    eagerad.set_seed(7)
    a = nn.Dense(64, 32)
    eagerad.set_seed(7)
    b = nn.Dense(64, 32)
    assert np.array_equal(a.weight.numpy(), b.weight.numpy())
    assert np.array_equal(a.bias.numpy(), b.bias.numpy())
    bound = 1 / math.sqrt(64)
    assert np.abs(a.weight.numpy()).max() <= bound and np.abs(a.weight.numpy()).max() > 0.9 * bound
    assert np.abs(a.bias.numpy()).max() <= bound
    c = nn.Dense(64, 32)
    assert not np.array_equal(a.weight.numpy(), c.weight.numpy())


def test_initializers():
    eagerad.set_seed(0)
    w = nn.init.initializer("normal", (200, 100)).numpy()
    assert abs(w.std() - 0.01) < 5e-4 and abs(w.mean()) < 5e-4
    x = nn.init.initializer("xavier_uniform", (30, 20)).numpy()
    bound = math.sqrt(6 / 50)
    assert np.abs(x).max() <= bound and np.abs(x).max() > 0.95 * bound
    assert nn.init.initializer("zeros", (2,)).tolist() == [0.0, 0.0]
    assert nn.init.initializer("ones", 2).tolist() == [1.0, 1.0]
    d = nn.Dense(2, 2, weight_init="ones", bias_init="zeros")
    assert d.weight.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]] and d.bias.tolist() == [0.0, 0.0]
    nn.init.xavier_uniform_(d.weight)
    assert np.abs(d.weight.numpy()).max() <= math.sqrt(6 / 4) and d.weight.version == 1
    with pytest.raises(ValueError, match="unknown initializer 'he_normalish'"):
        nn.init.initializer("he_normalish", (2,))
    with pytest.raises(ValueError, match=r"\(3,\).*\(2,\)"):
        nn.init.initializer(eagerad.ones(3), (2,))


def test_dropout_mask_scaling_and_gradient():
    d = nn.Dropout(keep_prob=0.75)
    assert d.p == 0.25
    x = eagerad.ones(1000, 10, requires_grad=True)
    y = d(x)
    vals = np.unique(y.numpy())
    np.testing.assert_allclose(vals, [0.0, 1 / 0.75], rtol=1e-6)
    assert abs((y.numpy() == 0).mean() - 0.25) < 0.02
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())   # d(x*m)/dx = m
    d.set_train(False)
    assert d(x) is x
    assert nn.Dropout(p=1.0)(x).numpy().max() == 0.0          # PyTorch: p=1 drops everything
    with pytest.raises(ValueError, match="p must lie in"):
        nn.Dropout(p=1.5)


def test_activations_flatten_sequential():
    x = eagerad.tensor([[-1.0, 0.5, 2.0]])
    np.testing.assert_allclose(nn.ReLU()(x).numpy(), [[0.0, 0.5, 2.0]])
    np.testing.assert_allclose(nn.Tanh()(x).numpy(), np.tanh([[-1.0, 0.5, 2.0]]), rtol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(x).numpy(), 1 / (1 + np.exp([[1.0, -0.5, -2.0]])), rtol=1e-6)
    e = np.exp([-1.0, 0.5, 2.0])
    np.testing.assert_allclose(nn.Softmax(axis=-1)(x).numpy(), [e / e.sum()], rtol=1e-6)
    np.testing.assert_allclose(nn.Softmax(axis=0)(x).numpy(), [[1.0, 1.0, 1.0]])
    assert nn.Flatten()(eagerad.ones(4, 2, 3)).shape == (4, 6)
    seq = nn.Sequential(nn.Flatten(), nn.Dense(6, 2))
    assert seq(eagerad.ones(4, 2, 3)).shape == (4, 2) and len(seq) == 2
    assert isinstance(seq[1], nn.Dense) and [n for n, _ in seq.parameters_and_names()] == \
        ["1.weight", "1.bias"]


LOGITS = np.array([[1.0, 2.0, 0.5], [0.1, -1.0, 3.0]], np.float32)
LABELS = np.array([1, 2])


def _np_ce():
    z = LOGITS.astype(np.float64)          # the exact values (a float32 reference is off by ulps)
    lse = np.log(np.exp(z).sum(axis=1))
    return lse - z[np.arange(2), LABELS]


@pytest.mark.parametrize("reduction,reduce", [("mean", np.mean), ("sum", np.sum),
                                              ("none", lambda v: v)])
def test_losses_against_numpy(reduction, reduce):
    a = np.array([[1.0, -2.0], [0.5, 3.0]], np.float32)
    b = np.array([[0.0, 1.0], [1.5, 2.0]], np.float32)
    ta, tb = eagerad.Tensor(a), eagerad.Tensor(b)
    np.testing.assert_allclose(nn.MSELoss(reduction)(ta, tb).numpy(), reduce((a - b) ** 2), rtol=1e-6)
    np.testing.assert_allclose(nn.L1Loss(reduction)(ta, tb).numpy(), reduce(np.abs(a - b)), rtol=1e-6)
    logits, labels = eagerad.Tensor(LOGITS), eagerad.Tensor(LABELS)
    ref = reduce(_np_ce())
    ce = nn.CrossEntropyLoss(reduction=reduction)
    np.testing.assert_allclose(ce(logits, labels).numpy(), ref, rtol=1e-6)
    sparse = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction=reduction)
    np.testing.assert_allclose(sparse(logits, labels).numpy(), ref, rtol=1e-6)
    dense = nn.SoftmaxCrossEntropyWithLogits(reduction=reduction)
    onehot = eagerad.Tensor(np.eye(3, dtype=np.float32)[LABELS])
    np.testing.assert_allclose(dense(logits, onehot).numpy(), ref, rtol=1e-6, atol=3e-7)  # lse - z: float32 cancellation


def test_cross_entropy_gradient_is_softmax_minus_onehot():
    logits = eagerad.tensor(LOGITS, requires_grad=True)
    nn.CrossEntropyLoss(reduction="sum")(logits, eagerad.Tensor(LABELS)).backward()
    p = np.exp(LOGITS) / np.exp(LOGITS).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(logits.grad.numpy(), p - np.eye(3)[LABELS], rtol=1e-5, atol=1e-7)


def test_loss_errors():
    for cls in (nn.MSELoss, nn.L1Loss, nn.CrossEntropyLoss):
        with pytest.raises(ValueError, match="reduction='avg'"):
            cls(reduction="avg")
    with pytest.raises(ValueError, match=r"reduction='max'"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="max")
    with pytest.raises(ValueError, match=r"\(2,\).*\(3,\)"):
        nn.MSELoss()(eagerad.ones(2), eagerad.ones(3))
    with pytest.raises(TypeError, match="sparse=True"):
        nn.SoftmaxCrossEntropyWithLogits(sparse=True)(eagerad.Tensor(LOGITS), eagerad.ones(2, 3))


# ------------------------------------------------------------------ training


def _linear_problem():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((8, 3)).astype(np.float32)
    y = (x @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.3).astype(np.float32)
    return x, y


def _mse_grads(w, b, x, y):
    """Closed-form gradients of mean((x w^T + b - y)^2)."""
    r = x @ w.T + b - y
    return 2 * r.T @ x / r.size, 2 * r.sum(axis=0) / r.size


def _twin_dense(seed):
    """Two Dense(3, 1) cells that start from the same weights."""
    eagerad.set_seed(seed)
    first = nn.Dense(3, 1)
    eagerad.set_seed(seed)
    return first, nn.Dense(3, 1)


def _sgd_step(net, **kwargs):
    """A TrainOneStepCell for ``net`` (MSE loss, SGD with learning rate 0.1)."""
    return nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params(), 0.1),
                               **kwargs)


def test_train_one_step_cell_matches_closed_form_sgd():
    x, y = _linear_problem()
    net = nn.Dense(3, 1)
    w0, b0 = net.weight.numpy().astype(np.float64), net.bias.numpy().astype(np.float64)
    loss = _sgd_step(net)(eagerad.Tensor(x), eagerad.Tensor(y))
    gw, gb = _mse_grads(w0, b0, x, y)
    np.testing.assert_allclose(loss.item(), np.mean((x @ w0.T + b0 - y) ** 2), rtol=1e-5)
    np.testing.assert_allclose(net.weight.numpy(), w0 - 0.1 * gw, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.numpy(), b0 - 0.1 * gb, rtol=1e-5, atol=1e-6)
    assert not loss.requires_grad and net.weight.grad is None


def test_gradient_accumulation_equals_full_batch():
    x, y = _linear_problem()
    full, accum = _twin_dense(5)
    loss_fn = nn.MSELoss()
    _sgd_step(full)(eagerad.Tensor(x), eagerad.Tensor(y))

    # MindSpore style: sum micro-batch grads from value_and_grad, one update for k=4
    opt = nn.SGD(accum.trainable_params(), 0.1)
    grad_fn = eagerad.value_and_grad(lambda a, b: loss_fn(accum(a), b), None, opt.parameters)
    k, total = 4, None
    for xs, ys in zip(np.split(x, k), np.split(y, k)):
        _, grads = grad_fn(eagerad.Tensor(xs), eagerad.Tensor(ys))
        total = grads if total is None else tuple(t + g for t, g in zip(total, grads))
    opt(tuple(g / k for g in total))
    np.testing.assert_allclose(accum.weight.numpy(), full.weight.numpy(), rtol=1e-6)
    np.testing.assert_allclose(accum.bias.numpy(), full.bias.numpy(), rtol=1e-6)

    # PyTorch style: .grad accumulates over backward calls
    eagerad.set_seed(5)
    torch_net = nn.Linear(3, 1)
    torch_opt = nn.SGD(torch_net.parameters(), lr=0.1)
    torch_opt.zero_grad()
    for xs, ys in zip(np.split(x, k), np.split(y, k)):
        (loss_fn(torch_net(eagerad.Tensor(xs)), eagerad.Tensor(ys)) / k).backward()
    torch_opt.step()
    np.testing.assert_allclose(torch_net.weight.numpy(), full.weight.numpy(), rtol=1e-6)


def test_clip_by_global_norm_in_a_step():
    x, y = _linear_problem()
    net = nn.Dense(3, 1)
    w0, b0 = net.weight.numpy().astype(np.float64), net.bias.numpy().astype(np.float64)
    _sgd_step(net, clip_global_norm=0.5)(eagerad.Tensor(x), eagerad.Tensor(y))
    gw, gb = _mse_grads(w0, b0, x, y)
    norm = math.sqrt((gw ** 2).sum() + (gb ** 2).sum())
    assert norm > 0.5
    np.testing.assert_allclose(net.weight.numpy(), w0 - 0.1 * gw * 0.5 / norm, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.bias.numpy(), b0 - 0.1 * gb * 0.5 / norm, rtol=1e-5, atol=1e-6)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")  # the overflow is the point
def test_loss_scaling_in_a_step_and_overflow_skip():
    x, y = _linear_problem()
    plain, scaled = _twin_dense(1)
    _sgd_step(plain)(eagerad.Tensor(x), eagerad.Tensor(y))
    step = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(scaled, nn.MSELoss()),
                                            nn.SGD(scaled.trainable_params(), 0.1), 1024.0)
    loss, overflow, scale = step(eagerad.Tensor(x), eagerad.Tensor(y))
    assert not bool(overflow) and scale.item() == 1024.0
    np.testing.assert_allclose(scaled.weight.numpy(), plain.weight.numpy(), rtol=1e-6)  # powers of 2: exact

    before = scaled.weight.numpy().copy()
    huge = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(scaled, nn.MSELoss()),
                                            nn.SGD(scaled.trainable_params(), 0.1), 3e38)
    _, overflow, _ = huge(eagerad.Tensor(x), eagerad.Tensor(y))
    assert bool(overflow)
    assert np.array_equal(scaled.weight.numpy(), before)     # update skipped

    scaler = eagerad.amp.DynamicLossScaler(2.0 ** 127, scale_factor=2, scale_window=1000)
    dyn = nn.TrainOneStepWithLossScaleCell(nn.WithLossCell(scaled, nn.MSELoss()),
                                           nn.SGD(scaled.trainable_params(), 0.1), scaler)
    _, overflow, scale = dyn(eagerad.Tensor(x), eagerad.Tensor(y))
    assert bool(overflow) and scaler.scale_value.item() == 2.0 ** 126


def test_custom_step_with_value_and_grad_unscale_clip():
    """The seed-002 recipe: scale the loss, unscale grads, check all_finite, clip, update."""
    x, y = _linear_problem()
    net = nn.Dense(3, 1)
    w0, b0 = net.weight.numpy().astype(np.float64), net.bias.numpy().astype(np.float64)
    opt = nn.SGD(net.trainable_params(), 0.1)
    scaler = eagerad.amp.StaticLossScaler(1024.0)
    loss_fn = nn.MSELoss()

    def forward(a, b):
        return scaler.scale(loss_fn(net(a), b))

    _, grads = eagerad.value_and_grad(forward, None, opt.parameters)(eagerad.Tensor(x), eagerad.Tensor(y))
    grads = scaler.unscale(grads)
    assert bool(eagerad.amp.all_finite(grads))
    opt(ops.clip_by_global_norm(grads, 0.5))
    gw, gb = _mse_grads(w0, b0, x, y)
    norm = math.sqrt((gw ** 2).sum() + (gb ** 2).sum())
    np.testing.assert_allclose(net.weight.numpy(), w0 - 0.1 * gw * 0.5 / norm, rtol=1e-5, atol=1e-6)


def test_loss_and_grads_unused_and_frozen_weights():
    d = nn.Dense(2, 1, has_bias=False, weight_init="ones")
    unused = eagerad.Parameter(eagerad.ones(3), name="unused")
    frozen = eagerad.Parameter(eagerad.ones(1), name="frozen", requires_grad=False)
    loss, grads = nn.loss_and_grads(lambda a: (d(a) * frozen).sum(), [d.weight, unused, frozen],
                                    (eagerad.ones(4, 2),))
    assert loss.item() == 8.0
    assert grads[0].tolist() == [[4.0, 4.0]] and grads[1].tolist() == [0.0, 0.0, 0.0]
    assert grads[2] is None
    with pytest.raises(TypeError, match="return the loss as a Tensor"):
        nn.loss_and_grads(lambda a: (d(a).sum(), a), [d.weight], (eagerad.ones(4, 2),))


@pytest.mark.parametrize("script", ["classifier_mindspore.py", "classifier_pytorch.py"])
def test_classifier_tutorial_reaches_95_percent(script):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ, PYTHONPATH=root)
    start = time.perf_counter()
    run = subprocess.run([sys.executable, os.path.join(root, "tutorials", script)], env=env,
                         capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - start
    assert run.returncode == 0, run.stdout + run.stderr
    assert len(re.findall(r"^epoch +\d+/20 \[[#.]{20}\] loss \d", run.stdout, re.M)) == 20
    accuracy = float(re.search(r"test accuracy: ([\d.]+)%", run.stdout).group(1))
    assert accuracy >= 95.0 and elapsed < 60


@pytest.mark.parametrize("module", ["eagerad.nn", "eagerad.nn.cell", "eagerad.nn.layers",
                                    "eagerad.nn.loss", "eagerad.nn.optim", "eagerad.nn.wrappers",
                                    "eagerad.nn.init", "eagerad.nn.inplace", "eagerad.serialization"])
def test_docstring_examples(module):
    result = doctest.testmod(importlib.import_module(module), extraglobs={"eagerad": eagerad})
    assert result.attempted > 0 and result.failed == 0


def test_keyed_containers_register_like_pytorch():
    torch = pytest.importorskip("torch")
    import eagerad.torch as et
    mine = et.nn.ModuleDict({"a": et.nn.Linear(2, 3), "b": et.nn.Linear(3, 1)})
    theirs = torch.nn.ModuleDict({"a": torch.nn.Linear(2, 3), "b": torch.nn.Linear(3, 1)})
    assert list(mine.state_dict()) == list(theirs.state_dict()) and list(mine) == ["a", "b"]
    assert len(mine) == 2 and "a" in mine and [k for k, _ in mine.items()] == ["a", "b"]
    mine.pop("a")
    assert list(mine) == ["b"] and [n for n, _ in mine.named_parameters()] == ["b.weight", "b.bias"]
    pl = et.nn.ParameterList([et.ones(2), et.zeros(3)])
    tl = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2)), torch.nn.Parameter(torch.zeros(3))])
    assert [n for n, _ in pl.named_parameters()] == [n for n, _ in tl.named_parameters()]
    pd = et.nn.ParameterDict({"w": et.ones(2)})
    assert list(pd) == ["w"] and pd["w"].requires_grad and len(list(pd.parameters())) == 1
    with pytest.raises(KeyError, match="without '.'"):
        pd["a.b"] = et.ones(1)
