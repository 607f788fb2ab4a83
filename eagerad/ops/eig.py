"""Eigen-decomposition of general square matrices: complex eigenvalues and eigenvectors.

``eig(A) = (L, V)`` with ``A V = V diag(L)``, each eigenvector of unit norm (LAPACK's
``geev``, as PyTorch and numpy use).  Eigenvectors are defined up to a phase, so the
gradient follows PyTorch: it is the gradient of a loss that does not depend on that
phase (``V^H gV`` is projected so its diagonal is real), solved back through ``V^H``;
for a real ``A`` the real part is kept.  Gradients are inf/nan at repeated eigenvalues.

>>> import eagerad
>>> L, V = eig(eagerad.tensor([[2.0, 0.0], [0.0, 3.0]], dtype=eagerad.float64))
>>> L.tolist()
[(2+0j), (3+0j)]
"""
import collections

import numpy as np

from . import math as _math
from .complex_ops import _defop, conj, real
from .decompositions import OPS, diag_embed, diagonal
from .linalg import matmul
from .registry import Case, U

EigResult = collections.namedtuple("EigResult", "eigenvalues eigenvectors")
EigResult.__doc__ = """``(eigenvalues, eigenvectors)`` of ``eig``.

>>> import eagerad
>>> eig(eagerad.eye(2)).eigenvalues.tolist()
[(1+0j), (1+0j)]
"""


def _mH(x):
    return conj(x.swapaxes(-1, -2))


def _off_diagonal(L):
    """``E[i, j] = L[j] - L[i]``, with 1 on the diagonal (what the rules divide by)."""
    E = L.unsqueeze(-2) - L.unsqueeze(-1)
    eye = _math.as_tensor(np.eye(L.shape[-1], dtype=bool), L)
    return _math.where(eye, 1.0, E)


def _eig_vjp(g, ans, a):
    gL, gV = g
    L, V = ans
    Vh = _mH(V)
    VhgV = matmul(Vh, gV)
    # the loss must not depend on each eigenvector's phase: project that direction out
    VhgV = VhgV - matmul(Vh, V * real(diagonal(VhgV)).unsqueeze(-2))
    gA = (VhgV + diag_embed(gL)) / _off_diagonal(conj(L))
    return OPS["solve"](Vh, matmul(gA, Vh))


def _eig_jvp(t, ans, a):
    L, V = ans
    dP = OPS["solve"](V, matmul(t.astype(V.dtype), V))
    dL = diagonal(dP)
    eye = _math.as_tensor(np.eye(L.shape[-1], dtype=bool), L)
    dX = _math.where(eye, 0.0, dP / _off_diagonal(L))
    VdX = matmul(V, dX)
    # the phase that keeps Re(v^H dv) = 0 (the gauge of the vjp)
    dV = VdX - V * real(diagonal(matmul(_mH(V), VdX))).unsqueeze(-2)
    return dL, dV


# positive 2x2 matrices have real eigenvalues: their eigenvectors' phase is then fixed by
# realness, so finite differences of V are defined (a complex pair's phase is LAPACK's choice)
_eig = _defop("eig", lambda B, a: B.eig(a), vjp=_eig_vjp, jvp=_eig_jvp, saves=(), save_output=True,
              n_outputs=2, cases=[Case(U(2, 2, low=0.5, high=1.0)),
                                  Case(U(3, 2, 2, low=0.5, high=1.0)), Case(U(0, 0))])


def _square(name, A):
    from .math import as_tensor
    A = as_tensor(A)
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise ValueError(f"{name}: A must be a batch of square matrices, got shape "
                         f"{tuple(A.shape)}")
    if A.dtype.kind not in "fc":
        raise TypeError(f"{name}: A must be a floating or complex tensor, got dtype {A.dtype}")
    return A


def eig(A):
    """Eigenvalues and eigenvectors (complex) of square matrices: ``A V = V diag(L)``.

    >>> import eagerad
    >>> L, V = eig(eagerad.tensor([[0.0, -1.0], [1.0, 0.0]], dtype=eagerad.float64))
    >>> sorted(L.tolist(), key=lambda z: z.imag)
    [-1j, 1j]
    """
    return EigResult(*_eig(_square("eig", A)))


def eigvals(A):
    """The eigenvalues (complex) of square matrices; differentiable to any order.

    >>> import eagerad
    >>> eigvals(eagerad.tensor([[2.0, 1.0], [0.0, 3.0]], dtype=eagerad.float64)).tolist()
    [(2+0j), (3+0j)]
    """
    return _eig(_square("eigvals", A))[0]
