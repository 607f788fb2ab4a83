"""``linalg.matrix_rank`` with PyTorch's and numpy's tolerances, and ``LinAlgError``: the
failures of factorisations and solves are ``torch.linalg.LinAlgError`` (a RuntimeError),
so ``except torch.linalg.LinAlgError`` catches them as in PyTorch (it was a plain
RuntimeError and the name was missing)."""
import numpy as np
import pytest

import eagerad
import eagerad.torch as torch


def _rank_deficient(rng, batch=3):
    """Matrices 5x4 with singular values ~1, ~1, ~1e-9 and 0."""
    return rng.standard_normal((batch, 5, 4)) @ np.diag([1, 1, 1e-9, 0]) @ rng.standard_normal((4, 4))


@pytest.mark.parametrize("kw, want", [({}, 3), (dict(atol=1e-3), 2), (dict(rtol=1e-12), 3),
                                      (dict(atol=0.0), 3), (dict(rtol=0.5, atol=100.0), 0)])
def test_matrix_rank_counts_singular_values_above_the_tolerance(kw, want):
    a = _rank_deficient(np.random.default_rng(0))
    assert torch.linalg.matrix_rank(torch.tensor(a), **kw).tolist() == [want] * 3


def test_matrix_rank_takes_per_matrix_tolerances_hermitian_input_and_numpys_tol():
    a = _rank_deficient(np.random.default_rng(1))
    got = torch.linalg.matrix_rank(torch.tensor(a), atol=torch.tensor([1e-3, 100.0, 1e-12]))
    assert got.tolist() == [2, 0, 3] and got.dtype == torch.int64
    h = a[:, :4] @ a[:, :4].transpose(0, 2, 1)
    assert torch.linalg.matrix_rank(torch.tensor(h), hermitian=True).tolist() == [2, 2, 2]
    assert eagerad.linalg.matrix_rank(eagerad.tensor(a[0]), tol=1e-3).item() == \
        np.linalg.matrix_rank(a[0], tol=1e-3)
    assert torch.linalg.matrix_rank(torch.zeros(2, 0, 3)).tolist() == [0, 0]


def test_matrix_rank_agrees_with_pytorch_where_installed():
    real = pytest.importorskip("torch")
    a = _rank_deficient(np.random.default_rng(2), batch=4)
    for kw in ({}, dict(atol=1e-3), dict(rtol=1e-12), dict(atol=0.5, rtol=0.1)):
        assert torch.linalg.matrix_rank(torch.tensor(a), **kw).tolist() == \
            real.linalg.matrix_rank(real.tensor(a), **kw).tolist()


@pytest.mark.parametrize("call, message", [
    (lambda: torch.linalg.inv(torch.zeros(2, 2)), "linalg.inv: the input is singular"),
    (lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)),
     "linalg.solve: the input matrix A is singular"),
    (lambda: torch.linalg.cholesky(-torch.eye(2)),
     "linalg.cholesky: the input is not positive-definite"),
    (lambda: torch.linalg.cholesky_ex(-torch.eye(2), check_errors=True), "not positive-definite"),
    (lambda: torch.linalg.lu_factor_ex(torch.zeros(2, 2), check_errors=True), "matrix is singular"),
])
def test_failures_are_linalg_errors_and_runtime_errors(call, message):
    with pytest.raises(torch.linalg.LinAlgError, match=message):
        call()
    with pytest.raises(RuntimeError):
        call()
    assert eagerad.linalg.LinAlgError is torch.linalg.LinAlgError
