"""``torch.nn.utils``: gradient clipping and parameter/vector conversion.

>>> import eagerad.torch as torch
>>> p = torch.nn.Parameter(torch.ones(2)); p.grad = torch.tensor([3.0, 4.0])
>>> torch.nn.utils.clip_grad_norm_([p], 1.0)
tensor(5.)
"""
from ....nn.utils import *  # noqa: F401,F403
from . import rnn  # noqa: E402,F401 - torch.nn.utils.rnn
from .weight_norms import (remove_spectral_norm, remove_weight_norm, spectral_norm,  # noqa: F401
                           weight_norm)
