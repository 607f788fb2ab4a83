"""cpu backend: special functions and extra elementwise kernels (erf, lgamma, ...).

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cpu/__init__.py``.  Functions numpy has
(exp2, hypot, logaddexp, fmax, ...) run as numpy's ufuncs; the others are the
scalar formulas of ``backend/formulas.py`` made into ufuncs by ``numba.vectorize``
at their first call (cached on disk), so importing eagerad compiles nothing.  They
compute in float64 (one compiled loop per formula) and round to the input's dtype.

>>> special_unary("erf", np.array([0.0, 1.0]))
array([0.        , 0.84270079])
"""
import numpy as np

from .. import formulas

__all__ = ["special_unary", "special_binary"]

_NUMPY_UNARY = {"exp2": np.exp2, "log2": np.log2, "log10": np.log10, "sinc": np.sinc}
_NUMPY_BINARY = {"hypot": np.hypot, "logaddexp": np.logaddexp, "logaddexp2": np.logaddexp2,
                 "fmax": np.fmax, "fmin": np.fmin, "copysign": np.copysign}
_compiled = {}


def _ufunc(table, name):
    """The formula ``table[name]`` as a Numba ufunc (built at its first use)."""
    u = _compiled.get(name)
    if u is None:
        import numba
        from .jit_cache import enabled
        u = _compiled[name] = numba.vectorize(cache=enabled())(table[name])
    return u


def _float64(v):
    return v.astype(np.float64, copy=False) if isinstance(v, np.ndarray) else float(v)


def special_unary(name, x, a=0.0, b=0.0):
    """Elementwise formula ``name`` of ``backend.formulas.UNARY`` on float array ``x``,
    with the op's float parameters ``a`` and ``b``; the result has ``x``'s dtype.

    >>> special_unary("softplus", np.array([-1000.0, 1000.0], np.float32), 1.0, 20.0)
    array([   0., 1000.], dtype=float32)
    """
    fn = _NUMPY_UNARY.get(name)
    if fn is not None:
        return np.asarray(fn(x))
    with np.errstate(all="ignore"):
        out = _ufunc(formulas.UNARY, name)(_float64(x), float(a), float(b))
    return np.asarray(out, dtype=x.dtype)


def special_binary(name, x, y):
    """Broadcasting elementwise formula ``name`` of ``backend.formulas.BINARY``; either
    operand may be a Python number.  numpy's dtype rules give the result's dtype.

    >>> special_binary("xlogy", np.array([0.0, 2.0]), np.array([0.0, np.e]))
    array([0., 2.])
    """
    fn = _NUMPY_BINARY.get(name)
    if fn is not None:
        return np.asarray(fn(x, y))
    dtype = np.result_type(x, y)
    with np.errstate(all="ignore"):
        out = _ufunc(formulas.BINARY, name)(_float64(x), _float64(y))
    return np.asarray(out, dtype=dtype)
