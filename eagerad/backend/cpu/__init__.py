"""CPU backend: arrays are numpy ndarrays.

This module is the reference list of backend functions; ``backend/cuda`` offers
the same names.  Single elementwise ufuncs and BLAS matmul go through numpy
(its SIMD loops beat Numba's scalar transcendental code on this machine);
multi-pass elementwise work, such as the fused first-order gradient kernels,
runs as Numba kernels from ``kernels.py``, imported at the first call so that
importing eagerad compiles nothing.  Large transcendental ops use every core
(see ``unary``).
"""
import os
import threading
import warnings

import numpy as np

name = "cpu"
# NaN/inf results pass silently as in PyTorch; a module-scoped filter costs nothing
# per call, unlike np.errstate (about 2 us).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=__name__)

# ----------------------------------------------------------------- creation


def asarray(data, dtype=None):
    """A fresh or shared ndarray of ``data`` (numpy array, nested list, scalar)."""
    return np.asarray(data, dtype=dtype)


def to_numpy(a):
    return a


def from_numpy(a):
    return a


def full(shape, value, dtype):
    return np.full(shape, value, dtype=dtype)


def arange(start, stop, step, dtype):
    return np.arange(start, stop, step, dtype=dtype)


def copy(a):
    return np.array(a, copy=True)


def astype(a, dtype):
    return a.astype(dtype)


# ------------------------------------------------------------- elementwise


def _sigmoid(x):
    # tanh form: no overflow warning for large |x|, exact 0.5 at 0
    return (np.tanh(x * 0.5) + 1) * 0.5


def _atanh(x):
    return np.arctanh(x)


UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "atanh": _atanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": np.arccosh, "sqrt": np.sqrt, "square": np.square, "abs": np.abs,
    "sign": np.sign, "sigmoid": _sigmoid, "relu": lambda x: np.maximum(x, 0),
    "log1p": np.log1p, "expm1": np.expm1, "floor": np.floor, "ceil": np.ceil,
    "round": np.round, "reciprocal": np.reciprocal, "logical_not": np.logical_not,
    "isfinite": np.isfinite, "isnan": np.isnan,
}

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "floordiv": np.floor_divide, "mod": np.mod, "atan2": np.arctan2,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor,
}



# Large transcendental ops run on every core.  Which way was measured per dtype on
# this machine (llvmlite without SVML): numpy's float32 loops are SIMD but single
# threaded, so chunks of them run in threads (ufuncs release the GIL); numpy's
# float64 sin/cos/tanh/exp loops are scalar and slower than Numba's libm calls in a
# ``prange`` loop, so those go to ``kernels.unary_parallel``.
BIG = 1 << 17
CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
_THREADED = {(op, np.dtype(np.float32)) for op in ("exp", "sin", "tanh", "log", "sqrt")}
_NUMBA_F64 = {(op, np.dtype(np.float64)) for op in ("exp", "sin", "cos")}
_pool = None
_pool_lock = threading.Lock()


def _chunk(ufunc, x, out):
    # NaN/inf pass silently here too (the module's warning filter does not see
    # warnings raised from the pool's threads); errstate is per thread
    with np.errstate(all="ignore"):
        ufunc(x, out=out)


def _chunked(ufunc, x):
    """``ufunc(x)`` computed in ``CORES`` contiguous chunks on a thread pool."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor
                _pool = ThreadPoolExecutor(CORES - 1, thread_name_prefix="eagerad-cpu")
    out = np.empty_like(x)
    xf, of = x.reshape(-1), out.reshape(-1)
    step = -(-xf.size // CORES)
    jobs = [_pool.submit(_chunk, ufunc, xf[i:i + step], of[i:i + step])
            for i in range(step, xf.size, step)]
    _chunk(ufunc, xf[:step], of[:step])
    for job in jobs:
        job.result()
    return out


def unary(op, x):
    """Apply elementwise ``op`` (a key of UNARY) to ``x``; NaN/inf pass silently."""
    if x.size >= BIG and CORES > 1 and x.flags.c_contiguous:
        key = (op, x.dtype)
        if key in _THREADED:
            return _chunked(UNARY[op], x)
        if key in _NUMBA_F64:
            from . import kernels
            return kernels.unary_parallel(op, x)
    out = UNARY[op](x)
    return out if type(out) is np.ndarray else np.asarray(out)


def binary(op, x, y):
    """Broadcasting elementwise ``op`` (a key of BINARY); ``y`` may be a Python scalar."""
    out = BINARY[op](x, y)
    return out if type(out) is np.ndarray else np.asarray(out)


def inplace(op, x, y):
    """``x op= y`` in place (``op`` a key of BINARY); returns ``x``."""
    BINARY[op](x, y, out=x, casting="unsafe")
    return x


def where(cond, x, y):
    return np.where(cond, x, y)


def clip(x, lo, hi):
    return np.clip(x, lo, hi)


# The same formulas as the differentiable rules, for arrays too small to pay for a
# Numba call (~2 us of argument checks) or for numba's import at first use.
_SMALL_GRADS = {"tanh": lambda g, t: g * (1 - t * t), "sigmoid": lambda g, s: g * s * (1 - s),
                "relu": lambda g, x: g * (x > 0)}
FUSED_MIN = 1 << 12


def fused_grad(op, g, saved):
    """First-order gradient of ``op`` from ``g`` and its saved array in one pass
    (``kernels.CODES``; numpy below ``FUSED_MIN`` elements).

    Returns None when nothing covers ``op``/dtype, so callers fall back to the
    differentiable rule.
    """
    if g.size < FUSED_MIN and op in _SMALL_GRADS and g.dtype == saved.dtype:
        return np.asarray(_SMALL_GRADS[op](g, saved))
    from . import kernels
    return kernels.fused_grad(op, g, saved)


# -------------------------------------------------------------- reductions


def reduce(op, x, axis, keepdims):
    """``op`` in sum/max/min/prod/any/all over ``axis`` (None, int or tuple)."""
    return np.asarray(getattr(np, op)(x, axis=axis, keepdims=keepdims))


def argreduce(op, x, axis, keepdims):
    """``op`` in argmax/argmin."""
    return np.asarray(getattr(np, op)(x, axis=axis, keepdims=keepdims))


def logsumexp(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isfinite(m), m, 0)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    return x - logsumexp(x, axis, True)


# ------------------------------------------------------------- linear algebra


def matmul(a, b):
    return np.matmul(a, b)


# ---------------------------------------------------------------- movement


def reshape(x, shape):
    return np.reshape(x, shape)


def transpose(x, axes):
    return np.transpose(x, axes)


def broadcast_to(x, shape):
    return np.broadcast_to(x, shape)


def concat(arrays, axis):
    return np.concatenate(arrays, axis=axis)


def stack(arrays, axis):
    return np.stack(arrays, axis=axis)


def getitem(x, index):
    return np.asarray(x[index])


def setitem(x, index, value):
    x[index] = value


def index_add(shape, dtype, index, values):
    """Zeros of ``shape`` with ``values`` added at ``index``; repeated indices accumulate."""
    out = np.zeros(shape, dtype=dtype)
    np.add.at(out, index, values)
    return out


def contiguous(x):
    return np.ascontiguousarray(x)


# ------------------------------------------------------------------ random

_rng = np.random.default_rng()


def seed(value):
    global _rng
    _rng = np.random.default_rng(value)


def uniform(shape, low, high, dtype):
    return _rng.uniform(low, high, size=shape).astype(dtype)


def normal(shape, mean, std, dtype):
    return (_rng.standard_normal(size=shape) * std + mean).astype(dtype)


def bernoulli(shape, p, dtype):
    return (_rng.random(size=shape) < p).astype(dtype)
