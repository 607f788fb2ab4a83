"""Reading checkpoints written by PyTorch's own ``torch.save`` (its zip format) without
PyTorch and without running code from the file, as ``torch.load(weights_only=True)``
does: the archive's ``data.pkl`` is read by an unpickler whose allow-list maps the few
globals a state dict needs (tensor and parameter rebuilders, storage types,
``OrderedDict``) to eagerad's own constructors; any other global is refused, naming it.
Tensor bytes come from the archive's ``data/<key>`` members (shared storages stay shared
in the read: views of one buffer).

>>> import io, zipfile, pickle
>>> buf = io.BytesIO()
>>> with zipfile.ZipFile(buf, "w") as z:
...     z.writestr("archive/data.pkl", pickle.dumps({"step": 3}))
>>> _ = buf.seek(0); z = zipfile.ZipFile(buf)
>>> read(z, z.namelist(), lambda t, where: t, "load")
{'step': 3}
"""
import collections
import pickle

import numpy as np

from .tensor import Parameter, Tensor

_STORAGES = {"FloatStorage": np.float32, "DoubleStorage": np.float64, "HalfStorage": np.float16,
             "LongStorage": np.int64, "IntStorage": np.int32, "ShortStorage": np.int16,
             "CharStorage": np.int8, "ByteStorage": np.uint8, "BoolStorage": np.bool_,
             "BFloat16Storage": "bfloat16"}
_DTYPES = {"float32": np.float32, "float64": np.float64, "float16": np.float16,
           "int64": np.int64, "int32": np.int32, "int16": np.int16, "int8": np.int8,
           "uint8": np.uint8, "bool": np.bool_, "bfloat16": "bfloat16"}


class _Storage:
    """A storage type named in the pickle (its element dtype)."""

    def __init__(self, dtype):
        self.dtype = dtype


class _Placed:
    """A storage read from the archive: its flat array and the device it was saved on."""

    def __init__(self, array, location):
        self.array, self.location = array, location


def _strided(storage, offset, size, stride):
    """A copy of the elements a tensor of ``size``/``stride`` sees from ``offset`` on."""
    flat = storage.array
    if len(size) and flat[offset:].size == 0 and int(np.prod(size)) > 0:
        raise pickle.UnpicklingError("a tensor reaches past the end of its storage")
    view = np.lib.stride_tricks.as_strided(flat[offset:], shape=tuple(size),
                                           strides=tuple(s * flat.itemsize for s in stride))
    return np.array(view)


def _rebuild_parameter(data, requires_grad, hooks=None, state=None):
    return Parameter(data, requires_grad=requires_grad)


def _rebuild_from_type(func, new_type, args, state):
    out = func(*args)
    return Parameter(out) if new_type is Parameter and not isinstance(out, Parameter) else out


_ALLOWED = {
    ("collections", "OrderedDict"): collections.OrderedDict,
    ("torch._utils", "_rebuild_parameter"): _rebuild_parameter,
    ("torch._utils", "_rebuild_parameter_with_state"): _rebuild_parameter,
    ("torch._tensor", "_rebuild_from_type_v2"): _rebuild_from_type,
    ("torch", "Tensor"): Tensor,
    ("torch.nn.parameter", "Parameter"): Parameter,
    ("torch", "Size"): tuple,
    ("builtins", "set"): set,
    ("builtins", "frozenset"): frozenset,
    ("builtins", "slice"): slice,
    ("builtins", "complex"): complex,
}


def _bytes_as(raw, dtype):
    if dtype == "bfloat16":                   # widened exactly to float32
        return (np.frombuffer(raw, "<u2").astype(np.uint32) << 16).view(np.float32)
    return np.frombuffer(raw, np.dtype(dtype).newbyteorder("<")).astype(dtype)


class _Unpickler(pickle.Unpickler):
    def __init__(self, stream, z, prefix, place, who):
        super().__init__(stream)
        self._z, self._prefix, self._place, self._who = z, prefix, place, who
        self._storages = {}

    def _rebuild_tensor(self, storage, offset, size, stride, requires_grad=False, hooks=None,
                        metadata=None):
        tensor = self._place(Tensor(_strided(storage, offset, size, stride)), storage.location)
        return tensor.requires_grad_(True) if requires_grad and tensor.dtype.kind == "f" else tensor

    def find_class(self, module, name):
        if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
            return self._rebuild_tensor
        if module == "torch" and name in _STORAGES:
            return _Storage(_STORAGES[name])
        if module == "torch" and name in _DTYPES:
            return _Storage(_DTYPES[name])
        found = _ALLOWED.get((module, name))
        if found is None:
            raise pickle.UnpicklingError(
                f"{self._who}: this PyTorch checkpoint needs {module}.{name}, which eagerad does "
                f"not load from a file (only tensors, parameters, numbers, strings and "
                f"containers: a state_dict). Save model.state_dict() instead of the object")
        return found

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 5 and pid[0] == "storage"):
            raise pickle.UnpicklingError(f"{self._who}: unknown persistent id {pid!r}")
        _, storage_type, key, location, numel = pid
        if key not in self._storages:
            dtype = storage_type.dtype if isinstance(storage_type, _Storage) else np.uint8
            member = f"{self._prefix}data/{key}"
            try:
                raw = self._z.read(member)
            except KeyError:
                raise pickle.UnpicklingError(f"{self._who}: the checkpoint lacks {member}") from None
            self._storages[key] = _Placed(_bytes_as(raw, dtype), str(location))
        return self._storages[key]


def read(z, names, place, who):
    """The object a PyTorch zip checkpoint ``z`` (member ``names``) holds, its tensors
    placed by ``place(tensor, saved_location)``."""
    pkl = next(n for n in names if n == "data.pkl" or n.endswith("/data.pkl"))
    prefix = pkl[:-len("data.pkl")]
    with z.open(pkl) as stream:
        return _Unpickler(stream, z, prefix, place, who).load()
