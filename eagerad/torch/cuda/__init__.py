"""``torch.cuda``: availability and device questions for eagerad's CUDA backend.

>>> import eagerad.torch as torch
>>> torch.cuda.is_available() in (True, False)
True
"""
from ...cuda import *  # noqa: F401,F403
from . import amp  # noqa: E402,F401 - torch.cuda.amp
