"""Numba kernel of the fused LSTM scan's backward (``fused.py``): one pass over a
step's (N, H) units instead of ~20 numpy passes (pure arithmetic: the saved gates and a
vectorised ``tanh(c)`` come in).

Imported at the first backward (importing numba costs ~0.3 s); compiled code is cached
on disk.  A serial loop with ``error_model="numpy"`` (no division checks).
"""

from numba import njit


@njit(cache=True, error_model="numpy")
def cell_backward(grad, row, tanh_c, c_prev, dh, dc, dz):
    """One step back: ``dh`` (the carried gradient of h, from the next step's product)
    and ``dc`` (of c) in, ``dz`` (of the pre-activations) out; ``dc`` becomes the
    gradient of the previous cell state, in place."""
    n_rows, size = c_prev.shape
    for n in range(n_rows):
        for j in range(size):
            i = row[n, 2 * size + j]
            f = row[n, 3 * size + j]
            g = row[n, 4 * size + j]
            o = row[n, 5 * size + j]
            tc = tanh_c[n, j]
            h_bar = dh[n, j] + grad[n, j]
            o_bar = h_bar * tc + grad[n, 5 * size + j]
            c_bar = dc[n, j] + grad[n, size + j] + h_bar * o * (1 - tc * tc)
            i_bar = c_bar * g + grad[n, 2 * size + j]
            f_bar = c_bar * c_prev[n, j] + grad[n, 3 * size + j]
            g_bar = c_bar * i + grad[n, 4 * size + j]
            dc[n, j] = c_bar * f
            dz[n, j] = i_bar * i * (1 - i)
            dz[n, size + j] = f_bar * f * (1 - f)
            dz[n, 2 * size + j] = g_bar * (1 - g * g)
            dz[n, 3 * size + j] = o_bar * o * (1 - o)
