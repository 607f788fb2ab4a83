"""The PINN fast paths: transposed matrix products (matmul_nt, matmul_tn) in matmul's
rules and Dense, rules of inputs that need no gradient skipped, the derivative graphs
they make."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd
from eagerad.autograd.gradcheck import gradcheck, gradgradcheck
from eagerad.ops.matrix_products import matmul_nt, matmul_tn
from eagerad.ops.registry import OPS, defop

RNG = np.random.default_rng(23)


def _t(*shape):
    return eagerad.tensor(RNG.standard_normal(shape), requires_grad=True)


def test_transposed_products_values():
    a, b, c = RNG.standard_normal((3, 4)), RNG.standard_normal((5, 4)), RNG.standard_normal((3, 5))
    assert np.allclose(matmul_nt(eagerad.tensor(a), eagerad.tensor(b)).numpy(), a @ b.T)
    assert np.allclose(matmul_tn(eagerad.tensor(a), eagerad.tensor(c)).numpy(), a.T @ c)


@pytest.mark.parametrize("fn", [matmul_nt, matmul_tn])
def test_transposed_products_refuse_bad_shapes(fn):
    with pytest.raises(ValueError, match=fn.__name__ + ".*(3, 4).*(3,)"):
        fn(eagerad.ones(3, 4), eagerad.ones(3))
    with pytest.raises(ValueError, match="common inner dimension"):
        fn(eagerad.ones(3, 4), eagerad.ones(2, 5))


@pytest.mark.parametrize("fn, shapes", [(matmul_nt, ((3, 4), (2, 4))), (matmul_tn, ((4, 3), (4, 2)))])
def test_transposed_products_first_to_third_order(fn, shapes):
    a, b = _t(*shapes[0]), _t(*shapes[1])
    assert gradcheck(lambda x, y: fn(x, y).tanh(), (a, b))
    assert gradgradcheck(lambda x, y: fn(x, y).tanh(), (a, b))

    def first(x, y):      # its second and third derivatives, through the rules' own rules
        gx, gy = autograd.grad(fn(x, y).tanh().sum(), (x, y), create_graph=True)
        return gx * gx.sum() + gy.sum()
    assert gradgradcheck(first, (a, b))


def test_matmul_rules_record_no_transpose_and_match_numpy():
    """u'' of a tanh MLP through 2-D matmuls: no transpose node at any order, and the
    second derivative equals the closed form."""
    w1, w2 = RNG.standard_normal((1, 8)), RNG.standard_normal((8, 1))
    xs = RNG.uniform(-1, 1, (5, 1))
    x = eagerad.tensor(xs, requires_grad=True)
    W1, W2 = eagerad.tensor(w1, requires_grad=True), eagerad.tensor(w2, requires_grad=True)
    u = (x @ W1).tanh() @ W2
    (du,) = autograd.grad(u.sum(), x, create_graph=True)
    (d2u,) = autograd.grad(du.sum(), x, create_graph=True)
    names, stack, seen = set(), [d2u.grad_fn], set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or isinstance(node, eagerad.Tensor):
            continue
        seen.add(id(node))
        names.add(node.name)
        stack.extend(e[0] for e in node.next if e is not None)
    assert not any("Transpose" in n for n in names), names
    t = np.tanh(xs @ w1)
    expected = (-2 * t * (1 - t * t) * w1 * w1) @ w2
    assert np.allclose(d2u.numpy(), expected, rtol=1e-12, atol=1e-12)
    gw1, = autograd.grad((d2u ** 2).sum(), W1)
    h = 1e-6
    fd = np.zeros_like(w1)
    for j in range(w1.shape[1]):
        e = np.zeros_like(w1)
        e[0, j] = h

        def loss(w):
            tt = np.tanh(xs @ w)
            return (((-2 * tt * (1 - tt * tt) * w * w) @ w2) ** 2).sum()
        fd[0, j] = (loss(w1 + e) - loss(w1 - e)) / (2 * h)
    assert np.allclose(gw1.numpy(), fd, rtol=1e-6, atol=1e-8)


def test_dense_uses_one_product_and_matches_torch_layout():
    layer = eagerad.nn.Dense(3, 2)
    x = eagerad.tensor(RNG.standard_normal((4, 3)).astype(np.float32), requires_grad=True)
    out = layer(x)
    assert out.grad_fn.name == "LinearBiasBackward"     # one 2-D product (and the bias)
    w, b = layer.weight.numpy(), layer.bias.numpy()
    assert np.allclose(out.detach().numpy(), x.detach().numpy() @ w.T + b, rtol=1e-6)
    gw, gx = autograd.grad((out * out).sum(), (layer.weight, x))
    ref = 2 * (x.detach().numpy() @ w.T + b)
    assert np.allclose(gw.numpy(), ref.T @ x.detach().numpy(), rtol=1e-5)
    assert np.allclose(gx.numpy(), ref @ w, rtol=1e-5)


def test_dense_per_sample_gradients_under_vmap():
    layer = eagerad.nn.Dense(3, 2)
    xs = eagerad.tensor(RNG.standard_normal((5, 4, 3)))

    def loss(x):
        return layer(x).tanh().sum()
    batched = eagerad.vmap(eagerad.grad(loss))(xs)
    looped = [eagerad.grad(loss)(xs[i]).numpy() for i in range(5)]
    assert np.allclose(batched.numpy(), np.stack(looped), rtol=1e-6, atol=1e-7)


@pytest.fixture
def spy_op():
    """``a * b`` with rules that record which of them ran."""
    calls = []
    op = defop("test_spy_mul", lambda B, a, b: B.binary("mul", a, b),
               vjp=(lambda g, ans, a, b: calls.append(0) or g * b,
                    lambda g, ans, a, b: calls.append(1) or g * a))
    yield op, calls
    del OPS["test_spy_mul"]


@pytest.mark.parametrize("create_graph", [False, True])
def test_rules_of_inputs_needing_no_gradient_do_not_run(spy_op, create_graph):
    op, calls = spy_op
    x, w = _t(3), _t(3)
    (gx,) = autograd.grad(op(x, w).sum(), x, create_graph=create_graph)
    assert calls == [0] and np.array_equal(gx.detach().numpy(), w.detach().numpy())
    calls.clear()
    gx, gw = autograd.grad(op(x, w).sum(), (x, w), create_graph=create_graph)
    assert sorted(calls) == [0, 1] and np.array_equal(gw.detach().numpy(), x.detach().numpy())


@pytest.mark.parametrize("create_graph", [False, True])
def test_a_hooked_input_still_gets_its_gradient(spy_op, create_graph):
    """A gradient that someone observes (a leaf's hook, a retained gradient) is still
    computed although no captured input needs it."""
    op, calls = spy_op
    x, w = _t(3), _t(3)
    seen = []
    w.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    autograd.grad(op(x, w).sum(), x, create_graph=create_graph)
    assert sorted(calls) == [0, 1] and np.array_equal(seen[0], x.detach().numpy())
    calls.clear()
    v = w * 2.0
    v.retain_grad()
    autograd.grad(op(x, v).sum(), x, create_graph=create_graph)
    assert sorted(calls) == [0, 1] and np.array_equal(v.grad.detach().numpy(),
                                                      x.detach().numpy())


def test_sum_rule_of_a_full_reduction_keeps_values_and_orders():
    x = _t(2, 3)
    (g,) = autograd.grad((x * x).sum(), x, create_graph=True)
    assert np.allclose(g.detach().numpy(), 2 * x.detach().numpy())
    (h,) = autograd.grad(g.sum(), x)
    assert np.allclose(h.numpy(), 2.0)
    assert gradgradcheck(lambda v: v.sum() * v, (x,))
