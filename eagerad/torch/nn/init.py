"""``torch.nn.init``: in-place initialisers over eagerad's own.

>>> import eagerad.torch as torch
>>> w = torch.empty(2, 3); _ = torch.nn.init.constant_(w, 0.5); w.tolist()[0]
[0.5, 0.5, 0.5]
"""
from ...nn.init import *  # noqa: F401,F403
