"""``torch.func``: grad, vjp, jvp, jacrev, jacfwd, hessian, vmap, functional_call.

>>> import eagerad.torch as torch
>>> torch.func.grad(torch.sin)(torch.tensor(0.0))
tensor(1.)
"""
from ..func import *  # noqa: F401,F403
