"""Numba kernels of the fused LSTM scan (``recurrent_scan.py``): the arithmetic of one
step, forward and backward, in one pass over its (N, H) units instead of 6 and ~15 numpy
passes.  Pure arithmetic: the transcendental values (numpy's SIMD ``exp``/``tanh``; Numba's
are scalar calls) come in.  The forward's operations are numpy's, in the operands' dtype
and order, so the numbers are the same to the bit.

Imported at the first LSTM scan (importing numba costs ~0.3 s); compiled code is cached
on disk.  Serial loops with ``error_model="numpy"`` (no division checks).
"""

from numba import njit


@njit(cache=True, error_model="numpy")
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


@njit(cache=True, error_model="numpy")
def cell_backward(grad, gates, tanh_c, c_prev, dh, dc, dz):
    """One step back: ``grad`` (the gradient of this step's output h), ``dh`` (the
    carried gradient of h, from the next step's product) and ``dc`` (of c) in, ``dz`` (of
    the pre-activations) out; ``dc`` becomes the gradient of the previous cell state, in
    place.  ``gates`` holds the step's ``[i, f, g, o]``."""
    n_rows, size = c_prev.shape
    for n in range(n_rows):
        for j in range(size):
            i = gates[n, j]
            f = gates[n, size + j]
            g = gates[n, 2 * size + j]
            o = gates[n, 3 * size + j]
            tc = tanh_c[n, j]
            h_bar = dh[n, j] + grad[n, j]
            c_bar = dc[n, j] + h_bar * o * (1 - tc * tc)
            dc[n, j] = c_bar * f
            dz[n, j] = c_bar * g * i * (1 - i)
            dz[n, size + j] = c_bar * c_prev[n, j] * f * (1 - f)
            dz[n, 2 * size + j] = c_bar * i * (1 - g * g)
            dz[n, 3 * size + j] = h_bar * tc * o * (1 - o)
