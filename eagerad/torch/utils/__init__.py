"""``torch.utils``: ``data``, ``checkpoint``, ``benchmark``.

>>> import eagerad.torch as torch
>>> torch.utils.data.DataLoader.__name__
'DataLoader'
"""
from ...utils import benchmark  # noqa: F401
from . import checkpoint, data, tensorboard  # noqa: F401
