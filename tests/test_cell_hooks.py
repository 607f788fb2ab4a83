"""Cell/Module hooks (both frameworks' signatures) with removable handles, recompute,
nn.Parameter and import paths, and the training-mode default per spelling."""
import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
from eagerad import nn


def _dense(w):
    d = nn.Dense(2, 1, has_bias=False)
    d.weight.set_data(eagerad.Tensor([w], eagerad.float32))
    return d


def test_forward_pre_and_forward_hooks_replace_values_and_remove():
    d = _dense([1.0, 2.0])
    calls = []
    h1 = d.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 2,))
    h2 = d.register_forward_hook(lambda cell, inputs, out: calls.append(cell) or out + 1)
    x = eagerad.Tensor([[1.0, 1.0]])
    assert d(x).item() == 7.0 and calls == [d]          # (2 + 4) + 1
    h1.remove()
    assert d(x).item() == 4.0
    h2.remove()
    assert d(x).item() == 3.0 and len(calls) == 2


def test_backward_hooks_see_and_replace_gradients():
    d = _dense([1.0, 2.0])
    seen = {}

    def pre(cell, grad_output):
        seen["go"] = grad_output[0].tolist()
        return (grad_output[0] * 10,)

    def back(cell, grad_input, grad_output):
        seen["gi"] = grad_input[0].tolist()
        seen["go2"] = grad_output[0].tolist()
        return (grad_input[0] + 1,)

    hp = d.register_backward_pre_hook(pre)
    hb = d.register_backward_hook(back)
    x = eagerad.tensor([[3.0, 4.0]], requires_grad=True)
    (d(x) * 3).sum().backward()
    # d(out)/d(out) = 3, times 10 by the pre-hook; grad_input = 30 * w; plus 1 by the hook
    assert seen == {"go": [[3.0]], "gi": [[30.0, 60.0]], "go2": [[30.0]]}
    assert x.grad.tolist() == [[31.0, 61.0]]
    assert d.weight.grad.tolist() == [[90.0, 120.0]]     # 30 * x
    hp.remove(), hb.remove()
    x.grad = None
    (d(x) * 3).sum().backward()
    assert x.grad.tolist() == [[3.0, 6.0]]


def test_backward_hook_without_input_gradient_reports_none():
    d = _dense([1.0, 2.0])
    seen = []
    d.register_full_backward_hook(lambda cell, gi, go: seen.append((gi, go[0].tolist())))
    d(eagerad.Tensor([[1.0, 1.0]])).sum().backward()
    assert seen == [((None,), [[1.0]])]


def test_recompute_gives_the_same_gradients():
    def make():
        eagerad.set_seed(0)
        return nn.SequentialCell(nn.Dense(3, 4), nn.Tanh(), nn.Dense(4, 1))
    x = np.random.default_rng(0).standard_normal((2, 3))
    plain, again = make(), make().recompute()
    for net in (plain, again):
        net(eagerad.Tensor(x, eagerad.float32)).sum().backward()
    for p, q in zip(plain.get_parameters(), again.get_parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-6)


def test_training_default_follows_the_spelling():
    class MsNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.5)

        def construct(self, x):
            return self.drop(x)

    class PtNet(nn.Module):
        def __init__(self):
            super().__init__()
            self.drop = nn.Dropout(p=0.5)

        def forward(self, x):
            return self.drop(x)

    ms, pt = MsNet(), PtNet()
    assert ms.training is False and ms.drop.training is False
    assert pt.training is True and pt.drop.training is True
    x = eagerad.ones(1000)
    assert ms(x).tolist() == x.tolist()                 # inference: dropout is the identity
    assert (pt(x).numpy() == 0).sum() > 300             # training: about half dropped
    assert ms.set_train().drop.training is True
    loss = nn.WithLossCell(MsNet(), nn.MSELoss())
    nn.TrainOneStepCell(loss, nn.SGD([nn.Parameter(eagerad.ones(1))], lr=0.1))
    assert loss.training is True and loss.backbone_network.drop.training is True


def test_parameter_pytorch_signature_and_import_paths():
    from eagerad.nn.modules.module import Module
    from eagerad.nn.parameter import Parameter
    assert Module is nn.Module and Parameter is nn.Parameter is eagerad.Parameter
    p = nn.Parameter(eagerad.randn(2, 3))
    assert p.requires_grad and p.shape == (2, 3)
    frozen = nn.Parameter(eagerad.zeros(2), False)
    assert frozen.requires_grad is False and frozen.name is None
    assert nn.Parameter().shape == (0,)
    with pytest.raises(TypeError, match="callable"):
        nn.Dense(1, 1).register_forward_hook(3)


def _doubling_relu(module, log):
    module.register_forward_hook(lambda cell, inputs, out: out + out)
    module.register_full_backward_pre_hook(lambda cell, go: log.append(("pre", go[0].tolist())))
    module.register_full_backward_hook(
        lambda cell, gi, go: log.append(("back", gi[0].tolist(), go[0].tolist())))
    return module


def test_backward_hook_after_a_replacing_forward_hook_mindspore_face():
    # MindSpore's hook tutorial: pre-hook sees 1, backward hook grad_input 2, grad_output 2
    log = []
    relu = _doubling_relu(ms.nn.ReLU(), log)
    x = ms.Tensor([2.0])
    g = ms.grad(lambda v: relu(v).sum())(x)
    assert log == [("pre", [1.0]), ("back", [2.0], [2.0])] and g.tolist() == [2.0]


def test_backward_hook_after_a_replacing_forward_hook_matches_pytorch():
    torch = pytest.importorskip("torch")
    theirs, mine = [], []
    t = torch.tensor([2.0], requires_grad=True)
    _doubling_relu(torch.nn.ReLU(), theirs)(t).sum().backward()
    x = eagerad.tensor([2.0], requires_grad=True)
    _doubling_relu(nn.ReLU(), mine)(x).sum().backward()
    assert mine == theirs and x.grad.tolist() == t.grad.tolist()


def test_forward_hook_returning_none_keeps_the_output():
    dense, seen = eagerad.nn.Dense(4, 3), []
    dense.register_forward_hook(lambda cell, inputs, output: seen.append(output.shape))
    x = eagerad.Tensor(np.ones((2, 4), np.float32))
    out = dense(x)
    assert isinstance(out, eagerad.Tensor) and out.shape == (2, 3) and seen == [(2, 3)]
    np.testing.assert_allclose(out.numpy(), x.numpy() @ dense.weight.numpy().T + dense.bias.numpy(),
                               rtol=1e-6)
