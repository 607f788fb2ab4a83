"""``torch.linalg``.

>>> import eagerad.torch as torch
>>> torch.linalg.det(torch.eye(2))
tensor(1.)
"""
from ..linalg import *  # noqa: F401,F403
from ..ops.eig import EigResult, eig, eigvals  # noqa: E402,F401 - complex results
