"""Transcendental functions in straight-line float64 arithmetic, for Numba loops that LLVM
should vectorise.

Numba calls libm's scalar ``exp``/``tanh``/``erfc`` per element (no SVML here), which
keeps a loop scalar and costs ~10x the arithmetic around it.  These are polynomials and
squarings only, inlined into the caller, so a loop over float32 data computing in
float64 runs 4 lanes at a time: ``exp_nonpositive`` (relative error < 2e-10, ~1e-13
for arguments above -20).  Good for float32 results (rounded once), not for float64
ones; and only where the alternative is a scalar call (GELU's erfc): its exp is a chain
of ~24 dependent operations, several times numpy's float32 SIMD ``exp`` per element.
"""
import math

import numpy as np
from numba import njit

from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


def unrolled(coefficients, dtype=float):
    """Horner's rule for ``coefficients`` (constant term first) as straight-line code with
    the coefficients as constants of ``dtype`` (``np.float32`` keeps a float32 loop in
    float32), so that LLVM vectorises the loop calling it (array lookups inside keep it
    scalar).

    >>> unrolled((1.0, 2.0, 3.0)).py_func(2.0)    # 1 + 2*2 + 3*4
    17.0
    """
    scope = {f"c{k}": dtype(c) for k, c in enumerate(coefficients)}
    last = len(coefficients) - 1
    expr = f"c{last}"
    for k in range(last - 1, -1, -1):
        expr = f"({expr}) * u + c{k}"
    exec(f"def horner(u):\n    return {expr}\n", scope)
    return njit(inline="always", fastmath={"contract"})(scope["horner"])


def estrin(coefficients, dtype=float):
    """The polynomial with ``coefficients`` (constant term first) by Estrin's scheme, as
    ``unrolled`` builds it: pairs ``c[k] + c[k+1] u`` joined by ``u^2``, ``u^4``, ...,
    so the chain of dependent operations is ~log2(degree) long instead of Horner's
    ``degree`` (a loop that is bound by latency, not by the number of operations, runs
    about twice as fast).

    >>> estrin((1.0, 2.0, 3.0, 4.0)).py_func(2.0)    # 1 + 2*2 + 3*4 + 4*8
    49.0
    """
    scope = {f"c{k}": dtype(c) for k, c in enumerate(coefficients)}
    n = len(coefficients)
    lines = [f"a{k} = c{k} + c{k + 1} * u" if k + 1 < n else f"a{k} = c{k}"
             for k in range(0, n, 2)]
    terms, power, level = [f"a{k}" for k in range(0, n, 2)], "u", 0
    while len(terms) > 1:
        lines.append(f"w{level} = {power} * {power}")
        power, joined = f"w{level}", []
        for j in range(0, len(terms), 2):
            if j + 1 < len(terms):
                lines.append(f"b{level}_{j} = {terms[j]} + {terms[j + 1]} * {power}")
                joined.append(f"b{level}_{j}")
            else:
                joined.append(terms[j])
        terms, level = joined, level + 1
    body = "".join(f"    {line}\n" for line in lines)
    exec(f"def estrin(u):\n{body}    return {terms[0]}\n", scope)
    return njit(inline="always", fastmath={"contract"})(scope["estrin"])


_exp_series = unrolled(tuple(1.0 / math.factorial(k) for k in range(14)))


@njit(cache=CACHE, inline="always", error_model="numpy", fastmath={"contract"})
def exp_nonpositive(a):
    """``exp(a)`` for ``a <= 0``: ``exp(a / 1024) ** 1024``, the inner exp by its Taylor
    series to degree 13 (0 below -745, where float64's exp underflows)."""
    p = _exp_series(max(a, -745.0) * (1.0 / 1024.0))
    for _ in range(10):
        p = p * p
    return p if a >= -745.0 else 0.0


def _bitcast(source, target):
    """A Numba intrinsic reinterpreting the bits of a ``source`` number as ``target``
    (``types.float32``/``int32``/``float64``/``int64``); wider integers are truncated first.
    LLVM vectorises it (a register move), unlike a round trip through an array view."""
    from llvmlite import ir
    from numba import types
    from numba.extending import intrinsic

    llvm = {types.float32: ir.FloatType(), types.float64: ir.DoubleType(),
            types.int32: ir.IntType(32), types.int64: ir.IntType(64)}[target]

    @intrinsic
    def cast(typingctx, v):
        if not isinstance(v, source):
            return None

        def codegen(context, builder, signature, args):
            a = args[0]
            if isinstance(v, types.Integer) and v.bitwidth > target.bitwidth:
                a = builder.trunc(a, ir.IntType(target.bitwidth))
            return builder.bitcast(a, llvm)
        return target(v), codegen
    return cast


def _casts():
    from numba import types
    return _bitcast(types.Float, types.int32), _bitcast(types.Integer, types.float32)


_float32_bits, _bits_float32 = _casts()
_F32 = np.float32
_INV_LN2 = _F32(1.0 / math.log(2.0))
_ROUND32 = _F32(12582912.0)          # 1.5 * 2**23: (v + _ROUND32) - _ROUND32 rounds v
_ROUND32_BITS = 0x4B400000           # its bit pattern: t's bits minus this are k
_LN2_HI = _F32(0.693145751953125)    # 16 bits: k * _LN2_HI is exact for |k| < 2**8
_LN2_LO = _F32(math.log(2.0) - 0.693145751953125)
_EXP_LOW, _EXP_HIGH = _F32(-104.0), _F32(89.0)   # float32 exp is 0 / inf beyond
_E0, _E1, _E2, _E3, _E4, _E5, _E6, _E7 = [_F32(1.0 / math.factorial(k)) for k in range(8)]


@njit(cache=CACHE, inline="always", error_model="numpy", fastmath={"contract"})
def exp_float32(x):
    """``exp(x)`` of a float32 in float32 arithmetic, 8 lanes wide under AVX2: within an
    ulp of the correctly rounded result over the whole range (numpy's AVX2 loop: 2 ulp,
    at ~3x the time), subnormal results, +-inf, NaN and -0 included.
    ``x = k ln2 + r`` (Cody-Waite, |r| <= ln2/2), ``exp(r)`` by its Taylor series to
    degree 7, ``2**k`` in two factors built from ``k``'s bits (each a normal number,
    so results down to 2**-149 come out right)."""
    v = min(max(x, _EXP_LOW), _EXP_HIGH)
    t = v * _INV_LN2 + _ROUND32
    k = t - _ROUND32
    r = (v - k * _LN2_HI) - k * _LN2_LO
    p = _E0 + r * (_E1 + r * (_E2 + r * (_E3 + r * (_E4 + r * (_E5 + r * (_E6 + r * _E7))))))
    kb = _float32_bits(t) - _ROUND32_BITS
    half = kb >> 1
    y = p * _bits_float32((half + 127) << 23) * _bits_float32((kb - half + 127) << 23)
    return y if x == x else x
