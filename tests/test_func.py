"""eagerad.func (torch.func, issue 16): argnums/has_aux conventions, pytrees in and out,
composition, functional_call; closed forms and, where installed, torch.func itself."""
import numpy as np
import pytest

import eagerad as E
from eagerad import func, nn

f64 = E.float64
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 4))
X = RNG.standard_normal(4)
W = RNG.standard_normal((2, 4))
B = RNG.standard_normal(2)


def T(a):
    return E.tensor(np.asarray(a, dtype=np.float64), dtype=f64)


def loss(p, x):
    """A scalar function of a parameter dict: 0.5 * |tanh(W x + b)|^2."""
    h = (p["w"] @ x + p["b"]).tanh()
    return (h * h).sum() * 0.5


def loss_grads(w, b, x):
    h = np.tanh(w @ x + b)
    d = h * (1 - h ** 2)
    return np.outer(d, x), d


def test_grad_of_a_parameter_dict_matches_the_closed_form():
    g = func.grad(loss)({"w": T(W), "b": T(B)}, T(X))
    gw, gb = loss_grads(W, B, X)
    assert set(g) == {"w", "b"}
    np.testing.assert_allclose(g["w"].numpy(), gw, rtol=1e-12)
    np.testing.assert_allclose(g["b"].numpy(), gb, rtol=1e-12)


def test_argnums_tuple_has_aux_and_grad_and_value():
    f = lambda x, y: ((x * y).sum(), {"prod": x * y})
    (gx, gy), aux = func.grad(f, argnums=(0, 1), has_aux=True)(T([1.0, 2.0]), T([3.0, 5.0]))
    assert gx.tolist() == [3.0, 5.0] and gy.tolist() == [1.0, 2.0]
    assert aux["prod"].tolist() == [3.0, 10.0]
    g, (value, aux) = func.grad_and_value(f, argnums=-1, has_aux=True)(T([1.0, 2.0]), T([3.0, 5.0]))
    assert g.tolist() == [1.0, 2.0] and value.item() == 13.0
    g, value = func.grad_and_value(lambda x: (x ** 3).sum())(T([2.0]))
    assert g.tolist() == [12.0] and value.item() == 8.0


def test_grad_errors_are_torch_s():
    with pytest.raises(RuntimeError, match="scalar Tensor, got tensor with 1 dims"):
        func.grad(lambda x: x * 2)(T([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"\(output, aux\)"):
        func.grad(lambda x: x.sum(), has_aux=True)(T([1.0]))
    with pytest.raises(RuntimeError, match="argnums=2"):
        func.grad(lambda x: x.sum(), argnums=2)(T([1.0]))
    with pytest.raises(TypeError, match="argnums"):
        func.grad(lambda x: x.sum(), argnums=[0])(T([1.0]))
    with pytest.raises(TypeError, match="floating-point"):
        func.grad(lambda x: x.sum())(E.tensor([1, 2]))


def test_vjp_trees_and_cotangent_checks():
    f = lambda p: {"a": p[0] * p[1], "b": (p[0].sin(),)}
    x, y = T([0.5, 1.0]), T([2.0, -1.0])
    out, vjp_fn = func.vjp(f, (x, y))
    assert out["a"].tolist() == [1.0, -1.0]
    ca, cb = T([1.0, 2.0]), T([3.0, 4.0])
    (gp,) = vjp_fn({"a": ca, "b": (cb,)})
    np.testing.assert_allclose(gp[0].numpy(), [2.0 + 3 * np.cos(0.5), -2.0 + 4 * np.cos(1.0)])
    np.testing.assert_allclose(gp[1].numpy(), [0.5, 2.0])
    with pytest.raises(RuntimeError, match="pytree structure"):
        vjp_fn({"a": ca})
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        vjp_fn({"a": T(1.0), "b": (cb,)})
    out, vjp_fn, aux = func.vjp(lambda x: (x * 2, x + 1), x, has_aux=True)
    assert vjp_fn(T([1.0, 1.0]))[0].tolist() == [2.0, 2.0] and aux.tolist() == [1.5, 2.0]


def test_jvp_trees_and_has_aux():
    out, t = func.jvp(lambda p: {"s": p["x"] ** 2 * p["y"]}, ({"x": T([3.0]), "y": T([2.0])},),
                      ({"x": T([1.0]), "y": T([0.5])},))
    assert out["s"].tolist() == [18.0] and t["s"].tolist() == [12.0 + 4.5]
    out, t, aux = func.jvp(lambda x: (x.exp(), x * 3), (T([0.0]),), (T([2.0]),), has_aux=True)
    assert t.tolist() == [2.0] and aux.tolist() == [0.0]
    with pytest.raises(RuntimeError, match="tuple"):
        func.jvp(lambda x: x, T([1.0]), T([1.0]))


@pytest.mark.parametrize("jac", [func.jacrev, func.jacfwd])
def test_jacobians_of_trees_nest_output_then_input(jac):
    f = lambda p, x: {"lin": p["w"] @ x + p["b"], "sq": (x * x,)}
    j = jac(f, argnums=(0, 1))({"w": T(W), "b": T(B)}, T(X))
    jp, jx = j["lin"]
    np.testing.assert_allclose(jx.numpy(), W)
    np.testing.assert_allclose(jp["b"].numpy(), np.eye(2))
    expect_w = np.einsum("ij,k->ijk", np.eye(2), X)       # d(Wx)_i / dW_jk = δij x_k
    np.testing.assert_allclose(jp["w"].numpy(), expect_w)
    sq_p, sq_x = j["sq"][0]
    np.testing.assert_allclose(sq_x.numpy(), np.diag(2 * X))
    assert sq_p["w"].shape == (4, 2, 4) and not sq_p["w"].numpy().any()
    single = jac(lambda x: x.sin())(T(X))
    np.testing.assert_allclose(single.numpy(), np.diag(np.cos(X)))
    j, aux = jac(lambda x: (x * 2, {"n": x.sum()}), has_aux=True)(T(X))
    np.testing.assert_allclose(j.numpy(), 2 * np.eye(4))
    assert aux["n"].item() == pytest.approx(X.sum())


def test_hessian_of_a_tree_argument():
    f = lambda p: (p["a"] ** 2 * p["b"]).sum()
    h = func.hessian(f)({"a": T([1.0, 2.0]), "b": T([3.0, 4.0])})
    np.testing.assert_allclose(h["a"]["a"].numpy(), np.diag([6.0, 8.0]))
    np.testing.assert_allclose(h["a"]["b"].numpy(), np.diag([2.0, 4.0]))
    np.testing.assert_allclose(h["b"]["b"].numpy(), np.zeros((2, 2)))


def test_compositions_match_closed_forms():
    x = T(X)
    # vmap(grad): per-sample gradients of sum(sin(a_i * x))
    per = func.vmap(func.grad(lambda a, x: (a * x).sin().sum()), in_dims=(0, None))(T(A), x)
    np.testing.assert_allclose(per.numpy(), np.cos(A * X) * X, rtol=1e-12)
    # jvp(grad): Hessian-vector product of sum(x^4)
    v = T(np.arange(4.0))
    _, hv = func.jvp(func.grad(lambda t: (t ** 4).sum()), (x,), (v,))
    np.testing.assert_allclose(hv.numpy(), 12 * X ** 2 * np.arange(4.0), rtol=1e-12)
    # jacrev(jacfwd) and grad(grad(grad))
    h = func.jacrev(func.jacfwd(lambda t: (t ** 3).sum()))(x)
    np.testing.assert_allclose(h.numpy(), np.diag(6 * X), rtol=1e-12)
    g3 = func.grad(func.grad(func.grad(lambda t: t.sin())))(T(0.4))
    assert g3.item() == pytest.approx(-np.cos(0.4))
    # vmap(jacrev) over a batch equals the per-sample Jacobians
    jb = func.vmap(func.jacrev(lambda t: t.tanh() * t.sum()))(T(A))
    for i in range(3):
        t = np.tanh(A[i])
        np.testing.assert_allclose(jb[i].numpy(), np.diag((1 - t ** 2) * A[i].sum()) +
                                   t[:, None], rtol=1e-12)


def test_vmap_in_dims_out_dims_kwargs_and_options():
    f = lambda x, y, scale=1.0: (x * y).sum() * scale
    out = func.vmap(f, in_dims=(1, None), chunk_size=2)(T(A), T([1.0, 2.0, 3.0]), scale=2.0)
    np.testing.assert_allclose(out.numpy(), 2 * A.T @ [1.0, 2.0, 3.0])
    out = func.vmap(lambda x: x * 2, out_dims=1)(T(A))
    np.testing.assert_allclose(out.numpy(), 2 * A.T)
    with pytest.raises(RuntimeError, match="randomness"):
        func.vmap(f, randomness="sometimes")


def _mlp():
    E.set_seed(3)
    return nn.SequentialCell(nn.Dense(4, 3), nn.Tanh(), nn.Dense(3, 1))


def test_functional_call_swaps_and_restores_parameters():
    net = _mlp()
    before = {n: p for n, p in net.parameters_and_names()}
    params = {n: p.detach() * 2 for n, p in before.items()}
    x = T(A).astype(E.float32)
    got = func.functional_call(net, params, (x,))
    h = np.tanh(A @ params["0.weight"].numpy().T + params["0.bias"].numpy())
    np.testing.assert_allclose(got.numpy(), h @ params["2.weight"].numpy().T +
                               params["2.bias"].numpy(), rtol=1e-5)
    assert {n: p for n, p in net.parameters_and_names()} == before
    assert all(p is before[n] for n, p in net.parameters_and_names())
    # a partial dict keeps the other parameters; strict=True refuses it
    func.functional_call(net, {"2.bias": params["2.bias"]}, x)
    with pytest.raises(RuntimeError, match="missing"):
        func.functional_call(net, {"2.bias": params["2.bias"]}, x, strict=True)


def test_per_sample_gradients_through_functional_call_equal_a_loop():
    net = _mlp()
    params = {n: p.detach() for n, p in net.parameters_and_names()}
    xs, ys = T(A).astype(E.float32), T([0.1, -0.2, 0.3]).astype(E.float32)

    def sample_loss(p, x, y):
        return ((func.functional_call(net, p, (x.reshape(1, 4),)) - y) ** 2).sum()
    per = func.vmap(func.grad(sample_loss), in_dims=(None, 0, 0))(params, xs, ys)
    for i in range(3):
        one = func.grad(sample_loss)(params, xs[i], ys[i])
        for n in params:
            np.testing.assert_allclose(per[n][i].numpy(), one[n].numpy(), rtol=1e-5, atol=1e-7)


def test_functional_call_ties_shared_weights():
    shared = nn.Dense(2, 2)
    net = nn.SequentialCell(shared, shared)
    names = [n for n, _ in net.parameters_and_names()]
    assert names == ["0.weight", "0.bias"]
    w = T(np.eye(2) * 3).astype(E.float32)
    out = func.functional_call(net, {"0.weight": w, "0.bias": E.zeros(2)}, (E.ones(1, 2),))
    assert out.tolist() == [[9.0, 9.0]]


def test_stack_module_state_feeds_an_ensemble():
    models = [_mlp() for _ in range(2)]
    params, _ = func.stack_module_state(models)
    x = T(A).astype(E.float32)
    base = _mlp()
    out = func.vmap(lambda p: func.functional_call(base, p, (x,)))(params)
    for i, m in enumerate(models):
        np.testing.assert_allclose(out[i].numpy(), m(x).numpy(), rtol=1e-6)


# ------------------------------------------------------------ against torch.func

def test_matches_torch_func():
    torch = pytest.importorskip("torch")
    tf = torch.func

    def both(fn_e, fn_t, *arrays):
        return fn_e(*[T(a) for a in arrays]), fn_t(*[torch.tensor(a) for a in arrays])

    def close(e, t):
        le, lt = E.tree.leaves(e), E.tree.leaves(t) if not isinstance(t, torch.Tensor) else [t]
        assert len(le) == len(lt)
        for a, b in zip(le, lt):
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)

    f_e = lambda p, x: ((p["w"] @ x + p["b"]).tanh() ** 2).sum()
    f_t = lambda p, x: ((p["w"] @ x + p["b"]).tanh() ** 2).sum()
    pe, pt = {"w": T(W), "b": T(B)}, {"w": torch.tensor(W), "b": torch.tensor(B)}
    xe, xt = T(X), torch.tensor(X)
    close(func.grad(f_e, argnums=(0, 1))(pe, xe), tf.grad(f_t, argnums=(0, 1))(pt, xt))
    close(func.hessian(f_e)(pe, xe), tf.hessian(f_t)(pt, xt))
    g = lambda p, x: {"y": (p["w"] @ x).sin(), "z": p["b"] * x.sum()}
    close(func.jacrev(g, argnums=(0, 1))(pe, xe), tf.jacrev(g, argnums=(0, 1))(pt, xt))
    close(func.jacfwd(g)(pe, xe), tf.jacfwd(g)(pt, xt))
    e, t = both(func.vmap(func.grad(lambda a: a.exp().sum() * a[0])),
                tf.vmap(tf.grad(lambda a: a.exp().sum() * a[0])), A)
    close(e, t)


def test_make_functional_with_buffers_jvp_over_parameters():
    net = _mlp()
    fmodel, params, buffers = func.make_functional_with_buffers(net)
    x = T(A).astype(E.float32)
    tangents = tuple(E.ones(*p.shape) for p in params)
    out, t = func.jvp(lambda ps: fmodel(ps, buffers, x), (params,), (tangents,))
    np.testing.assert_allclose(out.numpy(), net(x).numpy(), rtol=1e-6)
    # the directional derivative along all-ones equals the finite difference of the model
    eps = 1e-3
    moved = tuple((p.astype(E.float64) + eps).astype(E.float32) for p in params)
    fd = (fmodel(moved, buffers, x).numpy() - fmodel(params, buffers, x).numpy()) / eps
    np.testing.assert_allclose(t.numpy(), fd, rtol=2e-2, atol=2e-3)
    fmodel2, params2 = func.make_functional(net, disable_autograd_tracking=True)
    assert not any(p.requires_grad for p in params2)
    np.testing.assert_allclose(fmodel2(params2, x).numpy(), net(x).numpy(), rtol=1e-6)


def test_vjp_jvp_and_tuple_hessians_match_torch_func():
    torch = pytest.importorskip("torch")
    tf = torch.func

    def f(p, x):
        return {"y": (p["w"] @ x).sin() * p["b"], "z": (x ** 2).sum()}
    pe, pt = {"w": T(W), "b": T(B)}, {"w": torch.tensor(W), "b": torch.tensor(B)}
    xe, xt = T(X), torch.tensor(X)
    cy = RNG.standard_normal(2)
    (out_e, fn_e), (out_t, fn_t) = func.vjp(f, pe, xe), tf.vjp(f, pt, xt)
    ge = fn_e({"y": T(cy), "z": T(1.5)})
    gt = fn_t({"y": torch.tensor(cy), "z": torch.tensor(1.5, dtype=torch.float64)})
    for a, b in zip(E.tree.leaves(ge), torch.utils._pytree.tree_leaves(gt)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    tp = {"w": np.ones_like(W), "b": np.arange(2.0)}
    _, te = func.jvp(f, (pe, xe), ({k: T(v) for k, v in tp.items()}, T(np.ones(4))))
    _, tt = tf.jvp(f, (pt, xt), ({k: torch.tensor(v) for k, v in tp.items()},
                                 torch.ones(4, dtype=torch.float64)))
    for k in ("y", "z"):
        np.testing.assert_allclose(te[k].numpy(), tt[k].numpy(), rtol=1e-12)
    g = lambda a, b: ((a[:, None] * b[None, :]).tanh()).sum()
    he = func.hessian(g, argnums=(0, 1))(T(X), T(B))
    ht = tf.hessian(g, argnums=(0, 1))(xt, torch.tensor(B))
    for i in range(2):
        for j in range(2):
            np.testing.assert_allclose(he[i][j].numpy(), ht[i][j].numpy(), rtol=1e-10, atol=1e-12)
