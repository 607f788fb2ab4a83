"""torch.autograd.functional (issue 16): PyTorch's return conventions (tensor vs tuple vs
tuple of tuples), create_graph, strict, v=None; closed forms and torch where installed."""
import numpy as np
import pytest

import eagerad as E
from eagerad import autograd_functional as AF

RNG = np.random.default_rng(1)
M = RNG.standard_normal((3, 2))
X = RNG.standard_normal(2)
Y = RNG.standard_normal(3)


def T(a, requires_grad=False):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=E.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_return_structure(strategy):
    j = AF.jacobian(lambda x: T(M) @ x.sin(), T(X), strategy=strategy, vectorize=True)
    np.testing.assert_allclose(j.numpy(), M * np.cos(X))
    jx, jy = AF.jacobian(lambda x, y: (x * y[:2]).sum() + y[2], (T(X), T(Y)), strategy=strategy)
    np.testing.assert_allclose(jx.numpy(), Y[:2])
    np.testing.assert_allclose(jy.numpy(), [X[0], X[1], 1.0])
    (a,), (b,) = AF.jacobian(lambda x: (x * 2, x.exp()), (T(X),), strategy=strategy)
    np.testing.assert_allclose(a.numpy(), 2 * np.eye(2))
    np.testing.assert_allclose(b.numpy(), np.diag(np.exp(X)))
    a, b = AF.jacobian(lambda x: (x * 2, x.exp()), T(X), strategy=strategy)
    np.testing.assert_allclose(b.numpy(), np.diag(np.exp(X)))


def test_create_graph_and_detached_results():
    x = T(X, requires_grad=True)
    j = AF.jacobian(lambda t: t ** 3, x)
    assert not j.requires_grad
    j = AF.jacobian(lambda t: t ** 3, x, create_graph=True)
    (g,) = E.autograd.grad(j.sum(), x)
    np.testing.assert_allclose(g.numpy(), 6 * X)
    out, v = AF.vjp(lambda t: (t ** 2).sum(), x, create_graph=True)
    assert out.requires_grad
    (g,) = E.autograd.grad(v.sum(), x)
    np.testing.assert_allclose(g.numpy(), [2.0, 2.0])


def test_strict_rejects_an_independent_input():
    with pytest.raises(RuntimeError, match="independent of input 1"):
        AF.jacobian(lambda x, y: x * 2, (T(X), T(Y)), strict=True)
    j = AF.jacobian(lambda x, y: x * 2, (T(X), T(Y)))
    assert not j[1].numpy().any() and j[1].shape == (2, 3)


def test_hessian_hvp_vhp():
    f = lambda x, y: (x ** 2).sum() * y.sum() + (x[0] * y[1]) ** 2
    h = AF.hessian(f, (T(X), T(Y)))
    x, y = X, Y
    hxx = 2 * y.sum() * np.eye(2)
    hxx[0, 0] += 2 * y[1] ** 2
    np.testing.assert_allclose(h[0][0].numpy(), hxx)
    hxy = np.tile(2 * x[:, None], (1, 3))
    hxy[0, 1] += 4 * x[0] * y[1]
    np.testing.assert_allclose(h[0][1].numpy(), hxy)
    np.testing.assert_allclose(h[1][0].numpy(), hxy.T)
    g = lambda t: (t ** 3).sum()
    np.testing.assert_allclose(AF.hessian(g, T(X), outer_jacobian_strategy="forward-mode").numpy(),
                               np.diag(6 * X))
    v = T([1.0, -2.0])
    out, hv = AF.hvp(g, T(X), v)
    assert out.item() == pytest.approx((X ** 3).sum())
    np.testing.assert_allclose(hv.numpy(), 6 * X * [1.0, -2.0])
    out, vh = AF.vhp(f, (T(X), T(Y)), (v, T([0.0, 1.0, 0.0])))
    full = np.block([[h[0][0].numpy(), h[0][1].numpy()], [h[1][0].numpy(), h[1][1].numpy()]])
    vec = np.array([1.0, -2.0, 0.0, 1.0, 0.0])
    np.testing.assert_allclose(np.concatenate([vh[0].numpy(), vh[1].numpy()]), vec @ full)
    with pytest.raises(RuntimeError, match="single element"):
        AF.hessian(lambda t: t * 2, T(X))


def test_vjp_jvp_conventions_and_errors():
    out, g = AF.vjp(lambda x: x.sum() * 3, T(X))        # v=None for a one-element output
    assert g.tolist() == [3.0, 3.0]
    with pytest.raises(RuntimeError, match="v can only be None"):
        AF.vjp(lambda x: x * 3, T(X))
    with pytest.raises(RuntimeError, match="invalid size"):
        AF.vjp(lambda x: x * 3, T(X), T([1.0]))
    out, t = AF.jvp(lambda x, y: (x * y[0], y.sum()), (T(X), T(Y)), (T([1.0, 0.0]), T([1.0, 1.0, 1.0])))
    np.testing.assert_allclose(t[0].numpy(), [Y[0] + X[0], X[1]])
    assert t[1].item() == pytest.approx(3.0)
    with pytest.raises(TypeError, match="Tensor or a tuple"):
        AF.jacobian(lambda x: x, [T(X)])


def test_matches_torch_autograd_functional():
    torch = pytest.importorskip("torch")
    TF = torch.autograd.functional
    f = lambda x, y: ((x[:, None] * y[None, :]).tanh() ** 2).sum()
    g = lambda x, y: ((x[:, None] * y[None, :]).sin(), x.exp())
    ee, tt = (T(X), T(Y)), (torch.tensor(X), torch.tensor(Y))

    def close(a, b):
        la = E.tree.leaves(a)
        lb = [b] if isinstance(b, torch.Tensor) else [u for v in b for u in
                                                     (v if isinstance(v, tuple) else (v,))]
        assert len(la) == len(lb)
        for p, q in zip(la, lb):
            np.testing.assert_allclose(p.numpy(), q.numpy(), rtol=1e-10, atol=1e-12)
    close(AF.jacobian(g, ee), TF.jacobian(g, tt))
    close(AF.hessian(f, ee), TF.hessian(f, tt))
    v = (T(Y[:2]), T(X.tolist() + [0.5]))
    tv = tuple(torch.tensor(a.numpy()) for a in v)
    close(AF.hvp(f, ee, v)[1], TF.hvp(f, tt, tv)[1])
    close(AF.vhp(f, ee, v)[1], TF.vhp(f, tt, tv)[1])
    close(AF.jvp(g, ee, v)[1], TF.jvp(g, tt, tv)[1])


def test_reachable_through_the_package():
    import eagerad.autograd.functional as F2
    from eagerad import func
    from eagerad.custom import custom_jvp
    assert F2 is AF and E.autograd.functional.jacobian is AF.jacobian
    assert E.func.grad is func.grad and E.custom_jvp is custom_jvp
    assert E.ops.GradOperation is E.GradOperation
