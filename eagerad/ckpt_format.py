"""MindSpore's ``.ckpt`` checkpoint format, read and written without protobuf or pickle.

A MindSpore checkpoint is a sequence of serialized protobuf ``Checkpoint`` messages::

    message Checkpoint { repeated Value value = 1; }
    message Value { required string tag = 1; oneof value { TensorProto tensor = 2; ... } }
    message TensorProto { repeated int64 dims = 1; required string tensor_type = 2;
                          required bytes tensor_content = 3; }

``tensor_type`` spells the dtype MindSpore's way (``Float32``, ``Int64``, ``Bool``...),
``tensor_content`` holds the raw little-endian C-order bytes.  MindSpore writes each
parameter as its own message and splits a large one into several consecutive values with
the same tag, whose bytes join in order; a string value has type ``str`` (UTF-32 bytes); a
file saved with ``crc_check=True`` ends with ``b'crc_num'`` and a 10-byte big-endian CRC32.
This module reads and writes only that wire format (varints and length-delimited fields),
so loading a file never runs code from it.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), 'net.ckpt')
>>> write_ckpt(path, {'fc.weight': np.ones((2, 3), np.float32), 'step': np.array(7)})
>>> {k: (v.dtype.name, v.shape) for k, v in read_ckpt(path).items()}
{'fc.weight': ('float32', (2, 3)), 'step': ('int64', ())}
"""
import binascii
import os
import tempfile
from collections import OrderedDict

import numpy as np

from .protowire import BYTES as _BYTES, VARINT as _VARINT, WireFormatError
from .protowire import field as _field, fields as _fields, read_varint as _read_varint
from .protowire import varint as _varint

# MindSpore's dtype names in tensor_type <-> numpy dtypes
_NAMES = {"Bool": np.bool_, "Int8": np.int8, "UInt8": np.uint8, "Int16": np.int16,
          "UInt16": np.uint16, "Int32": np.int32, "UInt32": np.uint32, "Int64": np.int64,
          "UInt64": np.uint64, "Float16": np.float16, "Float32": np.float32,
          "Float64": np.float64, "Complex64": np.complex64, "Complex128": np.complex128}
_BY_DTYPE = {np.dtype(t): name for name, t in _NAMES.items()}

_CRC_MARK = b"crc_num"


class CkptFormatError(WireFormatError):
    """The bytes are not a MindSpore checkpoint (or are damaged)."""


# ------------------------------------------------------------------ messages

def _tensor(buf, start, stop):
    """(dims, tensor_type, content bytes) of one TensorProto."""
    dims, dtype, content = [], None, b""
    for number, wire, value in _fields(buf, start, stop):
        if number == 1 and wire == _VARINT:
            dims.append(value - (1 << 64) if value >= 1 << 63 else value)
        elif number == 1 and wire == _BYTES:            # packed repeated int64
            pos, end = value
            while pos < end:
                dim, pos = _read_varint(buf, pos, end)
                dims.append(dim)
        elif number == 2 and wire == _BYTES:
            dtype = bytes(buf[value[0]:value[1]]).decode("utf-8")
        elif number == 3 and wire == _BYTES:
            content = bytes(buf[value[0]:value[1]])
    if dtype is None:
        raise CkptFormatError("a TensorProto has no tensor_type")
    return dims, dtype, content


def _values(buf):
    """Yield ``(tag, tensor or None)`` for every Checkpoint.Value in the file bytes."""
    for number, wire, value in _fields(buf, 0, len(buf)):
        if number != 1 or wire != _BYTES:
            raise CkptFormatError(f"unexpected top-level field {number} (wire type {wire}); "
                                  f"a Checkpoint holds only repeated field 1")
        tag, tensor = None, None
        for sub, sub_wire, sub_value in _fields(buf, *value):
            if sub == 1 and sub_wire == _BYTES:
                tag = bytes(buf[sub_value[0]:sub_value[1]]).decode("utf-8")
            elif sub == 2 and sub_wire == _BYTES:
                tensor = _tensor(buf, *sub_value)
        if tag is None:
            raise CkptFormatError("a Checkpoint.Value has no tag")
        yield tag, tensor


def _array(name, dims, dtype, content):
    """The numpy array (or str) one parameter's joined bytes hold."""
    if dtype == "str":
        return np.frombuffer(content, dtype=f"<U{len(content) // 4}")[0].item() if content else ""
    if dtype == "BFloat16":                               # widen exactly to float32
        bits = np.frombuffer(content, dtype="<u2").astype(np.uint32) << 16
        data = bits.view(np.float32)
    elif dtype in _NAMES:
        data = np.frombuffer(content, dtype=np.dtype(_NAMES[dtype]).newbyteorder("<"))
    else:
        raise CkptFormatError(f"parameter {name!r} has tensor_type {dtype!r}, which this reader "
                              f"does not know (known: {sorted(_NAMES)}, BFloat16, str)")
    shape = () if list(dims) == [0] and data.size == 1 else tuple(dims)
    if int(np.prod(shape)) != data.size:
        raise CkptFormatError(f"parameter {name!r}: dims {list(dims)} need {int(np.prod(shape))} "
                              f"elements but tensor_content holds {data.size}")
    return data.astype(data.dtype.newbyteorder("="), copy=True).reshape(shape)


def parse_ckpt(content):
    """``{name: ndarray}`` (strings as ``str``) from the bytes of a MindSpore checkpoint.

    A ``crc_check`` trailer is verified; map parameters (MindSpore's hash-table embeddings)
    are refused with a clear message.

    >>> parse_ckpt(ckpt_bytes({'b': np.array([1.5, -2.0], np.float16)}))['b']
    array([ 1.5, -2. ], dtype=float16)
    """
    if not isinstance(content, (bytes, bytearray, memoryview)):
        raise TypeError(f"parse_ckpt: content must be bytes, got {type(content).__name__}")
    buf = memoryview(content).cast("B")
    if len(buf) >= 17 and bytes(buf[-17:-10]) == _CRC_MARK:
        stored, buf = int.from_bytes(bytes(buf[-10:]), "big"), buf[:-17]
        if binascii.crc32(buf) != stored:
            raise CkptFormatError("the checkpoint's CRC32 does not match its contents (damaged file)")
    try:
        return _parameters(buf)
    except CkptFormatError:
        raise
    except WireFormatError as err:
        raise CkptFormatError(str(err)) from None


def _parameters(buf):
    """``{name: ndarray}`` of the Checkpoint messages in ``buf`` (no CRC trailer)."""
    pieces = OrderedDict()
    for tag, tensor in _values(buf):
        if tensor is None:
            raise CkptFormatError(f"parameter {tag!r} is a MindSpore MapParameter, which eagerad "
                                  f"does not load")
        dims, dtype, content_bytes = tensor
        if tag in pieces and (pieces[tag][0], pieces[tag][1]) != (dims, dtype):
            raise CkptFormatError(f"parameter {tag!r} appears twice with different dims/types")
        pieces.setdefault(tag, (dims, dtype, []))[2].append(content_bytes)
    return OrderedDict((tag, _array(tag, dims, dtype, b"".join(chunks)))
                       for tag, (dims, dtype, chunks) in pieces.items())


def ckpt_bytes(arrays):
    """The bytes of a MindSpore checkpoint holding ``{name: array-like or str}``, one
    Checkpoint message per parameter as MindSpore writes them.

    >>> ckpt_bytes({'w': np.zeros(1, np.float32)}).hex()  # the bytes protobuf writes
    '0a160a0177121108011207466c6f617433321a0400000000'
    """
    out = bytearray()
    for name, value in arrays.items():
        if not isinstance(name, str) or not name:
            raise TypeError(f"ckpt_bytes: parameter names must be non-empty str, got {name!r}")
        if isinstance(value, str):
            dims, dtype, content = [0], "str", np.array(value).tobytes()
        else:
            array = np.asarray(value.numpy() if hasattr(value, "numpy") else value)
            if array.dtype not in _BY_DTYPE:
                raise TypeError(f"ckpt_bytes: parameter {name!r} has dtype {array.dtype}, which "
                                f"MindSpore checkpoints do not hold (supported: "
                                f"{sorted(str(d) for d in _BY_DTYPE)})")
            dims, dtype = list(array.shape), _BY_DTYPE[array.dtype]
            content = array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()
        tensor = (b"".join(_field(1, _VARINT, _varint(d)) for d in dims)
                  + _field(2, _BYTES, dtype.encode()) + _field(3, _BYTES, content))
        value_msg = _field(1, _BYTES, name.encode("utf-8")) + _field(2, _BYTES, tensor)
        out += _field(1, _BYTES, value_msg)
    return bytes(out)


# ------------------------------------------------------------------ files

def is_ckpt(path):
    """True when the file at ``path`` starts like a MindSpore checkpoint (field 1, bytes),
    not like a zip/``.npz`` archive.

    >>> import os, tempfile; p = os.path.join(tempfile.mkdtemp(), 'a.ckpt')
    >>> write_ckpt(p, {'x': np.zeros(2)}); is_ckpt(p)
    True
    """
    with open(path, "rb") as f:
        return f.read(1) == b"\x0a"


def read_ckpt(path):
    """``{name: ndarray}`` read from a MindSpore ``.ckpt`` file (see ``parse_ckpt``).

    >>> import os, tempfile; p = os.path.join(tempfile.mkdtemp(), 'a.ckpt')
    >>> write_ckpt(p, {'flag': np.array([True, False])}); read_ckpt(p)['flag']
    array([ True, False])
    """
    if not os.path.isfile(path):
        raise FileNotFoundError(f"read_ckpt: no checkpoint file at {path!r}")
    with open(path, "rb") as f:
        content = f.read()
    try:
        return parse_ckpt(content)
    except CkptFormatError as err:
        raise CkptFormatError(f"read_ckpt: {path!r} is not a readable MindSpore checkpoint: "
                              f"{err}") from None


def write_ckpt(path, arrays):
    """Write ``{name: array}`` to ``path`` in MindSpore's ``.ckpt`` format, atomically: a
    temporary file in the same folder, flushed to disk, then renamed over ``path``.

    >>> import os, tempfile; p = os.path.join(tempfile.mkdtemp(), 'a.ckpt')
    >>> write_ckpt(p, {'w': np.arange(3, dtype=np.int32)}); read_ckpt(p)['w']
    array([0, 1, 2], dtype=int32)
    """
    content = ckpt_bytes(arrays)
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=".ckpt", dir=folder)
    try:
        os.chmod(tmp, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(content)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.remove(tmp)
        raise
