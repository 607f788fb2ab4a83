"""``torch.optim.lr_scheduler``: PyTorch's learning-rate schedulers.

>>> import eagerad.torch as torch
>>> opt = torch.optim.SGD([torch.nn.Parameter(torch.ones(1))], lr=1.0)
>>> s = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5); opt.step(); s.step()
>>> s.get_last_lr()
[0.5]
"""
from ...optim.lr_scheduler import *  # noqa: F401,F403
