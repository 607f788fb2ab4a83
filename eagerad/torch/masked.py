"""``torch.masked``: PyTorch's masked reductions and normalizations (``mask=`` keyword;
masked-out entries take no part, fully masked-out slices give PyTorch's fill values).

>>> import eagerad.torch as torch
>>> torch.masked.sum(torch.tensor([1.0, 2.0]), mask=torch.tensor([False, True]))
tensor(2.)
"""
from ..ops.masked import *  # noqa: F401,F403
from ..ops.masked import __all__  # noqa: F401
