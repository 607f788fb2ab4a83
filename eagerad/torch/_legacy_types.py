"""PyTorch's legacy tensor types (``torch.FloatTensor([1, 2])``, ``torch.LongTensor(3)``,
``isinstance(x, torch.FloatTensor)``) and ``torch.set_default_tensor_type``.

>>> import eagerad.torch as torch
>>> torch.LongTensor([1, 2]), isinstance(torch.ones(1), torch.FloatTensor)
(tensor([1, 2]), True)
"""
import numpy as np

from .. import dtype as dt
from ..context import set_default_device
from ..tensor import Tensor as _CoreTensor
from ._creation import tensor, zeros


class _LegacyType(type):
    """``torch.<Name>Tensor``: calling it makes a tensor of its dtype (from data or
    sizes); ``isinstance`` checks the dtype (and the device for the ``cuda`` ones)."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, _CoreTensor) and obj.dtype == cls.dtype
                and (obj.device.type == "cuda") == cls.is_cuda)

    def __call__(cls, *data, device=None):
        device = device or ("cuda" if cls.is_cuda else None)
        if not data:
            return zeros(0, dtype=cls.dtype, device=device)
        if all(isinstance(d, (int, np.integer)) and not isinstance(d, bool) for d in data):
            return zeros(*data, dtype=cls.dtype, device=device)
        if len(data) != 1:
            raise TypeError(f"{cls.__name__}() takes data or sizes, got {data!r}")
        return tensor(data[0], dtype=cls.dtype, device=device)

    def __repr__(cls):
        return f"<class 'torch.{'cuda.' if cls.is_cuda else ''}{cls.__name__}'>"


_NAMES = {"FloatTensor": dt.float32, "DoubleTensor": dt.float64, "HalfTensor": dt.float16,
          "LongTensor": dt.int64, "IntTensor": dt.int32, "ShortTensor": dt.int16,
          "CharTensor": dt.int8, "ByteTensor": dt.uint8, "BoolTensor": dt.bool_}


def _legacy(name, dtype, is_cuda):
    return _LegacyType(name, (), {"dtype": dtype, "is_cuda": is_cuda,
                                  "__doc__": f"Legacy ``torch.{name}``: tensors of {dtype}."})


globals().update({n: _legacy(n, d, False) for n, d in _NAMES.items()})
CUDA_TYPES = {n: _legacy(n, d, True) for n, d in _NAMES.items()}


def install_cuda_types(module):
    """Give ``torch.cuda`` its legacy types (``torch.cuda.FloatTensor``)."""
    for name, cls in CUDA_TYPES.items():
        if not hasattr(module, name):
            setattr(module, name, cls)


def set_default_tensor_type(t):
    """``torch.set_default_tensor_type`` (deprecated in PyTorch): the default float dtype,
    and the default device for ``'torch.cuda.*'`` types.

    >>> import eagerad.torch as torch
    >>> torch.set_default_tensor_type(torch.DoubleTensor); torch.ones(1).dtype == torch.float64
    True
    >>> torch.set_default_tensor_type("torch.FloatTensor")
    """
    if isinstance(t, str):
        prefix, _, name = t.rpartition(".")
        if name not in _NAMES or prefix not in ("torch", "torch.cuda"):
            raise TypeError(f"set_default_tensor_type: unknown type {t!r}; expected "
                            f"'torch.FloatTensor', 'torch.cuda.DoubleTensor', ...")
        dtype, is_cuda = _NAMES[name], prefix == "torch.cuda"
    elif isinstance(t, _LegacyType):
        dtype, is_cuda = t.dtype, t.is_cuda
    else:
        raise TypeError(f"set_default_tensor_type: expected a type name or a legacy tensor "
                        f"type, got {t!r}")
    if np.dtype(dtype).kind != "f":
        raise TypeError(f"set_default_tensor_type: only floating-point types are supported "
                        f"as the default type, got {dtype}")
    dt.set_default_dtype(dtype)
    set_default_device("cuda" if is_cuda else "cpu")


__all__ = list(_NAMES) + ["set_default_tensor_type"]
