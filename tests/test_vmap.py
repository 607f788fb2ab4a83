"""vmap (issue 13): JAX/torch.func semantics of in_axes/out_axes, clear errors, composition
with grad/jvp/vjp/jacrev in any order and to third order, per-sample gradients; and one
engine walk for Jacobians (hooks hold)."""
import numpy as np
import pytest

import eagerad as E
from eagerad import ops
from eagerad.vectorize import vmap

f64 = E.float64
RNG = np.random.default_rng(0)
XS = RNG.normal(size=(4, 3))


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=f64)


def test_in_axes_out_axes_and_nesting():
    x = T(XS)
    np.testing.assert_allclose(vmap(lambda t: (t * t).sum())(x).numpy(), (XS ** 2).sum(1))
    np.testing.assert_allclose(vmap(lambda t: t.sum(), in_axes=1)(x).numpy(), XS.sum(0))
    np.testing.assert_allclose(vmap(lambda t: t.sum(), in_axes=-1)(x).numpy(), XS.sum(0))
    w = T([1.0, 2.0, 3.0])
    np.testing.assert_allclose(vmap(lambda t, v: t @ v, in_axes=(0, None))(x, w).numpy(), XS @ w.numpy())
    np.testing.assert_allclose(vmap(lambda t: t * 2, out_axes=1)(x).numpy(), (XS * 2).T)
    # nested: an outer product by two vmaps
    outer = vmap(vmap(lambda a, b: a * b, in_axes=(None, 0)), in_axes=(0, None))(T(XS[0]), T(XS[1]))
    np.testing.assert_allclose(outer.numpy(), np.outer(XS[0], XS[1]))
    # trees: a tuple argument with its own axes, a dict output
    out = vmap(lambda p: {"s": p[0] + p[1]}, in_axes=((0, None),))((x, w))
    np.testing.assert_allclose(out["s"].numpy(), XS + w.numpy())
    # an output that does not depend on the batch is broadcast
    assert vmap(lambda t: w)(x).shape == (4, 3)


def test_errors_name_the_argument_and_sizes():
    with pytest.raises(ValueError, match=r"argument 0 has size 4, argument 1 has size 3"):
        vmap(lambda a, b: a + b)(T(XS), T(XS[0]))
    with pytest.raises(ValueError, match="in_axes has 1 entries"):
        vmap(lambda a, b: a, in_axes=(0,))(T(XS), T(XS))
    with pytest.raises(ValueError, match="out of range"):
        vmap(lambda a: a, in_axes=2)(T(XS))
    with pytest.raises(ValueError, match="unbatched"):
        vmap(lambda a: a, in_axes=None)(T(XS))
    with pytest.raises(RuntimeError, match="no single value"):
        vmap(lambda a: a.sum().item())(T(XS))


def test_vmap_composes_with_grad_jvp_vjp_jacrev_in_any_order():
    x = T(XS)
    f = lambda t: (t.sin() * t).sum()  # noqa: E731
    df = lambda a: np.cos(a) * a + np.sin(a)  # noqa: E731
    d2f = lambda a: -np.sin(a) * a + 2 * np.cos(a)  # noqa: E731
    np.testing.assert_allclose(vmap(E.grad(f))(x).numpy(), df(XS), atol=1e-12)
    # grad of a vmapped function: the batch is summed
    np.testing.assert_allclose(E.grad(lambda t: vmap(f)(t).sum())(x).numpy(), df(XS), atol=1e-12)
    ones = T(np.ones(3))
    np.testing.assert_allclose(vmap(lambda t: E.jvp(E.grad(f), (t,), (ones,))[1])(x).numpy(),
                               d2f(XS), atol=1e-12)
    np.testing.assert_allclose(vmap(lambda t: E.vjp(E.grad(f), t)[1](ones)[0])(x).numpy(),
                               d2f(XS), atol=1e-12)
    hess = vmap(E.jacrev(E.grad(f)))(x).numpy()
    np.testing.assert_allclose(hess, np.stack([np.diag(d2f(r)) for r in XS]), atol=1e-12)
    np.testing.assert_allclose(vmap(E.hessian(f))(x).numpy(), hess, atol=1e-12)
    np.testing.assert_allclose(E.jacfwd(lambda t: vmap(f)(t.reshape(4, 3)))(T(XS.ravel())).numpy(),
                               np.stack([np.concatenate([df(r) if i == j else np.zeros(3)
                                                         for j in range(4)])
                                         for i, r in enumerate(XS)]), atol=1e-12)


def test_third_order_through_vmap():
    x = T(XS)
    d3 = lambda a: -np.cos(a) * a - 3 * np.sin(a)  # noqa: E731  (a sin a)'''
    f = lambda t: (t.sin() * t).sum()  # noqa: E731
    g3 = vmap(E.grad(lambda t: E.grad(lambda s: E.grad(f)(s).sum())(t).sum()))(x)
    # d/dx of sum of second derivatives: elementwise third derivative
    np.testing.assert_allclose(g3.numpy(), d3(XS), atol=1e-12)
    ones = T(np.ones(3))
    fwd3 = vmap(lambda t: E.jvp(lambda s: E.jvp(E.grad(f), (s,), (ones,))[1], (t,), (ones,))[1])(x)
    np.testing.assert_allclose(fwd3.numpy(), d3(XS), atol=1e-12)
    # vmap inside jacfwd inside grad
    h = E.grad(lambda t: E.jacfwd(lambda s: vmap(E.grad(f))(s))(t).sum())(x)
    np.testing.assert_allclose(h.numpy(), d3(XS), atol=1e-12)


def test_per_sample_gradients_with_shared_parameters():
    w = T(RNG.normal(size=(3,)))
    ys = T(RNG.normal(size=(4,)))
    loss = lambda w, x, y: ((x * w).sum() - y) ** 2  # noqa: E731
    per = vmap(E.grad(loss), in_axes=(None, 0, 0))(w, T(XS), ys).numpy()
    expected = np.stack([2 * ((XS[i] * w.numpy()).sum() - ys.numpy()[i]) * XS[i] for i in range(4)])
    np.testing.assert_allclose(per, expected, atol=1e-12)


def test_jacobians_with_a_hooked_intermediate_equal_row_by_row_vjp_and_jvp():
    a = T(RNG.normal(size=(3, 3)))

    def f(t):
        h = (a @ t).tanh()
        if h.requires_grad:
            h.register_hook(lambda g: g * 10)
        return h * t
    x = T(XS[0])
    _, f_vjp = E.vjp(f, x)
    rows = np.stack([f_vjp(T(e))[0].numpy() for e in np.eye(3)])
    np.testing.assert_allclose(E.jacrev(f)(x).numpy(), rows, atol=1e-12)
    plain = lambda t: (a @ t).tanh() * t  # noqa: E731
    cols = np.stack([E.jvp(plain, (x,), (T(e),))[1].numpy() for e in np.eye(3)], axis=1)
    np.testing.assert_allclose(E.jacfwd(plain)(x).numpy(), cols, atol=1e-12)
    # the hook scales the path through h: jacrev sees it (not the hook-free Jacobian)
    assert np.abs(E.jacrev(f)(x).numpy() - cols).max() > 1e-3
    np.testing.assert_allclose(E.hessian(lambda t: f(t).sum())(x).numpy(),
                               np.stack([E.jvp(lambda s: E.vjp(lambda u: f(u).sum(), s)[1](T(1.0))[0],
                                               (x,), (T(e),))[1].numpy() for e in np.eye(3)],
                                        axis=1), atol=1e-10)


def test_elementwise_jacobians_take_one_backward_pass_when_ops_declare_it(monkeypatch):
    from eagerad import functional as F
    for name in ("sin", "mul", "exp"):
        monkeypatch.setattr(ops.OPS[name], "elementwise", True)
    calls = []
    monkeypatch.setattr(F, "vmap", lambda fn: calls.append(fn) or vmap(fn))
    x = T(np.linspace(-1, 1, 50))
    f = lambda t: t.sin() * 2 * t.exp()  # noqa: E731
    expected = np.diag((np.cos(x.numpy()) + np.sin(x.numpy())) * 2 * np.exp(x.numpy()))
    np.testing.assert_allclose(E.jacrev(f)(x).numpy(), expected, atol=1e-12)
    np.testing.assert_allclose(E.jacfwd(f)(x).numpy(), expected, atol=1e-12)
    assert not calls                       # the diagonal path, no batch of cotangents
    # a hook on the way, or a broadcast input, leaves the diagonal path
    def hooked(t):
        h = t.sin()
        h.register_hook(lambda g: g * 10)
        return h * 2
    np.testing.assert_allclose(E.jacrev(hooked)(x).numpy(), np.diag(20 * np.cos(x.numpy())),
                               atol=1e-12)
    assert calls
