"""Transforms composed with each other (issue 12): every pair of grad, value_and_grad, vjp,
vjp's function, jvp, jacrev, jacfwd, hessian, GradOperation and autograd.grad(create_graph)
gives the closed-form derivative, in float64; forward-over-reverse equals
reverse-over-reverse; third order."""
import numpy as np
import pytest

import eagerad as E
from eagerad import ops

f64 = E.float64
X0 = np.array([0.3, -0.7, 1.2])
M = np.array([[0.5, -1.0, 2.0], [1.5, 0.2, -0.3], [0.1, 0.4, 0.9]])


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=f64)


# scalar functions of a vector with their gradient and Hessian in closed form
def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


SCALARS = {
    "poly": (lambda t: (t ** 3).sum() + (t * t).sum() * 2.0,
             lambda x: 3 * x ** 2 + 4 * x, lambda x: np.diag(6 * x) + 4 * np.eye(3)),
    "sin": (lambda t: t.sin().sum(), np.cos, lambda x: np.diag(-np.sin(x))),
    "exp": (lambda t: t.exp().sum(), np.exp, lambda x: np.diag(np.exp(x))),
    "matmul": (lambda t: ((T(M) @ t) ** 2).sum(), lambda x: 2 * M.T @ M @ x,
               lambda x: 2 * M.T @ M),
    "softmax": (lambda t: (ops.softmax(t) * T([1.0, 2.0, 3.0])).sum(),
                lambda x: _softmax(x) * (np.array([1.0, 2, 3]) - _softmax(x) @ [1.0, 2, 3]),
                None),
}


def _softmax_hessian(x):
    c = np.array([1.0, 2.0, 3.0])
    s = _softmax(x)
    m = c - s @ c
    # d/dx_j [s_i (c_i - s.c)] = (δij s_i - s_i s_j) m_i - s_i (s_j c_j - s_j (s.c))
    return (np.diag(s) - np.outer(s, s)) * m[:, None] - np.outer(s, s * m)


def hess_of(name, x):
    h = SCALARS[name][2]
    return _softmax_hessian(x) if h is None else h(x)


def grad_fns():
    """Ways to compute the gradient of a scalar function, each built from one transform."""
    return {
        "grad": lambda f: E.grad(f),
        "value_and_grad": lambda f: (lambda t: E.value_and_grad(f)(t)[1]),
        "vjp": lambda f: (lambda t: E.vjp(f, t)[1](T(1.0))[0]),
        "jacrev": lambda f: E.jacrev(f),
        "jacfwd": lambda f: E.jacfwd(f),
        "GradOperation": lambda f: ops.GradOperation()(f),
        "autograd.grad": lambda f: (lambda t: E.autograd.grad(
            f(t.requires_grad_() if not t.requires_grad else t * 1.0), t, create_graph=True)[0]),
    }


def jacobian_fns():
    """Ways to get the Jacobian of a vector function (applied on top of a gradient)."""
    def by_rows_vjp(g):
        def jac(t):
            out, f_vjp = E.vjp(g, t)
            return ops.stack([f_vjp(T(e))[0] for e in np.eye(out.size)])
        return jac

    def by_cols_jvp(g):
        def jac(t):
            cols = [E.jvp(g, (t,), (T(e),))[1] for e in np.eye(t.size)]
            return ops.stack(cols, axis=1)
        return jac

    def by_grad_of_components(g):
        def jac(t):
            return ops.stack([E.grad(lambda s, i=i: g(s)[i])(t) for i in range(t.size)])
        return jac
    return {"jacrev": E.jacrev, "jacfwd": E.jacfwd, "vjp_rows": by_rows_vjp,
            "jvp_cols": by_cols_jvp, "grad_rows": by_grad_of_components}


@pytest.mark.parametrize("name", sorted(SCALARS))
@pytest.mark.parametrize("inner", sorted(grad_fns()))
def test_gradient_transforms_match_closed_form(inner, name):
    f, df, _ = SCALARS[name]
    np.testing.assert_allclose(grad_fns()[inner](f)(T(X0)).numpy(), df(X0), atol=1e-12)


@pytest.mark.parametrize("name", sorted(SCALARS))
@pytest.mark.parametrize("outer", sorted(jacobian_fns()))
@pytest.mark.parametrize("inner", sorted(grad_fns()))
def test_second_order_pairs_match_closed_hessian(inner, outer, name):
    f = SCALARS[name][0]
    h = jacobian_fns()[outer](grad_fns()[inner](f))(T(X0)).numpy()
    np.testing.assert_allclose(h, hess_of(name, X0), atol=1e-10)


@pytest.mark.parametrize("name", sorted(SCALARS))
def test_hessian_and_hvps_forward_over_reverse_equal_reverse_over_reverse(name):
    f = SCALARS[name][0]
    x, v = T(X0), T([0.2, -1.0, 0.7])
    expected = hess_of(name, X0) @ v.numpy()
    np.testing.assert_allclose(E.hessian(f)(x).numpy(), hess_of(name, X0), atol=1e-10)
    fwd_rev = E.jvp(E.grad(f), (x,), (v,))[1]
    rev_rev = E.grad(lambda t: (E.grad(f)(t) * v).sum())(x)
    vjp_vjp = E.vjp(E.grad(f), x)[1](v)[0]
    for r in (fwd_rev, rev_rev, vjp_vjp):
        np.testing.assert_allclose(r.numpy(), expected, atol=1e-10)


def test_issue_examples():
    x, one = T(0.3), T(1.0)
    assert E.jvp(E.grad(ops.sin), (x,), (one,))[1].item() == pytest.approx(-np.sin(0.3), abs=1e-14)
    assert E.jvp(lambda t: E.value_and_grad(ops.sin)(t)[0], (x,), (one,))[1].item() == \
        pytest.approx(np.cos(0.3), abs=1e-14)
    assert E.jvp(lambda t: E.vjp(ops.sin, t)[0], (x,), (one,))[1].item() == \
        pytest.approx(np.cos(0.3), abs=1e-14)
    # vjp's function is linear in its cotangent: its Jacobian is the transpose
    _, f_vjp = E.vjp(lambda t: T(M[:2]) @ t, T(X0))
    np.testing.assert_allclose(E.jacrev(lambda u: f_vjp(u)[0])(T([1.0, 1.0])).numpy(), M[:2].T)
    np.testing.assert_allclose(E.jacfwd(lambda u: f_vjp(u)[0])(T([1.0, 1.0])).numpy(), M[:2].T)
    # grad of a function whose vjp closes over the outer variable: d/dx [x * y0] = y0
    y0 = T(2.5)
    assert E.grad(lambda s: E.vjp(lambda y: s * s * y, y0)[1](T(1.0))[0])(T(3.0)).item() == 6.0


def test_several_inputs_and_outputs():
    def f(a, b):
        return (a * b).sin(), (a ** 2 * b).sum()
    a, b = T([0.4, -0.2]), T([1.3, 0.8])
    an, bn = a.numpy(), b.numpy()
    # grad of the summed outputs w.r.t. both
    ga, gb = E.grad(f, (0, 1))(a, b)
    np.testing.assert_allclose(ga.numpy(), bn * np.cos(an * bn) + 2 * an * bn)
    np.testing.assert_allclose(gb.numpy(), an * np.cos(an * bn) + an ** 2)
    # vjp with one cotangent per output, as separate arguments or one tuple
    _, f_vjp = E.vjp(f, a, b)
    v1, v2 = T([1.0, 2.0]), T(3.0)
    for ga2, gb2 in (f_vjp(v1, v2), f_vjp((v1, v2))):
        np.testing.assert_allclose(ga2.numpy(), v1.numpy() * bn * np.cos(an * bn) + 6 * an * bn)
        np.testing.assert_allclose(gb2.numpy(), v1.numpy() * an * np.cos(an * bn) + 3 * an ** 2)
    # d/db of (d/da sum f): mixed second derivative, by jacfwd of grad and jacrev of grad
    mixed = np.diag(np.cos(an * bn) - an * bn * np.sin(an * bn) + 2 * an)
    for jac in (E.jacfwd, E.jacrev):
        np.testing.assert_allclose(jac(lambda bb: E.grad(f)(a, bb))(b).numpy(), mixed, atol=1e-12)


@pytest.mark.parametrize("combo", ["grad3", "jvp_grad_grad", "jacfwd_jacrev_grad",
                                   "grad_jvp_grad", "hessian_of_grad_sum"])
def test_third_order(combo):
    x = T(X0)
    third = np.diag(-np.cos(X0))          # d^3/dx^3 sum(sin) restricted to the diagonal
    f = lambda t: t.sin().sum()  # noqa: E731
    if combo == "grad3":
        r = [E.grad(E.grad(E.grad(ops.sin)))(T(v)).item() for v in X0]
        np.testing.assert_allclose(r, -np.cos(X0), atol=1e-12)
    elif combo == "jvp_grad_grad":
        g2 = lambda t: E.grad(lambda s: E.grad(f)(s).sum())(t)  # noqa: E731  -sin
        np.testing.assert_allclose(E.jvp(g2, (x,), (T([1.0, 1.0, 1.0]),))[1].numpy(),
                                   -np.cos(X0), atol=1e-12)
    elif combo == "jacfwd_jacrev_grad":
        np.testing.assert_allclose(E.jacfwd(E.jacrev(E.grad(f)))(x).numpy(),
                                   np.einsum("ij,jk->ijk", third, np.eye(3)), atol=1e-12)
    elif combo == "grad_jvp_grad":
        v = T([1.0, 0.0, 0.0])
        r = E.grad(lambda t: E.jvp(E.grad(f), (t,), (v,))[1].sum())(x)    # d/dx (-sin x0)
        np.testing.assert_allclose(r.numpy(), [-np.cos(X0[0]), 0, 0], atol=1e-12)
    else:
        np.testing.assert_allclose(E.hessian(lambda t: E.grad(f)(t).sum())(x).numpy(), third,
                                   atol=1e-12)


def test_autograd_grad_create_graph_under_transforms():
    x = T(X0)

    def g(t):
        t = t * 1.0
        if not t.requires_grad:     # under jacfwd/jvp only tangents flow: make it a leaf
            t.requires_grad_()
        (d,) = E.autograd.grad((t ** 3).sum(), t, create_graph=True)
        return d
    np.testing.assert_allclose(E.jacfwd(g)(x).numpy(), np.diag(6 * X0), atol=1e-12)
    np.testing.assert_allclose(E.jacrev(g)(x).numpy(), np.diag(6 * X0), atol=1e-12)
    np.testing.assert_allclose(E.jvp(g, (x,), (T([1.0, 1.0, 1.0]),))[1].numpy(), 6 * X0)
