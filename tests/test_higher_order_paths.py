"""The higher-order path of tanh/sigmoid networks (PINNs: u'' by grad of grad) and the
engine's two backward paths.

- tanh's and sigmoid's rules are single ops whose rules are again such ops, so each
  derivative records one node per activation (a count that grows back if a rule is
  written as a composed formula again);
- the array rules of those ops (run when nothing of the backward is recorded) give the
  bits of their Tensor rules (run under ``create_graph``);
- u'' of a tanh MLP and its gradient in the weights agree with PyTorch.
"""
import numpy as np
import pytest

import eagerad
from eagerad.autograd.engine import _collect
from eagerad.face import FACES, Face


def _mlp(act, x, params):
    w1, b1, w2, b2, w3 = params
    return (act(act(x @ w1 + b1) @ w2 + b2) @ w3).sum()


def _inputs(n=16, width=8, seed=0):
    rng = np.random.default_rng(seed)
    xs = np.linspace(-1.0, 1.0, n).reshape(-1, 1)
    shapes = ((1, width), (width,), (width, width), (width,), (width, 1))
    return xs, [rng.standard_normal(s) * 0.7 for s in shapes]


def _second_derivative(act, xs, ws, create_graph_last):
    x = eagerad.tensor(xs, requires_grad=True)
    params = [eagerad.tensor(w, requires_grad=True) for w in ws]
    u = _mlp(act, x, params)
    (du,) = eagerad.autograd.grad(u, x, create_graph=True)
    (d2u,) = eagerad.autograd.grad(du.sum(), x, create_graph=True)
    loss = (d2u * d2u).mean()
    grads = eagerad.autograd.grad(loss, params, create_graph=create_graph_last)
    return d2u, [g.detach().numpy() for g in grads]


def _names(t):
    return sorted(n.name for n in _collect([t.grad_fn]))


@pytest.mark.parametrize("act, backward", [(eagerad.tanh, "TanhGradBackward"),
                                           (eagerad.sigmoid, "SigmoidGradBackward")])
def test_each_derivative_records_one_node_per_activation(act, backward):
    xs, ws = _inputs()
    x = eagerad.tensor(xs, requires_grad=True)
    params = [eagerad.tensor(w, requires_grad=True) for w in ws]
    u = _mlp(act, x, params)
    (du,) = eagerad.autograd.grad(u, x, create_graph=True)
    names = _names(du)
    assert names.count(backward) == 2            # one per activation
    assert "MulBackward" not in names and "SubBackward" not in names
    (d2u,) = eagerad.autograd.grad(du.sum(), x, create_graph=True)
    names = _names(d2u)
    assert names.count(backward) == 4            # u'' differentiates each of u's two again
    assert len(names) <= 26, names               # 42 with the composed formula


@pytest.mark.parametrize("act", [eagerad.tanh, eagerad.sigmoid])
def test_array_rules_give_the_tensor_rules_bits(act):
    xs, ws = _inputs(seed=3)
    _, fast = _second_derivative(act, xs, ws, create_graph_last=False)   # array rules
    _, slow = _second_derivative(act, xs, ws, create_graph_last=True)    # Tensor rules
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f, s)


def test_second_derivative_and_weight_gradients_match_pytorch():
    torch = pytest.importorskip("torch")
    xs, ws = _inputs(seed=5)
    d2u, grads = _second_derivative(eagerad.tanh, xs, ws, create_graph_last=False)
    x = torch.tensor(xs, requires_grad=True)
    params = [torch.tensor(w, requires_grad=True) for w in ws]
    u = _mlp(torch.tanh, x, params)
    (du,) = torch.autograd.grad(u, x, create_graph=True)
    (d2u_t,) = torch.autograd.grad(du.sum(), x, create_graph=True)
    want = torch.autograd.grad((d2u_t * d2u_t).mean(), params)
    np.testing.assert_allclose(d2u.detach().numpy(), d2u_t.detach().numpy(), rtol=1e-12,
                               atol=1e-14)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g, w.numpy(), rtol=1e-10, atol=1e-13)


def test_a_leaf_gradient_keeps_the_leaf_face_on_the_array_path():
    x = eagerad.tensor([0.5, -1.0], requires_grad=True)
    y = eagerad.tensor([2.0, 3.0], requires_grad=True)
    x._face, y._face = (Face(f"test_leaf_face_{k}", repr=str, str=str) for k in "xy")
    FACES.pop("test_leaf_face_x"), FACES.pop("test_leaf_face_y")
    (x.tanh() * y + 1.0).sum().backward()
    assert x.grad._face is x._face and y.grad._face is y._face
    np.testing.assert_allclose(x.grad.numpy(), (1 - np.tanh([0.5, -1.0]) ** 2) * [2.0, 3.0],
                               rtol=1e-6)
    np.testing.assert_allclose(y.grad.numpy(), np.tanh([0.5, -1.0]), rtol=1e-6)
