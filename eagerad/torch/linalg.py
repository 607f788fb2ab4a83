"""``torch.linalg``: ``eagerad.linalg`` with PyTorch's result layouts where they differ
from numpy's (``lstsq``).

>>> import eagerad.torch as torch
>>> torch.linalg.det(torch.eye(2))
tensor(1.)
"""
import numpy as np

from ..linalg import *  # noqa: F401,F403
from ..linalg import LstsqResult, lstsq as _numpy_lstsq, svdvals
from ..ops.decompositions import const

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
from ..ops.eig import EigResult, eig, eigvals  # noqa: E402,F401 - complex results
