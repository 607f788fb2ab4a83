"""Numba kernels of the optimizers' updates (``nn/optim.py``'s ``update_arrays``): one pass
per parameter reading p, g and the moments and writing them back, where numpy took ~8
passes and as many temporaries.

Each kernel does numpy's operations in numpy's order and precision: the scalars come
in the parameter's dtype (numpy rounds a Python float operand to a float32 array's dtype),
every product, sum, quotient and square root is rounded in that dtype, and nothing is
contracted into a fused multiply-add.  So the updates equal the numpy passes they replace
bit for bit (tests/test_fused_optim.py checks it over several steps).  Imported at the
first step; compiled code is cached on disk.

>>> p, g = np.array([1.0]), np.array([2.0])
>>> sgd(p, g, p, np.array([0.0, 0.0, 1.0, 0.5]), False, False, False, False); p
array([0.])
"""
import numpy as np
from numba import njit

from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


@njit(inline="always", error_model="numpy")
def _gradient(g, p, i, maximize, wd):
    """(g[i] as the update reads it: negated when maximizing, plus ``wd * p[i]`` for an
    L2 penalty; p[i])."""
    gi = g[i]
    if maximize:
        gi = -gi
    pi = p[i]
    if wd != 0:
        gi = gi + pi * wd
    return gi, pi


@njit(cache=CACHE, error_model="numpy")
def adam(p, g, m, v, coef, first, maximize):
    """One Adam step over the flat arrays ``p``, ``g``, ``m``, ``v`` (moments updated in
    place; ``first``: they are written, not read).  ``coef`` holds, in p's dtype: ``l2``
    (L2 penalty added to g, 0: none), ``decay`` (AdamW's factor on p, 1: none), ``b1``,
    ``1 - b1``, ``b2``, ``1 - b2``, ``sqrt(1 - b2^t)``, ``eps``, ``lr / (1 - b1^t)``."""
    l2, decay, b1, omb1, b2, omb2, bias2, eps, step = (coef[0], coef[1], coef[2], coef[3],
                                                      coef[4], coef[5], coef[6], coef[7],
                                                      coef[8])
    for i in range(p.size):
        gi, pi = _gradient(g, p, i, maximize, l2)
        if first:
            mi = gi * omb1
            vi = gi * gi * omb2
        else:
            mi = m[i] * b1 + gi * omb1
            vi = v[i] * b2 + gi * gi * omb2
        m[i] = mi
        v[i] = vi
        denom = np.sqrt(vi) / bias2 + eps
        p[i] = pi * decay - mi / denom * step


@njit(cache=CACHE, error_model="numpy")
def sgd(p, g, buf, coef, first, momentum_on, maximize, nesterov):
    """One SGD step over the flat arrays ``p`` and ``g`` with the momentum buffer ``buf``
    (written on the ``first`` step, else updated; unused without momentum).  ``coef``
    holds, in p's dtype: weight decay, momentum, 1 - dampening, lr."""
    wd, momentum, damped, lr = coef[0], coef[1], coef[2], coef[3]
    for i in range(p.size):
        gi, pi = _gradient(g, p, i, maximize, wd)
        if momentum_on:
            if first:
                bi = gi
            else:
                bi = buf[i] * momentum + gi * damped
            buf[i] = bi
            gi = gi + bi * momentum if nesterov else bi
        p[i] = pi - gi * lr


@njit(cache=CACHE, error_model="numpy", fastmath={"reassoc", "contract"})
def sum_squares(a):
    """The sum of squares of the flat array ``a`` in float64 (``clip_grad_norm_``'s pass
    over a gradient; NaN and infinities propagate)."""
    s = 0.0
    for i in range(a.size):
        x = np.float64(a[i])
        s += x * x
    return s
