"""The linear algebra PyTorch's op database asks for: LU (factor, unpack, solve),
Householder products, the ``*_ex`` variants, tensorinv/tensorsolve, cond, vander,
vecdot, lstsq's drivers, Hermitian pinv and PyTorch's gradient conventions (symmetric
cholesky/eigh gradients, the norm's derivatives at 0).  Closed forms, numpy and
float64 gradchecks to second order; PyTorch where it is installed."""
import numpy as np
import pytest

import eagerad
from eagerad import linalg
from eagerad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(20)


def t64(a, grad=True):
    return eagerad.tensor(np.asarray(a, dtype=np.float64), requires_grad=grad)


def both_orders(fn, *arrays):
    xs = tuple(t64(a) for a in arrays)
    assert gradcheck(fn, xs)
    assert gradgradcheck(fn, xs)


# ------------------------------------------------------------------ LU


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 4), (2, 3, 4, 2)])
def test_lu_reconstructs_with_partial_pivoting(shape):
    a = RNG.standard_normal(shape)
    P, L, U = linalg.lu(t64(a, False))
    np.testing.assert_allclose((P @ L @ U).numpy(), a, atol=1e-13)
    k = min(shape[-2:])
    assert L.shape == shape[:-1] + (k,) and U.shape == shape[:-2] + (k, shape[-1])
    np.testing.assert_array_equal(np.triu(L.numpy(), 1), 0)
    np.testing.assert_array_equal(np.diagonal(L.numpy(), axis1=-2, axis2=-1), 1)
    np.testing.assert_array_equal(np.tril(U.numpy(), -1), 0)
    assert np.abs(L.numpy()).max() <= 1.0          # partial pivoting: |multipliers| <= 1


def test_lu_factor_pivots_by_hand():
    # column 0: |4| largest -> swap rows 1, 3 (1-based pivot 3); then column 1 of the rest
    a = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 1.0], [4.0, 0.0, 2.0]])
    LU, piv = linalg.lu_factor(t64(a, False))
    assert piv.tolist() == [3, 3, 3]
    np.testing.assert_allclose(LU.numpy(), [[4.0, 0.0, 2.0], [0.25, 2.0, -0.5],
                                            [0.5, 0.5, 0.25]], atol=1e-15)
    LU0, piv0 = linalg.lu_factor(t64(a + 3 * np.eye(3), False), pivot=False)
    assert piv0.tolist() == [1, 2, 3]
    P, L, U = linalg.lu_unpack(LU0, piv0)
    np.testing.assert_allclose((L @ U).numpy(), a + 3 * np.eye(3), atol=1e-14)


def test_lu_factor_ex_reports_a_zero_pivot():
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    LU, piv, info = linalg.lu_factor_ex(t64(a, False))
    assert info.item() == 2 and info.dtype == np.int32
    with pytest.raises(RuntimeError, match="singular"):
        linalg.lu_factor_ex(t64(a, False), check_errors=True)


@pytest.mark.parametrize("shape", [(3, 3), (3, 2), (2, 3), (2, 2, 2)])
def test_lu_gradients_to_second_order(shape):
    a = RNG.standard_normal(shape) + 2 * np.eye(*shape[-2:])
    both_orders(lambda m: linalg.lu_factor(m).LU, a)
    both_orders(lambda m: (lambda P, L, U: (L * L).sum() + (U * U).sum())(*linalg.lu(m)), a)


@pytest.mark.parametrize("left,adjoint", [(True, False), (True, True), (False, False),
                                          (False, True)])
def test_lu_solve_solves_and_differentiates(left, adjoint):
    a = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((2, 3, 1) if left else (2, 1, 3))
    op = np.swapaxes(a, -1, -2) if adjoint else a
    want = np.linalg.solve(op, b) if left else np.swapaxes(
        np.linalg.solve(np.swapaxes(op, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    LU, piv = linalg.lu_factor(t64(a, False))
    got = linalg.lu_solve(LU, piv, t64(b, False), left=left, adjoint=adjoint)
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-10, atol=1e-12)
    # differentiable in the factorisation and the right-hand side (and so in A)
    both_orders(lambda m, r: linalg.lu_solve(*linalg.lu_factor(m), r, left=left,
                                             adjoint=adjoint), a[0], b[0])


def test_lu_derivative_of_a_wide_matrix_is_a_directional_difference():
    a = RNG.standard_normal((2, 4)) + 2 * np.eye(2, 4)
    d = RNG.standard_normal((2, 4))
    eps = 1e-6
    f = lambda m: linalg.lu_factor(t64(m, False)).LU.numpy()    # noqa: E731
    numeric = (f(a + eps * d) - f(a - eps * d)) / (2 * eps)
    _, tangent = eagerad.jvp(lambda m: linalg.lu_factor(m).LU, (t64(a, False),),
                             (t64(d, False),))
    np.testing.assert_allclose(tangent.numpy(), numeric, rtol=1e-6, atol=1e-8)

# ------------------------------------------------------------------ Householder


def test_householder_product_forms_lapacks_q():
    a = RNG.standard_normal((5, 3))
    h, tau = np.linalg.qr(a, mode="raw")            # LAPACK's reflectors (h transposed)
    Q = linalg.householder_product(t64(h.T, False), t64(tau, False))
    np.testing.assert_allclose(Q.numpy(), np.linalg.qr(a)[0], atol=1e-13)
    both_orders(linalg.householder_product, h.T, tau)


@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False),
                                            (False, True)])
def test_ormqr_multiplies_by_q(left, transpose):
    from eagerad.ops.householder import ormqr
    a = RNG.standard_normal((3, 3))
    h, tau = np.linalg.qr(a, mode="raw")
    Q = np.linalg.qr(a, mode="complete")[0]
    Q = Q.T if transpose else Q
    c = RNG.standard_normal((3, 1) if left else (1, 3))
    got = ormqr(t64(h.T, False), t64(tau, False), t64(c, False), left=left, transpose=transpose)
    np.testing.assert_allclose(got.numpy(), Q @ c if left else c @ Q, atol=1e-13)
    both_orders(lambda x, t, y: ormqr(x, t, y, left=left, transpose=transpose), h.T, tau, c)

# ------------------------------------------------------------------ *_ex, tensor*, cond, ...


def test_ex_variants_report_failures_with_nan_results():
    bad = np.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 4.0]]])
    inverse, info = linalg.inv_ex(t64(bad, False))
    assert info.tolist() == [2, 0]
    assert np.isnan(inverse.numpy()[0]).all()
    np.testing.assert_allclose(inverse.numpy()[1], [[0.5, 0.0], [0.0, 0.25]])
    result, info = linalg.solve_ex(t64(bad, False), t64(np.ones((2, 2)), False))
    assert info.tolist() == [2, 0] and np.isnan(result.numpy()[0]).all()
    np.testing.assert_allclose(result.numpy()[1], [0.5, 0.25])
    not_pd = np.array([[4.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])   # minor 2 is 0
    L, info = linalg.cholesky_ex(t64(not_pd, False))
    assert info.item() == 2 and np.isnan(L.numpy()).all()
    for fn in (lambda: linalg.inv_ex(t64(bad, False), check_errors=True),
               lambda: linalg.cholesky_ex(t64(not_pd, False), check_errors=True)):
        with pytest.raises(RuntimeError, match="batch index|info"):
            fn()
    spd = np.array([[4.0, 2.0], [2.0, 3.0]])
    L, info = linalg.cholesky_ex(t64(spd, False), upper=True)
    assert info.item() == 0
    np.testing.assert_allclose(L.numpy(), np.linalg.cholesky(spd).T)


def test_tensorinv_and_tensorsolve_match_numpy():
    a = RNG.standard_normal((4, 3, 6, 2))
    got = linalg.tensorinv(t64(a, False), ind=2)
    np.testing.assert_allclose(got.numpy(), np.linalg.tensorinv(a, ind=2), rtol=1e-10)
    A, B = RNG.standard_normal((2, 3, 6)), RNG.standard_normal((2, 3))
    for dims in (None, (0, 2)):
        np.testing.assert_allclose(linalg.tensorsolve(t64(A, False), t64(B, False), dims).numpy(),
                                   np.linalg.tensorsolve(A, B, axes=dims), rtol=1e-10)
    both_orders(lambda x, y: linalg.tensorsolve(x, y, (0, 2)), A, B)
    with pytest.raises(ValueError, match="tensorinv"):
        linalg.tensorinv(t64(np.ones((2, 3)), False), ind=1)


@pytest.mark.parametrize("p", [None, 2, -2, 1, -1, np.inf, -np.inf, "fro", "nuc"])
def test_cond_matches_numpy(p):
    a = RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    np.testing.assert_allclose(linalg.cond(t64(a, False), p).numpy(), np.linalg.cond(a, p),
                               rtol=1e-10)


def test_vander_vecdot_diagonal_closed_forms():
    x = np.array([2.0, -1.0, 0.0])
    np.testing.assert_array_equal(linalg.vander(t64(x, False)).numpy(),
                                  np.vander(x, increasing=True))
    both_orders(lambda v: linalg.vander(v, N=4), x)          # finite at 0 (products)
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal(3)
    np.testing.assert_allclose(linalg.vecdot(t64(a, False), t64(b, False)).numpy(), a @ b)
    m = RNG.standard_normal((2, 4, 4))
    np.testing.assert_array_equal(linalg.diagonal(t64(m, False), offset=-1).numpy(),
                                  np.diagonal(m, -1, -2, -1))

# ------------------------------------------------------------------ PyTorch's conventions


def test_hermitian_pinv_reads_the_lower_triangle():
    s = RNG.standard_normal((3, 3))
    s = s + s.T
    junk = s + np.triu(np.ones((3, 3)), 1) * 9
    np.testing.assert_allclose(linalg.pinv(t64(junk, False), hermitian=True).numpy(),
                               np.linalg.pinv(s, hermitian=True), rtol=1e-10)
    # at a symmetric matrix the gradient is the pseudo-inverse's own (that of the SVD path)
    g = RNG.standard_normal((3, 3))
    grads = []
    for hermitian in (True, False):
        A = t64(s)
        (grad,) = eagerad.autograd.grad((linalg.pinv(A, hermitian=hermitian) * t64(g, False))
                                        .sum(), A)
        grads.append(grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-8, atol=1e-10)


def test_cholesky_and_eigvalsh_gradients_are_symmetric():
    x = RNG.standard_normal((3, 3))
    a = x @ x.T + 3 * np.eye(3)
    for fn in (linalg.cholesky, linalg.eigvalsh, lambda m: linalg.eigvalsh(m, UPLO="U")):
        A = t64(a)
        fn(A).sum().backward()
        np.testing.assert_allclose(A.grad.numpy(), A.grad.numpy().T, atol=1e-13)
    # d sum(eigvalsh(A)) = d tr(A) = I
    A = t64(a)
    linalg.eigvalsh(A).sum().backward()
    np.testing.assert_allclose(A.grad.numpy(), np.eye(3), atol=1e-12)


@pytest.mark.parametrize("ord_,second", [(2, "nan"), (0.5, "nan"), (3.5, 0.0), (1, 0.0)])
def test_norm_second_derivative_at_zero_follows_pytorch(ord_, second):
    x = t64(np.zeros(4))
    (g,) = eagerad.autograd.grad(linalg.vector_norm(x, ord_), x, create_graph=True)
    np.testing.assert_array_equal(g.numpy(), 0)
    if not g.requires_grad:
        return
    (h,) = eagerad.autograd.grad(g.sum(), x, allow_unused=True)
    h = np.zeros(4) if h is None else h.numpy()
    assert np.isnan(h).all() if second == "nan" else (h == second).all()


def test_torch_lstsq_drivers_shape_their_outputs():
    import eagerad.torch as etorch
    A = etorch.tensor(RNG.standard_normal((4, 3)))
    B = etorch.tensor(RNG.standard_normal((4, 2)))
    for driver, shapes in {None: [(3, 2), (0,), (), (0,)], "gels": [(3, 2), (2,), (0,), (0,)],
                           "gelsd": [(3, 2), (2,), (), (3,)]}.items():
        out = etorch.linalg.lstsq(A, B, driver=driver)
        assert [tuple(t.shape) for t in out] == shapes
    np.testing.assert_allclose(out.residuals.numpy(),
                               ((A.numpy() @ out.solution.numpy() - B.numpy()) ** 2).sum(0))
    with pytest.raises(ValueError, match="driver"):
        etorch.linalg.lstsq(A, B, driver="gelsx")

# ------------------------------------------------------------------ against PyTorch


def test_lu_and_householder_match_pytorch():
    torch = pytest.importorskip("torch")
    import eagerad.torch as etorch
    a = RNG.standard_normal((2, 5, 3))
    LU, piv = torch.linalg.lu_factor(torch.tensor(a))
    eLU, epiv = etorch.linalg.lu_factor(etorch.tensor(a))
    np.testing.assert_allclose(eLU.numpy(), LU.numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_array_equal(epiv.numpy(), piv.numpy())
    g = RNG.standard_normal((2, 5, 3))
    ta = torch.tensor(a, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.linalg.lu_factor(ta).LU, ta, torch.tensor(g))
    ea = etorch.tensor(a, requires_grad=True)
    (eg,) = etorch.autograd.grad(etorch.linalg.lu_factor(ea).LU, ea, etorch.tensor(g))
    np.testing.assert_allclose(eg.numpy(), tg.numpy(), rtol=1e-9, atol=1e-12)
    tau = RNG.standard_normal((2, 3))
    np.testing.assert_allclose(
        etorch.linalg.householder_product(etorch.tensor(a), etorch.tensor(tau)).numpy(),
        torch.linalg.householder_product(torch.tensor(a), torch.tensor(tau)).numpy(),
        rtol=1e-12, atol=1e-14)


def test_lu_and_ex_functions_under_vmap_and_jacfwd():
    a = RNG.standard_normal((3, 3, 3)) + 3 * np.eye(3)
    A = t64(a, False)
    out = eagerad.vmap(lambda m: linalg.lu_factor(m).LU)(A)
    np.testing.assert_array_equal(out.numpy(), linalg.lu_factor(A).LU.numpy())
    fwd = eagerad.jacfwd(lambda m: linalg.lu_factor(m).LU)(A[0])
    rev = eagerad.jacrev(lambda m: linalg.lu_factor(m).LU)(A[0])
    np.testing.assert_allclose(fwd.numpy(), rev.numpy(), atol=1e-12)
    np.testing.assert_allclose(eagerad.vmap(lambda m: linalg.inv_ex(m).inverse)(A).numpy(),
                               np.linalg.inv(a), rtol=1e-10)
    b = t64(RNG.standard_normal((3, 3, 2)), False)
    LU, piv = linalg.lu_factor(A)
    np.testing.assert_allclose(eagerad.vmap(linalg.lu_solve)(LU, piv, b).numpy(),
                               np.linalg.solve(a, b.numpy()), rtol=1e-10)


def test_lu_inputs_are_checked():
    LU, piv = linalg.lu_factor(t64(np.eye(3) * 2, False))
    with pytest.raises(ValueError, match="pivots must lie in"):
        linalg.lu_solve(LU, piv * 0 + 7, t64(np.ones((3, 1)), False))
    with pytest.raises(ValueError, match="integer tensor"):
        linalg.lu_unpack(LU, piv.astype(eagerad.float64))
    with pytest.raises(ValueError, match="B needs 3 rows"):
        linalg.lu_solve(LU, piv, t64(np.ones((2, 1)), False))
    with pytest.raises(RuntimeError, match=r"U\[1, 1\] is exactly zero"):
        linalg.lu_factor_ex(t64([[1.0, 2.0], [2.0, 4.0]], False), check_errors=True)

# ------------------------------------------------------------------ eigenvector signs


def test_replayed_steqr_and_sytd2_are_eigendecompositions():
    from eagerad.ops.eigh_signs import tridiagonal_vectors, tridiagonalize
    x = RNG.standard_normal((6, 6))
    for upper in (False, True):
        s = np.triu(x) + np.triu(x, 1).T if upper else np.tril(x) + np.tril(x, -1).T
        d, e, Q = tridiagonalize(s, upper)
        T = np.diag(d) + np.diag(e, 1) + np.diag(e, -1)
        np.testing.assert_allclose(Q @ T @ Q.T, s, atol=1e-12)
        np.testing.assert_allclose(Q.T @ Q, np.eye(6), atol=1e-12)
        w, Z = tridiagonal_vectors(d, e)
        np.testing.assert_allclose(w, np.linalg.eigvalsh(s), atol=1e-12)
        np.testing.assert_allclose(T @ Z, Z * w, atol=1e-12)
        np.testing.assert_allclose(Z.T @ Z, np.eye(6), atol=1e-12)


def test_torch_eigh_signs_are_pytorchs_and_the_neutral_ones_numpys():
    import eagerad.torch as etorch
    x = RNG.standard_normal((2, 5, 5))
    w, v = np.linalg.eigh(x)
    np.testing.assert_allclose(linalg.eigh(t64(x, False)).eigenvectors.numpy(), v, atol=1e-12)
    w, v = np.linalg.eigh(x, UPLO="U")
    ew, ev = etorch.linalg.eigh(etorch.tensor(x), UPLO="U")
    np.testing.assert_allclose(np.abs(ev.numpy()), np.abs(v), atol=1e-12)
    batched = eagerad.vmap(lambda m: etorch.linalg.eigh(m).eigenvectors)(etorch.tensor(x))
    np.testing.assert_allclose(batched.numpy(), etorch.linalg.eigh(etorch.tensor(x))[1].numpy(),
                               atol=1e-12)
    torch = pytest.importorskip("torch")
    for n in (3, 4, 7, 12):
        a = RNG.standard_normal((3, n, n))
        for uplo in "LU":
            want = torch.linalg.eigh(torch.tensor(a), UPLO=uplo).eigenvectors.numpy()
            got = etorch.linalg.eigh(etorch.tensor(a), UPLO=uplo).eigenvectors.numpy()
            np.testing.assert_allclose(got, want, atol=1e-10)
