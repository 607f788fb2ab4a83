"""``torch.nn.modules``'s import path (``from torch.nn.modules.module import Module``).

>>> from eagerad.nn.modules import Module
>>> Module is eagerad.nn.Cell
True
"""
from ..cell import Module

__all__ = ["Module"]
