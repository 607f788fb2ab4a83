"""PyTorch's face: how its tensors print, ``torch.Size``, and the Tensor attributes whose
PyTorch meaning differs from MindSpore's (see the table in ``eagerad.torch``).

>>> import eagerad.torch as torch
>>> torch.ones(2, 3).shape
torch.Size([2, 3])
"""
from ..face import Face, Shape, install
from ..ops import shape as _shape_ops, statistics as _stats
from ..printing import torch_repr
from ..tensor import Parameter, Tensor


class Size(Shape):
    """``torch.Size``: a tuple of ints that prints as PyTorch's.

    >>> Size((2, 3)), Size((2, 3)).numel(), Size((2, 3)) == (2, 3)
    (torch.Size([2, 3]), 6, True)
    """
    __slots__ = ()

    def __repr__(self):
        return f"torch.Size({list(self)})"

    __str__ = __repr__


def _repr(t):
    text = torch_repr(t)
    return "Parameter containing:\n" + text if isinstance(t, Parameter) else text


TORCH = Face("torch", repr=_repr, str=_repr, shape=Size)


def _spread(stat):
    """PyTorch's ``std``/``var``: ``(dim=None, unbiased=True, keepdim=False, *,
    correction=1)``; a bool in ``dim``'s place is ``unbiased``."""
    def method(self, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):
            dim, unbiased = None, dim
        if unbiased is None and correction is None:
            correction = 1
        return stat(self, dim=dim, keepdim=keepdim, correction=correction, unbiased=unbiased)
    method.__name__ = stat.__name__
    method.__doc__ = f"PyTorch's ``Tensor.{stat.__name__}``: unbiased (``correction=1``) by default."
    return method


def _squeeze(self, dim=None):
    """PyTorch's ``squeeze``: a dimension (or tuple of them) that is not 1 is left alone."""
    if dim is None:
        return _shape_ops.squeeze(self)
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    shape = self.shape
    keep = tuple(d for d in _shape_ops.normalize_axis(dims, self.ndim) if shape[d] == 1)
    return _shape_ops.squeeze(self, keep) if keep else self.view(tuple(shape))


def _get_data(self):
    return Tensor._make(self._data, self._device, face=self._face)


def _set_data(self, value):
    """``p.data = t``: PyTorch swaps the parameter's storage, dtype included."""
    if not isinstance(value, Tensor):
        raise TypeError(f"Parameter.data must be a Tensor, got {type(value).__name__}")
    self._data, self._device = value._data, value._device
    self._version = [0]


tensor_std, tensor_var = _spread(_stats.std), _spread(_stats.var)
TORCH_ATTRIBUTES = {
    Tensor: {"std": tensor_std, "var": tensor_var, "squeeze": _squeeze},
    Parameter: {"data": property(_get_data, _set_data,
                                 doc="A tensor outside the graph sharing the parameter's buffer.")},
}
for cls, table in TORCH_ATTRIBUTES.items():
    for name, impl in table.items():
        install(cls, name)
        TORCH.attributes[name] = impl
