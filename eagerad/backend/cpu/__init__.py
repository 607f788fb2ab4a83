"""CPU backend: arrays are numpy ndarrays.

This module is the reference list of backend functions; ``backend/cuda`` offers
the same names.  Single elementwise ufuncs and BLAS matmul go through numpy
(its SIMD loops beat Numba's scalar transcendental code on this machine);
multi-pass elementwise work, such as the fused first-order gradient kernels,
runs as Numba kernels from ``kernels.py``, imported at the first call so that
importing eagerad compiles nothing.  Large elementwise ops use every core and
write into reused buffers from ``pool`` (see ``unary`` and ``binary``).
"""
import warnings

import numpy as np

from .. import formulas
from . import allocator, pool, stacked_matmul, threads

name = "cpu"
# NaN/inf results pass silently as in PyTorch; a module-scoped filter costs nothing
# per call, unlike np.errstate (about 2 us).
warnings.filterwarnings("ignore", category=RuntimeWarning, module=__name__)

# ----------------------------------------------------------------- creation


def asarray(data, dtype=None):
    """A fresh or shared ndarray of ``data`` (numpy array, nested list, scalar).

    >>> asarray([1, 2], dtype="float32")
    array([1., 2.], dtype=float32)
    """
    return np.asarray(data, dtype=dtype)


def to_numpy(a):
    """The array as a host numpy array, for ``Tensor.numpy``; on CPU it already is one
    (the CUDA backend copies to the host here).

    >>> a = np.arange(3)
    >>> to_numpy(a) is a
    True
    """
    return a


def from_numpy(a):
    """A backend array from a numpy one, for ``Tensor(ndarray)``; on CPU the same object
    (the CUDA backend copies to the device here).

    >>> a = np.arange(3)
    >>> from_numpy(a) is a
    True
    """
    return a


def full(shape, value, dtype):
    """A new array of ``shape`` filled with ``value``: the backend of zeros/ones/full.

    >>> full((2,), 7.0, "float32")
    array([7., 7.], dtype=float32)
    """
    return np.full(shape, value, dtype=dtype)


def arange(start, stop, step, dtype):
    """``start, start + step, ...`` below ``stop`` with an explicit dtype (``eagerad.arange``).

    >>> arange(0, 6, 2, "int64")
    array([0, 2, 4])
    """
    return np.arange(start, stop, step, dtype=dtype)


def copy(a):
    """A copy that owns its memory (``Tensor.clone``): writes to it never reach ``a``.

    >>> a = np.zeros(2)
    >>> b = copy(a); b[0] = 1.0
    >>> a
    array([0., 0.])
    """
    return np.array(a, copy=True)


def astype(a, dtype):
    """``a`` converted to ``dtype`` (always a new array), for ``Tensor.astype``; floats
    truncate toward zero as in numpy.

    >>> astype(np.array([1.7, -1.2]), "int32")
    array([ 1, -1], dtype=int32)
    >>> astype(np.array([1.5 + 2j]), "float64")     # complex to real keeps the real part
    array([1.5])
    """
    if a.dtype.kind == "c" and np.dtype(dtype).kind != "c":
        a = a.real
    return a.astype(dtype)


# ------------------------------------------------------------- elementwise


def _sigmoid(x):
    # exp(-|x|) only: no overflow, exact 0.5 at 0, and full relative precision on the
    # negative tail (the tanh form 0.5 (1 + tanh(x/2)) cancels there: sigmoid(-10) in
    # float32 came out 0.7 % off, sigmoid(-20) as 0)
    e = np.exp(-np.abs(x))
    return np.where(x >= 0, 1 / (1 + e), e / (1 + e))


def _atanh(x):
    return np.arctanh(x)


# The backend's elementwise ops by name: numpy ufuncs (or array functions of that
# form) here; the CUDA backend's tables of the same names hold scalar functions
# for its kernels (``cuda/elementwise.py``) and take their result dtypes from these.
UNARY = {
    "neg": np.negative, "exp": np.exp, "log": np.log, "sin": np.sin, "cos": np.cos,
    "tan": np.tan, "sinh": np.sinh, "cosh": np.cosh, "tanh": np.tanh, "atanh": _atanh,
    "asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "asinh": np.arcsinh,
    "acosh": np.arccosh, "sqrt": np.sqrt, "square": np.square, "abs": np.abs,
    "sign": np.sign, "sigmoid": _sigmoid, "relu": lambda x: np.maximum(x, 0),
    "log1p": np.log1p, "expm1": np.expm1, "floor": np.floor, "ceil": np.ceil,
    "round": np.round, "reciprocal": np.reciprocal, "logical_not": np.logical_not,
    "isfinite": np.isfinite, "isnan": np.isnan, "bitwise_not": np.invert,
}

BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide,
    "pow": np.power, "maximum": np.maximum, "minimum": np.minimum,
    "floordiv": np.floor_divide, "mod": np.mod, "atan2": np.arctan2,
    "eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
    "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and,
    "logical_or": np.logical_or, "logical_xor": np.logical_xor,
    "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or, "bitwise_xor": np.bitwise_xor,
}


# Ops of the tables that have no meaning for complex numbers (orderings, roundings, real
# activations): numpy would order complex numbers lexicographically or read sign as z/|z|,
# PyTorch refuses them, so complex operands raise here instead of giving another number.
REAL_ONLY = {"maximum", "minimum", "floordiv", "mod", "atan2", "lt", "le", "gt", "ge",
             "relu", "sigmoid", "sign", "floor", "ceil", "round"}


def _refuse_complex(op):
    raise TypeError(f"{op}: not defined for complex tensors (as in PyTorch); use the real "
                    "and imaginary parts, or abs()")


# Large elementwise ops run on every core.  Which way was measured per dtype on
# this machine (llvmlite without SVML): numpy's loops release the GIL, so slices
# of them run in threads (memory-bound arithmetic gains from a second core only on
# outputs of tens of MB); numpy's float64 sin/cos/exp loops are scalar and its float32
# tanh and exp are slow, so those go to Numba kernels (vectorised polynomials for
# sin/cos/tanh/float32 exp, see ``kernels``).
# Outputs of a megabyte and more come from ``pool`` (reused, already faulted in).
BIG = 1 << 17
CORES = threads.CORES
threads.apply_policy()      # BLAS on one thread, OpenMP workers that sleep (see threads)
allocator.apply_policy()    # freed result buffers reused from the heap (see allocator)
_NUMBA = {("exp", np.dtype(np.float64)), ("sin", np.dtype(np.float64)),
          ("cos", np.dtype(np.float64))}
# float32 ops with a vectorised kernel (from ``FUSED_MIN`` elements, serial below
# ``kernels.PARALLEL_MIN``): numpy's loops are slower per core on this machine
_FLOAT32_KERNELS = {"exp": "exp_f32", "tanh": "tanh_f32"}
# ops whose ``unary`` runs a kernel of its own from ``FUSED_MIN`` elements (float32 exp and
# tanh, float64 tanh), not numpy's ufunc: callers of ``UNARY`` stop below that size
OWN_KERNELS = set(_FLOAT32_KERNELS)
# ufuncs whose float output has the input's dtype
_SAME_DTYPE = {"neg", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos",
               "atan", "asinh", "acosh", "sqrt", "square", "abs", "log1p", "expm1", "floor",
               "ceil", "reciprocal"}
_ARITH = {"add", "sub", "mul", "div", "pow", "maximum", "minimum", "atan2"}
_POOL_ITEMS = pool.MIN_BYTES // 8      # below this many elements no float output is pooled
SPLIT_BYTES = 16 << 20     # measured: 8 MB float64 products lost a little when split
_HEAVY = {np.exp, np.log, np.sin, np.cos, np.tan, np.sinh, np.cosh, np.tanh, np.arcsin,
          np.arccos, np.arctan, np.arcsinh, np.arccosh, np.sqrt, np.log1p, np.expm1,
          np.power, np.arctan2}


def _chunk(ufunc, args, out, kw, lo, hi):
    # NaN/inf pass silently here too (the module's warning filter does not see
    # warnings raised from the pool's threads); errstate is per thread
    with np.errstate(all="ignore"):
        ufunc(*[a[lo:hi] if type(a) is np.ndarray else a for a in args], out=out[lo:hi], **kw)


def _split(ufunc, out, *args, **kw):
    """``ufunc(*args, out=out)`` in slices along axis 0, shared over the thread pool
    (``threads.share``: a busy core costs at most the slice in flight on it).

    Array arguments are broadcast to ``out``'s shape first, so each slice of
    ``out`` meets the matching slices of its operands."""
    args = [np.broadcast_to(a, out.shape) if type(a) is np.ndarray and a.shape != out.shape
            else a for a in args]
    chunks = threads.row_chunks(out.shape[0])
    threads.share(lambda i: _chunk(ufunc, args, out, kw, *chunks[i]), len(chunks))
    return out


def _run(ufunc, out, *args, **kw):
    """``ufunc(*args, out=out)``, split over the cores when that pays: from ``BIG``
    elements for transcendental ufuncs, from ``SPLIT_BYTES`` for memory-bound ones
    (below that the hand-off to a thread costs more than it saves)."""
    if out.ndim and out.shape[0] > 1 and (out.nbytes >= SPLIT_BYTES or (
            ufunc in _HEAVY and out.size >= BIG)) and threads.shares() > 1:
        return _split(ufunc, out, *args, **kw)
    ufunc(*args, out=out, **kw)
    return out


# float16 math runs in float32 and rounds once, as PyTorch does: a float16 intermediate
# (a Python scalar cast to float16, a running sum) overflows at 65504 and has an
# 11-bit significand.
_HALF, _SINGLE = np.dtype(np.float16), np.dtype(np.float32)


def _is_half(a):
    return type(a) is np.ndarray and a.dtype.char == "e"


def _single(a):
    """``a`` widened to float32 when it is a float16 array, else ``a`` itself."""
    return a.astype(_SINGLE) if _is_half(a) else a


def _round_half(out, *operands):
    """``out`` (computed on widened operands) rounded once to float16 where numpy's
    result for the original operands is float16 (bools and wider types pass)."""
    if out.dtype == _SINGLE and np.result_type(*operands) == _HALF:
        return out.astype(_HALF)
    return out


def unary(op, x):
    """Apply elementwise ``op`` (a key of UNARY) to ``x``; NaN/inf pass silently.

    >>> unary("sigmoid", np.array([0.0, 100.0]))
    array([0.5, 1. ])
    >>> unary("exp", np.array([12.0], np.float16))   # e**12 > 65504: float16 overflows once
    array([inf], dtype=float16)
    """
    if x.dtype.char == "e":
        return _round_half(unary(op, x.astype(_SINGLE)), x)
    if x.size >= FUSED_MIN and x.dtype.char == "f" and op in _FLOAT32_KERNELS \
            and x.flags.c_contiguous:
        from . import kernels      # vectorised: ~3x numpy's float32 exp, ~2.5x its tanh
        return getattr(kernels, _FLOAT32_KERNELS[op])(x)
    if op == "tanh" and x.size >= FUSED_MIN and x.dtype.char == "d" and x.flags.c_contiguous:
        from . import tanh64       # vectorised: ~4x numpy's (libm) float64 tanh
        return tanh64.tanh_f64(x)
    if x.size >= _POOL_ITEMS and x.dtype.kind == "f":
        if CORES > 1 and x.size >= BIG and (op, x.dtype) in _NUMBA and x.flags.c_contiguous:
            from . import kernels
            return kernels.unary_parallel(op, x)
        if op in _SAME_DTYPE:
            return _run(UNARY[op], pool.empty_like(x), x)
    if op in REAL_ONLY and x.dtype.kind == "c":
        _refuse_complex(op)
    out = UNARY[op](x)
    return out if type(out) is np.ndarray else np.asarray(out)


def _float_out(x, y):
    """A pooled output for ``x op y`` when both are (or one is a Python number with)
    a large float array of one dtype, else None (numpy allocates)."""
    tx, ty = type(x), type(y)
    if tx is np.ndarray:
        dtype = x.dtype
        if ty is np.ndarray:
            if y.dtype != dtype:
                return None
            shape = x.shape if x.shape == y.shape else np.broadcast_shapes(x.shape, y.shape)
        elif ty is float or ty is int:
            shape = x.shape
        else:
            return None
    elif ty is np.ndarray and (tx is float or tx is int):
        dtype, shape = y.dtype, y.shape
    else:
        return None
    if dtype.kind != "f":
        return None
    return pool.empty(shape, dtype)


# ``x ** 2`` and ``x ** 1`` as the exact ufuncs numpy's ``**`` operator also uses
# (np.power itself calls libm's pow, several times slower)
_POWERS = {2: np.square, 1: np.positive}


def binary(op, x, y):
    """Broadcasting elementwise ``op`` (a key of BINARY); ``y`` may be a Python scalar.

    >>> binary("add", np.array([1.0, 2.0]), 1)
    array([2., 3.])
    >>> binary("lt", np.array([1.0, 2.0]), np.array([2.0, 2.0]))
    array([ True, False])
    >>> binary("div", np.array([1.0], np.float16), 100000)   # not 1 / float16(1e5) = 0
    array([1.e-05], dtype=float16)
    """
    if type(x) is np.ndarray and x.dtype.char == "e" or type(y) is np.ndarray and y.dtype.char == "e":
        return _round_half(binary(op, _single(x), _single(y)), x, y)   # ``_is_half``, inlined
    if op == "pow" and (type(y) is int or type(y) is float) and y in _POWERS \
            and type(x) is np.ndarray and x.dtype.kind == "f":
        return _run(_POWERS[y], pool.empty_like(x), x)
    if op in _ARITH and ((type(x) is np.ndarray and x.size >= _POOL_ITEMS)
                         or (type(y) is np.ndarray and y.size >= _POOL_ITEMS)):
        out = _float_out(x, y)
        if out is not None:
            return _run(BINARY[op], out, x, y)
    if op in REAL_ONLY and (type(x) is complex or type(y) is complex or
                            getattr(x, "dtype", None) is not None and x.dtype.kind == "c" or
                            getattr(y, "dtype", None) is not None and y.dtype.kind == "c"):
        _refuse_complex(op)
    out = BINARY[op](x, y)
    return out if type(out) is np.ndarray else np.asarray(out)


def inplace(op, x, y):
    """``x op= y`` in place (``op`` a key of BINARY); returns ``x``.

    >>> x = np.ones(2)
    >>> inplace("mul", x, 3.0) is x, x
    (True, array([3., 3.]))
    """
    if x.dtype.char == "e" or type(y) is np.ndarray and y.dtype.char == "e":
        x[...] = binary(op, x, y)
        return x
    if x.nbytes >= SPLIT_BYTES and (type(y) is not np.ndarray or y is x
                                    or not np.may_share_memory(x, y)):
        # slices of an overlapping ``y`` could be overwritten by another thread's slice
        return _run(BINARY[op], x, x, y, casting="unsafe")
    BINARY[op](x, y, out=x, casting="unsafe")
    return x


def where(cond, x, y):
    """``x`` where ``cond`` holds, else ``y`` (broadcasting): ``ops.where`` and masking rules.

    >>> where(np.array([True, False]), np.array([1, 2]), np.array([9, 9]))
    array([1, 9])
    """
    return np.where(cond, x, y)


def clip(x, lo, hi):
    """``x`` limited to ``[lo, hi]`` (either may be None): ``ops.clamp``.

    >>> clip(np.array([-2.0, 0.5, 3.0]), 0.0, 1.0)
    array([0. , 0.5, 1. ])
    """
    return np.clip(x, lo, hi)


# The formulas of the differentiable rules (``formulas``), for arrays too small to pay
# for a Numba call (~2 us of argument checks) or for numba's import at first use.
_SMALL_GRADS = {"tanh": formulas.tanh_grad, "sigmoid": formulas.sigmoid_grad,
                "relu": formulas.relu_grad}
FUSED_MIN = 1 << 12


def fused_grad(op, g, saved):
    """First-order gradient of ``op`` from ``g`` and its saved array in one pass
    (``kernels.CODES``; numpy below ``FUSED_MIN`` elements).

    Returns None when nothing covers ``op``/dtype, so callers fall back to the
    differentiable rule.

    >>> fused_grad("relu", np.ones(3), np.array([-1.0, 0.0, 2.0]))   # small: numpy
    array([0., 0., 1.])
    """
    if g.dtype.char == "e" and _is_half(g) and _is_half(saved):
        out = fused_grad(op, _single(g), _single(saved))
        return out.astype(_HALF) if out is not None else None
    if g.size < FUSED_MIN and op in _SMALL_GRADS and g.dtype == saved.dtype:
        out = _SMALL_GRADS[op](g, saved, 1)
        return out if type(out) is np.ndarray else np.asarray(out)   # (0-d: a numpy scalar)
    from . import kernels
    return kernels.fused_grad(op, g, saved)


def fused_deriv(op, g, x, n=None):
    """``g * op'(x)`` in one pass for sin, cos (float64), ``"dsin"`` (``g * sin(x + n pi/2)``,
    n in 0..3: the n-th derivative of sin) and ``pow`` by ``n`` in {1, 2, 3}, with the
    arithmetic of their differentiable rules and the same sin/cos as ``unary`` (so the same
    bits), or None where that does not hold (small or float32 sin/cos, other powers, a
    ``g`` neither contiguous nor a broadcast scalar): callers then run the rule.

    >>> fused_deriv("sin", np.ones(3), np.zeros(3)) is None   # small: numpy's cos
    True
    """
    if type(x) is not np.ndarray or x.size < BIG or type(g) is not np.ndarray \
            or g.dtype != x.dtype or g.shape != x.shape or CORES < 2 or not x.flags.c_contiguous \
            or x.dtype.kind != "f":
        return None
    if op == "pow":
        if type(n) is bool or n not in (1, 2, 3):
            return None
    elif ("sin", x.dtype) not in _NUMBA or op not in _QUARTERS:
        return None
    else:
        n = _QUARTERS[op] if n is None else n
    if not g.flags.c_contiguous and g.strides.count(0) < g.ndim:
        return None
    from . import kernels
    return kernels.deriv("pow" if op == "pow" else "sin", g, x, n or 0)


_QUARTERS = {"sin": 1, "cos": 2, "dsin": None}   # sin' = sin(x + pi/2), cos' = sin(x + pi)


# -------------------------------------------------------------- reductions


def reduce(op, x, axis, keepdims):
    """``op`` in sum/mean/max/min/prod/any/all over ``axis`` (None, int or tuple); float16
    sums, means and products accumulate in float32 and round once.

    >>> reduce("sum", np.arange(6.0).reshape(2, 3), 1, False)
    array([ 3., 12.])
    >>> reduce("mean", np.ones(100000, np.float16), None, False)
    array(1., dtype=float16)
    """
    if x.dtype.char == "e" and op in _ACCUMULATE:
        return np.asarray(getattr(np, op)(x, axis=axis, keepdims=keepdims, dtype=_SINGLE),
                          dtype=_HALF)
    return np.asarray(getattr(np, op)(x, axis=axis, keepdims=keepdims))


_ACCUMULATE = {"sum", "mean", "prod"}


def _computing(x):
    """``x`` in the float type its exp-and-sum reductions run in: float32 for float16
    and for integers and bools (whose exp would be float16 and overflow), else ``x``."""
    return x.astype(_SINGLE) if x.dtype.kind != "f" or x.dtype.char == "e" else x


def _rounded(out, x):
    """A result computed by ``_computing(x)`` back in float16 when ``x`` was float16."""
    return out.astype(_HALF) if x.dtype.char == "e" else out


def argreduce(op, x, axis, keepdims):
    """``op`` in argmax/argmin.

    >>> argreduce("argmax", np.array([[1, 5], [7, 2]]), 1, False)
    array([1, 0])
    """
    return np.asarray(getattr(np, op)(x, axis=axis, keepdims=keepdims))


def logsumexp(x, axis, keepdims):
    """``log(sum(exp(x)))`` over ``axis`` without overflow: the maximum is subtracted
    first (and left at 0 where it is infinite, so ``-inf`` rows give ``-inf``).

    >>> logsumexp(np.array([1000.0, 1000.0]), 0, False)
    array(1000.69314718)
    >>> logsumexp(np.full(300, 200, np.uint8), 0, False)    # integers: in float32
    array(205.70378, dtype=float32)
    """
    if x.dtype.kind != "f" or x.dtype.char == "e":
        return _rounded(logsumexp(_computing(x), axis, keepdims), x)
    m = np.max(x, axis=axis, keepdims=True, initial=-np.inf)   # an empty axis: -inf
    m = np.where(np.isfinite(m), m, 0)
    with np.errstate(divide="ignore"):                          # log(0) = -inf, as PyTorch
        out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def softmax(x, axis):
    """``exp(x) / sum(exp(x))`` along ``axis``, shifted by the maximum so large logits
    do not overflow.

    >>> softmax(np.array([0.0, np.log(3.0)]), 0)
    array([0.25, 0.75])
    """
    if x.dtype.char == "e":
        return _rounded(softmax(_computing(x), axis), x)
    if x.size == 0:                       # nothing to normalise (an empty axis included)
        return np.exp(x)
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def log_softmax(x, axis):
    """``x - logsumexp(x)`` along ``axis``: stable where ``log(softmax(x))`` would give
    ``-inf`` for very negative logits.

    >>> log_softmax(np.array([0.0, -1000.0]), 0)
    array([    0., -1000.])
    """
    if x.dtype.char == "e":
        return _rounded(log_softmax(_computing(x), axis), x)
    return x - logsumexp(x, axis, True)


# ------------------------------------------------------------- linear algebra


def matmul(a, b):
    """Matrix product with numpy's broadcasting of batch axes (BLAS underneath).

    >>> matmul(np.eye(2), np.array([[1.0], [2.0]]))
    array([[1.],
           [2.]])
    """
    if _is_half(a) or _is_half(b):     # float32 accumulation, rounded once
        return _round_half(np.matmul(_single(a), _single(b)), a, b)
    if a.ndim == 2 and b.ndim == 2 and a.shape[1] == 1 and b.shape[0] == 1 \
            and a.dtype == b.dtype and a.dtype.kind == "f":
        # an outer product: each element is one product, as BLAS computes it (alpha 1,
        # beta 0), so the same bits; numpy's broadcast multiply is ~5x faster than sgemm
        return np.multiply(a, b)
    out = threads.matmul(a, b)          # large products: row blocks over the pool
    if out is None and a.ndim > 2:      # stacks of views no reshape merges (attention's)
        out = stacked_matmul.split_stacked(a, b)
    return np.matmul(a, b) if out is None else out


# ---------------------------------------------------------------- movement


def reshape(x, shape):
    """``x`` with a new ``shape`` (a view when the layout allows): ``Tensor.reshape``.

    >>> reshape(np.arange(6), (2, 3)).shape
    (2, 3)
    """
    return np.reshape(x, shape)


def transpose(x, axes):
    """``x`` with its axes permuted by ``axes`` (a view): ``Tensor.permute`` and ``.T``.

    >>> transpose(np.zeros((2, 3, 4)), (2, 0, 1)).shape
    (4, 2, 3)
    """
    return np.transpose(x, axes)


def broadcast_to(x, shape):
    """A read-only view of ``x`` repeated to ``shape`` without copying (``expand``).

    >>> broadcast_to(np.array([1, 2]), (2, 2))
    array([[1, 2],
           [1, 2]])
    """
    return np.broadcast_to(x, shape)


def concat(arrays, axis):
    """``arrays`` joined along an existing ``axis`` (``ops.concat``).

    >>> concat([np.zeros(1), np.ones(2)], 0)
    array([0., 1., 1.])
    """
    return np.concatenate(arrays, axis=axis)


def stack(arrays, axis):
    """``arrays`` of one shape joined along a new ``axis`` (``ops.stack``).

    >>> stack([np.zeros(2), np.ones(2)], 0).shape
    (2, 2)
    """
    return np.stack(arrays, axis=axis)


def getitem(x, index):
    """``x[index]`` as an ndarray, never a numpy scalar, so Tensors always hold arrays.

    >>> getitem(np.arange(4), 2)
    array(2)
    """
    return np.asarray(x[index])


def diagonal(x, offset):
    """Diagonal ``offset`` of the last two axes, a writable view of ``x`` (numpy's own
    ``diagonal`` is read-only).

    >>> m = np.zeros((2, 2)); diagonal(m, 0)[...] += 1; m
    array([[1., 0.],
           [0., 1.]])
    """
    n, m = x.shape[-2:]
    r0, c0 = max(-offset, 0), max(offset, 0)
    k = max(0, min(n - r0, m - c0))
    s = x.strides
    return np.lib.stride_tricks.as_strided(x[..., r0:, c0:], x.shape[:-2] + (k,),
                                           s[:-2] + (s[-2] + s[-1],))


def setitem(x, index, value):
    """``x[index] = value`` in place (in-place ops and ``nn.inplace.assign``); returns None.

    >>> x = np.zeros(3)
    >>> setitem(x, slice(1, None), 5.0); x
    array([0., 5., 5.])
    """
    x[index] = value


def index_add(shape, dtype, index, values):
    """Zeros of ``shape`` with ``values`` added at ``index``; repeated indices accumulate.

    >>> index_add((3,), "float64", np.array([0, 0, 2]), np.array([1.0, 2.0, 5.0]))
    array([3., 0., 5.])
    """
    out = np.zeros(shape, dtype=dtype)
    if type(index) is tuple and all(type(i) in _BASIC for i in index):
        out[index] += values      # slices pick each element once: add.at's sums, one pass
        return out
    rows = index[0] if type(index) is tuple and len(index) == 1 else index
    if type(rows) is np.ndarray and rows.dtype.kind in "iu" and rows.size > 1 and len(shape) > 1 \
            and values.shape == rows.shape + tuple(shape[1:]):
        _add_rows(out, rows.ravel(), values)
    else:
        np.add.at(out, index, values)
    return out


_BASIC = (slice, int, type(Ellipsis), type(None))     # basic indexing: no element twice


def _add_rows(out, rows, values):
    """``np.add.at(out, rows, values)`` for whole rows: one Numba pass adding each row in
    index order (the same numbers as ``add.at``, ~30x faster on an embedding's gradient)."""
    n = out.shape[0]
    rows = np.where(rows < 0, rows + n, rows)
    if rows.min() < 0 or rows.max() >= n or out.dtype.char not in "fd" \
            or values.dtype != out.dtype:
        np.add.at(out, rows, values)       # numpy's IndexError names a bad index
        return
    from .row_kernels import add_rows
    add_rows(out.reshape(n, -1), rows, np.ascontiguousarray(values).reshape(len(rows), -1))


# ------------------------------------------------------------------ random

_rng = np.random.default_rng()


def seed(value):
    """Restart the backend's random generator at ``value`` (``eagerad.set_seed`` calls it),
    so the same draws come again.

    >>> seed(0); a = uniform((2,), 0.0, 1.0, "float32")
    >>> seed(0); bool((a == uniform((2,), 0.0, 1.0, "float32")).all())
    True
    """
    global _rng
    _rng = np.random.default_rng(value)


def host_rng():
    """The generator every device draws from (``eagerad.sampling`` draws through it).

    >>> seed(0); a = host_rng().random(); seed(0); a == host_rng().random()
    True
    """
    return _rng


def uniform(shape, low, high, dtype):
    """U(low, high) samples of ``shape`` and ``dtype`` from the seeded generator (``rand``).

    >>> u = uniform((1000,), -1.0, 1.0, "float32")
    >>> u.dtype, bool((u >= -1).all() and (u < 1).all())
    (dtype('float32'), True)
    """
    return np.asarray(_rng.uniform(low, high, size=shape)).astype(dtype)   # () too: an array


def normal(shape, mean, std, dtype):
    """N(mean, std**2) samples of ``shape`` and ``dtype`` from the seeded generator (``randn``).

    >>> normal((3,), 5.0, 0.0, "float64"), type(normal((), 0.0, 1.0, "float32"))
    (array([5., 5., 5.]), <class 'numpy.ndarray'>)
    """
    return np.asarray(_rng.standard_normal(size=shape) * std + mean).astype(dtype)


def bernoulli(shape, p, dtype):
    """1 with probability ``p``, else 0, as ``dtype``: Dropout's keep mask.

    >>> bernoulli((4,), 1.0, "float32")
    array([1., 1., 1., 1.], dtype=float32)
    """
    return np.asarray(_rng.random(size=shape) < p).astype(dtype)


def integers(shape, low, high, dtype):
    """Integers uniform in ``[low, high)`` of ``shape`` and ``dtype`` (``randint``).

    >>> seed(0); r = integers((100,), 2, 4, "int64")
    >>> sorted(set(r.tolist()))
    [2, 3]
    """
    return np.asarray(_rng.integers(low, high, size=shape)).astype(dtype)


# op families keep their kernels in modules of their own; their public names join this module
# frexp's two halves and nextafter (ops/pointwise_extra.py)
UNARY["frexp_mantissa"] = lambda x: np.frexp(x)[0]
UNARY["frexp_exponent"] = lambda x: np.frexp(x)[1]
BINARY["nextafter"] = np.nextafter

from .special import *  # noqa: E402,F401,F403
from .indexing import *  # noqa: E402,F401,F403
from .linalg import *  # noqa: E402,F401,F403
from .nn import *  # noqa: E402,F401,F403
from .fused import *  # noqa: E402,F401,F403
from .spectral import *  # noqa: E402,F401,F403
from .losses import *  # noqa: E402,F401,F403
