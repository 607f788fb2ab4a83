"""eagerad's safe file format: nested state without pickle.

A file is a zip archive (stored, not compressed) holding

* ``eagerad.json``: the manifest, ``{"format": "eagerad.safe", "version": 1,
  "object": ..., "tensors": [...]}``, where ``object`` is the saved value in JSON with
  tags for what JSON lacks (``{"$tuple": [...]}``, ``{"$dict": [[key, value], ...]}``
  with keys of any supported type, ``{"$tensor": i}``, ``{"$float": "nan"}``, ...);
* ``tensors/<i>.npy``: one plain numpy array per tensor, numpy array or numpy scalar,
  read back with ``allow_pickle=False``.

So a file holds tensors (any dtype, with device, ``requires_grad``, face and a
Parameter's name), numpy arrays and scalars, dicts (insertion order and ``OrderedDict`` kept),
lists, tuples, None, bools, ints, floats, strings, dtypes and devices; reading it
parses JSON and raw arrays and never runs code.  A value of any other type (a whole
``nn.Module``) is written as a pickle payload (``object.pkl``, tensors still in
``.npy`` members), which ``read`` refuses unless ``weights_only=False``.

>>> import io, eagerad
>>> buf = io.BytesIO()
>>> write({'step': 3, 'w': eagerad.tensor([1.0, 2.0])}, buf); _ = buf.seek(0)
>>> back = read(buf); back['step'], back['w'].tolist()
(3, [1.0, 2.0])
"""
import json
import math
import pickle
import zipfile
from collections import OrderedDict

import numpy as np

from . import backend, torch_checkpoint
from .device import CPU, Device, as_device
from .face import FACES
from .file_kinds import describe, describe_file
from .tensor import NEUTRAL, Parameter, Shape, Size, Tensor

FORMAT = "eagerad.safe"
VERSION = 1
MANIFEST = "eagerad.json"
PICKLE_MEMBER = "object.pkl"
_NPY_MAGIC = b"\x93NUMPY"
_FLOAT_WORDS = {"nan": math.nan, "inf": math.inf, "-inf": -math.inf}


class Unsupported(TypeError):
    """A value the safe format cannot hold (its type and where it sits in the object);
    ``write`` then pickles the object.

    >>> try:
    ...     _Encoder().encode({'f': print})
    ... except Unsupported as err:
    ...     print(str(err)[:47])
    the saved object['f'] is a builtins.builtin_fun
    """


class UnsafeFileError(pickle.UnpicklingError):
    """A file whose content needs pickle (code execution) to load, refused by default; a
    ``pickle.UnpicklingError`` as PyTorch's refusal is.

    >>> issubclass(UnsafeFileError, pickle.UnpicklingError)
    True
    """


def _member(i):
    return f"tensors/{i}.npy"


def _where(path):
    return "the saved object" + "".join(f"[{k!r}]" for k in path)


class _Encoder:
    """Turns a value into the manifest's JSON and the list of arrays to store."""

    def __init__(self):
        self.arrays, self.records, self._memo = [], [], {}

    def _array(self, value, record, keep):
        i = self._memo.get(id(value))
        if i is None:
            i = self._memo[id(value)] = len(self.arrays)
            self.arrays.append(keep)
            self.records.append(record)
        return i

    def tensor(self, t):
        """Index of tensor ``t``'s array (one member per tensor object)."""
        record = {"device": str(t._device), "requires_grad": bool(t.requires_grad),
                  "face": t._face.name}
        if isinstance(t, Parameter):
            record["parameter"] = t.name if isinstance(t.name, str) else None
        return self._array(t, record, (t, np.asarray(t.numpy())))

    def encode(self, obj, path=()):
        """The JSON form of ``obj``; ``Unsupported`` names the first value it cannot hold."""
        kind = type(obj)
        if obj is None or kind is bool or kind is str:
            return obj
        if kind in (int, Size):
            return int(obj)
        if kind is float:
            return obj if math.isfinite(obj) else {"$float": repr(obj)}
        if kind is list:
            return [self.encode(v, path + (i,)) for i, v in enumerate(obj)]
        if kind in (tuple, Shape):
            return {"$tuple": [self.encode(v, path + (i,)) for i, v in enumerate(obj)]}
        if kind in (dict, OrderedDict):
            items = [[self.encode(k, path + ("<key>",)), self.encode(v, path + (k,))]
                     for k, v in obj.items()]
            return {"$dict": items, "ordered": kind is OrderedDict}
        if isinstance(obj, Tensor) and kind in (Tensor, Parameter):
            return {"$tensor": self.tensor(obj)}
        if kind is np.ndarray or isinstance(obj, np.generic):
            if obj.dtype.hasobject:
                raise Unsupported(f"{_where(path)} is a numpy array of Python objects")
            tag = "$ndarray" if kind is np.ndarray else "$scalar"
            return {tag: self._array(obj, {"numpy": tag[1:]}, (obj, np.asarray(obj)))}
        if isinstance(obj, np.dtype) or (isinstance(obj, type) and issubclass(obj, np.generic)):
            return {"$dtype": np.dtype(obj).str}
        if kind is Device:
            return {"$device": str(obj)}
        raise Unsupported(f"{_where(path)} is a {kind.__module__}.{kind.__qualname__}, which the "
                          "safe format does not hold (it holds tensors, numpy arrays, dicts, lists, "
                          "tuples, None, bools, ints, floats, strings, dtypes and devices)")


class _TensorPickler(pickle.Pickler):
    """Pickles the object but stores each tensor as a ``.npy`` member (a persistent id)."""

    def __init__(self, file, encoder):
        super().__init__(file, protocol=4)
        self.encoder = encoder

    def persistent_id(self, obj):
        if isinstance(obj, Tensor) and type(obj) in (Tensor, Parameter):
            return ("tensor", self.encoder.tensor(obj))
        return None


def write(obj, out):
    """Write ``obj`` into the seekable binary file ``out`` (pickling it only when the
    safe form cannot hold it; see the module docstring).

    >>> import io; buf = io.BytesIO(); write([1, (2.5, None)], buf)
    >>> buf.getvalue()[:2]
    b'PK'
    """
    encoder = _Encoder()
    payload = None
    try:
        root = encoder.encode(obj)
    except Unsupported as why:
        encoder = _Encoder()
        import io
        staging = io.BytesIO()
        _TensorPickler(staging, encoder).dump(obj)      # an unpicklable value raises here
        payload = staging.getvalue()
        root = {"$pickle": PICKLE_MEMBER, "reason": str(why)}
    manifest = {"format": FORMAT, "version": VERSION, "object": root, "tensors": encoder.records}
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        z.writestr(MANIFEST, json.dumps(manifest, allow_nan=False))
        for i, (_, array) in enumerate(encoder.arrays):
            with z.open(_member(i), "w", force_zip64=True) as member:
                np.lib.format.write_array(member, array, allow_pickle=False)
        if payload is not None:
            z.writestr(PICKLE_MEMBER, payload)


# ------------------------------------------------------------------------- reading

class CorruptFile(ValueError):
    """A file that is not (or no longer) a readable file of the expected format (a
    ValueError whose message says what the file looks like).

    >>> import io; read(io.BytesIO(b'{"a": 1}'))
    Traceback (most recent call last):
    ...
    eagerad.safe_format.CorruptFile: load: the file is a JSON document, not an eagerad checkpoint
    """


def read_array(z, name, who):
    """The numpy array stored in member ``name`` of zip ``z``, never unpickling (an object
    array raises UnsafeFileError, anything else that is no .npy array CorruptFile).

    >>> import io; buf = io.BytesIO(); write(np.arange(3), buf)
    >>> read_array(zipfile.ZipFile(buf), _member(0), 'load')
    array([0, 1, 2])
    """
    try:
        with z.open(name) as member:
            if member.read(len(_NPY_MAGIC)) != _NPY_MAGIC:
                raise CorruptFile(f"{who}: member {name!r} of the archive is not a numpy .npy "
                                  "array; the file is damaged or was not written by eagerad")
            _check_size(z, name, member, who)
        with z.open(name) as member:
            return np.lib.format.read_array(member, allow_pickle=False)
    except CorruptFile:
        raise
    except ValueError as err:
        if "Object arrays" in str(err):
            raise UnsafeFileError(f"{who}: member {name!r} holds Python objects (an object array, "
                                  "which only pickle can read); eagerad does not unpickle "
                                  "checkpoint data") from None
        raise CorruptFile(f"{who}: member {name!r} is a damaged .npy array ({err})") from None
    except (zipfile.BadZipFile, OSError, EOFError, KeyError) as err:
        raise CorruptFile(f"{who}: member {name!r} cannot be read: the archive is truncated "
                          f"or damaged ({err})") from None


def _check_size(z, name, member, who):
    """CorruptFile when the .npy header of ``member`` (read up to its magic) promises more
    or fewer bytes than the member holds: a truncated or crafted array is refused before
    any memory is allocated for it."""
    member.seek(0)
    version = np.lib.format.read_magic(member)
    header = {(1, 0): np.lib.format.read_array_header_1_0,
              (2, 0): np.lib.format.read_array_header_2_0}.get(version)
    if header is None:
        return              # (version 3 headers: read_array checks them itself)
    shape, _, dtype = header(member)
    if dtype.hasobject:
        return              # (read_array refuses it without unpickling)
    expected = math.prod(shape) * dtype.itemsize
    if z.getinfo(name).file_size - member.tell() != expected:
        raise CorruptFile(f"{who}: member {name!r} is truncated or damaged: its header promises "
                          f"{expected} bytes of {dtype} data of shape {shape}")


def _placer(map_location):
    """``place(cpu tensor, saved device string) -> tensor`` following PyTorch's
    ``map_location``: None (back where it was saved), a device or its string, a dict
    from saved to new device strings, or a function ``(tensor, location) -> tensor``."""
    if callable(map_location) and not isinstance(map_location, (str, Device)):
        def place(t, saved):
            moved = map_location(t, saved)
            return t if moved is None else moved
        return place
    if isinstance(map_location, dict):
        mapping = {str(k): v for k, v in map_location.items()}
        return lambda t, saved: _to(t, mapping.get(saved, saved))
    if map_location is None:
        return _to
    target = as_device(map_location)
    return lambda t, saved: _to(t, target)


def _to(t, device):
    device = as_device(device)
    if device.type == "cpu":
        return t
    problem = backend.cuda_problem()
    if problem:
        raise RuntimeError(f"the file holds a tensor saved on {device}, which cannot be used "
                           f"here ({problem}); pass map_location='cpu' to load it onto the CPU")
    return t.to(device)


def _tensor(record, array, place, who):
    if not isinstance(record, dict):
        raise CorruptFile(f"{who}: a tensor record of the manifest is {record!r}, not a dict")
    if "numpy" in record:
        return array if record["numpy"] == "ndarray" else array[()]
    array = array if array.flags.c_contiguous else array.copy(order="C")
    face = FACES.get(record.get("face"), NEUTRAL) if type(record.get("face")) is str else NEUTRAL
    t = place(Tensor._make(array, CPU, face=face), str(record.get("device", "cpu")))
    if "parameter" in record:
        return Parameter(t, name=record["parameter"], requires_grad=bool(record.get("requires_grad")))
    return t.requires_grad_(True) if record.get("requires_grad") else t


class _Decoder:
    def __init__(self, z, records, place, who):
        self.z, self.records, self.place, self.who = z, records, place, who
        self._done = {}

    def tensor(self, i):
        if type(i) is not int or not 0 <= i < len(self.records):
            raise CorruptFile(f"{self.who}: the manifest refers to tensor {i!r}, which it does not list")
        if i not in self._done:
            array = read_array(self.z, _member(i), self.who)
            self._done[i] = _tensor(self.records[i], array, self.place, self.who)
        return self._done[i]

    def decode(self, node):
        if node is None or type(node) in (bool, int, float, str):
            return node
        if type(node) is list:
            return [self.decode(v) for v in node]
        if type(node) is not dict or len(node) > 2:
            raise CorruptFile(f"{self.who}: the manifest holds {type(node).__name__} {node!r:.60}, "
                              "which is no value of the safe format")
        if "$tuple" in node:
            return tuple(self.decode(v) for v in node["$tuple"])
        if "$dict" in node:
            out = OrderedDict() if node.get("ordered") else {}
            for pair in node["$dict"]:
                if type(pair) is not list or len(pair) != 2:
                    raise CorruptFile(f"{self.who}: a dict entry of the manifest is {pair!r:.60}")
                key = self.decode(pair[0])
                try:
                    out[key] = self.decode(pair[1])
                except TypeError:
                    raise CorruptFile(f"{self.who}: the manifest has a dict key {key!r:.60} "
                                      "that cannot be a key") from None
            return out
        if "$float" in node and node["$float"] in _FLOAT_WORDS:
            return _FLOAT_WORDS[node["$float"]]
        for tag in ("$tensor", "$ndarray", "$scalar"):
            if tag in node:
                return self.tensor(node[tag])
        if "$dtype" in node and type(node["$dtype"]) is str:
            return np.dtype(node["$dtype"])
        if "$device" in node and type(node["$device"]) is str:
            return as_device(node["$device"])
        raise CorruptFile(f"{self.who}: the manifest holds an unknown entry {node!r:.60}")


class _TensorUnpickler(pickle.Unpickler):
    def __init__(self, file, decoder):
        super().__init__(file)
        self.decoder = decoder

    def persistent_load(self, pid):
        if not (isinstance(pid, tuple) and len(pid) == 2 and pid[0] == "tensor"):
            raise pickle.UnpicklingError(f"unknown persistent id {pid!r}")
        return self.decoder.tensor(pid[1])


def open_archive(f, who):
    """``(zipfile, names)`` of ``f`` (a path or binary file), or a clear error saying what
    the file is when it is no zip archive.

    >>> import io; buf = io.BytesIO(); write([1], buf); open_archive(buf, 'load')[1]
    ['eagerad.json']
    """
    try:
        z = zipfile.ZipFile(f)
    except (zipfile.BadZipFile, EOFError, ValueError, OSError) as err:
        if isinstance(err, FileNotFoundError):
            raise
        what = _what(f)
        raise CorruptFile(f"{who}: {_name(f)} is {what}, not an eagerad checkpoint") from None
    return z, z.namelist()


def _name(f):
    return repr(str(f)) if isinstance(f, (str, bytes)) or hasattr(f, "__fspath__") else "the file"


def _what(f):
    if hasattr(f, "read"):
        try:
            f.seek(0)
        except (OSError, ValueError):
            return "unreadable"
        return describe_file(f)
    with open(f, "rb") as handle:
        return describe_file(handle)


def read(f, map_location=None, weights_only=True, who="load"):
    """The object ``write`` stored in ``f`` (a path or binary file); see the module
    docstring.  ``weights_only=False`` allows a pickle payload (runs its code: only for
    files from a trusted source).

    >>> import io; buf = io.BytesIO(); write({'x': float('nan')}, buf); _ = buf.seek(0)
    >>> read(buf)
    {'x': nan}
    """
    z, names = open_archive(f, who)
    with z:
        if MANIFEST not in names and any(n.endswith("data.pkl") for n in names):
            return torch_checkpoint.read(z, names, _placer(map_location), who)
        if MANIFEST not in names:
            kind = describe(b"PK\x03\x04", names)
            raise CorruptFile(f"{who}: {_name(f)} is {kind}, not an eagerad checkpoint (it has no "
                              f"{MANIFEST})" + (
                                  "; read save_checkpoint's files with load_checkpoint"
                                  if "npz" in kind else ""))
        try:
            manifest = json.loads(z.read(MANIFEST))
        except (ValueError, zipfile.BadZipFile, OSError, EOFError, RecursionError) as err:
            raise CorruptFile(f"{who}: the manifest of {_name(f)} is damaged ({err})") from None
        if type(manifest) is not dict or manifest.get("format") != FORMAT:
            raise CorruptFile(f"{who}: {_name(f)} has a manifest that is not eagerad's")
        if manifest.get("version") != VERSION:
            raise CorruptFile(f"{who}: {_name(f)} is format version {manifest.get('version')!r}; "
                              f"this eagerad reads version {VERSION}")
        records = manifest.get("tensors")
        if type(records) is not list:
            raise CorruptFile(f"{who}: the manifest of {_name(f)} has no tensor list")
        decoder = _Decoder(z, records, _placer(map_location), who)
        root = manifest.get("object")
        if type(root) is not dict or "$pickle" not in root:
            try:
                return decoder.decode(root)
            except RecursionError:
                raise CorruptFile(f"{who}: the manifest of {_name(f)} nests too deeply") from None
        if weights_only:
            raise UnsafeFileError(
                f"{who}: {_name(f)} holds a pickled Python object ({root.get('reason')}); "
                "loading it runs code from the file, so it is refused with weights_only=True. "
                "Pass weights_only=False only for a file from a source you trust, or save "
                "state_dict() instead of the object")
        if root["$pickle"] not in names:
            raise CorruptFile(f"{who}: {_name(f)} lacks its pickle member {root['$pickle']!r}")
        with z.open(root["$pickle"]) as payload:
            return _TensorUnpickler(payload, decoder).load()
