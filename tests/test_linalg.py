"""eagerad.linalg: values against numpy, gradients of the public functions to second
(and third) order by finite differences, batching rules against a loop, PyTorch's
conventions at degenerate inputs, and clear errors.  (The primitives' own gradcheck
and jvp cases run in test_gradcheck_ops.py.)"""
import numpy as np
import pytest

import eagerad
from eagerad import linalg
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import OPS

RNG = np.random.default_rng(1234)


def t64(a, grad=True):
    return eagerad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def spd(*shape):
    x = RNG.standard_normal(shape)
    return x @ np.swapaxes(x, -1, -2) + shape[-1] * np.eye(shape[-1])


def general(*shape):
    return RNG.standard_normal(shape) + shape[-1] * np.eye(shape[-1])


def both_orders(fn, *arrays):
    xs = tuple(t64(a) for a in arrays)
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)

# ------------------------------------------------------------------ values


def test_values_match_numpy():
    a, s, b = general(2, 3, 3), spd(2, 3, 3), RNG.standard_normal((2, 3, 2))
    A, S, Bt = t64(a, False), t64(s, False), t64(b, False)
    close = np.testing.assert_allclose
    close(linalg.inv(A).numpy(), np.linalg.inv(a), rtol=1e-12)
    close(linalg.solve(A, Bt).numpy(), np.linalg.solve(a, b), rtol=1e-12)
    close(linalg.det(A).numpy(), np.linalg.det(a), rtol=1e-12)
    sign, logabs = linalg.slogdet(A)
    close(sign.numpy(), np.linalg.slogdet(a)[0])
    close(logabs.numpy(), np.linalg.slogdet(a)[1], rtol=1e-12)
    close(linalg.cholesky(S).numpy(), np.linalg.cholesky(s), rtol=1e-12)
    close(linalg.cholesky(S, upper=True).numpy(), np.swapaxes(np.linalg.cholesky(s), -1, -2))
    w, v = linalg.eigh(S)
    close(w.numpy(), np.linalg.eigvalsh(s), rtol=1e-12)
    close(((v * w.unsqueeze(-2)) @ v.mT).numpy(), s, rtol=1e-10)
    close(linalg.eigvalsh(S).numpy(), np.linalg.eigvalsh(s), rtol=1e-12)
    close(linalg.svdvals(Bt).numpy(), np.linalg.svd(b, compute_uv=False), rtol=1e-12)
    close(linalg.pinv(Bt).numpy(), np.linalg.pinv(b), rtol=1e-10, atol=1e-12)
    close(linalg.matrix_power(A, -3).numpy(), np.linalg.matrix_power(a, -3), rtol=1e-10)
    close(linalg.matrix_power(A, 5).numpy(), np.linalg.matrix_power(a, 5), rtol=1e-12)
    close(linalg.matrix_power(A, 0).numpy(), np.broadcast_to(np.eye(3), (2, 3, 3)))
    x = b.reshape(3, 4)
    for ord_ in (None, 1, 2, np.inf, -np.inf, 3, 0.5, 0):
        close(linalg.norm(t64(x[0], False), ord_).numpy(), np.linalg.norm(x[0], ord_), rtol=1e-12)
    for ord_ in (None, "fro", "nuc", 1, -1, 2, -2, np.inf, -np.inf):
        close(linalg.norm(t64(x, False), ord_).numpy(), np.linalg.norm(x, ord_), rtol=1e-12)
    close(linalg.norm(t64(b, False), axis=(0, 2), keepdims=True).numpy(),
          np.linalg.norm(b, axis=(0, 2), keepdims=True), rtol=1e-12)
    close(linalg.norm(t64(b, False), 2, dim=1, keepdim=True).numpy(),
          np.linalg.norm(b, 2, axis=1, keepdims=True), rtol=1e-12)
    close(linalg.vector_norm(t64(b, False)).numpy(), np.linalg.norm(b.ravel()), rtol=1e-12)
    close(linalg.matrix_norm(t64(b, False), "nuc").numpy(), np.linalg.norm(b, "nuc", axis=(-2, -1)),
          rtol=1e-12)


def test_factorisations_reconstruct_their_input():
    b = RNG.standard_normal((2, 4, 3))
    B = t64(b, False)
    for full in (False, True):
        U, S, Vh = linalg.svd(B, full_matrices=full)
        k = 3
        np.testing.assert_allclose((U[..., :, :k] * S.unsqueeze(-2) @ Vh[..., :k, :]).numpy(), b,
                                   atol=1e-12)
        eye = np.eye(U.shape[-1])
        np.testing.assert_allclose((U.mT @ U).numpy(), np.broadcast_to(eye, (2,) + eye.shape),
                                   atol=1e-12)
    for mode in ("reduced", "complete"):
        Q, R = linalg.qr(B, mode=mode)
        np.testing.assert_allclose((Q @ R).numpy(), b, atol=1e-12)
        np.testing.assert_allclose(np.triu(R.numpy()), R.numpy())
    assert linalg.qr(B, mode="r").shape == (2, 3, 3)
    wide = RNG.standard_normal((3, 5))
    Q, R = linalg.qr(t64(wide, False))
    np.testing.assert_allclose((Q @ R).numpy(), wide, atol=1e-12)
    U, S, Vh = linalg.svd(t64(wide, False))
    assert U.shape == (3, 3) and Vh.shape == (5, 5)
    np.testing.assert_allclose((Vh @ Vh.mT).numpy(), np.eye(5), atol=1e-12)


def test_matrix_exp_matches_closed_forms():
    # a rotation generator: exp([[0, -t], [t, 0]]) = [[cos t, -sin t], [sin t, cos t]]
    for t in (0.3, 4.0, 40.0):          # 40: many squarings
        got = linalg.matrix_exp(t64([[0.0, -t], [t, 0.0]], False)).numpy()
        np.testing.assert_allclose(got, [[np.cos(t), -np.sin(t)], [np.sin(t), np.cos(t)]],
                                   atol=1e-11)
    # nilpotent: exp(N) = I + N + N^2 / 2
    n = np.array([[0.0, 1.0, 2.0], [0.0, 0.0, 3.0], [0.0, 0.0, 0.0]])
    np.testing.assert_allclose(linalg.matrix_exp(t64(n, False)).numpy(),
                               np.eye(3) + n + n @ n / 2, atol=1e-13)


def test_lstsq_and_multi_dot():
    a, b = RNG.standard_normal((5, 3)), RNG.standard_normal((5, 2))
    sol, res, rank, sv = linalg.lstsq(t64(a, False), t64(b, False))
    ref = np.linalg.lstsq(a, b, rcond=None)
    np.testing.assert_allclose(sol.numpy(), ref[0], rtol=1e-10)
    np.testing.assert_allclose(res.numpy(), ref[1], rtol=1e-10)
    assert int(rank.item()) == ref[2]
    np.testing.assert_allclose(sv.numpy(), ref[3], rtol=1e-12)
    mats = [RNG.standard_normal(s) for s in ((4,), (4, 6), (6, 2), (2, 5), (5,))]
    np.testing.assert_allclose(linalg.multi_dot([t64(m, False) for m in mats]).numpy(),
                               np.linalg.multi_dot(mats), rtol=1e-12)


def test_triangular_and_cholesky_solves():
    low = np.tril(general(3, 3))
    b = RNG.standard_normal((3, 2))
    L, Bt = t64(low + np.triu(np.ones((3, 3)), 1) * 7, False), t64(b, False)   # junk above
    np.testing.assert_allclose(linalg.solve_triangular(L, Bt, upper=False).numpy(),
                               np.linalg.solve(low, b), rtol=1e-12)
    np.testing.assert_allclose(linalg.solve_triangular(L, Bt, lower=True).numpy(),
                               np.linalg.solve(low, b), rtol=1e-12)
    unit = np.tril(low, -1) + np.eye(3)
    np.testing.assert_allclose(linalg.solve_triangular(L, Bt, upper=False, unitriangular=True)
                               .numpy(), np.linalg.solve(unit, b), rtol=1e-12)
    right = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(
        linalg.solve_triangular(L, t64(right, False), upper=False, left=False).numpy(),
        right @ np.linalg.inv(low), rtol=1e-10)
    s = spd(3, 3)
    c = linalg.cholesky(t64(s, False))
    np.testing.assert_allclose(linalg.cho_solve((c, True), Bt).numpy(), np.linalg.solve(s, b),
                               rtol=1e-10)
    np.testing.assert_allclose(linalg.cho_solve((c.mT, False), Bt).numpy(),
                               np.linalg.solve(s, b), rtol=1e-10)
    np.testing.assert_allclose(linalg.cholesky_solve(Bt, c).numpy(), np.linalg.solve(s, b),
                               rtol=1e-10)
    np.testing.assert_allclose(linalg.solve(t64(s, False), t64(right, False), left=False).numpy(),
                               right @ np.linalg.inv(s), rtol=1e-10)


def test_uplo_reads_one_triangle_like_numpy():
    s = spd(3, 3)
    junk = s + np.triu(np.ones((3, 3)), 1) * 5           # upper triangle overwritten
    np.testing.assert_allclose(linalg.eigvalsh(t64(junk, False)).numpy(), np.linalg.eigvalsh(s),
                               rtol=1e-12)
    np.testing.assert_allclose(linalg.cholesky(t64(junk, False)).numpy(), np.linalg.cholesky(s),
                               rtol=1e-12)
    junk_low = s + np.tril(np.ones((3, 3)), -1) * 5
    np.testing.assert_allclose(linalg.eigvalsh(t64(junk_low, False), UPLO="U").numpy(),
                               np.linalg.eigvalsh(junk_low, UPLO="U"), rtol=1e-12)

# ------------------------------------------------------------------ gradients


def test_gradients_of_public_functions_to_second_order():
    a, s, b = general(2, 3, 3), spd(3, 3), RNG.standard_normal((3, 2))
    x = RNG.standard_normal((4, 3))
    both_orders(lambda m: linalg.cholesky(m @ m.mT + 3 * eagerad.eye(3, dtype=eagerad.float64)), x[:3])
    # cholesky and eigh read one triangle but differentiate as PyTorch, with respect to a
    # symmetric matrix: checked on symmetric inputs (PyTorch's gradcheck does the same)
    both_orders(lambda m, r: linalg.cho_solve(linalg.cholesky(m + m.mT), r), s, b)
    both_orders(lambda m, r: linalg.solve(m, r), a, b[:, 0])       # vector right-hand side
    both_orders(lambda m, r: linalg.solve(m, r, left=False), a[0], b.T)
    both_orders(lambda m, r: linalg.solve_triangular(m, r, lower=True, left=False), a[0], b.T)
    both_orders(linalg.logdet, s)
    both_orders(lambda m: linalg.slogdet(m)[1], a)
    both_orders(lambda m: linalg.matrix_power(m, -2), a[0])
    both_orders(lambda m: linalg.matrix_power(m, 3), a)
    both_orders(lambda m: linalg.pinv(m), x)
    both_orders(lambda m, r: linalg.lstsq(m, r).solution, x, RNG.standard_normal((4, 2)))
    both_orders(lambda p, q, r: linalg.multi_dot([p, q, r]), x, a[0], b)
    # sign-free functions of the eigen/singular vectors (which are defined up to sign)
    both_orders(lambda m: (lambda w, v: v * v * w.unsqueeze(-2))(*linalg.eigh(m + m.mT)), s)
    both_orders(lambda m: (lambda u, sv, vh: (u * sv.unsqueeze(-2)) @ vh)(
        *linalg.svd(m, full_matrices=False)), x)
    both_orders(lambda m: (lambda u, sv, vh: u[..., :, :1] * vh[..., :1, :])(
        *linalg.svd(m, full_matrices=True)), x.T)
    both_orders(lambda m: (lambda q, r: q.sum() + (r * r).sum())(*linalg.qr(m)), x)
    both_orders(lambda m: linalg.qr(m, mode="r") ** 2, x)


@pytest.mark.parametrize("ord_", [None, 1, 2, np.inf, -np.inf, 3, 0.5, "fro", "nuc", -2, -1])
def test_norm_gradients(ord_):
    x = RNG.uniform(0.2, 1.0, (3, 4)) * RNG.choice((-1.0, 1.0), (3, 4))
    if isinstance(ord_, str) or ord_ in (-2, -1):
        both_orders(lambda m: linalg.norm(m, ord_), x)
        both_orders(lambda m: linalg.matrix_norm(m.reshape(2, 3, 2), ord_, dim=(0, 2), keepdim=True), x)
    else:
        both_orders(lambda m: linalg.norm(m, ord_, axis=1), x)
        both_orders(lambda m: linalg.vector_norm(m, 2 if ord_ is None else ord_, dim=0), x)


def test_third_order_of_det_and_logdet():
    """det of a 3x3 matrix is cubic: its third derivative d^3 det / dA_00 dA_11 dA_22 is 1."""
    A = t64(general(3, 3))
    (g,) = eagerad.autograd.grad(linalg.det(A), A, create_graph=True)
    (h,) = eagerad.autograd.grad(g[0, 0], A, create_graph=True)
    (k,) = eagerad.autograd.grad(h[1, 1], A)
    expected = np.zeros((3, 3))
    expected[2, 2] = 1.0
    np.testing.assert_allclose(k.numpy(), expected, atol=1e-10)
    # d/dA log det A = A^-T;  third derivative by finite differences of the second
    s = t64(spd(2, 2))
    assert gradgradcheck(lambda m: eagerad.autograd.grad(linalg.logdet(m), m,
                                                         create_graph=True)[0], (s,))


def test_hessian_of_eigvalsh_and_forward_mode():
    s = spd(3, 3)
    fn = lambda m: linalg.eigvalsh(m).max()      # noqa: E731
    h = eagerad.hessian(fn)(t64(s, False))
    assert h.shape == (3, 3, 3, 3) and np.isfinite(h.numpy()).all()
    out, tangent = eagerad.jvp(lambda m: linalg.logdet(m), (t64(s, False),),
                               (t64(np.eye(3), False),))
    np.testing.assert_allclose(tangent.numpy(), np.trace(np.linalg.inv(s)), rtol=1e-10)

# ------------------------------------------------------------------ degenerate inputs


def test_norm_gradient_at_zero_is_zero():
    for ord_ in (2, 1, 3, np.inf):
        x = t64(np.zeros(3))
        linalg.vector_norm(x, ord_).backward()
        np.testing.assert_array_equal(x.grad.numpy(), np.zeros(3))
    x = t64(np.zeros((2, 2)))
    (g,) = eagerad.autograd.grad(linalg.norm(x), x, create_graph=True)
    (h,) = eagerad.autograd.grad(g.sum(), x)
    # no second derivative exists at 0: nan, as PyTorch's (its OpInfo subgradients_at_zero)
    assert np.isnan(h.numpy()).all() and not g.numpy().any()


def test_det_gradient_at_a_singular_matrix_is_the_cofactor_matrix():
    a = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])     # rank 2
    A = t64(a)
    linalg.det(A).backward()
    cof = np.array([[np.linalg.det(np.delete(np.delete(a, i, 0), j, 1)) * (-1) ** (i + j)
                     for j in range(3)] for i in range(3)])
    np.testing.assert_allclose(A.grad.numpy(), cof, atol=1e-12)
    Z = t64(np.zeros((3, 3)))
    linalg.det(Z).backward()
    np.testing.assert_array_equal(Z.grad.numpy(), np.zeros((3, 3)))


def test_repeated_eigenvalues_follow_pytorch():
    A = t64(np.diag([2.0, 2.0, 5.0]))
    linalg.eigvalsh(A).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), np.eye(3), atol=1e-12)   # finite (d tr A / dA)
    A = t64(np.diag([2.0, 2.0, 5.0]))
    w, v = linalg.eigh(A)
    (v[0, 0] * v[1, 0]).backward()
    assert not np.isfinite(A.grad.numpy()).all()      # inf/nan, as torch.linalg.eigh


def test_cholesky_gradient_of_a_leaf_is_pytorchs_symmetric_one():
    s = spd(3, 3)
    A = t64(s)
    linalg.cholesky(A).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), A.grad.numpy().T, atol=1e-14)
    # the gradient with respect to the symmetric matrix, as through (X + X^T) / 2
    X = t64(s)
    linalg.cholesky(0.5 * (X + X.mT)).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), X.grad.numpy(), atol=1e-12)

# ------------------------------------------------------------------ batching rules


BATCHED = [("inv", [general(4, 3, 3)], {}), ("det", [general(4, 3, 3)], {}),
           ("logabsdet", [general(4, 3, 3)], {}), ("cofactor", [general(4, 3, 3)], {}),
           ("cholesky", [spd(4, 3, 3)], {}), ("eigh", [spd(4, 3, 3)], {}),
           ("eigvalsh", [spd(4, 3, 3)], {}), ("svd", [RNG.standard_normal((4, 3, 2))], {}),
           ("svdvals", [RNG.standard_normal((4, 2, 3))], {}),
           ("qr", [RNG.standard_normal((4, 3, 2))], {}), ("matrix_exp", [general(4, 2, 2)], {}),
           ("solve", [general(4, 3, 3), RNG.standard_normal((4, 3, 2))], {}),
           ("solve_triangular", [general(4, 3, 3), RNG.standard_normal((4, 3, 2))],
            {"upper": True, "unitriangular": False}),
           ("vector_norm", [RNG.standard_normal((4, 3, 2))], {"ord": 2.0, "axes": (1,),
                                                               "keepdims": False})]


@pytest.mark.parametrize("name,arrays,kw", BATCHED, ids=[b[0] for b in BATCHED])
@pytest.mark.parametrize("where_", ["first", "middle", "one_unbatched"])
def test_batching_rule_matches_a_loop(name, arrays, kw, where_):
    op = OPS[name]
    if where_ == "one_unbatched" and len(arrays) == 1:
        pytest.skip("single operand")
    loop = [op(*[t64(a[i], False) for a in arrays], **kw).numpy() for i in range(4)]
    if where_ == "first":
        args, bdims = [t64(a, False) for a in arrays], [0] * len(arrays)
    elif where_ == "middle":
        args = [t64(np.moveaxis(a, 0, 1), False) for a in arrays]
        bdims = [1] * len(arrays)
    else:      # the first operand shared (not batched): the loop uses its element 0
        args = [t64(arrays[0][0], False)] + [t64(a, False) for a in arrays[1:]]
        bdims = [None] + [0] * (len(arrays) - 1)
        loop = [op(t64(arrays[0][0], False), *[t64(a[i], False) for a in arrays[1:]], **kw)
                .numpy() for i in range(4)]
    out, out_bdim = op.batch(args, bdims, **kw)
    got = np.moveaxis(out.numpy(), out_bdim, 0)
    np.testing.assert_allclose(got, np.stack(loop), rtol=1e-10, atol=1e-12)

# ------------------------------------------------------------------ errors


def test_bad_input_gets_clear_errors():
    with pytest.raises(ValueError, match=r"square.*\(2, 3\)"):
        linalg.inv(eagerad.ones(2, 3))
    with pytest.raises(ValueError, match=r"square.*\(3,\)"):
        linalg.det(eagerad.ones(3))
    with pytest.raises(TypeError, match="floating-point.*int64"):
        linalg.cholesky(eagerad.tensor([[1, 0], [0, 1]]))
    with pytest.raises(ValueError, match=r"A of shape \(3, 3\) and B of shape \(2,\)"):
        linalg.solve(eagerad.eye(3), eagerad.ones(2))
    with pytest.raises(ValueError, match="batch dimensions"):
        linalg.solve(eagerad.ones(2, 3, 3) + eagerad.eye(3), eagerad.ones(4, 3, 1))
    with pytest.raises(RuntimeError, match="singular"):
        linalg.inv(eagerad.tensor([[1.0, 2.0], [2.0, 4.0]]))
    with pytest.raises(RuntimeError, match="singular"):
        linalg.solve(eagerad.zeros(2, 2), eagerad.ones(2))
    with pytest.raises(RuntimeError, match="positive-definite"):
        linalg.cholesky(eagerad.tensor([[1.0, 2.0], [2.0, 1.0]]))
    with pytest.raises(ValueError, match="UPLO"):
        linalg.eigh(eagerad.eye(2), UPLO="X")
    with pytest.raises(ValueError, match="ord"):
        linalg.norm(eagerad.ones(2, 2), "bad")
    with pytest.raises(TypeError, match="int"):
        linalg.matrix_power(eagerad.eye(2), 1.5)
    with pytest.raises(RuntimeError, match="not differentiable"):
        linalg.qr(eagerad.ones(3, 2, requires_grad=True), mode="complete")
    with pytest.raises(ValueError, match="not aligned"):
        linalg.multi_dot([eagerad.ones(2, 3), eagerad.ones(2, 3)])


def test_tensor_methods_and_ops_names():
    A = t64([[4.0, 2.0], [2.0, 3.0]], False)
    assert A.det().item() == pytest.approx(8.0)
    np.testing.assert_allclose(A.inverse().numpy(), np.linalg.inv(A.numpy()))
    np.testing.assert_allclose(A.cholesky().numpy(), np.linalg.cholesky(A.numpy()))
    assert A.logdet().item() == pytest.approx(np.log(8.0))
    assert A.slogdet().logabsdet.item() == pytest.approx(np.log(8.0))
    np.testing.assert_allclose(A.matrix_power(2).numpy(), A.numpy() @ A.numpy())
    assert eagerad.ops.det is linalg.det and eagerad.ops.inverse is linalg.inv
    assert A.matrix_exp().shape == (2, 2)


def test_empty_batches_and_matrices():
    for fn in (linalg.inv, linalg.det, linalg.cholesky, linalg.eigvalsh, linalg.svdvals,
               linalg.matrix_exp, lambda m: linalg.eigh(m)[1], lambda m: linalg.qr(m)[0]):
        x = t64(np.zeros((0, 2, 2)))
        out = fn(x)
        assert out.shape[0] == 0
        out.sum().backward()
        assert x.grad.shape == (0, 2, 2)
    assert linalg.det(eagerad.ones(2, 0, 0)).tolist() == [1.0, 1.0]


def test_matrix_exp_of_a_strided_stack_is_computed_per_matrix():
    a = np.random.default_rng(3).normal(size=(2, 2, 2, 3)).transpose(3, 0, 1, 2)  # non-contiguous
    got = eagerad.linalg.matrix_exp(eagerad.tensor(a)).numpy()
    for idx in np.ndindex(a.shape[:-2]):
        m, term, total = a[idx], np.eye(2), np.eye(2)
        for k in range(1, 30):
            term = term @ m / k
            total = total + term
        np.testing.assert_allclose(got[idx], total, rtol=1e-12, atol=1e-13)


def test_wide_qr_gradient_matches_pytorch():
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(4).standard_normal((2, 3, 5))
    w = np.random.default_rng(5).standard_normal((2, 3, 5))
    A = eagerad.tensor(a, requires_grad=True)
    Q, R = linalg.qr(A)
    ((Q * Q[..., :1]).sum() + (R * eagerad.tensor(w)).sum()).backward()
    At = torch.tensor(a, requires_grad=True)
    Qt, Rt = torch.linalg.qr(At)
    ((Qt * Qt[..., :1]).sum() + (Rt * torch.tensor(w)).sum()).backward()
    np.testing.assert_allclose(A.grad.numpy(), At.grad.numpy(), rtol=1e-10, atol=1e-12)
