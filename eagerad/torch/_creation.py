"""PyTorch's tensor constructors: the engine's, stamped with PyTorch's face.

``torch.Tensor`` is a class every eagerad tensor is an instance of; calling it follows
PyTorch (``torch.Tensor([1.0])`` is float32 whatever the data's dtype, ``torch.Tensor(2,
3)`` a 2x3 tensor of zeros).

>>> import eagerad.torch as torch
>>> torch.Tensor(np.array([1.5], np.float64)).dtype == torch.float32, isinstance(torch.ones(1), torch.Tensor)
(True, True)
"""
import importlib

import numpy as np

from .. import dtype as dt
from ..face import speaking
from ._face import TORCH

_core = importlib.import_module("eagerad.tensor")   # (eagerad.tensor the name is the function)


def stamped(fn):
    """``fn`` whose tensor results speak PyTorch."""
    return speaking(fn, TORCH)


class _TensorType(type):
    """Makes ``isinstance(t, torch.Tensor)`` true for every eagerad tensor and calling
    ``torch.Tensor`` build one with PyTorch's rules."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.Tensor)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _core.Tensor)

    def __call__(cls, *data, device=None):
        if not data:
            return zeros(0, device=device)
        if all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in data):
            return zeros(*data, device=device)          # torch.Tensor(2, 3)
        if len(data) != 1:
            raise TypeError(f"torch.Tensor() takes data or sizes, got {data!r}")
        return tensor(data[0], dtype=dt.default_float, device=device)


class Tensor(_core.Tensor, metaclass=_TensorType):
    """PyTorch's ``torch.Tensor`` (see the module docstring)."""


tensor = stamped(_core.tensor)
as_tensor = stamped(_core.as_tensor)
from_numpy = stamped(_core.from_numpy)
from_dlpack = stamped(_core.from_dlpack)
zeros, ones, full, empty = (stamped(f) for f in (_core.zeros, _core.ones, _core.full, _core.empty))
arange, linspace, eye = (stamped(f) for f in (_core.arange, _core.linspace, _core.eye))
rand, randn, randint = (stamped(f) for f in (_core.rand, _core.randn, _core.randint))
zeros_like, ones_like, full_like, empty_like = (
    stamped(f) for f in (_core.zeros_like, _core.ones_like, _core.full_like, _core.empty_like))
rand_like, randn_like, randint_like = (
    stamped(f) for f in (_core.rand_like, _core.randn_like, _core.randint_like))


def _parameter(data=None, requires_grad=True):
    p = _core.Parameter(data, requires_grad=requires_grad)
    p._face = TORCH
    return p


class _ParameterType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.Parameter)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _core.Parameter)

    def __call__(cls, data=None, requires_grad=True):
        return _parameter(data, requires_grad)


class Parameter(_core.Parameter, metaclass=_ParameterType):
    """PyTorch's ``nn.Parameter(data=None, requires_grad=True)``.

    >>> import eagerad.torch as torch
    >>> torch.nn.Parameter(torch.ones(2))
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    """
