"""``torch.autograd.forward_ad``: dual tensors for forward-mode AD (``dual_level``,
``make_dual``, ``unpack_dual``).

>>> import eagerad.torch as torch
>>> import eagerad.torch.autograd.forward_ad as fwAD
>>> with fwAD.dual_level():
...     y = torch.sin(fwAD.make_dual(torch.tensor(0.0), torch.tensor(2.0)))
...     fwAD.unpack_dual(y).tangent
tensor(2.)
"""
from ...autograd.forward_ad import dual_level, make_dual, unpack_dual  # noqa: F401
