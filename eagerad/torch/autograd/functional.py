"""``torch.autograd.functional``: vjp, jvp, jacobian, hessian, vhp, hvp.

>>> import eagerad.torch as torch
>>> torch.autograd.functional.jacobian(lambda x: x ** 2, torch.tensor([1.0, 2.0]))
tensor([[2., 0.],
        [0., 4.]])
"""
from ...autograd_functional import *  # noqa: F401,F403
