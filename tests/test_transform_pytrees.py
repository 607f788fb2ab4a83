"""Pytrees through the MindSpore-style transforms (issue 16): eagerad.grad,
value_and_grad, vjp, jvp, jacrev, jacfwd, hessian and vmap take parameters as nested
dicts/lists/tuples and return gradients of the same structure; MindSpore's own
conventions (several outputs summed, has_aux tuples) are kept."""
import numpy as np
import pytest

import eagerad as E

RNG = np.random.default_rng(5)
W = RNG.standard_normal((2, 3))
B = RNG.standard_normal(2)
X = RNG.standard_normal(3)


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=E.float64)


def params():
    return {"layer": {"w": T(W), "b": T(B)}, "scale": [T(2.0)]}


def loss(p, x):
    h = (p["layer"]["w"] @ x + p["layer"]["b"]).tanh()
    return (h * h).sum() * p["scale"][0]


def expected(x=X):
    h = np.tanh(W @ x + B)
    d = 2 * 2.0 * h * (1 - h ** 2)
    return {"w": np.outer(d, x), "b": d, "scale": (h * h).sum(), "x": W.T @ d}


def test_grad_and_value_and_grad_of_a_nested_dict():
    g = E.grad(loss)(params(), T(X))
    e = expected()
    assert set(g) == {"layer", "scale"} and isinstance(g["scale"], list)
    np.testing.assert_allclose(g["layer"]["w"].numpy(), e["w"], rtol=1e-12)
    np.testing.assert_allclose(g["layer"]["b"].numpy(), e["b"], rtol=1e-12)
    assert g["scale"][0].item() == pytest.approx(e["scale"])
    value, (gp, gx) = E.value_and_grad(loss, grad_position=(0, 1))(params(), T(X))
    assert value.item() == pytest.approx(2.0 * e["scale"])
    np.testing.assert_allclose(gx.numpy(), e["x"], rtol=1e-12)
    np.testing.assert_allclose(gp["layer"]["b"].numpy(), e["b"], rtol=1e-12)


def test_dict_outputs_are_summed_and_aux_keeps_its_structure():
    f = lambda p: {"a": (p["x"] ** 2).sum(), "b": p["x"].sum()}
    g = E.grad(f)({"x": T([1.0, 2.0])})
    assert g["x"].tolist() == [3.0, 5.0]             # MindSpore sums several outputs
    g, aux = E.grad(lambda p: ((p["x"] ** 2).sum(), {"n": p["x"] * 1}), has_aux=True)(
        {"x": T([1.0, 2.0])})
    assert g["x"].tolist() == [2.0, 4.0] and aux[0]["n"].tolist() == [1.0, 2.0]


def test_vjp_and_jvp_with_trees():
    p = {"w": T(W), "b": T(B)}
    out, vjp_fn = E.vjp(lambda q, x: {"y": q["w"] @ x + q["b"]}, p, T(X))
    assert set(out) == {"y"}
    gp, gx = vjp_fn({"y": T([1.0, -1.0])})
    np.testing.assert_allclose(gp["w"].numpy(), np.outer([1.0, -1.0], X))
    np.testing.assert_allclose(gx.numpy(), W.T @ [1.0, -1.0])
    gp, _ = vjp_fn(T(2.0))                            # MindSpore's scalar cotangent
    np.testing.assert_allclose(gp["b"].numpy(), [2.0, 2.0])
    out, t = E.jvp(lambda q: {"y": q["w"] @ T(X)}, p, {"w": T(np.ones((2, 3))), "b": T(B)})
    np.testing.assert_allclose(t["y"].numpy(), [X.sum(), X.sum()])


@pytest.mark.parametrize("jac", [E.jacrev, E.jacfwd])
def test_jacobians_and_hessian_nest_output_then_input(jac):
    p = {"w": T(W), "b": T(B)}
    j = jac(lambda q: {"y": q["w"] @ T(X) + q["b"]})(p)
    np.testing.assert_allclose(j["y"]["b"].numpy(), np.eye(2))
    np.testing.assert_allclose(j["y"]["w"].numpy(), np.einsum("ij,k->ijk", np.eye(2), X))
    h = E.hessian(lambda q: (q["a"] ** 2 * q["c"]).sum())({"a": T([1.0, 3.0]), "c": T([2.0, 5.0])})
    np.testing.assert_allclose(h["a"]["a"].numpy(), np.diag([4.0, 10.0]))
    np.testing.assert_allclose(h["a"]["c"].numpy(), np.diag([2.0, 6.0]))


def test_per_sample_gradients_of_a_parameter_dict():
    xs = T(RNG.standard_normal((4, 3)))
    per = E.vmap(E.grad(loss), in_axes=(None, 0))(params(), xs)
    for i in range(4):
        e = expected(xs.numpy()[i])
        np.testing.assert_allclose(per["layer"]["w"][i].numpy(), e["w"], rtol=1e-12)
        assert per["scale"][0][i].item() == pytest.approx(e["scale"])


def test_non_tensor_leaves_are_refused_by_name():
    with pytest.raises(TypeError, match="grad_position 0 selects an argument of type float"):
        E.grad(lambda p: p["x"] * 2)({"x": 1.0})
    with pytest.raises(TypeError, match="only Tensors"):
        E.jacrev(lambda p: p["x"])({"x": 1.0})


def test_vmap_over_nested_trees_with_per_leaf_axes():
    batch = {"a": T(np.arange(6.0).reshape(2, 3)), "b": [T([10.0, 20.0])]}
    out = E.vmap(lambda p: {"s": p["a"] + p["b"][0], "t": (p["a"].sum(),)},
                 in_axes=({"a": 1, "b": [None]},), out_axes={"s": 1, "t": (0,)})(batch)
    expect = np.arange(6.0).reshape(2, 3) + np.array([[10.0], [20.0]])
    np.testing.assert_allclose(out["s"].numpy(), expect)              # batch axis put back at 1
    np.testing.assert_allclose(out["t"][0].numpy(), np.arange(6.0).reshape(2, 3).sum(0))
