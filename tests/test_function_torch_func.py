"""autograd.Function in torch.func style (issue 16): forward without ctx plus
setup_context, a static vmap rule, generate_vmap_rule, jvp; composed with func.*."""
import numpy as np
import pytest

import eagerad as E
from eagerad import func
from eagerad.autograd import Function

X = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]])


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=E.float64)


class Cube(Function):
    calls = []

    @staticmethod
    def forward(x):
        return x ** 3

    @staticmethod
    def setup_context(ctx, inputs, output):
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 3 * x ** 2

    @staticmethod
    def vmap(info, in_dims, x):
        Cube.calls.append((info.batch_size, in_dims))
        return Cube.apply(x), in_dims[0]


class Square(Function):
    generate_vmap_rule = True

    @staticmethod
    def forward(x):
        return x * x

    @staticmethod
    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * g * x


def test_setup_context_forward_backward_and_double_backward():
    x = E.tensor(np.array([2.0]), dtype=E.float64, requires_grad=True)
    y = Cube.apply(x)
    (g,) = E.autograd.grad(y.sum(), x, create_graph=True)
    (gg,) = E.autograd.grad(g.sum(), x)
    assert y.tolist() == [8.0] and g.tolist() == [12.0] and gg.tolist() == [12.0]


def test_vmap_rule_is_called_once_per_batch_and_composes():
    Cube.calls.clear()
    out = func.vmap(Cube.apply)(T(X))
    np.testing.assert_allclose(out.numpy(), X ** 3)
    assert Cube.calls == [(2, (0,))]
    out = func.vmap(Cube.apply, in_dims=1)(T(X))
    np.testing.assert_allclose(out.numpy(), (X ** 3).T)
    per = func.vmap(func.grad(lambda t: Cube.apply(t).sum()))(T(X))
    np.testing.assert_allclose(per.numpy(), 3 * X ** 2)
    np.testing.assert_allclose(func.jacfwd(Cube.apply)(T(X[0])).numpy(), np.diag(3 * X[0] ** 2))
    np.testing.assert_allclose(func.jacrev(Cube.apply)(T(X[0])).numpy(), np.diag(3 * X[0] ** 2))
    _, t = func.jvp(func.grad(lambda t: Cube.apply(t).sum()), (T(X[0]),), (T([1.0, 0.0, 1.0]),))
    np.testing.assert_allclose(t.numpy(), 6 * X[0] * [1.0, 0.0, 1.0])


def test_generate_vmap_rule_gives_per_sample_numbers():
    per = func.vmap(func.grad(lambda t: Square.apply(t).sum()))(T(X))
    np.testing.assert_allclose(per.numpy(), 2 * X)


def test_torch_agrees():
    torch = pytest.importorskip("torch")

    # the same static methods work on torch tensors: torch runs the very rules tested above
    TCube = type("TCube", (torch.autograd.Function,), {
        "forward": staticmethod(Cube.forward), "setup_context": staticmethod(Cube.setup_context),
        "backward": staticmethod(Cube.backward), "generate_vmap_rule": True})
    want = torch.func.vmap(torch.func.grad(lambda t: TCube.apply(t).sum()))(torch.tensor(X))
    got = func.vmap(func.grad(lambda t: Cube.apply(t).sum()))(T(X))
    np.testing.assert_allclose(got.numpy(), want.numpy())
