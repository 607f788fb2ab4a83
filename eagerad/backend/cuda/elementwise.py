"""Elementwise CUDA kernels: one kernel family per scalar function.

Each op is a small ``@cuda.jit(device=True)`` function; ``unary_kernel`` and
``binary_kernels`` wrap it in grid-stride kernels over flat buffers.  The
broadcasting variant walks the output's flat index and maps it to each
operand's element offset with per-operand strides (0 on broadcast axes), so one
compiled kernel serves every shape of a given dtype and number of dimensions;
``launch.launch`` compiles each (op, dtypes, ndim) once and keeps the loaded function.

Every kernel is ``cache=True``: a second process loads the compiled code from
``__pycache__`` instead of compiling.  The per-op kernels are closures over the op's
device function; numba-cuda keys a closure's cache entries by a hash of the pickled
closure cells (the device function's code), which is the same in every process, so
each op finds its own entries.
"""
import math

from numba import cuda

from .. import formulas
from .launch import offset

# ------------------------------------------------------------- scalar functions
# Written for float and integer inputs alike; the store into ``out`` casts to the
# output dtype that the host side chose with numpy's promotion rules.


def _device(fn):
    return cuda.jit(device=True)(fn)


@_device
def _floor(x):
    # math.floor returns an integer in Numba; this keeps the float type and inf/nan
    if not math.isfinite(x) or abs(x) >= 4503599627370496.0:
        return x
    t = x - math.fmod(x, 1.0)
    return t - 1 if t > x else t


@_device
def _ceil(x):
    return -_floor(-x)


@_device
def _round(x):
    # half to even, as numpy
    f = _floor(x)
    d = x - f
    if d > 0.5 or (d == 0.5 and math.fmod(f, 2.0) != 0):
        return f + 1
    return f


def _sigmoid(x):
    e = math.exp(-abs(x))        # as the CPU backend: precise on both tails
    return 1 / (1 + e) if x >= 0 else e / (1 + e)


_tanh_grad = _device(formulas.tanh_grad)      # the formulas of the rules and CPU kernels
_sigmoid_grad = _device(formulas.sigmoid_grad)
_relu_grad = _device(formulas.relu_grad)


# The scalar function of each elementwise op (the CPU backend's tables of the same names
# hold numpy ufuncs); "identity", "nonzero" and "finite_or_zero" serve astype and logsumexp.
UNARY = {
    "identity": lambda x: x, "nonzero": lambda x: x != 0,
    "neg": lambda x: -x, "exp": lambda x: math.exp(x), "log": lambda x: math.log(x), "sin": lambda x: math.sin(x), "cos": lambda x: math.cos(x),
    "tan": lambda x: math.tan(x), "sinh": lambda x: math.sinh(x), "cosh": lambda x: math.cosh(x), "tanh": lambda x: math.tanh(x),
    "atanh": lambda x: math.atanh(x), "asin": lambda x: math.asin(x), "acos": lambda x: math.acos(x), "atan": lambda x: math.atan(x),
    "asinh": lambda x: math.asinh(x), "acosh": lambda x: math.acosh(x), "sqrt": lambda x: math.sqrt(x), "square": lambda x: x * x,
    "abs": lambda x: abs(x), "sign": lambda x: (1 if x > 0 else 0) - (1 if x < 0 else 0) + x * 0, "sigmoid": _sigmoid,
    "relu": lambda x: x if x > 0 else x * 0, "log1p": lambda x: math.log1p(x), "expm1": lambda x: math.expm1(x),
    "floor": _floor, "ceil": _ceil, "round": _round, "reciprocal": lambda x: 1 / x,
    "logical_not": lambda x: x == 0, "isfinite": lambda x: math.isfinite(x), "isnan": lambda x: math.isnan(x),
    "finite_or_zero": lambda x: x if math.isfinite(x) else x * 0 if x == x else 0,
    "bitwise_not": lambda x: ~x,      # integers only (bools take logical_not)
}

BINARY = {
    "add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b, "pow": lambda a, b: a ** b,
    # NaN wins, as numpy.maximum/minimum
    "maximum": lambda a, b: a if a > b or a != a else b,
    "minimum": lambda a, b: a if a < b or a != a else b,
    "floordiv": lambda a, b: a // b, "mod": lambda a, b: a % b, "atan2": lambda a, b: math.atan2(a, b),
    "eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
    "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b,
    "logical_and": lambda a, b: a != 0 and b != 0, "logical_or": lambda a, b: a != 0 or b != 0,
    "logical_xor": lambda a, b: (a != 0) != (b != 0),
    "bitwise_and": lambda a, b: a & b, "bitwise_or": lambda a, b: a | b,
    "bitwise_xor": lambda a, b: a ^ b,
    # fused first-order gradients: (g, saved) -> input gradient
    "tanh_grad": lambda g, t: _tanh_grad(g, t, 1), "sigmoid_grad": lambda g, s: _sigmoid_grad(g, s, 1),
    "relu_grad": lambda g, x: _relu_grad(g, x, 1),
}

# ------------------------------------------------------------------ kernel makers


def _unary_kernel(fn):
    fn = _device(fn)

    @cuda.jit(cache=True)
    def flat(out, a):
        for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
            out[i] = fn(a[i])
    return flat


class BinaryKernels:
    """The four launch forms of one binary function."""
    __slots__ = ("flat", "scalar_right", "scalar_left", "strided")

    def __init__(self, fn):
        fn = _device(fn)

        @cuda.jit(cache=True)
        def flat(out, a, b):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = fn(a[i], b[i])

        @cuda.jit(cache=True)
        def scalar_right(out, a, s):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = fn(a[i], s)

        @cuda.jit(cache=True)
        def scalar_left(out, s, b):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = fn(s, b[i])

        @cuda.jit(cache=True)
        def strided(out, a, b, shape, sa, sb):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = fn(a[offset(i, shape, sa)], b[offset(i, shape, sb)])

        self.flat, self.scalar_right, self.scalar_left, self.strided = \
            flat, scalar_right, scalar_left, strided


@cuda.jit(cache=True)
def where_strided(out, c, a, b, shape, sc, sa, sb):
    """``out = c ? a : b`` with all three operands broadcast by strides."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = a[offset(i, shape, sa)] if c[offset(i, shape, sc)] else b[offset(i, shape, sb)]


_unary_cache = {}
_binary_cache = {}


def unary_kernel(op):
    """The flat kernel of unary ``op`` (built once per op, compiled once per dtype)."""
    k = _unary_cache.get(op)
    if k is None:
        k = _unary_cache[op] = _unary_kernel(UNARY[op])
    return k


def binary_kernels(op):
    """The ``BinaryKernels`` of binary ``op`` (built once per op)."""
    k = _binary_cache.get(op)
    if k is None:
        k = _binary_cache[op] = BinaryKernels(BINARY[op])
    return k

# frexp's two halves and nextafter (ops/pointwise_extra.py): libdevice's frexp/nextafter,
# in the array's own precision (frexpf/nextafterf for float32)
UNARY["frexp_mantissa"] = lambda x: math.frexp(x)[0]
UNARY["frexp_exponent"] = lambda x: math.frexp(x)[1]
BINARY["nextafter"] = lambda a, b: math.nextafter(a, b)
