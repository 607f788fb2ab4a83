"""``torch.nn.modules.module``'s import path: ``Module`` is eagerad's ``nn.Module``.

>>> from eagerad.nn.modules.module import Module
>>> Module is eagerad.nn.Module
True
"""
from ..cell import Module

__all__ = ["Module"]
