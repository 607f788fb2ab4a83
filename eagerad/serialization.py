"""Checkpoints as numpy ``.npz`` files: one array per parameter, keyed by its path.

The file is written exactly at the path given (``net.ckpt`` stays ``net.ckpt``), holds
no pickles, and restores bit-exact values and dtypes.

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


def save_checkpoint(save_obj, ckpt_file_name):
    """Write every parameter of ``save_obj`` to ``ckpt_file_name`` (numpy ``.npz`` format).

    >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), 'w.ckpt')
    >>> save_checkpoint({'w': Tensor([1.0, 2.0])}, path); sorted(np.load(path).files)
    ['w']
    """
    arrays = _named_arrays(save_obj)
    with open(ckpt_file_name, "wb") as f:
        np.savez(f, **arrays)


def load_checkpoint(ckpt_file_name):
    """``{name: Parameter}`` read from a file written by ``save_checkpoint``.

    A missing file raises FileNotFoundError, anything that is not such a file ValueError.

    >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), 'w.ckpt')
    >>> save_checkpoint([{'name': 'w', 'data': Tensor([1, 2])}], path)
    >>> load_checkpoint(path)['w']
    Parameter containing:
    tensor([1, 2], requires_grad=True)
    """
    if not os.path.isfile(ckpt_file_name):
        raise FileNotFoundError(f"load_checkpoint: no checkpoint file at {ckpt_file_name!r}")
    try:
        archive = np.load(ckpt_file_name, allow_pickle=False)
        if not isinstance(archive, np.lib.npyio.NpzFile):
            raise ValueError("it holds a single .npy array, not an .npz archive")
        with archive:
            arrays = OrderedDict((name, archive[name]) for name in archive.files)
    except (ValueError, OSError, zipfile.BadZipFile, EOFError) as err:
        raise ValueError(f"load_checkpoint: {ckpt_file_name!r} is not an eagerad checkpoint "
                         f"(numpy .npz written by save_checkpoint): {err}") from None
    return OrderedDict((name, Parameter(arr, name=name)) for name, arr in arrays.items())


