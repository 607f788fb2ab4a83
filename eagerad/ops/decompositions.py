"""Linear-algebra primitives: inverse, solves, determinants and factorisations.

Each op is batched over leading axes and has its vjp and jvp written in eagerad
ops (so derivatives of any order work).  The formulas are the published ones:
Giles 2008 ("An extended collection of matrix derivative results") for inv,
solve and det; Murray 2016 for cholesky; the symmetric-eigenproblem and SVD
rules of PyTorch's FunctionsManual / Townsend 2016; PyTorch's QR rule; the
block-matrix rule of Al-Mohy & Higham for matrix_exp.  The public functions
with input checks are in ``eagerad.linalg``.

Symmetric inputs (cholesky, eigh, eigvalsh): these ops act on the symmetric
part ``(A + A^T) / 2`` of their argument, as JAX's ``symmetrize_input=True``, so
the gradient is symmetric (as PyTorch's) and exact for the function computed.
``eagerad.linalg`` first builds the symmetric matrix from the triangle numpy and
PyTorch read (``UPLO``), so its results are numpy's.

>>> import eagerad
>>> OPS["inv"](eagerad.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
[[0.5, 0.0], [0.0, 0.25]]
"""
import collections

import numpy as np

from ..tensor import Tensor
from .math import as_tensor, where
from .primitives import Primitive
from .reduction import _spread
from .registry import OPS, Case, U, defop, export
from .shape import concat

# ------------------------------------------------------------------ helpers


def mT(x):
    """Swap the last two axes (matrix transpose of a stack).

    >>> mT(eagerad.ones(4, 2, 3)).shape
    (4, 3, 2)
    """
    return x.swapaxes(-1, -2)


def const(array, like, dtype=None):
    """A constant tensor of ``array`` with ``like``'s dtype (or ``dtype``), on ``like``'s
    device and with its face (so that a constant handed out prints as its face's).

    >>> const(np.eye(2), eagerad.ones(1, dtype=eagerad.float64)).dtype
    dtype('float64')
    """
    out = as_tensor(np.asarray(array, dtype=like.dtype if dtype is None else dtype), like)
    out._face = like._face
    return out


def diagonal(x):
    """The main diagonals of a stack of matrices (differentiable).

    >>> diagonal(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [1.0, 4.0]
    """
    ar = np.arange(min(x.shape[-2:]))
    return x[..., ar, ar]


def diag_embed(v):
    """Stack of diagonal matrices with ``v``'s last axis on the diagonal.

    >>> diag_embed(eagerad.tensor([1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    return v.unsqueeze(-1) * const(np.eye(v.shape[-1]), v)


def _sym(x):
    return (x + mT(x)) * 0.5


def _swap_last(ndim):
    return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)


def _sym_array(B, a):
    """The symmetric part of a stack of matrices, on the backend."""
    return B.binary("mul", B.binary("add", a, B.transpose(a, _swap_last(a.ndim))), 0.5)


def _tri_mask(n, upper, strict=False, like=None):
    keep = np.triu(np.ones((n, n)), 1 if strict else 0) if upper \
        else np.tril(np.ones((n, n)), -1 if strict else 0)
    return const(keep, like)


def _trace(x):
    return diagonal(x).sum(axis=-1)

# ------------------------------------------------------------------ batching


def batch_leading(name):
    """Batching rule for an op batched over leading axes whose operands broadcast
    their batch dimensions: the batch axis goes first, after it as many 1s as the
    operand lacks, so numpy's broadcasting lines the rest up.

    >>> rule = batch_leading("inv")
    >>> out, bdim = rule((eagerad.ones(3, 3) + eagerad.eye(3).reshape(3, 1, 3),), (1,))
    >>> out.shape, bdim
    ((3, 3, 3), 0)
    """
    def rule(args, bdims, **kw):
        ranks = [a.ndim - (d is not None) for a, d in zip(args, bdims) if isinstance(a, Tensor)]
        rank = max(ranks)
        moved = []
        for a, d in zip(args, bdims):
            if d is not None:
                a = a.permute((d,) + tuple(i for i in range(a.ndim) if i != d)) if d else a
                a = a.reshape(a.shape[:1] + (1,) * (rank + 1 - a.ndim) + a.shape[1:])
            moved.append(a)
        out = OPS[name](*moved, **kw)
        return out, 0
    return rule


class M(U):
    """A float64 gradcheck input that is a (stack of) well-posed matrices: ``kind``
    'general' (uniform plus n I: invertible), 'spd' (X X^T + n I), 'sym' (symmetric,
    distinct eigenvalues almost surely).

    >>> M(2, 3, 3, kind="spd").draw(np.random.default_rng(0)).shape
    (2, 3, 3)
    """
    __slots__ = ("kind",)

    def __init__(self, *shape, kind="general"):
        super().__init__(*shape)
        self.kind = kind

    def draw(self, rng):
        x = super().draw(rng)
        n = self.shape[-1]
        if self.kind == "sym":
            return x + np.swapaxes(x, -1, -2)
        if self.kind == "spd":
            return x @ np.swapaxes(x, -1, -2) + n * np.eye(n)
        return x + n * np.eye(n) if self.shape[-2] == n else x


_SQUARE = [Case(M(3, 3)), Case(M(2, 3, 3)), Case(M(0, 2, 2)), Case(M(2, 0, 0)), Case(M(1, 1))]

# ------------------------------------------------------------------ inverse, solve


def _inv_fwd(B, a):
    return B.inv(a)


_inv = defop("inv", _inv_fwd,
             vjp=lambda g, ans, a: -(mT(ans) @ g @ mT(ans)),
             jvp=lambda t, ans, a: -(ans @ t @ ans), saves=(), save_output=True,
             cases=_SQUARE, batch=batch_leading("inv"))


def _solve_grad_b(g, ans, a, b):
    return _solve(mT(a), g)


_solve = defop("solve", lambda B, a, b: B.solve(a, b),
               vjp=(lambda g, ans, a, b: -(_solve_grad_b(g, ans, a, b) @ mT(ans)), _solve_grad_b),
               jvp=(lambda t, ans, a, b: _solve(a, -(t @ ans)), lambda t, ans, a, b: _solve(a, t)),
               save_output=True, batch=batch_leading("solve"),
               cases=[Case(M(3, 3), U(3, 2)), Case(M(2, 3, 3), U(3, 1)), Case(M(3, 3), U(2, 3, 2)),
                      Case(M(0, 2, 2), U(2, 1)), Case(M(2, 2), U(2, 0))])

# ------------------------------------------------------------------ determinants


_logabsdet = defop("logabsdet", lambda B, a: B.slogdet(a)[1],
                   vjp=lambda g, ans, a: g.unsqueeze(-1).unsqueeze(-1) * mT(_inv(a)),
                   jvp=lambda t, ans, a: _trace(_solve(a, t)),
                   batch=batch_leading("logabsdet"),
                   cases=[Case(M(3, 3)), Case(M(2, 3, 3)), Case(M(0, 2, 2)), Case(M(2, 0, 0))])
_det_sign = defop("det_sign", lambda B, a: B.slogdet(a)[0], batch=batch_leading("det_sign"))


def _cofactor_fwd(B, a):
    """Cofactor matrix det(A) A^-T, from the SVD so that it holds at singular A too:
    A = U S Vh gives cof(A) = det(U) det(Vh) U adj(S) Vh, adj(S)_i = prod_{j != i} s_j."""
    u, s, vh = B.svd(a, False)
    host = B.to_numpy(s)
    n = host.shape[-1]
    others = np.ones(host.shape, dtype=host.dtype)
    for i in range(n):      # products of the other singular values, without dividing
        others[..., i] = np.prod(np.delete(host, i, axis=-1), axis=-1)
    signs = B.to_numpy(B.binary("mul", B.det(u), B.det(vh))).reshape(host.shape[:-1])
    scale = B.asarray((others * signs[..., None])[..., None, :], s.dtype)
    return B.matmul(B.binary("mul", u, scale), vh)


def _cofactor_vjp(g, ans, a):
    # d cof = det (tr(A^-1 dA) A^-T - A^-T dA^T A^-T), so the cotangent G pulls back to
    # det ((G . A^-T) A^-T - A^-T G^T A^-T)  (nonsingular A)
    inv_t = mT(_inv(a))
    d = _det(a).unsqueeze(-1).unsqueeze(-1)
    dot = (g * inv_t).sum(axis=(-2, -1), keepdims=True)
    return d * (dot * inv_t - inv_t @ mT(g) @ inv_t)


def _cofactor_jvp(t, ans, a):
    inv = _inv(a)
    return _trace(inv @ t).unsqueeze(-1).unsqueeze(-1) * ans - ans @ mT(t) @ mT(inv)


_cofactor = defop("cofactor", _cofactor_fwd, vjp=_cofactor_vjp, jvp=_cofactor_jvp,
                  save_output=True, batch=batch_leading("cofactor"), cases=_SQUARE[:3])

_det = defop("det", lambda B, a: B.det(a),
             vjp=lambda g, ans, a: g.unsqueeze(-1).unsqueeze(-1) * _cofactor(a),
             jvp=lambda t, ans, a: (_cofactor(a) * t).sum(axis=(-2, -1)),
             batch=batch_leading("det"), cases=_SQUARE)

# ------------------------------------------------------------------ triangular solve


def _tri_solve_grad_b(g, ans, a, b, upper, unitriangular):
    return _solve_tri(mT(a), g, upper=not upper, unitriangular=unitriangular)


def _tri_solve_grad_a(g, ans, a, b, upper, unitriangular):
    gb = _tri_solve_grad_b(g, ans, a, b, upper, unitriangular)
    return -(gb @ mT(ans)) * _tri_mask(a.shape[-1], upper, unitriangular, a)


def _tri_solve_tan_a(t, ans, a, b, upper, unitriangular):
    t = t * _tri_mask(a.shape[-1], upper, unitriangular, a)
    return _solve_tri(a, -(t @ ans), upper=upper, unitriangular=unitriangular)


_solve_tri = defop("solve_triangular",
                   lambda B, a, b, upper, unitriangular: B.solve_triangular(a, b, upper, unitriangular),
                   vjp=(_tri_solve_grad_a, _tri_solve_grad_b),
                   jvp=(_tri_solve_tan_a, lambda t, ans, a, b, upper, unitriangular:
                        _solve_tri(a, t, upper=upper, unitriangular=unitriangular)),
                   save_output=True, batch=batch_leading("solve_triangular"),
                   cases=[Case(M(3, 3), U(3, 2), upper=False, unitriangular=False),
                          Case(M(2, 3, 3), U(3, 1), upper=True, unitriangular=False),
                          Case(M(3, 3), U(2, 3, 2), upper=True, unitriangular=True),
                          Case(M(0, 2, 2), U(2, 1), upper=False, unitriangular=False)])

# ------------------------------------------------------------------ cholesky


def _phi(x):
    """Lower triangle with the diagonal halved (Murray 2016's Phi)."""
    n = x.shape[-1]
    return x * const(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), x)


def _cholesky_vjp(g, ans, a):
    # Murray 2016 / PyTorch: A-bar = L^-T sym(Phi(L^T L-bar)) L^-1 (symmetric)
    inner = _sym(_phi(mT(ans) @ g))
    half = _solve_tri(mT(ans), inner, upper=True, unitriangular=False)
    return _solve_tri(mT(ans), mT(half), upper=True, unitriangular=False)


def _cholesky_jvp(t, ans, a):
    # dL = L Phi(L^-1 sym(dA) L^-T)
    half = _solve_tri(ans, _sym(t), upper=False, unitriangular=False)
    inner = mT(_solve_tri(ans, mT(half), upper=False, unitriangular=False))
    return ans @ _phi(inner)


_cholesky = defop("cholesky", lambda B, a: B.cholesky(_sym_array(B, a)),
                  vjp=_cholesky_vjp, jvp=_cholesky_jvp, saves=(), save_output=True,
                  batch=batch_leading("cholesky"),
                  cases=[Case(M(3, 3, kind="spd")), Case(M(2, 3, 3, kind="spd")),
                         Case(M(0, 2, 2, kind="spd")), Case(M(1, 1, kind="spd"))])



def _cholesky_info(B, a):
    """LAPACK potrf's ``info`` of each matrix (lower triangle read), on the host: 0, or
    the order of the first leading minor that is not positive definite."""
    x = B.to_numpy(a)
    flat = x.reshape((int(np.prod(x.shape[:-2])),) + x.shape[-2:])
    info = np.zeros(flat.shape[0], np.int32)
    for i, m in enumerate(flat):
        lower = np.tril(m) + np.tril(m, -1).T
        if _factorises(lower):
            continue
        info[i] = next(k for k in range(1, len(m) + 1) if not _factorises(lower[:k, :k]))
    return B.asarray(info.reshape(x.shape[:-2]))


def _factorises(m):
    try:
        np.linalg.cholesky(m)
        return True
    except np.linalg.LinAlgError:
        return False


defop("cholesky_info", _cholesky_info, batch=batch_leading("cholesky_info"),
      cases=[Case(M(2, 3, 3, kind="spd")), Case(M(3, 3, kind="sym"))])

# ------------------------------------------------------------------ eigh
# Factorisations with several results are single-output ops on one packed array
# (so every transform, jacfwd and vmap included, sees one tensor); the public
# functions of ``eagerad.linalg`` slice it apart.


def _row(B, v):
    """A stack of vectors as a stack of one-row matrices."""
    shape = tuple(v.shape)      # (device arrays' shapes may not take negative indices)
    return B.reshape(v, shape[:-1] + (1, shape[-1]))


def _eigh_fwd(B, a):
    w, v = B.eigh(_sym_array(B, a))
    return B.concat([_row(B, w), v], v.ndim - 2)


def unpack_eigh(packed):
    """``(w, V)`` from the packed eigh result (row 0 the eigenvalues, then V).

    >>> [x.shape for x in unpack_eigh(OPS["eigh"](eagerad.eye(3)))]
    [(3,), (3, 3)]
    """
    return packed[..., 0, :], packed[..., 1:, :]


def _gaps(w):
    """E_ij = w_j - w_i with ones on the diagonal (so dividing by it leaves the
    diagonal of a zero-diagonal matrix zero)."""
    n = w.shape[-1]
    return w.unsqueeze(-2) - w.unsqueeze(-1) + const(np.eye(n), w)


def _eigh_vjp(g, ans, a):
    # A-bar = V (diag(w-bar) + skew(V^T V-bar) / E) V^T: symmetric; with a repeated
    # eigenvalue E has a zero off the diagonal and the gradient is inf/nan (as PyTorch)
    gw, gv = unpack_eigh(g)
    w, v = unpack_eigh(ans)
    k = mT(v) @ gv
    inner = (k - mT(k)) * 0.5 / _gaps(w) + diag_embed(gw)
    return v @ inner @ mT(v)


def _eigh_jvp(t, ans, a):
    w, v = unpack_eigh(ans)
    k = mT(v) @ _sym(t) @ v
    eye = const(np.eye(w.shape[-1]), w)
    return concat([diagonal(k).unsqueeze(-2), v @ (k * (1 / _gaps(w) - eye))], axis=-2)


_eigh = defop("eigh", _eigh_fwd, vjp=_eigh_vjp, jvp=_eigh_jvp,
              saves=(), save_output=True, batch=batch_leading("eigh"),
              cases=[Case(M(3, 3, kind="sym")), Case(M(2, 3, 3, kind="sym")),
                     Case(M(0, 2, 2, kind="sym"))])


def _eigvalsh_rule(g, ans, a):
    v = unpack_eigh(_eigh(a))[1]
    return v @ diag_embed(g) @ mT(v)


def _eigvalsh_tangent(t, ans, a):
    v = unpack_eigh(_eigh(a))[1]
    return diagonal(mT(v) @ _sym(t) @ v)


_eigvalsh = defop("eigvalsh", lambda B, a: B.eigvalsh(_sym_array(B, a)),
                  vjp=_eigvalsh_rule, jvp=_eigvalsh_tangent, batch=batch_leading("eigvalsh"),
                  cases=[Case(M(3, 3, kind="sym")), Case(M(2, 3, 3, kind="sym")),
                         Case(M(0, 2, 2, kind="sym"))])

# ------------------------------------------------------------------ svd


def _svd_fwd(B, a):
    u, s, vh = B.svd(a, False)
    return B.concat([u, _row(B, s), B.transpose(vh, _swap_last(vh.ndim))], u.ndim - 2)


def unpack_svd(packed, m):
    """``(U, S, V)`` (reduced, V not transposed) from the packed svd of an m-row matrix:
    rows ``[0, m)`` are U, row m is S, the rest V.

    >>> [x.shape for x in unpack_svd(OPS["svd"](eagerad.ones(4, 2)), 4)]
    [(4, 2), (2,), (2, 2)]
    """
    return packed[..., :m, :], packed[..., m, :], packed[..., m + 1:, :]


def _svd_f(s):
    """F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it (Townsend 2016)."""
    s2 = s * s
    eye = const(np.eye(s.shape[-1]), s)
    return 1 / (s2.unsqueeze(-2) - s2.unsqueeze(-1) + eye) - eye


def _svd_vjp(g, ans, a):
    # Townsend 2016: A-bar = U [(J + J^T) S + S (K + K^T) + diag(S-bar)] V^T
    #   + (I - U U^T) U-bar S^-1 V^T + U S^-1 V-bar^T (I - V V^T),
    # J = F o (U^T U-bar), K = F o (V^T V-bar); F is inf at a repeated singular value
    # (the gradient is then inf/nan, as PyTorch's)
    m, n = a.shape[-2:]
    u, s, v = unpack_svd(ans, m)
    gu, gs, gv = unpack_svd(g, m)
    f = _svd_f(s)
    j = f * (mT(u) @ gu)
    kk = f * (mT(v) @ gv)
    sd = s.unsqueeze(-2)        # right-multiplying by diag(s) scales columns
    core = (j + mT(j)) * sd + mT((kk + mT(kk)) * sd) + diag_embed(gs)
    out = u @ core @ mT(v)
    if m > n:
        out = out + ((gu - u @ (mT(u) @ gu)) / sd) @ mT(v)
    if n > m:
        out = out + (u / sd) @ (mT(gv) - (mT(gv) @ v) @ mT(v))
    return out


def _svd_jvp(t, ans, a):
    m, n = a.shape[-2:]
    u, s, v = unpack_svd(ans, m)
    dp = mT(u) @ t @ v
    f = _svd_f(s)
    sd = s.unsqueeze(-2)
    du = u @ (f * (dp * sd + mT(dp * sd)))
    dv = v @ (f * (mT(dp) * sd + mT(mT(dp) * sd)))
    if m > n:
        du = du + (t @ v - u @ (mT(u) @ t @ v)) / sd
    if n > m:
        dv = dv + (mT(t) @ u - v @ (mT(v) @ mT(t) @ u)) / sd
    return concat([du, diagonal(dp).unsqueeze(-2), dv], axis=-2)


_svd = defop("svd", _svd_fwd, vjp=_svd_vjp, jvp=_svd_jvp, saves=(), save_output=True,
             batch=batch_leading("svd"),
             cases=[Case(U(3, 3)), Case(U(2, 4, 3)), Case(U(3, 4)), Case(U(0, 3, 2))])


def _svdvals_vjp(g, ans, a):
    u, s, v = unpack_svd(_svd(a), a.shape[-2])
    return (u * g.unsqueeze(-2)) @ mT(v)


def _svdvals_tangent(t, ans, a):
    u, s, v = unpack_svd(_svd(a), a.shape[-2])
    return diagonal(mT(u) @ t @ v)


_svdvals = defop("svdvals", lambda B, a: B.svdvals(a), vjp=_svdvals_vjp, jvp=_svdvals_tangent,
                 batch=batch_leading("svdvals"),
                 cases=[Case(U(3, 3)), Case(U(2, 4, 3)), Case(U(2, 3)), Case(U(0, 3, 2))])

# ------------------------------------------------------------------ qr


def _qr_fwd(B, a):
    q, r = B.qr(a, "reduced")
    m, n = tuple(a.shape)[-2:]
    if m < n:       # Q is m x m: pad it to R's width n so both stack into one array
        q = B.concat([q, B.full(tuple(q.shape)[:-1] + (n - m,), 0, q.dtype)], q.ndim - 1)
    return B.concat([q, r], q.ndim - 2)


def unpack_qr(packed, m, n):
    """``(Q, R)`` (reduced) from the packed qr of an m x n matrix: rows ``[0, m)``
    are Q (padded to n columns when m < n), the rest R.

    >>> [x.shape for x in unpack_qr(OPS["qr"](eagerad.ones(4, 2)), 4, 2)]
    [(4, 2), (2, 2)]
    """
    return packed[..., :m, :min(m, n)], packed[..., m:, :]


def _qr_tall_vjp(gq, gr, q, r):
    # PyTorch's linalg_qr_backward (m >= n):
    #   A-bar = [Q-bar + Q copyltu(M)] R^-T,  M = triu(R-bar R^T - Q^T Q-bar)
    n = r.shape[-1]
    mm = (gr @ mT(r) - mT(q) @ gq) * _tri_mask(n, True, like=r)
    sym = mm + mT(mm) - mm * const(np.eye(n), mm)
    return mT(_solve_tri(r, mT(gq + q @ sym), upper=True, unitriangular=False))


def _qr_tall_jvp(t, q, r):
    # C = Q^T dA R^-1 = Q^T dQ + dR R^-1, Omega = tril(C, -1) - tril(C, -1)^T:
    # dR = (C - Omega) R, dQ = dA R^-1 - Q (C - Omega)
    n = r.shape[-1]
    t_rinv = mT(_solve_tri(mT(r), mT(t), upper=False, unitriangular=False))   # dA R^-1
    c = mT(q) @ t_rinv
    low = c * _tri_mask(n, False, strict=True, like=c)
    upper_part = c - low + mT(low)
    return t_rinv - q @ upper_part, upper_part @ r


# Wide A (m < n), as PyTorch: A = [X | Y] with X m x m, R = [U | V]; X = Q U is a square
# QR and V = Q^T Y, so Y = Q V: the rules chain the square ones through V.

def _qr_vjp(g, ans, a):
    m, n = a.shape[-2:]
    q, r = unpack_qr(ans, m, n)
    gq, gr = unpack_qr(g, m, n)
    if m >= n:
        return _qr_tall_vjp(gq, gr, q, r)
    u, v, gv = r[..., :m], r[..., m:], gr[..., m:]
    gx = _qr_tall_vjp(gq + (q @ v) @ mT(gv), gr[..., :m], q, u)
    return concat([gx, q @ gv], axis=-1)


def _qr_jvp(t, ans, a):
    m, n = a.shape[-2:]
    q, r = unpack_qr(ans, m, n)
    if m >= n:
        return concat(_qr_tall_jvp(t, q, r), axis=-2)
    u, v, ty = r[..., :m], r[..., m:], t[..., m:]
    dq, du = _qr_tall_jvp(t[..., :m], q, u)
    dv = mT(dq) @ (q @ v) + mT(q) @ ty
    return concat([concat([dq, ty * 0], axis=-1), concat([du, dv], axis=-1)], axis=-2)


_qr = defop("qr", _qr_fwd, vjp=_qr_vjp, jvp=_qr_jvp, saves=(), save_output=True,
            batch=batch_leading("qr"),
            cases=[Case(U(3, 3)), Case(U(2, 4, 3)), Case(U(0, 3, 2)), Case(U(2, 4)),
                   Case(U(2, 2, 3))])

# not differentiable: the completing columns of a full SVD or complete QR (PyTorch
# ignores their gradient, and refuses one through complete QR's Q)
complement = defop("orth_complement", lambda B, q: B.orth_complement(q), batch=batch_leading("orth_complement"))

# ------------------------------------------------------------------ pinv (PyTorch's rule)


def _pinv_fwd(B, a, rtol, atol, hermitian):
    """Pseudo-inverse on the host: from ``eigh`` of the lower triangle when ``hermitian``
    (what LAPACK and PyTorch read), else from the SVD; values at or below
    ``max(atol, rtol * largest)`` count as 0."""
    x = B.to_numpy(a)
    if hermitian:
        w, v = np.linalg.eigh(x) if x.size else (np.zeros(x.shape[:-1]), np.zeros(x.shape))
        s, left, right = np.abs(w), v, v
        inv = np.where(s > _cutoff(s, rtol, atol), 1 / np.where(w == 0, 1, w), 0)
    else:
        k = min(x.shape[-2:])
        if x.size:
            left, s, vh = np.linalg.svd(x, full_matrices=False)
        else:
            left, s, vh = (np.zeros(x.shape[:-1] + (k,)), np.zeros(x.shape[:-2] + (k,)),
                           np.zeros(x.shape[:-2] + (k, x.shape[-1])))
        right = np.swapaxes(vh, -1, -2)
        inv = np.where(s > _cutoff(s, rtol, atol), 1 / np.where(s == 0, 1, s), 0)
    out = (right * inv[..., None, :]) @ np.swapaxes(left, -1, -2)
    return B.asarray(np.ascontiguousarray(out, dtype=x.dtype), x.dtype)


def _cutoff(s, rtol, atol):
    largest = s.max(axis=-1, keepdims=True) if s.shape[-1] else np.zeros(s.shape[:-1] + (1,))
    return np.maximum(np.asarray(atol)[..., None], np.asarray(rtol)[..., None] * largest)


def _pinv_vjp(g, ans, a, rtol, atol, hermitian):
    # the adjoint of dP = -P dA P + P P^T dA^T (I - A P) + (I - P A) dA^T P^T P
    # (Golub & Pereyra 1973; PyTorch's pinv_backward), with A the matrix as given
    p, pt, gt = ans, mT(ans), mT(g)
    return -(pt @ g @ pt) + (gt - a @ (p @ gt)) @ (p @ pt) + (pt @ p) @ (gt - (gt @ p) @ a)


def _pinv_jvp(t, ans, a, rtol, atol, hermitian):
    p, pt, tt = ans, mT(ans), mT(t)
    return -(p @ t @ p) + (p @ pt) @ (tt - (tt @ a) @ p) + (tt - p @ (a @ tt)) @ (pt @ p)


_pinv = defop("pinv", _pinv_fwd, vjp=_pinv_vjp, jvp=_pinv_jvp, save_output=True,
              cases=[Case(U(3, 3), rtol=1e-15, atol=0.0, hermitian=False),
                     Case(U(2, 4, 3), rtol=1e-15, atol=0.0, hermitian=False),
                     Case(U(2, 3), rtol=1e-15, atol=0.0, hermitian=False)],
              batch=batch_leading("pinv"))
# (no gradcheck case with hermitian=True: its forward reads one triangle while the rule,
# PyTorch's, differentiates the whole matrix; tests/test_linalg_torch_rules.py checks it)


def pinv_hermitian(A, rtol, atol):
    """Pseudo-inverse of symmetric matrices from ``eigh`` of their lower triangle, with
    PyTorch's gradient: the pseudo-inverse's derivative with respect to ``A`` as given
    (for a symmetric ``A`` the exact one).  ``rtol``/``atol``: numbers or arrays.

    >>> pinv_hermitian(eagerad.tensor([[2.0, 7.0], [0.0, 4.0]]), 1e-15, 0.0).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _pinv(A, rtol=rtol, atol=atol, hermitian=True)


# ------------------------------------------------------------------ matrix_exp


def _exp_block(a, t):
    """Upper-right block of exp([[A, T], [0, A]]): the derivative of exp at A in the
    direction T (Al-Mohy & Higham 2009); itself made of matrix_exp, so differentiable."""
    n = a.shape[-1]
    shape = np.broadcast_shapes(a.shape, t.shape)
    a, t = a.broadcast_to(shape), t.broadcast_to(shape)
    top = concat([a, t], axis=-1)
    bottom = concat([a * 0, a], axis=-1)
    return _matrix_exp(concat([top, bottom], axis=-2))[..., :n, n:]


_matrix_exp = defop("matrix_exp", lambda B, a: B.matrix_exp(a),
                    vjp=lambda g, ans, a: _exp_block(mT(a), g),
                    jvp=lambda t, ans, a: _exp_block(a, t), saves=(0,),
                    batch=batch_leading("matrix_exp"),
                    cases=[Case(U(3, 3)), Case(U(2, 2, 2)), Case(U(0, 2, 2))])

# ------------------------------------------------------------------ vector norm


def _vector_norm_fwd(B, x, ord, axes, keepdims):
    if ord == 0:
        return B.reduce("sum", B.astype(B.binary("ne", x, 0), x.dtype), axes, keepdims)
    ax = B.unary("abs", x)
    if ord in (np.inf, -np.inf):
        return B.reduce("max" if ord > 0 else "min", ax, axes, keepdims)
    if ord == 1:
        return B.reduce("sum", ax, axes, keepdims)
    if ord == 2:
        return B.unary("sqrt", B.reduce("sum", B.binary("mul", x, x), axes, keepdims))
    return B.binary("pow", B.reduce("sum", B.binary("pow", ax, ord), axes, keepdims), 1.0 / ord)


def _norm_share(x, ans, ord, axes, keepdims):
    """d||x|| / dx as a tensor of x's shape, with PyTorch's subgradients: 0 where the
    norm is 0 (not nan); for inf/-inf the extreme entries share it evenly."""
    whole = _spread(ans, x.shape, axes, keepdims)
    if ord == 0:
        return x * 0
    if ord == 1:
        return x.sign()
    if ord in (np.inf, -np.inf):
        hit = (x.abs() == whole).astype(x.dtype)
        return x.sign() * hit / _spread(hit.sum(axis=axes, keepdims=keepdims), x.shape, axes,
                                        keepdims)
    safe = where(whole == 0, 1, whole)
    if ord == 2:
        return x / safe
    return x.sign() * x.abs() ** (ord - 1) / safe ** (ord - 1)


def _vector_norm_batch(args, bdims, ord, axes, keepdims):
    (x,), (d,) = args, bdims
    x = x.permute((d,) + tuple(i for i in range(x.ndim) if i != d)) if d else x
    return _vector_norm(x, ord=ord, axes=tuple(a + 1 for a in axes), keepdims=keepdims), 0


def _vector_norm_vjp(g, ans, x, ord, axes, keepdims):
    """PyTorch's norm gradient, zero where the norm is 0, with the divisions placed as
    PyTorch places them inside the mask: the second derivative at 0 (where there is none)
    is then PyTorch's too -- nan for ord 2 and ord < 1, 0 for ord > 2."""
    if ord in (0, 1, np.inf, -np.inf):
        return _spread(g, x.shape, axes, keepdims) * _norm_share(x, ans, ord, axes, keepdims)
    whole = _spread(ans, x.shape, axes, keepdims)
    gs = _spread(g, x.shape, axes, keepdims)
    zero = whole == 0
    if ord == 2:
        return gs * where(zero, 0, x / whole)
    if ord < 1:
        return x.sign() * where(zero, 0, (x.abs() / whole) ** (ord - 1) * gs)
    return x.sign() * x.abs() ** (ord - 1) * where(zero, 0, gs / whole ** (ord - 1))


_vector_norm = defop(
    "vector_norm", _vector_norm_fwd,
    vjp=_vector_norm_vjp,
    jvp=lambda t, ans, x, ord, axes, keepdims:
        (t * _norm_share(x, ans, ord, axes, keepdims)).sum(axis=axes, keepdims=keepdims),
    save_output=True, batch=_vector_norm_batch,
    cases=[Case(U(2, 3), ord=2, axes=(0, 1), keepdims=False),
           Case(U(2, 3, signed=True, low=0.2), ord=1, axes=(1,), keepdims=True),
           Case(U(2, 3), ord=np.inf, axes=(1,), keepdims=False),
           Case(U(2, 3), ord=-np.inf, axes=(0,), keepdims=False),
           Case(U(2, 3, low=0.2, signed=True), ord=3, axes=(1,), keepdims=False),
           Case(U(2, 3, low=0.2, signed=True), ord=0.5, axes=(0, 1), keepdims=False),
           Case(U(), ord=2, axes=(), keepdims=False), Case(U(0, 3), ord=2, axes=(0,), keepdims=False)])

# ------------------------------------------------------------------ public functions
# (the ones numpy/PyTorch also have as Tensor methods or top-level names; the rest of
# ``eagerad.linalg`` is in eagerad/linalg.py)


def floating(name, x, arg="A"):
    """``x`` as a Tensor, refusing non-float dtypes as PyTorch does.

    >>> floating("inv", eagerad.tensor([1, 2]))
    Traceback (most recent call last):
    ...
    TypeError: linalg.inv: A must be a floating-point tensor, got dtype int64 (shape (2,))
    """
    x = as_tensor(x)
    if x.dtype.kind != "f":
        raise TypeError(f"linalg.{name}: {arg} must be a floating-point tensor, got dtype "
                        f"{x.dtype} (shape {x.shape})")
    return x


def matrices(name, a, arg="A"):
    """``a`` checked to be a float batch of matrices (at least 2 dimensions).

    >>> matrices("svd", eagerad.ones(3))
    Traceback (most recent call last):
    ...
    ValueError: linalg.svd: A must be a batch of matrices (>= 2 dimensions), got shape (3,)
    """
    a = floating(name, a, arg)
    if a.ndim < 2:
        raise ValueError(f"linalg.{name}: {arg} must be a batch of matrices (>= 2 dimensions), "
                         f"got shape {a.shape}")
    return a


def square(name, a, arg="A"):
    """``a`` checked to be a float stack of square matrices.

    >>> square("det", eagerad.ones(2, 3))
    Traceback (most recent call last):
    ...
    ValueError: linalg.det: A must be a batch of square matrices, got shape (2, 3)
    """
    a = floating(name, a, arg)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"linalg.{name}: {arg} must be a batch of square matrices, got shape "
                         f"{a.shape}")
    return a


@export(name="inverse", methods=("inverse",))
def inv(A):
    """Inverse of each square matrix in ``A`` (leading axes are batches).  An exactly
    singular matrix is a RuntimeError, as ``torch.linalg.inv``.

    >>> inv(eagerad.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return _inv(square("inv", A))


@export(methods=("det",))
def det(A):
    """Determinant of each square matrix.  Its gradient is the cofactor matrix, computed
    from the SVD, so it is right at singular matrices too (as PyTorch's).

    >>> det(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0
    """
    return _det(square("det", A))


@export(methods=("slogdet",))
def slogdet(A):
    """``(sign, logabsdet)`` of each square matrix: the determinant is
    ``sign * exp(logabsdet)`` without overflow.  ``logabsdet`` is differentiable
    (gradient ``A^-T``; -inf and a RuntimeError in backward at a singular matrix).

    >>> sign, logabs = slogdet(eagerad.tensor([[-2.0, 0.0], [0.0, 1.0]]))
    >>> sign.item(), round(logabs.item(), 4)
    (-1.0, 0.6931)
    """
    A = square("slogdet", A)
    return SlogdetResult(_det_sign(A), _logabsdet(A))


@export(methods=("logdet",))
def logdet(A):
    """log of the determinant of each square matrix: nan where it is negative, -inf
    where it is 0 (as ``torch.logdet``).  Gradient ``A^-T``.

    >>> round(logdet(eagerad.tensor([[2.0, 0.0], [0.0, 3.0]])).item(), 4)
    1.7918
    """
    A = square("logdet", A)
    logabs = _logabsdet(A)
    return where(_det_sign(A) < 0, float("nan"), logabs)


def sym_from(A, upper):
    """The symmetric matrix whose lower (``upper=False``) or upper triangle is ``A``'s:
    what LAPACK reads for cholesky and eigh, as a differentiable expression.

    >>> sym_from(eagerad.tensor([[1.0, 9.0], [2.0, 3.0]]), False).tolist()
    [[1.0, 2.0], [2.0, 3.0]]
    """
    n = A.shape[-1]
    half = A * _tri_mask(n, upper, like=A)
    return half + mT(A * _tri_mask(n, upper, strict=True, like=A))


def read_symmetric(A, upper):
    """What cholesky and eigh read of ``A``, with PyTorch's gradient convention: the
    value is the symmetric matrix of ``A``'s lower (``upper=False``) or upper triangle
    (``sym_from``), the gradient flows as through ``(A + A^T) / 2`` -- the gradient
    with respect to a symmetric matrix, symmetric itself, the same in both triangles
    (PyTorch's).  For a symmetric ``A`` the value is ``A`` bit for bit.

    >>> A = eagerad.tensor([[1.0, 9.0], [2.0, 3.0]], requires_grad=True)
    >>> S = read_symmetric(A, False); S.tolist()
    [[1.0, 2.0], [2.0, 3.0]]
    >>> S[1, 0].backward(); A.grad.tolist()
    [[0.0, 0.5], [0.5, 0.0]]
    """
    through = _sym(A)
    return through + (sym_from(A, upper) - through).detach()


@export(methods=("cholesky",))
def cholesky(A, upper=False):
    """Cholesky factor of each symmetric positive-definite matrix: lower ``L`` with
    ``A = L L^T`` (``upper=True``: ``U`` with ``A = U^T U``).  Only the lower triangle
    of ``A`` is read (as LAPACK and PyTorch); not positive definite is a RuntimeError.
    The gradient is PyTorch's: with respect to ``A`` as a symmetric matrix, so itself
    symmetric (``read_symmetric``).

    >>> cholesky(eagerad.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    A = square("cholesky", A)
    L = _cholesky(read_symmetric(A, False))
    return mT(L) if upper else L


@export(methods=("matrix_exp",))
def matrix_exp(A):
    """Matrix exponential of each square matrix (Padé with scaling and squaring);
    derivatives by the block-matrix rule, so of any order.

    >>> matrix_exp(eagerad.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _matrix_exp(square("matrix_exp", A))


@export(methods=("matrix_power",))
def matrix_power(A, n):
    """``A`` to the integer power ``n`` by repeated squaring (``n < 0``: of ``inv(A)``;
    ``n = 0``: the identity).

    >>> matrix_power(eagerad.tensor([[1.0, 1.0], [0.0, 1.0]]), 3).tolist()
    [[1.0, 3.0], [0.0, 1.0]]
    """
    A = square("matrix_power", A)
    if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
        raise TypeError(f"linalg.matrix_power: n must be an int, got {n!r}")
    if n == 0:
        return A * 0 + const(np.eye(A.shape[-1]), A)
    base = _inv(A) if n < 0 else A
    n = abs(n)
    result = None
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


SlogdetResult = collections.namedtuple("SlogdetResult", "sign logabsdet")
SlogdetResult.__doc__ = """``(sign, logabsdet)`` of ``slogdet`` (numpy's and PyTorch's result).

>>> SlogdetResult(1.0, 0.0).logabsdet
0.0
"""

# ------------------------------------------------------------ MindSpore primitive classes


def configured_primitive(name, call, **defaults):
    """A MindSpore primitive class whose constructor takes the keywords ``defaults``
    (positionally too, in that order) and whose instances run ``call(*inputs, **config)``:
    ``ops.Cholesky(upper=True)(x)``.

    >>> Twice = configured_primitive("Twice", lambda x, by: x * by, by=2)
    >>> one = eagerad.tensor([1.0])
    >>> Twice()(one).tolist(), Twice(by=3), Twice(5)(one).tolist()
    ([2.0], Twice(by=3), [5.0])
    """
    def __init__(self, *args, **kwargs):
        if len(args) > len(defaults) or set(kwargs) - set(defaults):
            raise TypeError(f"ops.{name}: takes the arguments {tuple(defaults)}, got {args} "
                            f"and {sorted(kwargs)}")
        self.config = {**defaults, **dict(zip(defaults, args)), **kwargs}

    def __call__(self, *inputs):
        return call(*inputs, **self.config)

    def __repr__(self):
        return f"{name}({', '.join(f'{k}={v!r}' for k, v in self.config.items())})"

    cls = type(name, (Primitive,), {"__init__": __init__, "__call__": __call__,
                                    "__repr__": __repr__, "__module__": "eagerad.ops",
                                    "__doc__": f"MindSpore's ``ops.{name}``."})
    return export(cls, name=name)


def _adjoint_inverse(x, adjoint):
    return inv(mT(x) if adjoint else x)


configured_primitive("Cholesky", cholesky, upper=False)
configured_primitive("MatrixInverse", _adjoint_inverse, adjoint=False)
export(det, name="matrix_determinant", primitive="MatrixDeterminant")
export(slogdet, name="log_matrix_determinant", primitive="LogMatrixDeterminant")
