"""PyTorch's top-level linear-algebra names over ``eagerad.linalg``: ``torch.lu``,
``lu_solve``, ``lu_unpack``, ``orgqr``, ``ormqr`` and their Tensor methods.

>>> import eagerad.torch as torch
>>> LU, pivots = torch.tensor([[1.0, 2.0], [3.0, 4.0]]).lu()
>>> pivots.tolist()
[2, 2]
"""
from .. import linalg as _linalg
from ..face import install as _install
from ..ops.householder import ormqr as _ormqr
from ..ops.lu import lu_unpack  # noqa: F401 - the same arguments in torch
from ..tensor import Tensor as _Tensor
from ._face import TORCH as _TORCH
from ._opdb_functions import _not_neutral

__all__ = ["lu", "lu_solve", "lu_unpack", "orgqr", "ormqr"]


def lu(A, pivot=True, get_infos=False, out=None):
    """``torch.lu``: ``(LU, pivots)`` of ``linalg.lu_factor``, with ``get_infos`` also
    ``info`` (``linalg.lu_factor_ex``'s).

    >>> import eagerad.torch as torch
    >>> len(torch.lu(torch.eye(2), get_infos=True))
    3
    """
    result = _linalg.lu_factor_ex(A, pivot=pivot)
    return tuple(result) if get_infos else tuple(result[:2])


def lu_solve(b, LU_data, LU_pivots, *, out=None):
    """``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data, LU_pivots, b)``.

    >>> import eagerad.torch as torch
    >>> torch.lu_solve(torch.ones(2, 1), *torch.lu(torch.eye(2) * 2)).tolist()
    [[0.5], [0.5]]
    """
    return _linalg.lu_solve(LU_data, LU_pivots, b)


def orgqr(input, tau):
    """``torch.orgqr``: ``linalg.householder_product``.

    >>> import eagerad.torch as torch
    >>> torch.orgqr(torch.eye(2), torch.zeros(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _linalg.householder_product(input, tau)


def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``torch.ormqr``: ``other`` times the Q of the Householder reflectors in ``input``
    and ``tau`` (see ``eagerad.ops.householder.ormqr``).

    >>> import eagerad.torch as torch
    >>> torch.ormqr(torch.eye(2), torch.zeros(2), torch.ones(2, 1)).tolist()
    [[1.0], [1.0]]
    """
    return _ormqr(input, tau, other, left=left, transpose=transpose)


for _name, _impl in {"lu": lu, "lu_solve": lu_solve, "orgqr": orgqr, "ormqr": ormqr}.items():
    if not hasattr(_Tensor, _name):
        setattr(_Tensor, _name, _not_neutral(_name, False))
    _install(_Tensor, _name)
    _TORCH.attributes[_name] = _impl
