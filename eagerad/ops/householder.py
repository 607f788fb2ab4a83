"""Products of Householder reflectors, as LAPACK's ``orgqr``/``ormqr`` store them.

A QR factorisation in LAPACK's compact form keeps the reflectors
``H_i = I - tau_i v_i v_i^T`` below the diagonal of one matrix: ``v_i`` is 1 at row i,
the column ``A[i+1:, i]`` below it and 0 above.  ``householder_product`` forms the
first n columns of ``Q = H_1 H_2 ... H_k`` (``orgqr``); ``ormqr`` multiplies a matrix by
``Q`` or ``Q^T`` from either side.  Both are compositions of eagerad ops (rank-one
updates), so their derivatives of any order are exact.

>>> import eagerad
>>> A = eagerad.tensor([[1.0], [1.0]]); tau = eagerad.tensor([1.0])
>>> householder_product(A, tau).tolist()        # I - v v^T with v = (1, 1), first column
[[0.0], [-1.0]]
"""
import numpy as np

from .decompositions import const, floating, mT

__all__ = ["householder_product", "ormqr"]


def _reflectors(name, A, tau):
    """(V, tau) checked: V's columns are the k vectors ``v_i`` of ``A``'s k first columns."""
    A = floating(name, A)
    tau = floating(name, tau, "tau")
    if A.ndim < 2 or tau.ndim < 1:
        raise ValueError(f"{name}: A must be a batch of matrices and tau a batch of vectors, "
                         f"got shapes {A.shape} and {tau.shape}")
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if k > n:
        raise ValueError(f"{name}: tau of shape {tau.shape} has more than A's {n} columns "
                         f"(A of shape {A.shape})")
    if tau.shape[:-1] != A.shape[:-2]:
        raise ValueError(f"{name}: the batch dimensions of A {A.shape} and tau {tau.shape} "
                         "differ")
    V = A[..., :, :k] * const(np.tril(np.ones((m, k)), -1), A) + const(np.eye(m, k), A)
    return A, V, tau


def _apply(V, tau, X, reverse):
    """``H_1 ... H_k X`` (``reverse``: ``H_k ... H_1 X``, i.e. ``Q^T X``)."""
    k = tau.shape[-1]
    for i in (range(k) if reverse else range(k - 1, -1, -1)):
        v = V[..., :, i:i + 1]
        X = X - v @ ((mT(v) @ X) * tau[..., i:i + 1].unsqueeze(-1))
    return X


def householder_product(A, tau):
    """The first n columns of ``Q = H_1 ... H_k`` for the reflectors stored in ``A``
    (m x n, m >= n) and ``tau`` (k <= n): LAPACK's ``orgqr``, PyTorch's
    ``linalg.householder_product``.  Differentiable in both.

    >>> A = eagerad.tensor([[2.0, 0.0], [0.0, 3.0]])
    >>> householder_product(A, eagerad.tensor([0.0, 0.0])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    A, V, tau = _reflectors("linalg.householder_product", A, tau)
    m, n = A.shape[-2:]
    if m < n:
        raise ValueError(f"linalg.householder_product: A must have at least as many rows as "
                         f"columns, got shape {A.shape}")
    eye = A * 0 + const(np.eye(m, n), A)
    return _apply(V, tau, eye, reverse=False)


def ormqr(input, tau, other, left=True, transpose=False):
    """``Q other`` (``transpose``: ``Q^T other``; ``left=False``: ``other Q`` or
    ``other Q^T``) with the m x m ``Q = H_1 ... H_k`` of the reflectors in ``input`` and
    ``tau``: LAPACK's ``ormqr``.  Differentiable in all three.

    >>> A = eagerad.tensor([[1.0], [1.0]]); tau = eagerad.tensor([1.0])
    >>> ormqr(A, tau, eagerad.tensor([[1.0], [2.0]])).tolist()
    [[-2.0], [-1.0]]
    """
    input, V, tau = _reflectors("ormqr", input, tau)
    other = floating("ormqr", other, "other")
    m = input.shape[-2]
    side = other.shape[-2] if left else other.shape[-1]
    if other.ndim < 2 or side != m:
        raise ValueError(f"ormqr: other of shape {other.shape} does not fit the {m} x {m} Q "
                         f"of input {input.shape} (left={left})")
    if left:
        return _apply(V, tau, other, reverse=transpose)
    # X Q = (Q^T X^T)^T, X Q^T = (Q X^T)^T
    return mT(_apply(V, tau, mT(other), reverse=not transpose))
