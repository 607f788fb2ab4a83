"""Numba kernels of cross-entropy over class indices: one pass per row each way.

The loss of row ``i`` with target ``t`` and class weights ``w`` (all ones without
weights), label smoothing ``ls`` over ``C`` classes:

    lse = max + log(sum exp(x - max))
    loss_i = (1 - ls) w_t (lse - x_t) + ls / C * sum_c w_c (lse - x_c)

and 0 with weight 0 where ``t`` is ``ignore_index``.  Its gradient is
``s_i (A_i softmax(x_i) - B_i)`` with ``A_i = (1 - ls) w_t + ls / C * sum(w)`` and
``B_ic = (1 - ls) w_t [c == t] + ls / C * w_c``, ``s_i`` the reduction's factor
(``g / sum(w_t)`` for 'mean').

Row sums and the loss accumulate in float64, so the float32 loss is rounded once; float32
exponentials are ``fast_exp``'s vectorisable ones (within 1 ulp), float64 ones libm's.
The forward keeps the exponentials and the reciprocal row sums for the backward (``e``,
``inv``), whose gradient pass is then a multiply-add per entry; without them the backward
computes them again.  A target outside ``[0, C)`` that is not ``ignore_index`` stops the
kernel, which returns its row (the caller raises).  Imported at the first call; compiled
code is cached on disk.
"""
import math

import numpy as np
from numba import njit, types
from numba.extending import overload

from .fast_exp import exp32
from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


@njit(error_model="numpy", fastmath={"contract"})
def _exps32(row, m, e):
    """``e = exp(row - m)`` for a float32 row (``exp32`` inlined: a vector loop)."""
    for j in range(row.size):
        e[j] = exp32(row[j] - m)


@njit(error_model="numpy")
def _exps64(row, m, e):
    """``e = exp(row - m)`` for a float64 row (libm's exp: ``exp64``'s 1e-11 is not
    float64 rounding)."""
    for j in range(row.size):
        e[j] = math.exp(row[j] - m)


def _exps(row, m, e):
    """``e = exp(row - m)`` in the row's precision (``_exps32`` or ``_exps64``)."""
    for j in range(row.size):
        e[j] = math.exp(row[j] - m)


@overload(_exps)
def _exps_typed(row, m, e):
    if row.dtype == types.float32:
        return lambda row, m, e: _exps32(row, m, e)
    return lambda row, m, e: _exps64(row, m, e)


@njit(error_model="numpy", fastmath={"nnan", "nsz"})
def _row_max(row):
    """The row's maximum (a NaN entry may be skipped here: it still reaches the sum of
    exponentials, which it makes NaN)."""
    m = row[0]
    for j in range(1, row.size):
        v = row[j]
        m = v if v > m else m
    return m


@njit(error_model="numpy", fastmath={"reassoc", "contract"})
def _sum64(e):
    """``sum(e)`` in float64 (vectorised partial sums; NaN and infinities propagate)."""
    s = 0.0
    for j in range(e.size):
        s += np.float64(e[j])
    return s


@njit(error_model="numpy", fastmath={"contract"})
def _grad_row(a, e, shift, o):
    """``o = a e - shift`` (float64 arithmetic, rounded once)."""
    for j in range(o.size):
        o[j] = a * np.float64(e[j]) - shift


@njit(error_model="numpy", fastmath={"contract"})
def _grad_row_weighted(a, e, shift, w, o):
    """``o = a e - shift w`` (float64 arithmetic, rounded once)."""
    for j in range(o.size):
        o[j] = a * np.float64(e[j]) - shift * w[j]


@njit(cache=CACHE, error_model="numpy")
def _weight_sum(w, c):
    if w.size == 0:
        return float(c)
    total = 0.0
    for j in range(c):
        total += w[j]
    return total


@njit(cache=CACHE, error_model="numpy")
def forward(x, t, w, ignore, has_ignore, smoothing, out, e, inv):
    """Per-row losses of ``x`` (M, C) for targets ``t`` (M,) into ``out`` (M,) float64;
    ``w`` (C,) float64 class weights or an empty array (all ones).  With ``e`` of x's
    shape (else an empty (0, 0) array) the rows' ``exp(x - max)`` are kept in it and the
    reciprocals of their sums in ``inv`` (M,), for ``backward``.  Returns (sum of the
    targets' weights, sum of the losses, -1) or (0, 0, row of the first bad target)."""
    rows, c = x.shape
    weighted = w.size > 0
    keep = e.shape[0] == rows and rows > 0
    scratch = np.empty(c, x.dtype)
    total_w = 0.0
    total = 0.0
    for i in range(rows):
        ti = t[i]
        if has_ignore and ti == ignore:
            out[i] = 0.0
            continue
        if ti < 0 or ti >= c:
            return 0.0, 0.0, i
        row = x[i]
        m = _row_max(row)
        ei = e[i] if keep else scratch
        _exps(row, m, ei)
        s = _sum64(ei)
        if keep:
            inv[i] = 1.0 / s
        lse = np.float64(m) + math.log(s)
        wt = w[ti] if weighted else 1.0
        total_w += wt
        loss = 0.0 if wt == 0.0 else wt * (lse - np.float64(row[ti]))
        if smoothing != 0.0:
            smooth = 0.0
            for j in range(c):
                smooth += (w[j] if weighted else 1.0) * (lse - np.float64(row[j]))
            loss = (1.0 - smoothing) * loss + smoothing / c * smooth
        out[i] = loss
        total += loss
    return total_w, total, -1


@njit(cache=CACHE, error_model="numpy")
def target_weight(t, w, ignore, has_ignore):
    """The sum of the weights of the targets that are not ``ignore`` (their count
    without weights): the divisor of the 'mean' reduction."""
    total = 0.0
    for i in range(t.size):
        ti = t[i]
        if not (has_ignore and ti == ignore):
            total += w[ti] if w.size > 0 else 1.0
    return total


@njit(cache=CACHE, error_model="numpy")
def backward(g, x, t, w, ignore, has_ignore, smoothing, e, inv, out):
    """``out`` (M, C) = the gradient of the per-row losses, row ``i`` scaled by ``g[i]``
    (``g`` (M,) float64); rows of ignored targets get zeros.  ``e`` and ``inv`` are what
    ``forward`` kept, or empty arrays (then the exponentials are computed again)."""
    rows, c = x.shape
    weighted = w.size > 0
    kept = e.shape[0] == rows and rows > 0
    w_sum = _weight_sum(w, c) if smoothing != 0.0 else 0.0
    spread = smoothing / c
    for i in range(rows):
        ti = t[i]
        o = out[i]
        if has_ignore and ti == ignore:
            for j in range(c):
                o[j] = 0.0
            continue
        gi = g[i]
        wt = w[ti] if weighted else 1.0
        if kept:
            ei = e[i]
            r = inv[i]
        else:                       # exponentials again, into the output row
            row = x[i]
            ei = o
            _exps(row, _row_max(row), o)
            r = 1.0 / _sum64(o)
        # softmax = e / sum(e)
        a = gi * ((1.0 - smoothing) * wt + spread * w_sum) * r
        shift = gi * spread
        et = np.float64(ei[ti])
        if weighted and smoothing != 0.0:
            _grad_row_weighted(a, ei, shift, w, o)
            shift *= w[ti]
        else:
            _grad_row(a, ei, shift, o)
        o[ti] = a * et - shift - gi * (1.0 - smoothing) * wt   # the target's entry, rounded once
