"""MindSpore's face: how its tensors print, and the Tensor attributes whose MindSpore
meaning differs from PyTorch's (see the table in ``eagerad.mindspore``).

>>> import eagerad.mindspore as ms
>>> ms.Tensor([1.0, 2.0])
Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])
>>> ms.Tensor(np.array([[1, 2], [3, 4]], np.int32))
Tensor(shape=[2, 2], dtype=Int32, value=
[[1, 2],
 [3, 4]])
"""
import importlib

import numpy as np

from .. import dtype as dt
from ..face import Face, install, speaking
from ..ops import statistics as _stats

_core = importlib.import_module("eagerad.tensor")   # (eagerad.tensor the name is the function)


def _value_text(arr):
    """The ``value=`` part as MindSpore 2.10 prints it: numpy's layout with ``, `` between
    elements, floats in ``.8e`` (float16: ``.4e``), a scalar as ``%g``."""
    if arr.ndim == 0:
        return " " + (f"{arr.item():g}" if arr.dtype.kind == "f" else str(arr.item()))
    digits = 4 if arr.dtype == np.float16 else 8
    fmt = {"float_kind": lambda v: f"{v: .{digits}e}"} if arr.dtype.kind == "f" else None
    text = np.array2string(arr, separator=", ", formatter=fmt, threshold=1000)
    return (" " if arr.ndim == 1 else "\n") + text


def _repr(t):
    if isinstance(t, _core.Parameter):
        return (f"Parameter (name={t.name}, shape={tuple(t.shape)}, dtype={dt.ms_name(t.dtype)}, "
                f"requires_grad={t.requires_grad})")
    arr = t.numpy()
    extra = "" if t._device.type == "cpu" else f", device={t._device}"
    return (f"Tensor(shape={list(arr.shape)}, dtype={dt.ms_name(arr.dtype)}, "
            f"value={_value_text(arr)}{extra})")


def _str(t):
    return _repr(t) if isinstance(t, _core.Parameter) else str(t.numpy())


MINDSPORE = Face("mindspore", repr=_repr, str=_str)


def _spread(stat):
    """MindSpore's ``Tensor.std``/``var``: ``(axis=None, ddof=0, keepdims=False)``."""
    def method(self, axis=None, ddof=0, keepdims=False):
        return stat(self, axis, ddof, keepdims)
    method.__name__ = stat.__name__
    method.__doc__ = f"MindSpore's ``Tensor.{stat.__name__}``: divides by ``n - ddof``, ddof 0."
    return method


def _set_data(self, value):
    self.set_data(value)


MINDSPORE.attributes["data"] = property(lambda self: self, _set_data,
                                        doc="MindSpore's ``p.data``: the parameter itself.")
install(_core.Parameter, "data")
tensor_std, tensor_var = _spread(_stats.std), _spread(_stats.var)
for _name, _impl in (("std", tensor_std), ("var", tensor_var)):
    install(_core.Tensor, _name)
    MINDSPORE.attributes[_name] = _impl


def stamped(fn):
    """``fn`` whose tensor results speak MindSpore."""
    return speaking(fn, MINDSPORE)


class _TensorType(type):
    """``isinstance(t, mindspore.Tensor)`` for every eagerad tensor; calling it builds one
    as MindSpore does (the data's dtype kept, Python floats float32)."""

    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.Tensor)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _core.Tensor)

    def __call__(cls, input_data=None, dtype=None, *, shape=None, init=None, device=None,
                 const_arg=False):
        t = _core.Tensor(input_data, dtype, device=device, shape=shape, init=init)
        t._face = MINDSPORE
        return t


class Tensor(_core.Tensor, metaclass=_TensorType):
    """MindSpore's ``Tensor(input_data, dtype=None)``.

    >>> Tensor(np.array([1.5]), dtype=np.float32).dtype
    dtype('float32')
    """


class _ParameterType(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, _core.Parameter)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, _core.Parameter)

    def __call__(cls, default_input, name=None, requires_grad=True, layerwise_parallel=False,
                 parallel_optimizer=True):
        p = _core.Parameter(default_input, name=name, requires_grad=requires_grad)
        p._face = MINDSPORE
        return p


class Parameter(_core.Parameter, metaclass=_ParameterType):
    """MindSpore's ``Parameter(default_input, name=None, requires_grad=True)``.

    >>> Parameter(Tensor([1.0]), name='w')
    Parameter (name=w, shape=(1,), dtype=Float32, requires_grad=True)
    """
