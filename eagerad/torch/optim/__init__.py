"""``torch.optim``: eagerad's optimizers under PyTorch's names.

>>> import eagerad.torch as torch
>>> p = torch.nn.Parameter(torch.ones(1)); opt = torch.optim.SGD([p], lr=0.5)
>>> (p * 2).sum().backward(); opt.step(); p
Parameter containing:
tensor([0.], requires_grad=True)
"""
from ...nn.lbfgs import LBFGS
from ...nn.optim import SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, Optimizer, RMSprop
from ...nn.radam import RAdam
from ...nn.rprop import Rprop
from . import lr_scheduler
