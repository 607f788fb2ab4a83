"""PyTorch's ``torch.optim`` namespace over eagerad's optimizers (``eagerad.nn.optim``).

>>> import eagerad
>>> eagerad.optim.Adam is eagerad.nn.Adam
True
"""
from ..nn.lbfgs import LBFGS
from ..nn.optim import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, Optimizer,
                        RMSprop)
from ..nn.radam import RAdam
from ..nn.rprop import Rprop
from . import lr_scheduler

__all__ = ["SGD", "Adadelta", "Adagrad", "Adam", "Adamax", "AdamW", "NAdam", "Optimizer",
           "RAdam", "RMSprop", "Rprop", "LBFGS", "lr_scheduler"]
