"""vjp / jvp / jacrev / jacfwd / hessian against closed forms, finite differences and
each other; batching rules are checked to be taken (no per-row fallback)."""
import numpy as np
import pytest

import eagerad
from eagerad import functional as F
from eagerad import ops

f64 = eagerad.float64
X0 = np.array([0.3, -0.7, 1.2])
A = np.arange(12.0).reshape(4, 3) / 10


def T(a):
    return eagerad.tensor(np.asarray(a, dtype=np.float64), dtype=f64)


def fd_jacobian(f, x0, eps=1e-6):
    """Central differences in float64: shape out.shape + in.shape."""
    cols = []
    for e in np.eye(x0.size):
        e = e.reshape(x0.shape)
        cols.append((f(T(x0 + eps * e)).numpy() - f(T(x0 - eps * e)).numpy()) / (2 * eps))
    return np.moveaxis(np.stack(cols), 0, -1).reshape(cols[0].shape + x0.shape)


FUNCTIONS = {
    "elementwise": lambda t: t.sin() * t + t.exp(),
    "broadcasting": lambda t: (t.reshape(3, 1) * t + 1.0).tanh(),
    "indexing": lambda t: t[[2, 0, 0]] * t[1:].sum(),
    "reductions": lambda t: (t * t).sum() + t.max() + ops.logsumexp(t) + t.mean(),
    "matmul": lambda t: (T(A) @ t).sigmoid(),
    "softmax_concat": lambda t: ops.softmax(ops.concat([t, t * 2])),
    "transpose": lambda t: (t.reshape(3, 1).broadcast_to((3, 2)).T * t[:2].reshape(2, 1)).sum(axis=1),
    "vector_matmul": lambda t: t @ T(A.T) @ T(A) * t,
    "log_softmax_rows": lambda t: ops.log_softmax(t.reshape(3, 1) * T(A.T), axis=0),
}


@pytest.fixture
def no_fallback(monkeypatch):
    """Fail if a Jacobian loops over rows where an op declares a batching rule (Jacobians
    are one batched engine walk; only ops without a rule may loop over the batch)."""
    from eagerad.ops import registry
    loop = registry.loop_batch

    def refuse(op, *args, **kwargs):
        if op.batch is not None or op.elementwise:
            raise AssertionError(f"per-row fallback used for {op.name}, which has a rule")
        return loop(op, *args, **kwargs)
    monkeypatch.setattr(registry, "loop_batch", refuse)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_jacobians_match_finite_differences(name, no_fallback):
    f = FUNCTIONS[name]
    expected = fd_jacobian(f, X0)
    rev = F.jacrev(f)(T(X0)).numpy()
    fwd = F.jacfwd(f)(T(X0)).numpy()
    assert rev.shape == expected.shape
    np.testing.assert_allclose(rev, expected, atol=1e-7)
    np.testing.assert_allclose(fwd, rev, atol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_hessian_is_symmetric_and_matches_jacobian_of_gradient(name, no_fallback):
    f = FUNCTIONS[name]

    def scalar(t):
        return (f(t) * T(np.linspace(0.5, 1.5, f(T(X0)).size).reshape(f(T(X0)).shape))).sum()
    h = F.hessian(scalar)(T(X0)).numpy()
    grad_fd = fd_jacobian(lambda t: F.jacrev(scalar)(t), X0, eps=1e-5)
    np.testing.assert_allclose(h, h.T, atol=1e-10)
    np.testing.assert_allclose(h, grad_fd, atol=1e-6)
    np.testing.assert_allclose(F.jacrev(F.jacrev(scalar))(T(X0)).numpy(), h, atol=1e-10)


def test_closed_forms():
    x = T(X0)
    np.testing.assert_allclose(F.jacrev(lambda t: t.sin())(x).numpy(), np.diag(np.cos(X0)))
    np.testing.assert_allclose(F.jacfwd(lambda t: t.exp())(x).numpy(), np.diag(np.exp(X0)))
    # f = sum(x^3) -> H = diag(6x);  f = (a.x)^2 -> H = 2 a a^T
    np.testing.assert_allclose(F.hessian(lambda t: (t ** 3).sum())(x).numpy(), np.diag(6 * X0))
    a = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(F.hessian(lambda t: ((t * T(a)).sum()) ** 2)(x).numpy(),
                               2 * np.outer(a, a), atol=1e-12)
    np.testing.assert_allclose(F.jacrev(lambda t: T(A) @ t)(x).numpy(), A)


def test_hvp_forward_over_reverse_equals_hessian_times_v():
    a = T(A)

    def f(t):
        return ((a @ t).tanh() ** 2).sum() + t.max() * t.sum()
    x, v = T(X0), T([0.2, -1.0, 0.7])

    _, hvp = F.jvp(lambda t: F.jacrev(f)(t), (x,), (v,))
    h = F.hessian(f)(x).numpy()
    np.testing.assert_allclose(hvp.numpy(), h @ v.numpy(), atol=1e-10)
    # through the engine's own backward (tanh has a fused fast path that must keep tangents)
    _, hvp2 = F.jvp(lambda t: F.vjp(f, t)[1](T(1.0))[0], (x,), (v,))
    np.testing.assert_allclose(hvp2.numpy(), h @ v.numpy(), atol=1e-10)


def test_saved_outputs_carry_tangents():
    """exp saves its output; forward-over-reverse reads the saved output's tangent."""
    x = T([0.5])
    _, t = F.jvp(lambda s: F.vjp(lambda u: u.exp(), s)[1](T([1.0]))[0], (x,), (T([1.0]),))
    assert t.item() == pytest.approx(np.exp(0.5))


def test_vjp_reusable_and_positions_are_separate_variables():
    x = T([1.0, 2.0])
    out, f_vjp = F.vjp(lambda a, b: a * b + a, x, x)
    np.testing.assert_allclose(out.numpy(), [2.0, 6.0])
    for _ in range(2):
        ga, gb = f_vjp(T([1.0, 10.0]))
        np.testing.assert_allclose(ga.numpy(), [2.0, 30.0])
        np.testing.assert_allclose(gb.numpy(), [1.0, 20.0])
    _, f_vjp = F.vjp(lambda a, b: a * 2, x, T([5.0]))
    assert f_vjp(T([1.0, 1.0]))[1].tolist() == [0.0]


def test_vjp_and_jvp_has_aux_and_errors():
    x = T([1.0, 2.0])
    out, f_vjp, aux = F.vjp(lambda t: (t * 3, t.sum()), x, has_aux=True)
    assert aux.item() == 3.0 and f_vjp(T([1.0, 1.0]))[0].tolist() == [3.0, 3.0]
    out, tan, aux = F.jvp(lambda t: (t ** 2, "note"), x, T([1.0, 0.0]), has_aux=True)
    assert tan.tolist() == [2.0, 0.0] and aux == "note"
    with pytest.raises(ValueError, match="shape"):
        F.jvp(lambda t: t, x, T([1.0]))
    with pytest.raises(ValueError, match="shape"):
        F.vjp(lambda t: t, x)[1](T([1.0]))
    with pytest.raises(ValueError, match="grad_position"):
        F.jacrev(lambda t: t, grad_position=3)(x)
    with pytest.raises(TypeError, match="floating"):
        F.jacfwd(lambda t: t)(eagerad.tensor([1, 2]))


def test_tuple_positions_and_outputs():
    x, y = T([1.0, 2.0]), T([3.0])

    def f(a, b):
        return a * b, (a ** 2).sum()
    for jac in (F.jacrev, F.jacfwd):
        (j00, j01), (j10, j11) = jac(f, grad_position=(0, 1))(x, y)
        np.testing.assert_allclose(j00.numpy(), 3 * np.eye(2))
        np.testing.assert_allclose(j01.numpy(), [[1.0], [2.0]])
        np.testing.assert_allclose(j10.numpy(), [2.0, 4.0])
        np.testing.assert_allclose(j11.numpy(), [0.0])
    (hxx, hxy), (hyx, hyy) = F.hessian(lambda a, b: (a * a * b).sum(), (0, 1))(x, y)
    np.testing.assert_allclose(hxx.numpy(), 6 * np.eye(2))
    np.testing.assert_allclose(hxy.numpy(), [[2.0], [4.0]])
    np.testing.assert_allclose(hyx.numpy(), [[2.0, 4.0]])
    np.testing.assert_allclose(hyy.numpy(), [[0.0]])
    jac, aux = F.jacrev(lambda a: (a.sin(), a.sum()), has_aux=True)(x)
    assert jac.shape == (2, 2) and aux.item() == 3.0


def test_matrix_input_and_scalar_output_shapes(no_fallback):
    x = T(np.arange(6.0).reshape(2, 3) / 6)
    j = F.jacrev(lambda t: t.sum(axis=0))(x)
    assert j.shape == (3, 2, 3)
    np.testing.assert_allclose(j.numpy(), np.stack([np.tile(e, (2, 1)) for e in np.eye(3)]))
    np.testing.assert_allclose(F.jacfwd(lambda t: t.sum(axis=0))(x).numpy(), j.numpy())
    assert F.hessian(lambda t: (t ** 2).sum())(x).shape == (2, 3, 2, 3)


def test_large_elementwise_jacobian_is_diagonal_and_batched(no_fallback):
    x = T(np.linspace(-1, 1, 300))
    expected = np.diag(np.cos(x.numpy()) * 2)
    np.testing.assert_allclose(F.jacrev(lambda t: t.sin() * 2)(x).numpy(), expected)
    np.testing.assert_allclose(F.jacfwd(lambda t: t.sin() * 2)(x).numpy(), expected)


def test_custom_function_falls_back_per_row():
    class Square(eagerad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * g * x

        @staticmethod
        def jvp(ctx, t):
            (x,) = ctx.saved_tensors
            return 2 * t * x
    x = T([1.0, 2.0])
    f = lambda t: Square.apply(t).sum() * t  # noqa: E731
    expected = fd_jacobian(f, x.numpy())
    np.testing.assert_allclose(F.jacrev(f)(x).numpy(), expected, atol=1e-7)
    np.testing.assert_allclose(F.jacfwd(f)(x).numpy(), expected, atol=1e-7)


def test_every_differentiable_op_has_a_jvp_rule():
    for name, op in ops.OPS.items():
        for i in range(min(len(op.vjp), 8)):
            if op.vjp[i] is not None:
                assert i < len(op.jvp) and op.jvp[i] is not None, f"{name} arg {i} lacks a jvp rule"


def test_top_level_exports():
    assert eagerad.jacrev is F.jacrev and eagerad.hessian is F.hessian and eagerad.vjp is F.vjp


def test_vjp_broadcasts_a_scalar_cotangent_as_mindspore():
    from eagerad import func
    w = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=eagerad.float64)
    x = eagerad.tensor([0.5, -1.0], dtype=eagerad.float64)
    _, vjp_fn = eagerad.vjp(lambda t: w @ t, x)
    assert vjp_fn(eagerad.tensor(2.0, dtype=eagerad.float64))[0].tolist() == [8.0, 12.0]   # 2 * (1, 1) @ w
    with pytest.raises(ValueError, match=r"v\[0\] has shape \(1,\)"):
        vjp_fn(eagerad.tensor([2.0], dtype=eagerad.float64))
    _, torch_style = func.vjp(lambda t: w @ t, x)      # torch.func.vjp refuses it, as torch
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        torch_style(eagerad.tensor(2.0, dtype=eagerad.float64))
