"""``eagerad.linalg``: numpy/PyTorch linear algebra, differentiable to any order.

Every function takes stacks of matrices (leading axes are batches) and is built
from the op stanzas of ``eagerad/ops/decompositions.py`` and ``contractions.py``
(their vjp and jvp rules are eagerad ops, so ``hessian``, ``jacfwd`` and
higher-order ``grad`` work).  Names and arguments follow ``numpy.linalg`` and
``torch.linalg`` (``axis``/``keepdims`` and ``dim``/``keepdim`` both accepted).
On CUDA the factorisations copy to the host for LAPACK and back (see
``backend/cuda/linalg.py``); matrix products stay on the device.

Degenerate inputs, as PyTorch: gradients of ``eigh``/``svd`` are inf/nan at
repeated eigen/singular values (``eigvalsh``/``svdvals`` stay finite); ``inv``
and ``solve`` raise ``LinAlgError`` (a RuntimeError) on an exactly singular matrix, while ``det``'s
gradient (the cofactor matrix) is finite there; norms have gradient 0 at 0 (and the
second derivatives PyTorch has there).  ``cholesky``, ``eigh`` and ``eigvalsh`` read one
triangle and give PyTorch's gradient, the one with respect to a symmetric matrix
(symmetric itself).

>>> import eagerad
>>> from eagerad import linalg
>>> A = eagerad.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=eagerad.float64, requires_grad=True)
>>> linalg.logdet(A).backward(); A.grad.tolist()      # d log det A / dA = A^-T
[[0.375, -0.25], [-0.25, 0.5]]
"""
import collections

import numpy as np

from .autograd.grad_mode import is_grad_enabled
from .backend import LinAlgError
from .ops.contractions import cross, dot, einsum, inner, kron, outer, tensordot, trace
from .ops.decompositions import (OPS, SlogdetResult, cholesky, complement, const, det, floating,
                                 inv, logdet, matrices, matrix_exp, matrix_power, mT,
                                 pinv_hermitian, read_symmetric, slogdet, square, unpack_eigh,
                                 unpack_qr, unpack_svd)
from .ops.householder import householder_product
from .ops.linalg import matmul
from .ops.lu import (LUFactorExResult, LUFactorResult, LUResult, lu, lu_factor, lu_factor_ex,
                     lu_solve, lu_unpack)
from .ops.math import as_tensor, where
from .ops.shape import concat, normalize_axis

__all__ = ["inv", "solve", "det", "slogdet", "logdet", "cholesky", "solve_triangular",
           "cho_solve", "cholesky_solve", "eigh", "eigvalsh", "svd", "svdvals", "qr", "lstsq",
           "pinv", "matrix_power", "matrix_exp", "norm", "vector_norm", "matrix_norm",
           "multi_dot", "matmul", "einsum", "tensordot", "outer", "inner", "dot", "kron",
           "cross", "trace", "matrix_rank", "LinAlgError", "SlogdetResult", "EighResult",
           "SVDResult", "QRResult", "LstsqResult", "lu", "lu_factor", "lu_factor_ex", "lu_solve", "lu_unpack",
           "LUResult", "LUFactorResult", "LUFactorExResult", "inv_ex", "solve_ex",
           "cholesky_ex", "diagonal", "vecdot", "vander", "tensorinv", "tensorsolve", "cond",
           "InvExResult", "SolveExResult", "CholeskyExResult", "householder_product"]

EighResult = collections.namedtuple("EighResult", "eigenvalues eigenvectors")
EighResult.__doc__ = """``(eigenvalues, eigenvectors)`` of ``eigh``.

>>> eigh(eagerad.eye(2)).eigenvalues.tolist()
[1.0, 1.0]
"""
SVDResult = collections.namedtuple("SVDResult", "U S Vh")
SVDResult.__doc__ = """``(U, S, Vh)`` of ``svd``: ``A = U diag(S) Vh``.

>>> svd(eagerad.eye(2)).S.tolist()
[1.0, 1.0]
"""
QRResult = collections.namedtuple("QRResult", "Q R")
QRResult.__doc__ = """``(Q, R)`` of ``qr``.

>>> qr(eagerad.eye(2)).R.shape
(2, 2)
"""
LstsqResult = collections.namedtuple("LstsqResult", "solution residuals rank singular_values")
LstsqResult.__doc__ = """``(solution, residuals, rank, singular_values)`` of ``lstsq`` (numpy's).

>>> lstsq(eagerad.eye(2), eagerad.ones(2)).solution.tolist()
[1.0, 1.0]
"""


def _rhs(name, A, B):
    """``B`` as a stack of matrices for ``A``'s systems, and whether it was a vector
    (1-D, or PyTorch's batch of vectors: shape ``A.shape[:-1]``)."""
    B = floating(name, B, "B")
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    if vector:
        B = B.unsqueeze(-1)
    if B.ndim < 2 or B.shape[-2] != A.shape[-1]:
        raise ValueError(f"linalg.{name}: A of shape {A.shape} and B of shape "
                         f"{B.shape if not vector else B.shape[:-1]} do not fit: B needs "
                         f"{A.shape[-1]} rows")
    try:
        np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    except ValueError:
        raise ValueError(f"linalg.{name}: the batch dimensions of A {A.shape} and B {B.shape} "
                         "cannot be broadcast together") from None
    if A.dtype != B.dtype:
        dtype = np.promote_types(A.dtype, B.dtype)
        A, B = A.astype(dtype), B.astype(dtype)
    return A, B, vector


def solve(A, B, *, left=True):
    """The solution X of ``A X = B`` (``left=False``: ``X A = B``) for square ``A``;
    ``B`` is a vector when 1-D or of shape ``A.shape[:-1]``.  Singular ``A`` is a
    RuntimeError (as PyTorch).

    >>> solve(eagerad.tensor([[2.0, 0.0], [0.0, 4.0]]), eagerad.tensor([1.0, 1.0])).tolist()
    [0.5, 0.25]
    """
    A = square("solve", A)
    if not left:
        return mT(solve(mT(A), mT(floating("solve", B, "B"))))
    A, B, vector = _rhs("solve", A, B)
    X = OPS["solve"](A, B)
    return X.squeeze(-1) if vector else X


def solve_triangular(A, B, *, upper=None, left=True, unitriangular=False, lower=None,
                     unit_diagonal=None):
    """Solve ``A X = B`` (``left=False``: ``X A = B``) reading only the upper or lower
    triangle of ``A``: PyTorch's keywords (``upper``, ``unitriangular``) or SciPy's
    (``lower``, default False, ``unit_diagonal``); ``B`` may be a vector (SciPy).

    >>> L = eagerad.tensor([[2.0, 0.0], [1.0, 1.0]])
    >>> solve_triangular(L, eagerad.tensor([2.0, 2.0]), upper=False).tolist()
    [1.0, 1.0]
    >>> solve_triangular(L, eagerad.tensor([2.0, 2.0]), lower=True).tolist()
    [1.0, 1.0]
    """
    if upper is not None and lower is not None and upper == lower:
        raise ValueError(f"linalg.solve_triangular: upper={upper} and lower={lower} contradict")
    upper = upper if upper is not None else not lower
    unit = bool(unitriangular or unit_diagonal)
    A = square("solve_triangular", A)
    if not left:
        return mT(solve_triangular(mT(A), mT(floating("solve_triangular", B, "B")),
                                   upper=not upper, unitriangular=unit))
    A, B, vector = _rhs("solve_triangular", A, B)
    X = OPS["solve_triangular"](A, B, upper=bool(upper), unitriangular=unit)
    return X.squeeze(-1) if vector else X


def cho_solve(c_and_lower, B):
    """Solve ``A X = B`` given A's Cholesky factor: SciPy's ``cho_solve((c, lower), b)``
    (a bare ``c`` is taken as lower, as ``cholesky`` returns it).

    >>> L = cholesky(eagerad.tensor([[4.0, 2.0], [2.0, 2.0]]))
    >>> cho_solve((L, True), eagerad.tensor([6.0, 4.0])).tolist()
    [1.0, 1.0]
    """
    c, lower = c_and_lower if isinstance(c_and_lower, tuple) else (c_and_lower, True)
    c = square("cho_solve", c, "c")
    if lower:
        return solve_triangular(mT(c), solve_triangular(c, B, upper=False), upper=True)
    return solve_triangular(c, solve_triangular(mT(c), B, upper=False), upper=True)


def cholesky_solve(B, L, upper=False):
    """PyTorch's ``cholesky_solve(B, L, upper=False)``: ``cho_solve((L, not upper), B)``.

    >>> L = cholesky(eagerad.tensor([[4.0, 2.0], [2.0, 2.0]]))
    >>> cholesky_solve(eagerad.tensor([[6.0], [4.0]]), L).tolist()
    [[1.0], [1.0]]
    """
    return cho_solve((L, not upper), B)


def _uplo(name, A, UPLO):
    if UPLO not in ("L", "U"):
        raise ValueError(f"linalg.{name}: UPLO must be 'L' or 'U', got {UPLO!r}")
    return read_symmetric(square(name, A), UPLO == "U")


def eigh(A, UPLO="L"):
    """Eigenvalues (ascending) and orthonormal eigenvectors of symmetric matrices,
    reading the ``UPLO`` triangle.  Gradients are inf/nan where eigenvalues repeat (as
    PyTorch); use ``eigvalsh`` when only the eigenvalues are needed.

    >>> w, V = eigh(eagerad.tensor([[2.0, 1.0], [1.0, 2.0]]))
    >>> [round(x, 6) for x in w.tolist()]
    [1.0, 3.0]
    """
    return EighResult(*unpack_eigh(OPS["eigh"](_uplo("eigh", A, UPLO))))


def eigvalsh(A, UPLO="L"):
    """Eigenvalues (ascending) of symmetric matrices, reading the ``UPLO`` triangle;
    the gradient ``V diag(g) V^T`` stays finite at repeated eigenvalues.

    >>> [round(x, 6) for x in eigvalsh(eagerad.tensor([[2.0, 1.0], [1.0, 2.0]])).tolist()]
    [1.0, 3.0]
    """
    return OPS["eigvalsh"](_uplo("eigvalsh", A, UPLO))


def svd(A, full_matrices=True):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, singular values descending.  With
    ``full_matrices`` the completing columns of U / rows of Vh carry no gradient (as
    PyTorch); gradients are inf/nan at repeated singular values (``svdvals`` is fine).

    >>> U, S, Vh = svd(eagerad.tensor([[3.0, 0.0], [0.0, -2.0]]))
    >>> S.tolist()
    [3.0, 2.0]
    """
    A = matrices("svd", A)
    m, n = A.shape[-2:]
    U, S, V = unpack_svd(OPS["svd"](A), m)
    if full_matrices and m > n:
        U = concat([U, complement(U)], axis=-1)
    if full_matrices and n > m:
        V = concat([V, complement(V)], axis=-1)
    return SVDResult(U, S, mT(V))


def svdvals(A):
    """Singular values of each matrix, descending; gradient ``U diag(g) Vh``.

    >>> svdvals(eagerad.tensor([[3.0, 0.0], [0.0, -2.0]])).tolist()
    [3.0, 2.0]
    """
    return OPS["svdvals"](matrices("svdvals", A))


def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None):
    """Rank of each matrix: its singular values (eigenvalue magnitudes where ``hermitian``)
    above ``max(atol, rtol * largest)``.  Without tolerances ``rtol`` is ``eps * max(m,
    n)`` (numpy's and PyTorch's rule), with a positive ``atol`` alone it is 0; ``tol``
    (numpy's) is ``atol``.  An int64 count, not differentiable.

    >>> matrix_rank(eagerad.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    A = matrices("matrix_rank", A).detach()
    m, n = A.shape[-2:]
    if min(m, n) == 0:
        return const(np.zeros(A.shape[:-2]), A, np.int64)
    s = abs(eigvalsh(A)) if hermitian else svdvals(A)
    atol = tol if atol is None else atol
    if rtol is None:
        given = atol is not None and bool((as_tensor(atol) > 0).all())
        rtol = 0.0 if given else np.finfo(np.dtype(A.dtype)).eps * max(m, n)
    per_matrix = [as_tensor(t, like=s).astype(s.dtype).unsqueeze(-1)     # (batch tolerances)
                  for t in (rtol, atol) if t is not None]
    bound = s.amax(-1, keepdim=True) * per_matrix[0]
    if atol is not None:
        bound = where(bound > per_matrix[1], bound, per_matrix[1])
    return (s > bound).sum(-1).astype(np.int64)


def qr(A, mode="reduced"):
    """``(Q, R)`` with ``A = Q R``: ``mode`` 'reduced' (Q is m x min(m, n)), 'complete'
    (Q is m x m) or 'r' (R alone, as numpy).  Differentiable where PyTorch's is: A of
    full rank (wide A: its first m columns independent); complete mode with more rows
    than columns refuses a gradient.

    >>> Q, R = qr(eagerad.tensor([[3.0, 1.0], [4.0, 2.0]]))
    >>> [round(abs(x), 6) for x in R.reshape(-1).tolist()]
    [5.0, 2.2, 0.0, 0.4]
    """
    A = matrices("qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise ValueError(f"linalg.qr: mode must be 'reduced', 'complete' or 'r', got {mode!r}")
    m, n = A.shape[-2:]
    Q, R = unpack_qr(OPS["qr"](A), m, n)
    if mode == "r":
        return R
    if mode == "complete" and m > n:
        if A.requires_grad and is_grad_enabled():
            raise RuntimeError(f"linalg.qr: mode='complete' with more rows than columns (A of "
                               f"shape {A.shape}) is not differentiable (as PyTorch); use "
                               "mode='reduced'")
        Q = concat([Q, complement(Q)], axis=-1)
        R = concat([R, R[..., :1, :].broadcast_to(R.shape[:-2] + (m - n, n)) * 0], axis=-2)
    return QRResult(Q, R)


def pinv(A, rtol=None, hermitian=False, *, atol=None, rcond=None):
    """Moore-Penrose pseudo-inverse from the SVD: singular values at or below
    ``max(atol, rtol * largest)`` are treated as 0 (``rtol`` default ``max(m, n) *
    eps``; numpy's ``rcond`` is ``rtol``).  Differentiable where the SVD is (distinct
    singular values).  ``hermitian``: from ``eigh`` of the lower triangle (as numpy and
    PyTorch), with PyTorch's gradient (the pseudo-inverse's, at ``A`` as given).

    >>> pinv(eagerad.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    A = matrices("pinv", A)
    m, n = A.shape[-2:]
    rtol = rcond if rtol is None else rtol
    if rtol is None:
        rtol = max(m, n) * np.finfo(A.dtype).eps if atol is None else 0.0
    if hermitian:
        A = square("pinv", A)
        host = [np.asarray(t.detach().numpy()) if hasattr(t, "numpy") else np.asarray(t, float)
                for t in (rtol, 0.0 if atol is None else atol)]
        return pinv_hermitian(A, *host)
    U, S, V = unpack_svd(OPS["svd"](A), m)
    cutoff = S[..., :1] * rtol if S.shape[-1] else S
    if atol is not None:
        cutoff = where(cutoff > atol, cutoff, atol)
    keep = S > cutoff
    inv_s = where(keep, 1 / where(keep, S, 1), 0)
    return (V * inv_s.unsqueeze(-2)) @ mT(U)


def lstsq(A, B, rcond=None):
    """Least-squares solution of ``A X = B`` (``pinv(A) @ B``) as numpy's
    ``(solution, residuals, rank, singular_values)``: residuals are the squared
    residual norms when A has more rows than columns and full rank, else empty.

    >>> lstsq(eagerad.tensor([[1.0], [1.0]]), eagerad.tensor([1.0, 3.0])).solution.tolist()
    [2.0]
    """
    A = matrices("lstsq", A)
    B = floating("lstsq", B, "B")
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    if Bm.shape[-2] != A.shape[-2]:
        raise ValueError(f"linalg.lstsq: A of shape {A.shape} and B of shape {B.shape} do not "
                         f"fit: B needs {A.shape[-2]} rows")
    X = pinv(A, rtol=rcond) @ Bm
    s = svdvals(A).detach()
    m, n = A.shape[-2:]
    eps = max(m, n) * np.finfo(A.dtype).eps if rcond is None else rcond
    rank = (s > s[..., :1] * eps).sum(axis=-1)
    if m > n and bool((rank == n).all()):
        residuals = ((A @ X - Bm) ** 2).sum(axis=-2)
        residuals = residuals.squeeze(-1) if vector else residuals
    else:
        residuals = as_tensor(np.zeros((0,), A.dtype), A)
    return LstsqResult(X.squeeze(-1) if vector else X, residuals, rank, s)


def multi_dot(tensors):
    """Product of a chain of matrices in the cheapest order (numpy's ``multi_dot``: a
    1-D first operand is a row vector, a 1-D last one a column).

    >>> multi_dot([eagerad.ones(3), eagerad.ones(3, 4), eagerad.ones(4)]).item()
    12.0
    """
    xs = [floating("multi_dot", t, f"tensors[{i}]") for i, t in enumerate(tensors)]
    if len(xs) < 2:
        raise ValueError(f"linalg.multi_dot: needs at least 2 tensors, got {len(xs)}")
    first_vec, last_vec = xs[0].ndim == 1, xs[-1].ndim == 1
    if first_vec:
        xs[0] = xs[0].unsqueeze(0)
    if last_vec:
        xs[-1] = xs[-1].unsqueeze(-1)
    for i, x in enumerate(xs):
        if x.ndim != 2:
            raise ValueError(f"linalg.multi_dot: tensors[{i}] must be 2-D (1-D allowed first and "
                             f"last), got shape {x.shape}")
    for i in range(len(xs) - 1):
        if xs[i].shape[1] != xs[i + 1].shape[0]:
            raise ValueError(f"linalg.multi_dot: tensors[{i}] {xs[i].shape} and tensors[{i + 1}] "
                             f"{xs[i + 1].shape} are not aligned")
    dims = [xs[0].shape[0]] + [x.shape[1] for x in xs]
    split = _chain_order(dims)

    def product(i, j):
        return xs[i] if i == j else product(i, split[i][j]) @ product(split[i][j] + 1, j)
    out = product(0, len(xs) - 1)
    if first_vec:
        out = out.squeeze(0)
    if last_vec:
        out = out.squeeze(-1)
    return out


def _chain_order(dims):
    """Matrix-chain dynamic programme (Cormen et al.): where to split each chain i..j."""
    n = len(dims) - 1
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                c = cost[i][k] + cost[k + 1][j] + dims[i] * dims[k + 1] * dims[j + 1]
                if c < cost[i][j]:
                    cost[i][j], split[i][j] = c, k
    return split

# ------------------------------------------------------------------ norms


def _axis_arg(axis, dim, keepdims, keepdim):
    return (dim if dim is not None else axis), bool(keepdims or keepdim)


def vector_norm(x, ord=2, axis=None, keepdims=False, *, dim=None, keepdim=False):
    """``(sum |x|^ord)^(1/ord)`` over ``axis`` (all axes when None), ``ord`` any real,
    ``inf``/``-inf`` (max/min of |x|) or 0 (number of nonzeros).  Gradient 0 at 0
    (PyTorch's subgradient), inf-norm ties share the gradient evenly.

    >>> vector_norm(eagerad.tensor([3.0, -4.0])).item()
    5.0
    >>> vector_norm(eagerad.tensor([3.0, -4.0]), ord=float("inf")).item()
    4.0
    """
    x = floating("vector_norm", x, "x")
    axis, keepdims = _axis_arg(axis, dim, keepdims, keepdim)
    if isinstance(ord, str) or ord is None:
        raise ValueError(f"linalg.vector_norm: ord must be a number, got {ord!r}")
    axes = normalize_axis(axis, x.ndim)
    return OPS["vector_norm"](x, ord=float(ord), axes=axes, keepdims=keepdims)


def matrix_norm(A, ord="fro", axis=(-2, -1), keepdims=False, *, dim=None, keepdim=False):
    """Matrix norm over the two axes ``axis``: 'fro', 'nuc' (sum of singular values),
    2 / -2 (largest / smallest singular value), 1 / -1 (max / min column sum of |A|),
    inf / -inf (max / min row sum).

    >>> matrix_norm(eagerad.tensor([[1.0, -2.0], [3.0, 4.0]]), ord=1).item()
    6.0
    """
    A = floating("matrix_norm", A)
    axis, keepdims = _axis_arg(axis, dim, keepdims, keepdim)
    axes = normalize_axis(axis, A.ndim)
    if len(axes) != 2:
        raise ValueError(f"linalg.matrix_norm: axis must name 2 axes, got {axis}")
    if ord == "fro":
        return OPS["vector_norm"](A, ord=2.0, axes=axes, keepdims=keepdims)
    rest = [i for i in range(A.ndim) if i not in axes]
    moved = A.permute(tuple(rest) + axes)
    if ord in ("nuc", 2, -2):
        s = svdvals(moved)
        out = s.sum(axis=-1) if ord == "nuc" else (s.max(axis=-1) if ord == 2 else s.min(axis=-1))
    elif ord in (1, -1, np.inf, -np.inf):
        sums = moved.abs().sum(axis=-2 if ord in (1, -1) else -1)
        out = sums.max(axis=-1) if ord > 0 else sums.min(axis=-1)
    else:
        raise ValueError(f"linalg.matrix_norm: ord must be 'fro', 'nuc', 2, -2, 1, -1, inf or "
                         f"-inf, got {ord!r}")
    if keepdims:
        for a in sorted(axes):
            out = out.unsqueeze(a)
    return out


def norm(x, ord=None, axis=None, keepdims=False, *, dim=None, keepdim=False):
    """numpy's ``linalg.norm``: with ``axis`` None, the 2-norm of the flattened input
    when ``ord`` is None, else a vector norm of 1-D or matrix norm of 2-D input; an int
    ``axis`` gives vector norms, a pair matrix norms.

    >>> norm(eagerad.tensor([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    >>> norm(eagerad.tensor([[3.0, 0.0], [0.0, 4.0]]), ord="nuc").item()
    7.0
    """
    x = floating("norm", x, "x")
    axis, keepdims = _axis_arg(axis, dim, keepdims, keepdim)
    if axis is None:
        if ord is None:
            return vector_norm(x, 2, None, keepdims)
        if x.ndim not in (1, 2):
            raise ValueError(f"linalg.norm: with ord={ord!r} and no axis the input must be 1-D "
                             f"or 2-D, got shape {x.shape}")
        axis = tuple(range(x.ndim))
    axes = normalize_axis(axis, x.ndim)
    if len(axes) == 1:
        return vector_norm(x, 2 if ord is None else ord, axes, keepdims)
    if len(axes) == 2:
        return matrix_norm(x, "fro" if ord is None else ord, axes, keepdims)
    raise ValueError(f"linalg.norm: axis must name 1 or 2 axes, got {axis}")

# ------------------------------------------------------------------ PyTorch's other names


InvExResult = collections.namedtuple("InvExResult", "inverse info")
InvExResult.__doc__ = """``(inverse, info)`` of ``inv_ex``.

>>> inv_ex(eagerad.eye(2)).info.item()
0
"""
SolveExResult = collections.namedtuple("SolveExResult", "result info")
SolveExResult.__doc__ = """``(result, info)`` of ``solve_ex``.

>>> solve_ex(eagerad.eye(2), eagerad.ones(2)).info.item()
0
"""
CholeskyExResult = collections.namedtuple("CholeskyExResult", "L info")
CholeskyExResult.__doc__ = """``(L, info)`` of ``cholesky_ex``.

>>> cholesky_ex(eagerad.eye(2)).info.item()
0
"""


def _ex(name, A, info, compute, check_errors, what, trailing=2):
    """``compute(A)`` where ``info`` (int tensor, one per matrix) is 0; the failed
    matrices' results (their last ``trailing`` dimensions) are nan, their ``info`` says
    why; with ``check_errors`` a RuntimeError instead.  ``compute`` never sees a failed
    matrix: the identity stands in for it.  Reads no value unless ``check_errors`` (so
    vmap and jacfwd work)."""
    if check_errors:
        host = np.asarray(info.numpy())
        if host.any():
            raise LinAlgError(f"linalg.{name}: the input matrix {what} (info = "
                               f"{int(host.max())} for the matrix at batch index "
                               f"{tuple(int(i) for i in np.argwhere(host)[0])})")
    bad = info != 0
    eye = const(np.eye(A.shape[-1]), A)
    out = compute(where(bad.unsqueeze(-1).unsqueeze(-1), eye, A))
    for _ in range(trailing):
        bad = bad.unsqueeze(-1)
    return where(bad, float("nan"), out)


def inv_ex(A, *, check_errors=False):
    """``(inverse, info)``: ``info`` is 0, or i > 0 when the matrix is singular (U[i-1,
    i-1] of its LU is 0), and then its inverse is nan; ``check_errors`` raises instead.

    >>> r = inv_ex(eagerad.tensor([[1.0, 2.0], [2.0, 4.0]])); r.info.item()
    2
    """
    A = square("inv_ex", A)
    info = lu_factor_ex(A.detach()).info
    return InvExResult(_ex("inv_ex", A, info, inv, check_errors, "is singular"), info)


def solve_ex(A, B, *, left=True, check_errors=False):
    """``(result, info)`` of ``solve``: for a singular matrix (``info`` i > 0, as
    ``inv_ex``) the result is nan; ``check_errors`` raises instead.

    >>> A = eagerad.tensor([[2.0, 0.0], [0.0, 4.0]])
    >>> solve_ex(A, eagerad.tensor([1.0, 1.0])).result.tolist()
    [0.5, 0.25]
    """
    A = square("solve_ex", A)
    B = floating("solve_ex", B, "B")
    info = lu_factor_ex(A.detach()).info
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and B.shape == A.shape[:-1])
    out = _ex("solve_ex", A, info, lambda a: solve(a, B, left=left), check_errors,
              "is singular", 1 if vector else 2)
    return SolveExResult(out, info)


def cholesky_ex(A, *, upper=False, check_errors=False):
    """``(L, info)`` of ``cholesky``: ``info`` is 0, or the order k of the first leading
    minor that is not positive definite, and then L is nan; ``check_errors`` raises.

    >>> cholesky_ex(eagerad.tensor([[1.0, 2.0], [2.0, 1.0]])).info.item()
    2
    """
    A = square("cholesky_ex", A)
    info = OPS["cholesky_info"](A.detach())
    L = _ex("cholesky_ex", A, info, lambda a: cholesky(a, upper=upper), check_errors,
            "is not positive-definite")
    return CholeskyExResult(L, info)


def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    """The diagonals of a batch of matrices (``torch.linalg.diagonal``: by default the
    last two dimensions; ``offset`` above (> 0) or below the main diagonal).

    >>> diagonal(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]]), offset=1).tolist()
    [2.0]
    """
    return as_tensor(A).diagonal(offset, dim1=dim1, dim2=dim2)


def vecdot(x, y, *, dim=-1, axis=None):
    """Dot products of the vectors along ``dim`` (numpy's ``axis``), broadcasting the rest.

    >>> vecdot(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]]), eagerad.tensor([1.0, 1.0])).tolist()
    [3.0, 7.0]
    """
    return (as_tensor(x) * as_tensor(y)).sum(axis=dim if axis is None else axis)


def vander(x, *, N=None):
    """Vandermonde matrices of increasing powers (``torch.linalg.vander``): row i of the
    last two dimensions is ``x_i^0, x_i^1, ..., x_i^(N-1)``; ``N`` defaults to
    ``x.shape[-1]``.  Built by products (finite gradients at 0).

    >>> vander(eagerad.tensor([2.0, 3.0])).tolist()
    [[1.0, 2.0], [1.0, 3.0]]
    """
    x = as_tensor(x)
    if x.ndim == 0:
        x = x.reshape(1)
    N = x.shape[-1] if N is None else N
    if not isinstance(N, (int, np.integer)) or N < 1:
        raise ValueError(f"linalg.vander: N must be a positive int, got {N!r}")
    columns = [x * 0 + 1]
    for _ in range(N - 1):
        columns.append(columns[-1] * x)
    return concat([c.unsqueeze(-1) for c in columns], axis=-1)


def tensorinv(A, ind=2):
    """The inverse of ``A`` read as a linear map from its last dimensions to its first
    ``ind`` ones (numpy's and PyTorch's ``tensorinv``): ``tensordot(tensorinv(A, ind), A,
    A.ndim - ind)`` is the identity.

    >>> tensorinv(eagerad.eye(4).reshape(4, 2, 2), ind=1).shape
    (2, 2, 4)
    """
    A = floating("tensorinv", A)
    if not isinstance(ind, (int, np.integer)) or ind <= 0:
        raise ValueError(f"linalg.tensorinv: ind must be a positive int, got {ind!r}")
    left, right = A.shape[:ind], A.shape[ind:]
    rows, cols = int(np.prod(left)), int(np.prod(right))
    if rows != cols:
        raise ValueError(f"linalg.tensorinv: the product of the first {ind} dimensions of A "
                         f"{A.shape} ({rows}) must equal that of the others ({cols})")
    return inv(A.reshape(rows, cols)).reshape(right + left)


def tensorsolve(A, B, dims=None, *, axes=None):
    """The X with ``tensordot(A, X, X.ndim) = B`` (numpy's and PyTorch's
    ``tensorsolve``); ``dims`` (numpy's ``axes``) are dimensions of A moved to the end
    first.

    >>> tensorsolve(eagerad.eye(4).reshape(2, 2, 4), eagerad.ones(2, 2)).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    A = floating("tensorsolve", A)
    B = floating("tensorsolve", B, "B")
    dims = axes if dims is None else dims
    if dims is not None:
        dims = [d % A.ndim for d in dims]
        A = A.permute(tuple(i for i in range(A.ndim) if i not in dims) + tuple(dims))
    x_shape = A.shape[B.ndim:]
    rows, cols = int(np.prod(B.shape)), int(np.prod(x_shape))
    if int(np.prod(A.shape[:B.ndim])) != rows or rows != cols:
        raise ValueError(f"linalg.tensorsolve: A of shape {A.shape} does not fit B of shape "
                         f"{B.shape}: A's first {B.ndim} dimensions must hold {rows} elements "
                         f"(B's) and so must the rest")
    return solve(A.reshape(rows, cols), B.reshape(rows)).reshape(x_shape)


def cond(A, p=None):
    """Condition number of each matrix in the norm ``p``: None or 2 the ratio of the
    largest to the smallest singular value (-2 its inverse), else ``norm(A, p) *
    norm(inv(A), p)`` for 'fro', 'nuc', 1, -1, inf, -inf.

    >>> cond(eagerad.tensor([[2.0, 0.0], [0.0, 0.5]])).item()
    4.0
    """
    A = matrices("cond", A)
    if p in (None, 2, -2):
        s = svdvals(A)
        ratio = s[..., 0] / s[..., -1]
        return ratio if p != -2 else 1 / ratio
    if p not in ("fro", "nuc", 1, -1, np.inf, -np.inf):
        raise ValueError(f"linalg.cond: p must be None, 'fro', 'nuc', 2, -2, 1, -1, inf or -inf, "
                         f"got {p!r}")
    A = square("cond", A)
    return matrix_norm(A, p) * matrix_norm(inv(A), p)
