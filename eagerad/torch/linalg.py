"""``torch.linalg``.

>>> import eagerad.torch as torch
>>> torch.linalg.det(torch.eye(2))
tensor(1.)
"""
from ..linalg import *  # noqa: F401,F403
