"""custom_jvp / custom_vjp (issue 16, JAX style): the rule is what every transform uses,
under grad, jvp, jacrev/jacfwd, vmap and to higher order, with pytrees."""
import numpy as np
import pytest

import eagerad as E
from eagerad import func
from eagerad.custom import custom_jvp, custom_vjp

X = np.array([0.3, -1.2, 2.0])


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=E.float64)


@custom_jvp
def softplus(x):
    return (1 + x.exp()).log()


@softplus.defjvp
def _softplus_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return softplus(x), t * x.sigmoid()


def sig(x):
    return 1 / (1 + np.exp(-x))


def test_custom_jvp_under_every_transform():
    x = T(X)
    np.testing.assert_allclose(E.grad(lambda t: softplus(t).sum())(x).numpy(), sig(X), rtol=1e-12)
    _, t = func.jvp(softplus, (x,), (T([1.0, 2.0, 3.0]),))
    np.testing.assert_allclose(t.numpy(), sig(X) * [1, 2, 3], rtol=1e-12)
    for jac in (func.jacrev, func.jacfwd):
        np.testing.assert_allclose(jac(softplus)(x).numpy(), np.diag(sig(X)), rtol=1e-12)
    # second order through the rule: d/dx sigmoid = s (1 - s)
    h = func.hessian(lambda t: softplus(t).sum())(x)
    np.testing.assert_allclose(h.numpy(), np.diag(sig(X) * (1 - sig(X))), rtol=1e-10)
    g2 = E.grad(E.grad(lambda t: softplus(t)))(T(0.5))
    assert g2.item() == pytest.approx(sig(0.5) * (1 - sig(0.5)))
    per = func.vmap(func.grad(lambda t: softplus(t).sum()))(T(np.stack([X, -X])))
    np.testing.assert_allclose(per.numpy(), sig(np.stack([X, -X])), rtol=1e-12)
    big = E.grad(lambda t: softplus(t))(T(800.0))          # exp overflows in the naive rule
    assert big.item() == 1.0


def test_custom_jvp_rule_is_used_not_the_function():
    @custom_jvp
    def f(x, y):
        return x * y

    f.defjvp(lambda p, t: (f(*p), t[0] * 10.0 + t[1] * 100.0))   # not f's true derivative
    gx, gy = E.grad(lambda a, b: f(a, b).sum(), grad_position=(0, 1))(T([1.0, 2.0]), T([3.0, 4.0]))
    assert gx.tolist() == [10.0, 10.0] and gy.tolist() == [100.0, 100.0]
    _, t = func.jvp(f, (T([1.0]), T([2.0])), (T([1.0]), T([1.0])))
    assert t.tolist() == [110.0]


@custom_vjp
def norm_clip(p):
    """A dict in, a dict out; its gradient is clipped to [-1, 1]."""
    return {"w": p["w"] * 3.0, "b": p["b"] ** 2}


def _fwd(p):
    return norm_clip(p), p["b"]


def _bwd(b, g):
    return ({"w": (g["w"] * 3.0).clip(-1.0, 1.0), "b": g["b"] * 2 * b},)


norm_clip.defvjp(_fwd, _bwd)


def test_custom_vjp_with_pytrees_vmap_and_second_order():
    p = {"w": T([0.1, 2.0]), "b": T([1.5])}
    g = func.grad(lambda q: norm_clip(q)["w"].sum() + norm_clip(q)["b"].sum())(p)
    assert g["w"].tolist() == [1.0, 1.0] and g["b"].tolist() == [3.0]
    # residual b depends on the input: reverse-over-reverse goes through it (d/db of 2b = 2);
    # hessian (forward over reverse) is refused, as in JAX
    h = func.jacrev(func.jacrev(lambda b: norm_clip({"w": T([0.0]), "b": b})["b"].sum()))(T([1.5]))
    assert h.tolist() == [[2.0]]
    per = func.vmap(func.grad(lambda b: norm_clip({"w": b, "b": b})["b"].sum()))(T([[1.0], [4.0]]))
    assert per.tolist() == [[2.0], [8.0]]
    with pytest.raises(TypeError, match="forward-mode"):
        func.jvp(lambda b: norm_clip({"w": b, "b": b})["w"], (T([1.0]),), (T([1.0]),))


def test_custom_vjp_nondiff_argnums_and_errors():
    @custom_vjp
    def scale(k, x):
        return x * k

    scale = custom_vjp(scale.fun, nondiff_argnums=(0,))
    scale.defvjp(lambda k, x: (x * k, None), lambda k, res, g: (g * k * 2,))
    assert E.grad(lambda x: scale(3.0, x).sum())(T([1.0])).tolist() == [6.0]
    assert scale(3.0, T([2.0])).tolist() == [6.0]            # not differentiated: fun itself
    bad = custom_vjp(lambda x: x)
    with pytest.raises(AttributeError, match="No VJP"):
        bad(T([1.0]))
    bad.defvjp(lambda x: (x, None), lambda r, g: g)
    with pytest.raises(ValueError, match="one entry per differentiable argument"):
        E.grad(lambda x: bad(x).sum())(T([1.0]))
