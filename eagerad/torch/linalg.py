"""``torch.linalg``: ``eagerad.linalg`` with PyTorch's result layouts where they differ
from numpy's (``lstsq``) and the eigenvector signs of PyTorch's CPU build (``eigh``).

>>> import eagerad.torch as torch
>>> torch.linalg.det(torch.eye(2))
tensor(1.)
"""
import numpy as np

from ..linalg import *  # noqa: F401,F403
from ..linalg import EighResult, LstsqResult, svdvals
from ..linalg import eigh as _numpy_eigh, lstsq as _numpy_lstsq
from ..ops.decompositions import const
from ..ops.registry import OPS

_DRIVERS = (None, "gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """PyTorch's ``linalg.lstsq``: ``(solution, residuals, rank, singular_values)`` with
    the outputs each LAPACK ``driver`` gives ('gelsy' by default on the CPU): ``rank``
    for all but 'gels', ``singular_values`` for 'gelsd' and 'gelss', the squared
    ``residuals`` of each column for all but 'gelsy' when A has more rows than columns
    and full rank; the others are empty.  The solution is the minimum-norm least-squares
    one (``pinv(A) @ B``) whichever the driver.

    >>> import eagerad.torch as torch
    >>> r = torch.linalg.lstsq(torch.tensor([[1.0], [1.0]]), torch.tensor([[1.0], [3.0]]))
    >>> r.solution.tolist(), r.rank.item(), r.singular_values.shape
    ([[2.0]], 1, torch.Size([0]))
    """
    if driver not in _DRIVERS:
        raise ValueError(f"linalg.lstsq: driver must be one of {_DRIVERS[1:]} or None, got "
                         f"{driver!r}")
    driver = driver or "gelsy"
    solution, residuals, rank, s = _numpy_lstsq(A, B, rcond=rcond)
    empty = const(np.zeros((0,)), solution)
    if driver == "gelsy":
        residuals = empty
    rank = const(np.zeros((0,)), solution, np.int64) if driver == "gels" else \
        const(rank.numpy(), solution, np.int64)
    s = svdvals(A).detach() if driver in ("gelsd", "gelss") else empty
    return LstsqResult(solution, residuals, rank, s)


def eigh(A, UPLO="L"):
    """PyTorch's ``linalg.eigh``: ``eagerad.linalg.eigh`` with each eigenvector's sign
    the one PyTorch's CPU build (MKL's LAPACK) gives, so that programs comparing
    eigenvectors see PyTorch's numbers (``eagerad.ops.eigh_signs`` explains the
    difference).  The signs are constants: gradients flow as through ``eagerad.linalg``.

    >>> import eagerad.torch as torch
    >>> w, V = torch.linalg.eigh(torch.tensor([[1.0, 2.0, 0.0], [2.0, -1.0, 1.0], [0.0, 1.0, 3.0]]))
    >>> [round(x, 4) for x in V[:, 0].tolist()]
    [-0.5037, 0.8493, -0.1581]
    """
    w, V = _numpy_eigh(A, UPLO)
    signs = OPS["eigh_signs"](A.detach(), V.detach(), upper=UPLO == "U")
    return EighResult(w, V * signs.unsqueeze(-2))


from ..ops.eig import EigResult, eig, eigvals  # noqa: E402,F401 - complex results


from ._out import honour_out as _honour_out  # noqa: E402
_honour_out(globals())      # last: out= is written, not ignored (torch/_out.py)
