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

from numba import njit


def unrolled(coefficients):
    """Horner's rule for ``coefficients`` (constant term first) as straight-line code with
    the coefficients as literals, so that LLVM vectorises the loop calling it (array
    lookups inside keep it scalar).

    >>> unrolled((1.0, 2.0, 3.0)).py_func(2.0)    # 1 + 2*2 + 3*4
    17.0
    """
    expr = repr(float(coefficients[-1]))
    for c in coefficients[-2::-1]:
        expr = f"({expr}) * u + {float(c)!r}"
    scope = {}
    exec(f"def horner(u):\n    return {expr}\n", scope)
    return njit(inline="always", fastmath={"contract"})(scope["horner"])


_exp_series = unrolled(tuple(1.0 / math.factorial(k) for k in range(14)))


@njit(cache=True, inline="always", error_model="numpy", fastmath={"contract"})
def exp_nonpositive(a):
    """``exp(a)`` for ``a <= 0``: ``exp(a / 1024) ** 1024``, the inner exp by its Taylor
    series to degree 13 (0 below -745, where float64's exp underflows)."""
    p = _exp_series(max(a, -745.0) * (1.0 / 1024.0))
    for _ in range(10):
        p = p * p
    return p if a >= -745.0 else 0.0
