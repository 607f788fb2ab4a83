"""``torch.autograd``: backward, grad, Function, forward-mode AD, gradcheck, anomaly mode.

>>> import eagerad.torch as torch
>>> x = torch.tensor(2.0, requires_grad=True)
>>> torch.autograd.grad(x ** 3, x)
(tensor(12.),)
"""
from ...autograd import *  # noqa: F401,F403
from ...autograd import Function, FunctionCtx, forward_ad  # noqa: F401
from . import functional  # noqa: F401
