"""Numba kernel of the fused LSTM scan's backward (``recurrent_scan.py``): one pass over a
step's (N, H) units instead of ~15 numpy passes (pure arithmetic: the gates and
``tanh(c)`` saved by the forward come in).

Imported at the first backward (importing numba costs ~0.3 s); compiled code is cached
on disk.  A serial loop with ``error_model="numpy"`` (no division checks).
"""

from numba import njit


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
