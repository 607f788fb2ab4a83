"""PyTorch's Tensor attributes about where and how a tensor is stored (``is_cuda``,
``stride``, ``storage_offset``, ``itemsize``, ``pin_memory``, ``share_memory_``), its size
(``nelement``, ``ndimension``), casts by name (``byte``, ``char``, ``short``,
``type_as``, ``bfloat16``) and ``detach_``; registered as the PyTorch face's attributes.

>>> import eagerad.torch as torch
>>> x = torch.zeros(2, 3)
>>> x.is_cuda, x.stride(), x.t().stride(), x.nelement(), x.ndimension()
(False, (3, 1), (1, 3), 6, 2)
"""
import numpy as np

from .. import dtype as dt
from ..face import install
from ..tensor import Tensor
from ._face import TORCH


def stride(self, dim=None):
    """Steps in elements between neighbours along each dimension (or ``dim``).

    >>> import eagerad.torch as torch
    >>> torch.zeros(4, 5)[:, ::2].stride(1)
    2
    """
    data = self._data
    steps = tuple(s // data.itemsize for s in data.strides) if hasattr(data, "strides") \
        else tuple(int(np.prod(self.shape[i + 1:])) for i in range(self.ndim))
    return steps if dim is None else steps[dim]


def storage_offset(self):
    """Elements between the start of the buffer a view looks into and its first element
    (0 for a tensor that owns its memory).

    >>> import eagerad.torch as torch
    >>> torch.arange(6.0)[2:].storage_offset()
    2
    """
    data, base = self._data, getattr(self._data, "base", None)
    if base is None or not hasattr(data, "__array_interface__"):
        return 0
    while getattr(base, "base", None) is not None and hasattr(base.base, "__array_interface__"):
        base = base.base
    offset = data.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    return offset // data.itemsize


def type_as(self, other):
    """This tensor in ``other``'s dtype.

    >>> import eagerad.torch as torch
    >>> torch.tensor([1, 2]).type_as(torch.zeros(1)).dtype == torch.float32
    True
    """
    return self.to(other.dtype)


_TYPE_NAMES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
               "int64": "LongTensor", "int32": "IntTensor", "int16": "ShortTensor",
               "int8": "CharTensor", "uint8": "ByteTensor", "bool": "BoolTensor"}


def type_(self, dtype=None, non_blocking=False, **kwargs):
    """``type()``: the tensor type's name (``'torch.FloatTensor'``); ``type(dtype)`` or
    ``type('torch.DoubleTensor')``: this tensor cast.

    >>> import eagerad.torch as torch
    >>> torch.ones(1).type(), torch.ones(1).type(torch.int64).dtype == torch.int64
    ('torch.FloatTensor', True)
    """
    if dtype is None:
        prefix = "torch.cuda." if self.device.type == "cuda" else "torch."
        return prefix + _TYPE_NAMES.get(str(self.dtype).replace("torch.", ""), "Tensor")
    if isinstance(dtype, str):
        by_name = {f"torch.{v}": k for k, v in _TYPE_NAMES.items()}
        by_name.update({f"torch.cuda.{v}": k for k, v in _TYPE_NAMES.items()})
        if dtype not in by_name:
            raise ValueError(f"Tensor.type: unknown type name {dtype!r} (known: "
                             f"{sorted(by_name)})")
        dtype = by_name[dtype]
    return self.to(dtype=dt.as_dtype(dtype))


def detach_(self):
    """Cut this tensor from the graph in place; returns it.

    >>> import eagerad.torch as torch
    >>> y = torch.ones(1, requires_grad=True) * 2; y.detach_().requires_grad
    False
    """
    self.grad_fn, self._requires_grad = None, False
    return self


def bfloat16(self, memory_format=None):
    """PyTorch's ``bfloat16()``: eagerad has no bfloat16 dtype (numpy has none), so this
    says so instead of silently keeping float32."""
    raise TypeError("Tensor.bfloat16: eagerad has no bfloat16 dtype; use half() (float16) or "
                    "keep float32")


def _cast(dtype, name):
    def method(self, memory_format=None):
        return self.to(dtype)
    method.__name__ = name
    method.__doc__ = f"This tensor as {dtype} (PyTorch's ``{name}()``)."
    return method


ATTRIBUTES = {
    "is_cuda": property(lambda self: self.device.type == "cuda",
                        doc="Whether the tensor lives on a CUDA device."),
    "itemsize": property(lambda self: self.element_size(), doc="Bytes per element."),
    "stride": stride,
    "storage_offset": storage_offset,
    "nelement": lambda self: self.numel(),
    "ndimension": lambda self: self.ndim,
    "type_as": type_as,
    "type": type_,
    "detach_": detach_,
    "byte": _cast(dt.uint8, "byte"),
    "char": _cast(dt.int8, "char"),
    "short": _cast(dt.int16, "short"),
    "bfloat16": bfloat16,
    "pin_memory": lambda self, device=None: self,
    "is_pinned": lambda self, device=None: False,
    "share_memory_": lambda self: self,
    "is_shared": lambda self: False,
}
for _name, _impl in ATTRIBUTES.items():
    install(Tensor, _name)
    TORCH.attributes[_name] = _impl
