"""The column signs of the eigenvectors PyTorch's CPU ``linalg.eigh`` returns.

Eigenvectors are defined up to sign; which sign comes out is an accident of the LAPACK
build.  For matrices of order 3 to 25, ``syevd`` reduces A to a tridiagonal T with
Householder reflectors (``sytd2``) and diagonalises T by implicit QL/QR sweeps of plane
rotations (``steqr``); the rotations come from ``lartg``.  LAPACK 3.10 changed
``lartg``'s sign convention (c >= 0 always); numpy's OpenBLAS has the new one, the MKL
inside PyTorch's wheels the old one (c > 0 only when |f| > |g|, else r > 0), so their
eigenvectors differ in sign -- and only in sign.  (Order 2 uses no rotation; above 25
``syevd`` divides and conquers, whose merged vectors do not depend on those signs.)

``eigh_signs`` replays that algorithm with the old rotations (on the host, in float64)
and returns, per eigenvector, the sign that turns numpy's into PyTorch's.  It only
decides signs: the vectors themselves stay LAPACK's.

Its cost is Python's: about 5 ms for a 10 x 10 matrix, 25 ms for 25 x 25.

>>> a = np.array([[1.0, 2.0, 0.0], [2.0, -1.0, 1.0], [0.0, 1.0, 3.0]])
>>> w, v = np.linalg.eigh(a)
>>> signs(a, v, upper=False).tolist()      # MKL's first and last columns are flipped
[-1.0, 1.0, -1.0]
"""
import math

import numpy as np

from .decompositions import M, batch_leading
from .registry import Case, U, defop

_EPS = np.finfo(np.float64).eps * 0.5     # LAPACK's dlamch('E')
_SAFMIN = np.finfo(np.float64).tiny


def _reflector(alpha, x):
    """larfg: (tau, beta, v) with (I - tau [1; v] [1; v]^T) [alpha; x] = [beta; 0]."""
    norm = np.linalg.norm(x)
    if norm == 0:
        return 0.0, alpha, np.zeros_like(x)
    beta = -math.copysign(math.hypot(alpha, norm), alpha)
    return (beta - alpha) / beta, beta, x / (alpha - beta)


def tridiagonalize(s, upper):
    """sytd2 on a symmetric matrix: (d, e, Q) with ``Q^T s Q`` tridiagonal, diagonal d
    and off-diagonal e, reflectors taken from the ``upper`` or lower triangle's side.

    >>> s = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]])
    >>> d, e, Q = tridiagonalize(s, False)
    >>> np.allclose(Q @ (np.diag(d) + np.diag(e, 1) + np.diag(e, -1)) @ Q.T, s)
    True
    """
    a = np.array(s, dtype=np.float64)
    n = len(a)
    Q = np.eye(n)
    e = np.zeros(max(n - 1, 0))
    for i in (range(n - 2, -1, -1) if upper else range(n - 1)):
        if upper:
            tau, e[i], v = _reflector(a[i, i + 1], a[:i, i + 1])
            v, block = np.append(v, 1.0), slice(0, i + 1)
        else:
            tau, e[i], v = _reflector(a[i + 1, i], a[i + 2:, i])
            v, block = np.append(1.0, v), slice(i + 1, n)
        H = np.eye(n)
        H[block, block] -= tau * np.outer(v, v)
        a, Q = H @ a @ H, Q @ H
    return np.diagonal(a).copy(), e, Q


def _rotation(f, g):
    """lartg as LAPACK had it before 3.10: (c, s, r) with [c s; -s c] [f; g] = [r; 0],
    c > 0 when |f| > |g|, else r > 0."""
    if g == 0:
        return 1.0, 0.0, f
    if f == 0:
        return 0.0, 1.0, g
    r = math.hypot(f, g)
    c, s = f / r, g / r
    if abs(f) > abs(g) and c < 0:
        return -c, -s, -r
    return c, s, r


def _two_by_two(a, b, c):
    """laev2: eigenvalues (larger magnitude first) and the unit eigenvector (cs, sn) of
    the first for [[a, b], [b, c]]."""
    sm, df, tb = a + c, a - c, b + b
    adf, ab = abs(df), abs(tb)
    big, small = (a, c) if abs(a) > abs(c) else (c, a)
    rt = adf * math.sqrt(1 + (ab / adf) ** 2) if adf > ab else \
        ab * math.sqrt(1 + (adf / ab) ** 2) if adf < ab else ab * math.sqrt(2.0)
    if sm != 0:
        rt1 = 0.5 * (sm - rt) if sm < 0 else 0.5 * (sm + rt)
        rt2 = (big / rt1) * small - (b / rt1) * b
        sign1 = -1 if sm < 0 else 1
    else:
        rt1, rt2, sign1 = 0.5 * rt, -0.5 * rt, 1
    cs, sign2 = (df + rt, 1) if df >= 0 else (df - rt, -1)
    if abs(cs) > ab:
        ct = -tb / cs
        sn1 = 1 / math.sqrt(1 + ct * ct)
        cs1 = ct * sn1
    elif ab == 0:
        cs1, sn1 = 1.0, 0.0
    else:
        tn = -cs / tb
        cs1 = 1 / math.sqrt(1 + tn * tn)
        sn1 = tn * cs1
    if sign1 == sign2:
        cs1, sn1 = -sn1, cs1
    return rt1, rt2, cs1, sn1


def _rotate(Z, first, cs, sn, forward):
    """lasr('R', 'V', ...): plane rotations (cs[j], sn[j]) of columns first + j, j + 1."""
    for j in (range(len(cs)) if forward else range(len(cs) - 1, -1, -1)):
        x, y = Z[:, first + j].copy(), Z[:, first + j + 1].copy()
        Z[:, first + j + 1] = cs[j] * y - sn[j] * x
        Z[:, first + j] = sn[j] * y + cs[j] * x


def _sweeps(d, e, Z, lo, hi):
    """steqr's QL (lo < hi) or QR (lo > hi) iteration on the block between lo and hi."""
    step = 1 if hi > lo else -1
    l, its = lo, 0
    while (l - hi) * step <= 0 and its < 30 * len(d):
        m = hi       # the first negligible off-diagonal from l towards hi
        for k in range(l, hi, step):
            off = e[min(k, k + step)]
            if off * off <= (_EPS * _EPS * abs(d[k])) * abs(d[k + step]) + _SAFMIN:
                m = k
                break
        if m != hi:
            e[min(m, m + step)] = 0.0
        if m == l:                       # an eigenvalue converged
            l += step
            continue
        if m == l + step:                # a 2 x 2 block: closed form
            lo2 = min(l, m)
            d[lo2], d[lo2 + 1], cs, sn = _two_by_two(d[lo2], e[lo2], d[lo2 + 1])
            e[lo2] = 0.0
            _rotate(Z, lo2, [cs], [sn], step < 0)
            l += 2 * step
            continue
        its += 1
        p = d[l]
        g = (d[l + step] - p) / (2 * e[min(l, l + step)])
        g = d[m] - p + e[min(l, l + step)] / (g + math.copysign(math.hypot(g, 1.0), g))
        s = c = 1.0
        p = 0.0
        cs, sn = [], []
        for i in range(m - step, l - step, -step):
            k = min(i, i + step)         # the off-diagonal between i and i + step
            f, b = s * e[k], c * e[k]
            c, s, r = _rotation(g, f)
            if i != m - step:
                e[min(i + step, i + 2 * step)] = r
            g = d[i + step] - p
            r = (d[i] - g) * s + 2 * c * b
            p = s * r
            d[i + step] = g + p
            g = c * r - b
            cs.append(c)
            sn.append(-s if step > 0 else s)
        if step > 0:
            _rotate(Z, l, cs[::-1], sn[::-1], False)
        else:
            _rotate(Z, m, cs, sn, True)
        d[l] -= p
        e[min(l, l + step)] = g


def tridiagonal_vectors(d, e):
    """steqr('I'): eigenvalues (ascending) and eigenvectors of the symmetric tridiagonal
    matrix (d, e), with the pre-3.10 rotations.

    >>> w, Z = tridiagonal_vectors(np.array([2.0, 2.0]), np.array([1.0]))
    >>> w.tolist()
    [1.0, 3.0]
    """
    d, e = np.array(d, dtype=np.float64), np.append(np.asarray(e, dtype=np.float64), 0.0)
    n = len(d)
    Z = np.eye(n)
    start = 0
    while start < n:
        end = next((k for k in range(start, n - 1) if e[k] == 0 or abs(e[k]) <= math.sqrt(
            abs(d[k])) * math.sqrt(abs(d[k + 1])) * _EPS), n - 1)
        e[end] = 0.0 if end < n - 1 else e[end]
        if end > start and max(np.abs(d[start:end + 1]).max(), np.abs(e[start:end]).max()) > 0:
            lo, hi = (end, start) if abs(d[end]) < abs(d[start]) else (start, end)
            _sweeps(d, e, Z, lo, hi)
        start = end + 1
    for i in range(n - 1):               # steqr's selection sort (its column swaps)
        k = i + int(np.argmin(d[i:]))
        if d[k] < d[i]:
            d[[i, k]] = d[[k, i]]
            Z[:, [i, k]] = Z[:, [k, i]]
    return d, Z


def signs(a, v, upper):
    """Per column of ``v`` (eigenvectors of the symmetric matrix read from ``a``'s upper
    or lower triangle), the sign (+-1) that makes it the vector MKL's syevd returns.

    >>> signs(np.eye(2), np.eye(2), False).tolist()      # order 2: LAPACK agrees
    [1.0, 1.0]
    """
    n = a.shape[-1]
    out = np.ones(a.shape[:-1], dtype=np.float64)
    if not 3 <= n <= 25:
        return out
    flat_a = a.reshape((-1, n, n))
    flat_v = v.reshape((-1, n, n))
    flat_out = out.reshape((-1, n))
    for i in range(flat_a.shape[0]):
        tri = np.triu(flat_a[i]) if upper else np.tril(flat_a[i])
        s = tri + tri.T - np.diag(np.diagonal(tri))
        if not np.isfinite(s).all():
            continue
        d, e, Q = tridiagonalize(s, upper)
        _, Z = tridiagonal_vectors(d, e)
        flat_out[i] = np.where(((Q @ Z) * flat_v[i]).sum(axis=0) < 0, -1.0, 1.0)
    return out


def _signs_fwd(B, a, v, upper):
    x = B.to_numpy(a)
    return B.asarray(signs(x.astype(np.float64), B.to_numpy(v).astype(np.float64), upper)
                     .astype(x.dtype), x.dtype)


# not differentiable: a choice of sign
defop("eigh_signs", _signs_fwd, batch=batch_leading("eigh_signs"),
      cases=[Case(M(2, 4, 4, kind="sym"), U(2, 4, 4), upper=False),
             Case(M(3, 3, kind="sym"), U(3, 3), upper=True)])
