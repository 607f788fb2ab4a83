"""cuda backend: linear-algebra kernels (factorisations, solves).

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cuda/__init__.py``.

Until a cuSOLVER binding is in the ``cuda`` extra, each of these is a documented
host round trip: the operands are copied to the host, the CPU backend's LAPACK
kernel runs there, and the results are copied back to the device.  The numbers
are the CPU backend's (never an approximation); the cost is two transfers.
Matrix products (``matmul``, and the contractions built on it) stay on the device.
"""
import numpy as np
from numba import cuda

from .. import cpu

__all__ = list(cpu.linalg.__all__)


def _to_device(a):
    a = np.asarray(a)
    return cuda.to_device(a if a.flags.c_contiguous else a.copy(order="C"))


def _on_host(name):
    """The CPU kernel ``name`` with device arrays copied to the host and back."""
    kernel = getattr(cpu.linalg, name)

    def run(*args):
        host = [a.copy_to_host() if hasattr(a, "copy_to_host") else a for a in args]
        out = kernel(*host)
        if isinstance(out, tuple):
            return tuple(_to_device(o) for o in out)
        return _to_device(out)
    run.__name__ = name
    run.__doc__ = f"``{name}`` by a host round trip (see the module docstring)."
    return run


globals().update({name: _on_host(name) for name in __all__})
