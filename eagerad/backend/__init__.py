"""Device dispatch: one array module per device type.

Each backend module implements the same array-level functions, listed with their
meaning in ``api`` (the contract a new device backend fulfils).  Everything above
this package asks ``get(device_type)`` for the module and never imports a backend
directly, so a new device is one new module.
"""
import importlib

_MODULES = {"cpu": "eagerad.backend.cpu", "cuda": "eagerad.backend.cuda"}
_loaded = {}


def get(device_type):
    """The backend module for ``'cpu'`` or ``'cuda'`` (imported on first use, so a machine
    without CUDA never imports the CUDA backend).

    >>> get("cpu").name
    'cpu'
    """
    mod = _loaded.get(device_type)
    if mod is None:
        try:
            path = _MODULES[device_type]
        except KeyError:
            raise ValueError(f"no backend for device type {device_type!r}") from None
        mod = _loaded[device_type] = importlib.import_module(path)
    return mod
