"""``torch.nn.parameter``'s import path: ``Parameter`` is eagerad's one Parameter class.

>>> from eagerad.nn.parameter import Parameter
>>> Parameter(eagerad.ones(2)).requires_grad
True
"""
from ..tensor import Parameter

__all__ = ["Parameter"]
