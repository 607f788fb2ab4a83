"""cpu backend: linear-algebra kernels (factorisations, solves) on numpy's LAPACK.

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cpu/__init__.py``.  All of them take
stacks of matrices (leading axes are batches).  LAPACK's failures become the
``LinAlgError`` (a RuntimeError) PyTorch raises, with the reason in words.

>>> import numpy as np
>>> solve(np.eye(2) * 2.0, np.ones((2, 1))).ravel().tolist()
[0.5, 0.5]
"""
import contextlib

import numpy as np

from .. import LinAlgError

__all__ = ["inv", "solve", "slogdet", "det", "cholesky", "solve_triangular", "eigh", "eigvalsh",
           "svd", "svdvals", "qr", "orth_complement", "matrix_exp", "einsum",
           "matmul_nt", "matmul_tn"]


@contextlib.contextmanager
def _lapack(name, problem):
    """Turn numpy's LinAlgError into PyTorch's, saying what went wrong."""
    try:
        yield
    except np.linalg.LinAlgError as err:
        raise LinAlgError(f"linalg.{name}: {problem} ({err})") from None


def inv(a):
    """Inverse of each matrix; an exactly singular one is a RuntimeError (as torch).

    >>> inv(np.diag([2.0, 4.0])).diagonal().tolist()
    [0.5, 0.25]
    """
    if a.size == 0:
        return np.empty_like(a)
    with _lapack("inv", "the input is singular: it has no inverse"):
        return np.linalg.inv(a)


def solve(a, b):
    """``a^-1 b`` for stacks of square ``a`` and matrices ``b`` (broadcast batches).

    >>> solve(np.diag([2.0, 4.0]), np.ones((2, 1))).ravel().tolist()
    [0.5, 0.25]
    """
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = np.broadcast_to(a, shape + a.shape[-2:])
    b = np.broadcast_to(b, shape + b.shape[-2:])
    if a.size == 0 or b.size == 0:
        return np.zeros(b.shape, np.result_type(a, b))
    with _lapack("solve", "the input matrix A is singular"):
        return np.linalg.solve(a, b)


def slogdet(a):
    """``(sign, log|det|)`` of each matrix.

    >>> [v.tolist() for v in slogdet(np.diag([-2.0, 1.0]))]
    [-1.0, 0.6931471805599453]
    """
    sign, logabs = np.linalg.slogdet(a)
    return np.asarray(sign, a.dtype), np.asarray(logabs, a.dtype)


def det(a):
    """Determinant of each matrix.

    >>> float(det(np.diag([2.0, 3.0])))
    6.0
    """
    return np.asarray(np.linalg.det(a), a.dtype)


def cholesky(a):
    """Lower Cholesky factor of each symmetric positive-definite matrix (its lower
    triangle is read); not positive definite is a RuntimeError.

    >>> cholesky(np.diag([4.0, 9.0])).diagonal().tolist()
    [2.0, 3.0]
    """
    if a.size == 0:
        return np.empty_like(a)
    with _lapack("cholesky", "the input is not positive-definite"):
        return np.linalg.cholesky(a)


def _triangle(a, upper, unitriangular):
    """The triangle of ``a`` a triangular solve reads (unit diagonal if asked)."""
    n = a.shape[-1]
    keep = np.triu(np.ones((n, n), bool)) if upper else np.tril(np.ones((n, n), bool))
    if unitriangular:
        keep &= ~np.eye(n, dtype=bool)
    t = np.where(keep, a, 0)
    if unitriangular:
        t = t + np.eye(n, dtype=a.dtype)
    return t


def solve_triangular(a, b, upper, unitriangular):
    """``a^-1 b`` reading only the upper or lower triangle of ``a`` (LAPACK's LU on the
    triangle: numpy has no trsm); a zero on the diagonal is a RuntimeError.

    >>> solve_triangular(np.array([[2.0, 0.0], [1.0, 1.0]]), np.array([[2.0], [2.0]]),
    ...                  False, False).ravel().tolist()
    [1.0, 1.0]
    """
    return solve(_triangle(a, upper, unitriangular), b)


def eigh(a):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices.

    >>> eigh(np.diag([3.0, 1.0]))[0].tolist()
    [1.0, 3.0]
    """
    if a.size == 0:
        return np.zeros(a.shape[:-1], a.dtype), np.zeros(a.shape, a.dtype)
    with _lapack("eigh", "the eigenvalue algorithm did not converge"):
        return np.linalg.eigh(a)


def eigvalsh(a):
    """Eigenvalues (ascending) of symmetric matrices.

    >>> eigvalsh(np.diag([3.0, 1.0])).tolist()
    [1.0, 3.0]
    """
    if a.size == 0:
        return np.zeros(a.shape[:-1], a.dtype)
    with _lapack("eigvalsh", "the eigenvalue algorithm did not converge"):
        return np.linalg.eigvalsh(a)


def svd(a, full_matrices):
    """``(U, S, Vh)`` of each matrix, singular values descending.

    >>> svd(np.diag([1.0, 3.0]), False)[1].tolist()
    [3.0, 1.0]
    """
    m, n = a.shape[-2:]
    k = min(m, n)
    if a.size == 0:
        eye = np.zeros(a.shape[:-2] + (m, m if full_matrices else k), a.dtype)
        eyev = np.zeros(a.shape[:-2] + (n if full_matrices else k, n), a.dtype)
        if full_matrices:
            eye[...] = np.eye(m, dtype=a.dtype)
            eyev[...] = np.eye(n, dtype=a.dtype)
        return eye, np.zeros(a.shape[:-2] + (k,), a.dtype), eyev
    with _lapack("svd", "the SVD algorithm did not converge"):
        return np.linalg.svd(a, full_matrices=full_matrices)


def svdvals(a):
    """Singular values of each matrix, descending.

    >>> svdvals(np.diag([1.0, -3.0])).tolist()
    [3.0, 1.0]
    """
    if a.size == 0:
        return np.zeros(a.shape[:-2] + (min(a.shape[-2:]),), a.dtype)
    with _lapack("svdvals", "the SVD algorithm did not converge"):
        return np.linalg.svd(a, compute_uv=False)


def qr(a, mode):
    """``(Q, R)`` of each matrix, ``mode`` 'reduced' or 'complete'.

    >>> [x.shape for x in qr(np.ones((3, 2)), "reduced")]
    [(3, 2), (2, 2)]
    """
    m, n = a.shape[-2:]
    if a.size == 0:
        k = m if mode == "complete" else min(m, n)
        q = np.zeros(a.shape[:-2] + (m, k), a.dtype)
        q[...] = np.eye(m, k, dtype=a.dtype)
        return q, np.zeros(a.shape[:-2] + (k, n), a.dtype)
    return np.linalg.qr(a, mode=mode)


def orth_complement(q):
    """Orthonormal columns completing the orthonormal columns of each ``q`` (m x k) to
    a basis of R^m (from a complete QR of ``q``).

    >>> np.abs(orth_complement(np.array([[1.0], [0.0]]))).ravel().tolist()
    [0.0, 1.0]
    """
    m, k = q.shape[-2:]
    if q.size == 0:
        out = np.zeros(q.shape[:-2] + (m, m - k), q.dtype)
        out[...] = np.eye(m, dtype=q.dtype)[:, k:]
        return out
    return np.ascontiguousarray(np.linalg.qr(q, mode="complete")[0][..., :, k:])


# Padé (13, 13) coefficients of exp (Higham 2005, "The scaling and squaring method
# for the matrix exponential revisited"), and the 1-norm up to which no scaling is needed.
_PADE13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
           129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
           40840800., 960960., 16380., 182., 1.)
_THETA13 = 5.371920351148152


def _expm(a):
    """exp of one matrix by scaling, Padé (13, 13) and squaring."""
    norm = np.abs(a).sum(axis=0).max() if a.size else 0.0
    s = max(0, int(np.ceil(np.log2(norm / _THETA13)))) if norm > _THETA13 else 0
    a = a / 2.0 ** s
    b = _PADE13
    eye = np.eye(a.shape[0], dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2) + b[7] * a6 + b[5] * a4 + b[3] * a2
             + b[1] * eye)
    v = a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2) + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye
    r = np.linalg.solve(v - u, v + u)
    for _ in range(s):
        r = r @ r
    return r


def matrix_exp(a):
    """Matrix exponential of each matrix (numpy has none: Higham's Padé method).

    >>> matrix_exp(np.zeros((2, 2))).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    out = np.empty(a.shape, a.dtype)       # C order: the flat view below must share it
    flat_in = a.reshape((-1,) + a.shape[-2:])
    flat_out = out.reshape(flat_in.shape)
    for i in range(flat_in.shape[0]):
        flat_out[i] = _expm(flat_in[i])
    return out


def einsum(subscripts, *arrays):
    """numpy's einsum (with its contraction-order optimiser); never a view of an input
    (numpy returns one for a pure transpose, and an op's result must own its memory).

    >>> einsum("ij,jk->ik", np.eye(2), np.ones((2, 1))).ravel().tolist()
    [1.0, 1.0]
    """
    out = np.asarray(np.einsum(subscripts, *arrays, optimize=len(arrays) > 2))
    if any(isinstance(a, np.ndarray) and np.shares_memory(out, a) for a in arrays):
        out = out.copy()
    return out



def matmul_nt(a, b):
    """``a @ b.T`` for matrices: the CPU's ``matmul`` of the transposed view (the same
    numbers as before this function existed; a GPU backend reads ``b`` in place).

    >>> matmul_nt(np.ones((2, 3)), np.ones((4, 3))).shape
    (2, 4)
    """
    from . import matmul, transpose
    return matmul(a, transpose(b, (1, 0)))


def matmul_tn(a, b):
    """``a.T @ b`` for matrices, as ``matmul_nt``.

    >>> matmul_tn(np.ones((3, 2)), np.ones((3, 4))).shape
    (2, 4)
    """
    from . import matmul, transpose
    return matmul(transpose(a, (1, 0)), b)
