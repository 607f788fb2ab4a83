"""LU factorisation with partial pivoting (LAPACK's ``getrf``), differentiable to any order.

``A = P L U`` for an m x n matrix: P a permutation, L m x k unit lower triangular, U k x n
upper triangular, k = min(m, n).  The result is LAPACK's compact form: one m x n matrix
``LU`` holding L below the diagonal and U on and above it, plus the row swaps
``pivots`` (1-based, as LAPACK and PyTorch: row i was swapped with row ``pivots[i]``).

Two ops make it: ``lu_pivots`` (the row swaps, not differentiable) and ``lu_packed``
(the factorisation of an already permuted matrix, without pivoting).  Elimination on
``P^T A`` performs the very operations that pivoted elimination performs on ``A``, so
the numbers are those of getrf.  ``lu_packed``'s vjp and jvp are eagerad ops (triangular
solves and products), so derivatives of every order work.  Derivation, with
``X = L1^-1 dA1 U1^-1`` on the leading k x k block:  ``dL1 = L1 tril(X, -1)``,
``dU1 = triu(X) U1``; a tall matrix's lower rows ``dL2 = (dA2 - L2 dU1) U1^-1``, a wide
matrix's right columns ``dU2 = L^-1 (dA2 - dL U2)``.  Gradients are inf/nan where U has
a zero on its diagonal (as PyTorch's).

The kernel runs on the host (numpy, vectorised over the batch; on CUDA a documented
host round trip, as the other factorisations of ``backend/cuda/linalg.py``).

>>> import eagerad
>>> LU, piv = lu_factor(eagerad.tensor([[1.0, 2.0], [4.0, 4.0]]))
>>> LU.tolist(), piv.tolist()
([[4.0, 4.0], [0.25, 1.0]], [2, 2])
"""
import collections

import numpy as np

from ..backend import LinAlgError
from .decompositions import _tri_mask, batch_leading, const, matrices, mT
from .registry import OPS, Case, U, defop, move_batch
from .shape import concat

__all__ = ["lu_factor", "lu_factor_ex", "lu", "lu_unpack", "lu_solve", "LUFactorResult",
           "LUFactorExResult", "LUResult"]


def eliminate(a, pivot=True):
    """Gaussian elimination of each m x n matrix of ``a`` (numpy): the compact ``LU``
    and the 1-based row swaps, choosing the largest magnitude in each column as pivot
    (the first on ties, as LAPACK's ``idamax``) unless ``pivot`` is False.

    >>> lu_, piv = eliminate(np.array([[1.0, 2.0], [3.0, 4.0]]))
    >>> lu_.tolist(), piv.tolist()
    ([[3.0, 4.0], [0.3333333333333333, 0.6666666666666667]], [2, 2])
    """
    m, n = a.shape[-2:]
    k = min(m, n)
    batch = a.shape[:-2]
    flat = np.array(a, dtype=a.dtype, copy=True).reshape((int(np.prod(batch)), m, n))
    piv = np.empty((flat.shape[0], k), np.int32)
    rows = np.arange(flat.shape[0])
    for j in range(k):
        p = j + np.argmax(np.abs(flat[:, j:, j]), axis=-1) if pivot else np.full(len(rows), j)
        piv[:, j] = p + 1
        if pivot:
            top = flat[rows, j].copy()
            flat[rows, j] = flat[rows, p]
            flat[rows, p] = top
        d = flat[:, j, j]
        flat[:, j + 1:, j] /= np.where(d == 0, 1, d)[:, None]
        flat[:, j + 1:, j + 1:] -= flat[:, j + 1:, j, None] * flat[:, j, None, j + 1:]
    return flat.reshape(a.shape), piv.reshape(batch + (k,))


def swap_rows(a, pivots, inverse=False):
    """``a`` (numpy, ``(..., m, n)``) with the 1-based row swaps ``pivots`` (``(..., k)``,
    the same batch) applied in order -- ``P^T a`` for ``A = P L U`` -- or, ``inverse``,
    undone (in reverse order: ``P a``).

    >>> swap_rows(np.array([[1.0], [2.0], [3.0]]), np.array([3, 3])).ravel().tolist()
    [3.0, 1.0, 2.0]
    """
    out = np.array(a, copy=True)
    m = out.shape[-2]
    if pivots.size and (pivots.min() < 1 or pivots.max() > m):
        raise ValueError(f"lu: pivots must lie in [1, {m}] (1-based rows of the {m}-row "
                         f"factorisation), got values from {pivots.min()} to {pivots.max()}")
    batch = out.shape[:-2]
    flat = out.reshape((int(np.prod(batch)),) + out.shape[-2:])
    piv = np.broadcast_to(pivots, batch + pivots.shape[-1:]).reshape(
        (flat.shape[0], pivots.shape[-1])) - 1
    rows = np.arange(flat.shape[0])
    order = range(piv.shape[1] - 1, -1, -1) if inverse else range(piv.shape[1])
    for i in order:
        p = piv[:, i]
        here = flat[rows, i].copy()
        flat[rows, i] = flat[rows, p]
        flat[rows, p] = here
    return flat.reshape(out.shape)


def _swaps_fwd(B, a, pivots, inverse):
    return B.asarray(swap_rows(B.to_numpy(a), B.to_numpy(pivots), inverse), a.dtype)


def _swaps_batch(args, bdims, inverse):
    """vmap: both operands get the batch axis first (an unbatched one is broadcast)."""
    size = next(x.shape[d] for x, d in zip(args, bdims) if d is not None)
    moved = [x.unsqueeze(0).broadcast_to((size,) + x.shape) if d is None else move_batch(x, d)
             for x, d in zip(args, bdims)]
    return _row_swaps(*moved, inverse=inverse), 0


_row_swaps = defop(
    "lu_row_swaps", _swaps_fwd,
    vjp=(lambda g, ans, a, pivots, inverse: _row_swaps(g, pivots, inverse=not inverse), None),
    jvp=(lambda t, ans, a, pivots, inverse: _row_swaps(t, pivots, inverse=inverse), None),
    saves=(1,), batch=_swaps_batch,
    cases=[Case(U(3, 2), np.array([2, 3, 3], np.int32), inverse=False),
           Case(U(2, 3, 3), np.array([[3, 2, 3], [1, 3, 3]], np.int32), inverse=True)])


def lapack_info(packed):
    """getrf's ``info`` of each compact LU (numpy): 0, or the 1-based index of the first
    exact zero on U's diagonal.

    >>> lapack_info(np.array([[2.0, 1.0], [0.5, 0.0]])).tolist()
    2
    """
    zero = np.diagonal(packed, axis1=-2, axis2=-1) == 0
    first = np.argmax(zero, axis=-1) if zero.shape[-1] else np.zeros(zero.shape[:-1], int)
    return np.where(zero.any(axis=-1), first + 1, 0).astype(np.int32)


def _pivots_fwd(B, a, pivot):
    return B.asarray(eliminate(B.to_numpy(a), pivot)[1])


_lu_pivots = defop("lu_pivots", _pivots_fwd, batch=batch_leading("lu_pivots"),
                   cases=[Case(U(3, 3), pivot=True), Case(U(2, 4, 3), pivot=False)])
_lu_info = defop("lu_info", lambda B, packed: B.asarray(lapack_info(B.to_numpy(packed))),
                 batch=batch_leading("lu_info"), cases=[Case(U(2, 3, 3))])


def _factors(packed, m, n):
    """(L, U) of a compact LU: L m x k with its unit diagonal, U k x n."""
    k = min(m, n)
    low = _tri_part(packed[..., :, :k], m, k, False)
    return low + const(np.eye(m, k), packed), _tri_part(packed[..., :k, :], k, n, True)


def _tri_part(x, m, n, upper):
    """``x``'s m x n upper triangle (diagonal included) or strictly lower part."""
    return x * _tri_mask(max(m, n), upper, not upper, x)[:m, :n]


def _solve(a, b, upper, unit=False):
    return OPS["solve_triangular"](a, b, upper=upper, unitriangular=unit)


def _lu_vjp(g, ans, a):
    # <gL, dL> + <gU, dU> = <L1^-T M U1^-T, dA1> (+ the outer block's terms), with
    # M = tril(L1^T gL1 - gU2 U2^T, -1) + triu(gU1 U1^T - L2^T gL2)
    m, n = a.shape[-2:]
    k = min(m, n)
    low, up = _factors(ans, m, n)
    gl, gu = _tri_part(g[..., :, :k], m, k, False), _tri_part(g[..., :k, :], k, n, True)
    l1, u1 = low[..., :k, :], up[..., :, :k]
    lower_part = mT(l1) @ gl[..., :k, :]
    upper_part = gu[..., :, :k] @ mT(u1)
    if m > n:
        upper_part = upper_part - mT(low[..., k:, :]) @ gl[..., k:, :]
    if n > m:
        lower_part = lower_part - gu[..., :, k:] @ mT(up[..., :, k:])
    inner = _tri_part(lower_part, k, k, False) + _tri_part(upper_part, k, k, True)
    g1 = _solve(mT(l1), mT(_solve(u1, mT(inner), True)), True, unit=True)
    if m > n:       # the rows below: gA2 = gL2 U1^-T
        return concat([g1, mT(_solve(u1, mT(gl[..., k:, :]), True))], axis=-2)
    if n > m:       # the columns right: gA2 = L^-T gU2
        return concat([g1, _solve(mT(l1), gu[..., :, k:], True, unit=True)], axis=-1)
    return g1


def _lu_jvp(t, ans, a):
    m, n = a.shape[-2:]
    k = min(m, n)
    low, up = _factors(ans, m, n)
    l1, u1 = low[..., :k, :], up[..., :, :k]
    x = mT(_solve(mT(u1), mT(_solve(l1, t[..., :k, :k], False, unit=True)), False))
    x_low, x_up = _tri_part(x, k, k, False), _tri_part(x, k, k, True)
    top = l1 @ x_low + x_up @ u1
    if m > n:       # dL2 = (dA2 - L2 dU1) U1^-1
        rest = t[..., k:, :] - low[..., k:, :] @ (x_up @ u1)
        return concat([top, mT(_solve(mT(u1), mT(rest), False))], axis=-2)
    if n > m:       # dU2 = L^-1 dA2 - tril(X, -1) U2
        rest = _solve(l1, t[..., :, k:], False, unit=True) - x_low @ up[..., :, k:]
        return concat([top, rest], axis=-1)
    return top


class Dominant(U):
    """A gradcheck matrix that needs no pivoting: uniform plus ``max(m, n)`` on the
    leading diagonal (so every pivot is large).

    >>> float(Dominant(3, 2).draw(np.random.default_rng(0))[0, 0]) > 2
    True
    """
    __slots__ = ()

    def draw(self, rng):
        x = super().draw(rng)
        m, n = self.shape[-2:]
        return x + max(m, n) * np.eye(m, n)


def _packed_fwd(B, a):
    return B.asarray(eliminate(B.to_numpy(a), False)[0], a.dtype)


_lu_packed = defop("lu_packed", _packed_fwd, vjp=_lu_vjp, jvp=_lu_jvp, saves=(),
                   save_output=True, batch=batch_leading("lu_packed"),
                   cases=[Case(Dominant(3, 3)), Case(Dominant(2, 3, 3)), Case(Dominant(4, 2)),
                          Case(Dominant(2, 4)), Case(Dominant(0, 2, 2)), Case(Dominant(1, 1))])

# ------------------------------------------------------------------ public functions

LUFactorResult = collections.namedtuple("LUFactorResult", "LU pivots")
LUFactorResult.__doc__ = """``(LU, pivots)`` of ``lu_factor``.

>>> lu_factor(eagerad.eye(2)).pivots.tolist()
[1, 2]
"""
LUFactorExResult = collections.namedtuple("LUFactorExResult", "LU pivots info")
LUFactorExResult.__doc__ = """``(LU, pivots, info)`` of ``lu_factor_ex``.

>>> lu_factor_ex(eagerad.eye(2)).info.item()
0
"""
LUResult = collections.namedtuple("LUResult", "P L U")
LUResult.__doc__ = """``(P, L, U)`` of ``lu``: ``A = P L U``.

>>> lu(eagerad.eye(2)).P.tolist()
[[1.0, 0.0], [0.0, 1.0]]
"""


def _check_pivots(name, pivots, m):
    """``pivots`` an integer tensor of at most ``m`` row swaps (values are checked by the
    kernel that applies them)."""
    if not hasattr(pivots, "dtype") or pivots.dtype.kind not in "iu" or pivots.ndim < 1 \
            or pivots.shape[-1] > m:
        raise ValueError(f"linalg.{name}: pivots must be an integer tensor of at most {m} row "
                         f"swaps per matrix, got {getattr(pivots, 'dtype', type(pivots))} of "
                         f"shape {getattr(pivots, 'shape', None)}")
    return pivots


def lu_factor_ex(A, *, pivot=True, check_errors=False):
    """``(LU, pivots, info)``: the compact LU factorisation with partial pivoting (see
    the module docstring); ``info`` is 0, or i > 0 when ``U[i-1, i-1]`` is exactly 0
    (the factorisation exists, but U is singular).  ``check_errors`` makes that a
    RuntimeError.  ``pivot=False`` factorises without row swaps.

    >>> lu_factor_ex(eagerad.tensor([[1.0, 2.0], [2.0, 4.0]])).info.item()
    2
    """
    A = matrices("lu_factor_ex", A)
    pivots = _lu_pivots(A.detach(), pivot=bool(pivot))
    LU = _lu_packed(_row_swaps(A, pivots, inverse=False) if pivot else A)
    info = _lu_info(LU.detach())
    if check_errors:
        host = np.asarray(info.numpy())
        if host.any():
            first = int(host[host > 0].flat[0]) - 1
            raise LinAlgError(f"linalg.lu_factor_ex: U[{first}, {first}] is exactly zero: the "
                               "matrix is singular")
    return LUFactorExResult(LU, pivots, info)


def lu_factor(A, *, pivot=True):
    """``(LU, pivots)``: LAPACK's compact LU factorisation with partial pivoting (L below
    the diagonal, U on and above it; 1-based row swaps).  A singular matrix is factorised
    too (U then has a zero on its diagonal; its gradients are inf/nan).

    >>> LU, piv = lu_factor(eagerad.tensor([[0.0, 1.0], [2.0, 3.0]]))
    >>> LU.tolist(), piv.tolist()
    ([[2.0, 3.0], [0.0, 1.0]], [2, 2])
    """
    LU, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return LUFactorResult(LU, pivots)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``(P, L, U)`` from a compact LU and its pivots (PyTorch's ``lu_unpack``): the
    parts not asked for are empty tensors.  Differentiable in ``LU_data``.

    >>> P, L, U = lu_unpack(*lu_factor(eagerad.tensor([[0.0, 1.0], [2.0, 3.0]])))
    >>> (P @ L @ U).tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    LU_data = matrices("lu_unpack", LU_data, "LU_data")
    m, n = LU_data.shape[-2:]
    empty = LU_data.reshape(-1)[:0]
    L, U = _factors(LU_data, m, n) if unpack_data else (empty, empty)
    if unpack_pivots:
        LU_pivots = _check_pivots("lu_unpack", LU_pivots, m)
        P = _row_swaps(const(np.eye(m), LU_data).broadcast_to(LU_pivots.shape[:-1] + (m, m)),
                       LU_pivots, inverse=True)
    else:
        P = empty
    return LUResult(P, L, U)


def lu(A, *, pivot=True):
    """``(P, L, U)`` with ``A = P L U``: P a permutation matrix, L unit lower triangular
    (m x k), U upper triangular (k x n), k = min(m, n).  Differentiable in L and U.

    >>> P, L, U = lu(eagerad.tensor([[1.0, 2.0], [4.0, 4.0]]))
    >>> P.tolist(), L.tolist(), U.tolist()
    ([[0.0, 1.0], [1.0, 0.0]], [[1.0, 0.0], [0.25, 1.0]], [[4.0, 4.0], [0.0, 1.0]])
    """
    LU, pivots = lu_factor(A, pivot=pivot)
    P, L, U = lu_unpack(LU, pivots)
    return LUResult(P, L, U)


def lu_solve(LU, pivots, B, *, left=True, adjoint=False):
    """The solution X of ``A X = B`` (``adjoint``: ``A^T X = B``; ``left=False``:
    ``X A = B`` or ``X A^T = B``) from ``lu_factor``'s ``(LU, pivots)`` of a square A.
    Batches broadcast; differentiable in ``LU`` and ``B``.

    >>> A = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> lu_solve(*lu_factor(A), eagerad.tensor([[5.0], [11.0]])).tolist()
    [[1.0], [2.0]]
    """
    LU = matrices("lu_solve", LU, "LU")
    B = matrices("lu_solve", B, "B")
    n = LU.shape[-1]
    if LU.shape[-2] != n:
        raise ValueError(f"linalg.lu_solve: LU must be a batch of square matrices, got shape "
                         f"{LU.shape}")
    if not left:
        return mT(lu_solve(LU, pivots, mT(B), adjoint=not adjoint))
    if B.shape[-2] != n:
        raise ValueError(f"linalg.lu_solve: LU of shape {LU.shape} and B of shape {B.shape} do "
                         f"not fit: B needs {n} rows")
    pivots = _check_pivots("lu_solve", pivots, n)
    shape = np.broadcast_shapes(LU.shape[:-2], B.shape[:-2], pivots.shape[:-1])
    B = B.broadcast_to(shape + B.shape[-2:])
    pivots = pivots.broadcast_to(shape + pivots.shape[-1:])
    L, U = _factors(LU, n, n)
    if adjoint:     # A^T = U^T L^T P^T:  X = P L^-T U^-T B
        return _row_swaps(_solve(mT(L), _solve(mT(U), B, False), True, unit=True), pivots,
                          inverse=True)
    return _solve(U, _solve(L, _row_swaps(B, pivots, inverse=False), False, unit=True), True)
