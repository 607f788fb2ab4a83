"""Saving and loading: MindSpore's checkpoints and PyTorch's ``save``/``load``.

``save_checkpoint``/``load_checkpoint`` keep parameters as numpy ``.npz`` files: one
array per parameter, keyed by its path, written exactly at the path given
(``net.ckpt`` stays ``net.ckpt``).  ``save``/``load`` store nested state (an
optimizer's ``state_dict``) in eagerad's safe format (``safe_format``).  Every write
is atomic (``atomic``), no load unpickles anything unless asked to with
``weights_only=False``, and values and dtypes come back bit-exact.

>>> import eagerad, tempfile, os
>>> from eagerad import nn
>>> net = nn.Dense(2, 1)
>>> path = os.path.join(tempfile.mkdtemp(), 'dense.ckpt')
>>> save_checkpoint(net, path)
>>> load_param_into_net(nn.Dense(2, 1), load_checkpoint(path))
([], [])
"""
import os
import zipfile
from collections import OrderedDict

import numpy as np

from .nn.cell import load_param_into_net  # noqa: F401  (MindSpore's place for it)
from .tensor import Parameter, Tensor


def _named_arrays(save_obj):
    """``{name: ndarray}`` from a Cell, a ``{name: tensor}`` dict or MindSpore's list of
    ``{'name': ..., 'data': ...}`` dicts."""
    if hasattr(save_obj, "parameters_dict"):
        items = save_obj.parameters_dict().items()
    elif isinstance(save_obj, dict):
        items = save_obj.items()
    elif isinstance(save_obj, (list, tuple)):
        try:
            items = [(d["name"], d["data"]) for d in save_obj]
        except (TypeError, KeyError):
            raise TypeError("save_checkpoint: a list must hold {'name': ..., 'data': ...} dicts") from None
    else:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a dict or a list of dicts, "
                        f"got {type(save_obj).__name__}")
    out = OrderedDict()
    for name, value in items:
        out[str(name)] = value.numpy() if isinstance(value, Tensor) else np.asarray(value)
    return out


def _write_npz(arrays, out):
    """numpy's ``.npz`` layout (one ``<name>.npy`` member per array, stored), never pickling."""
    with zipfile.ZipFile(out, "w", zipfile.ZIP_STORED, allowZip64=True) as z:
        for name, arr in arrays.items():
            with z.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(arr), allow_pickle=False)


def save_checkpoint(save_obj, ckpt_file_name, format="npz"):
    """Write every parameter of ``save_obj`` to ``ckpt_file_name``, atomically: a failed
    or interrupted save leaves the previous file as it was.  ``format='npz'`` writes
    numpy's ``.npz``; ``'ckpt'`` MindSpore's protobuf checkpoint, which MindSpore's own
    ``load_checkpoint`` reads (``eagerad.mindspore.save_checkpoint`` writes that).

    It stores arrays only; nested state (an optimizer's ``state_dict()``) goes to ``save``.

    >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), 'w.ckpt')
    >>> save_checkpoint({'w': Tensor([1.0, 2.0])}, path); sorted(np.load(path).files)
    ['w']
    >>> save_checkpoint({'w': Tensor([1.0, 2.0])}, path, format='ckpt'); load_checkpoint(path)['w'].tolist()
    [1.0, 2.0]
    """
    from .atomic import write_file        # (the file machinery loads at the first save/load)
    if format not in ("npz", "ckpt"):
        raise ValueError(f"save_checkpoint: format must be 'npz' or 'ckpt', got {format!r}")
    arrays = _named_arrays(save_obj)
    for name, arr in arrays.items():
        if arr.dtype.hasobject:
            raise TypeError(f"save_checkpoint: entry {name!r} is not an array of numbers (numpy made "
                            f"an object array of it); save_checkpoint stores tensors/arrays only, "
                            f"use eagerad.save for nested state such as an optimizer's state_dict()")
    if format == "ckpt":
        from . import ckpt_format
        write_file(ckpt_file_name, lambda out: out.write(ckpt_format.ckpt_bytes(arrays)))
    else:
        write_file(ckpt_file_name, lambda out: _write_npz(arrays, out))


def load_checkpoint(ckpt_file_name):
    """``{name: Parameter}`` read from a file written by ``save_checkpoint`` (or by ``save``
    of a flat ``{name: tensor}`` dict).

    A missing file raises FileNotFoundError; anything else that is not such a file a
    ValueError saying what the file looks like.  Nothing in the file is unpickled.

    >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), 'w.ckpt')
    >>> save_checkpoint([{'name': 'w', 'data': Tensor([1, 2])}], path)
    >>> load_checkpoint(path)['w']
    Parameter containing:
    tensor([1, 2], requires_grad=True)
    """
    from . import safe_format
    from .file_kinds import describe
    from . import ckpt_format
    who = "load_checkpoint"
    if not os.path.isfile(ckpt_file_name):
        raise FileNotFoundError(f"{who}: no checkpoint file at {ckpt_file_name!r}")
    if ckpt_format.is_ckpt(ckpt_file_name):        # MindSpore's protobuf checkpoint
        return OrderedDict((n, v if isinstance(v, str) else Parameter(v, name=n))
                           for n, v in ckpt_format.read_ckpt(ckpt_file_name).items())
    z, names = safe_format.open_archive(ckpt_file_name, who)
    with z:
        if safe_format.MANIFEST not in names:
            if not names or not all(n.endswith(".npy") for n in names):
                raise safe_format.CorruptFile(
                    f"{who}: {ckpt_file_name!r} is {describe(b'PK', names)}, not an eagerad "
                    "checkpoint (a numpy .npz written by save_checkpoint)")
            return OrderedDict((n[:-4], Parameter(safe_format.read_array(z, n, who), name=n[:-4]))
                               for n in names)
    return _parameters(safe_format.read(ckpt_file_name, "cpu", who=who), ckpt_file_name)


def _parameters(obj, path):
    """``{name: Parameter}`` from a flat dict of tensors/arrays read by ``load``."""
    if not isinstance(obj, dict) or not all(isinstance(v, (Tensor, np.ndarray)) for v in obj.values()):
        raise ValueError(f"load_checkpoint: {path!r} was written by eagerad.save and holds "
                         f"{type(obj).__name__}, not a flat {{name: tensor}} dict; read it with "
                         "eagerad.load")
    return OrderedDict((str(k), Parameter(v, name=str(k))) for k, v in obj.items())


def save(obj, f, pickle_module=None, pickle_protocol=None, _use_new_zipfile_serialization=True):
    """Save ``obj`` to ``f`` (a path, written atomically, or a binary file object), as
    PyTorch's ``torch.save``.

    Tensors (any dtype; device, ``requires_grad`` and Parameters kept), numpy arrays,
    nested dicts/lists/tuples, None, bools, ints, floats and strings (a ``state_dict``
    of a module or an optimizer) are stored without pickle, and ``load`` reads them
    back without running code.  Anything else (a whole module) is pickled, and ``load``
    then requires ``weights_only=False``.  A failed save leaves ``f``'s previous file
    intact.  ``pickle_module``/``pickle_protocol`` are accepted for PyTorch's signature.

    >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), 'state.pt')
    >>> save({'step': 7, 'w': Tensor([1.5])}, path); load(path)['w'].tolist()
    [1.5]
    """
    from . import safe_format
    from .atomic import write_file
    write_file(f, lambda out: safe_format.write(obj, out))


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """What ``save`` stored in ``f`` (a path or a binary file object), as PyTorch's
    ``torch.load`` with ``weights_only=True``: loading never runs code from the file.

    ``map_location``: None (each tensor back on its saved device), a device
    (``'cpu'``), a dict ``{saved: new}`` of device strings, or a function
    ``(tensor, saved_location) -> tensor``.  A file holding a pickled object (a whole
    module) is refused unless ``weights_only=False``, which unpickles it: pass that only
    for files from a source you trust.  A file written by PyTorch's own ``torch.save``
    (a state dict, an optimizer's state, nested containers of tensors) is read without
    PyTorch by an allow-list unpickler (``eagerad.torch_checkpoint``), which refuses any
    other object before it runs.  Foreign or damaged files raise a ValueError that says
    what the file looks like.

    >>> import io; buf = io.BytesIO(); save([1, (2.0, 'a')], buf); _ = buf.seek(0)
    >>> load(buf)
    [1, (2.0, 'a')]
    """
    from . import safe_format
    if isinstance(f, (str, bytes, os.PathLike)) and not os.path.isfile(f):
        raise FileNotFoundError(f"load: no file at {os.fsdecode(f)!r}")
    safe = True if weights_only is None else bool(weights_only)
    return safe_format.read(f, map_location, weights_only=safe)
