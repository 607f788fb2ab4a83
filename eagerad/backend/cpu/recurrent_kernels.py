"""Numba kernels of the fused LSTM and GRU scans (``recurrent_scan.py``): the arithmetic
of one step, forward and backward, in one call over its (N, H) units instead of 6-15
numpy passes.  float32 forward (``step_float32``): the whole step after its product, with the
vectorised float32 ``exp`` (``vector_math``, within 1 ulp) and ``tanh`` (``kernels``,
within 2 ulp) in the loops (numpy's SIMD passes cost twice as much, Numba's own
``math.exp`` is a scalar call); the GRU's float32 step likewise
(``gru_step_float32``), its backward one call per step in either dtype
(``gru_cell_backward``).  float64 LSTM forward (``gate_math``): the transcendental
values come in from numpy and the operations are numpy's, in the operands' dtype and
order, so the numbers are the same to the bit.  Each loop is a simple pass from index 0
over one row's slice: loops with an offset start or several outputs stayed scalar.

Imported at the first LSTM scan (importing numba costs ~0.3 s); compiled code is cached
on disk.  Serial loops with ``error_model="numpy"`` (no division checks).
"""

import numpy as np
from numba import njit

from .kernels import _tanh32 as tanh_float32
from .vector_math import exp_float32
from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


@njit(cache=CACHE, error_model="numpy")
def gate_math(gates, g_neg, c_prev, c, unit):
    """One step forward after the exponentials: ``gates`` (N, 4H) holds ``exp(-z)`` of
    the input, forget and output gates, which become their sigmoids ``1 / (1 + exp(-z))``
    in place; the cell gate becomes ``-g_neg`` (``g_neg = tanh(-z)``); ``c`` receives
    ``f * c_prev + i * g``.  ``unit`` holds a 1 of the gates' dtype (so the arithmetic
    stays in that dtype, as numpy's passes)."""
    n_rows, size = c_prev.shape
    one = unit[0]
    for n in range(n_rows):
        row = gates[n]
        for j in range(2 * size):
            row[j] = one / (one + row[j])
        for j in range(3 * size, 4 * size):
            row[j] = one / (one + row[j])
        for j in range(size):
            g = -g_neg[n, j]
            row[2 * size + j] = g
            c[n, j] = row[size + j] * c_prev[n, j] + row[j] * g


@njit(cache=CACHE, nogil=True, error_model="numpy", fastmath={"contract"})
def cell_backward(grad, gates, tanh_c, c_prev, dh, dc, dz):
    """One step back: ``grad`` (the gradient of this step's output h), ``dh`` (the
    carried gradient of h, from the next step's product) and ``dc`` (of c) in, ``dz`` (of
    the pre-activations) out; ``dc`` becomes the gradient of the previous cell state, in
    place.  ``gates`` holds the step's ``[i, f, g, o]``.  Per row, one loop over the
    units with every gate a slice from 0 (so LLVM vectorises it)."""
    n_rows, size = c_prev.shape
    for n in range(n_rows):
        row, d = gates[n], dz[n]
        i, f, g, o = row[:size], row[size:2 * size], row[2 * size:3 * size], row[3 * size:]
        di, df, dg, do = d[:size], d[size:2 * size], d[2 * size:3 * size], d[3 * size:]
        tc, prev, grad_h, carried_h, carried_c = tanh_c[n], c_prev[n], grad[n], dh[n], dc[n]
        for j in range(size):
            h_bar = carried_h[j] + grad_h[j]
            c_bar = carried_c[j] + h_bar * o[j] * (1 - tc[j] * tc[j])
            carried_c[j] = c_bar * f[j]
            di[j] = c_bar * g[j] * i[j] * (1 - i[j])
            df[j] = c_bar * prev[j] * f[j] * (1 - f[j])
            dg[j] = c_bar * i[j] * (1 - g[j] * g[j])
            do[j] = h_bar * tc[j] * o[j] * (1 - o[j])


@njit(cache=CACHE, nogil=True, error_model="numpy", fastmath={"contract"})
def step_float32(gates, xw, b_hh, c_prev, c, tanh_c, h):
    """One float32 step forward after its product, every elementwise part in one call:
    ``gates`` (N, 4H) holds ``h_prev @ W_hh.T``, to which the step's ``xw + b_hh`` is
    added (that sum first, as numpy's passes did); the
    gates become ``[i, f, g, o]`` (sigmoid, sigmoid, tanh, sigmoid of their sums) in
    place, ``c``, ``tanh_c`` and ``h`` receive the new cell state, its tanh and
    ``o * tanh c``.  The exp and tanh are vectorised float32 arithmetic (within 1-2 ulp
    of numpy's); each loop is one simple pass over a row, which LLVM runs 8 lanes wide
    (fused into one loop body, they stayed scalar)."""
    n_rows, size = c_prev.shape
    one = np.float32(1.0)
    for n in range(n_rows):
        row, x = gates[n], xw[n]
        prev, cell, tc, out = c_prev[n], c[n], tanh_c[n], h[n]
        # slices, each loop from 0: loops with an offset start stayed scalar
        i_f, g, o = row[:2 * size], row[2 * size:3 * size], row[3 * size:]
        i, f = row[:size], row[size:2 * size]
        for j in range(4 * size):
            row[j] = row[j] + (x[j] + b_hh[j])
        for j in range(2 * size):
            i_f[j] = one / (one + exp_float32(-i_f[j]))
        for j in range(size):
            o[j] = one / (one + exp_float32(-o[j]))
        for j in range(size):
            g[j] = tanh_float32(g[j])
        for j in range(size):
            cell[j] = f[j] * prev[j] + i[j] * g[j]
        for j in range(size):
            tc[j] = tanh_float32(cell[j])
        for j in range(size):
            out[j] = o[j] * tc[j]


@njit(cache=CACHE, nogil=True, error_model="numpy", fastmath={"contract"})
def gru_step_float32(hw, b_hh, xw, h_prev, block, h):
    """One float32 GRU step forward after its product ``hw = h_prev @ W_hh.T`` (N, 3H):
    ``block`` (N, 4H) receives ``[r, z, n, hn]`` (``hn = hw_n + b_hn``), ``h`` the new
    state ``(1 - z) * n + z * h_prev``; the sums in numpy's order (``xw + (hw + b)``)."""
    n_rows, size = h_prev.shape
    one = np.float32(1.0)
    b_rz, b_n = b_hh[:2 * size], b_hh[2 * size:]
    for n in range(n_rows):
        row, x, prod = block[n], xw[n], hw[n]
        rz, new, hn = row[:2 * size], row[2 * size:3 * size], row[3 * size:]
        r, z = row[:size], row[size:2 * size]
        x_rz, x_n, prod_rz, prod_n = x[:2 * size], x[2 * size:], prod[:2 * size], prod[2 * size:]
        prev, out = h_prev[n], h[n]
        for j in range(2 * size):
            rz[j] = one / (one + exp_float32(-(x_rz[j] + (prod_rz[j] + b_rz[j]))))
        for j in range(size):
            hn[j] = prod_n[j] + b_n[j]
        for j in range(size):
            new[j] = tanh_float32(r[j] * hn[j] + x_n[j])
        for j in range(size):
            out[j] = (one - z[j]) * new[j] + z[j] * prev[j]


@njit(cache=CACHE, nogil=True, error_model="numpy", fastmath={"contract"})
def gru_cell_backward(grad, carried, block, h_prev, dx, dw):
    """One GRU step back: ``carried`` (N, H) holds the gradient of this step's h from the
    later steps (``z * h_bar`` of the next step plus its product) and becomes this
    step's ``z * h_bar`` (the caller adds ``dw @ W_hh``); ``dx`` (of ``xw``) and ``dw``
    (of ``h @ W_hh.T + b_hh``) (N, 3H) are filled.  ``block`` holds ``[r, z, n, hn]``."""
    n_rows, size = h_prev.shape
    for n in range(n_rows):
        row, d_x, d_w = block[n], dx[n], dw[n]
        r, z, new, hn = row[:size], row[size:2 * size], row[2 * size:3 * size], row[3 * size:]
        dx_r, dx_z, dx_n = d_x[:size], d_x[size:2 * size], d_x[2 * size:]
        dw_r, dw_z, dw_n = d_w[:size], d_w[size:2 * size], d_w[2 * size:]
        g, c, prev = grad[n], carried[n], h_prev[n]
        for j in range(size):
            h_bar = c[j] + g[j]
            d_new = h_bar * (1 - z[j]) * (1 - new[j] * new[j])
            dx_n[j] = d_new
            dw_n[j] = d_new * r[j]
            a = d_new * hn[j] * r[j] * (1 - r[j])
            b = h_bar * (prev[j] - new[j]) * z[j] * (1 - z[j])
            dx_r[j] = a
            dw_r[j] = a
            dx_z[j] = b
            dw_z[j] = b
            c[j] = h_bar * z[j]
