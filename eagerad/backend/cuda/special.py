"""cuda backend: special functions and extra elementwise kernels (erf, lgamma, ...).

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cuda/__init__.py``.  Each scalar formula of
``backend/formulas.py`` (the same source the CPU compiles with ``numba.vectorize``)
becomes a ``cuda.jit(device=True)`` function inside a grid-stride kernel, built at
its first use.  Binary formulas join the elementwise table, so they get its
broadcasting and scalar-operand launch forms.  float16 is computed in float32.
"""
import numpy as np
from numba import cuda

from .. import formulas
from . import elementwise as ew

__all__ = ["special_unary", "special_binary"]

_unary_kernels = {}
for _name, _fn in formulas.BINARY.items():
    ew.BINARY.setdefault(_name, _fn)


def _unary_kernel(name):
    """The kernel ``out[i] = formula(x[i], a, b)`` of unary formula ``name``."""
    k = _unary_kernels.get(name)
    if k is None:
        fn = cuda.jit(device=True)(formulas.UNARY[name])

        @cuda.jit
        def k(out, x, a, b):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = fn(x[i], a, b)
        _unary_kernels[name] = k
    return k


def special_unary(name, x, a=0.0, b=0.0):
    """Elementwise formula ``name`` of ``backend.formulas.UNARY`` on float array ``x``
    with the op's parameters ``a``, ``b``; the result has ``x``'s dtype."""
    from . import _empty, _flat, _run, astype
    work = astype(x, np.float32) if x.dtype == np.float16 else x
    out = _empty(work.shape, work.dtype)
    t = work.dtype.type
    _run(_unary_kernel(name), work.size, _flat(out), _flat(work), t(a), t(b))
    return astype(out, x.dtype) if work is not x else out


def special_binary(name, x, y):
    """Broadcasting elementwise formula ``name`` of ``backend.formulas.BINARY``; either
    operand may be a Python number.  numpy's dtype rules give the result's dtype."""
    from . import _binary, _is_device, astype
    dtype = np.result_type(*(v.dtype if _is_device(v) else v for v in (x, y)))
    if dtype != np.float16:
        return _binary(name, x, y, dtype)
    x, y = (astype(v, np.float32) if _is_device(v) else v for v in (x, y))
    return astype(_binary(name, x, y, np.dtype(np.float32)), dtype)
