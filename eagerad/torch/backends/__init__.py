"""``torch.backends``: flags programs set (``torch.backends.cudnn.benchmark = True``);
eagerad has no cuDNN, so they are recorded and change nothing.

>>> import eagerad.torch as torch
>>> torch.backends.cudnn.benchmark = True; torch.backends.cudnn.is_available()
False
"""
from . import cuda, cudnn, mps  # noqa: F401
