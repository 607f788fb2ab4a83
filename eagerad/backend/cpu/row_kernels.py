"""Numba kernel for ``index_add`` of whole rows (an embedding's gradient).

``np.add.at`` adds one element at a time through a generic inner loop (~15 ms for 512
rows of 128 on a busy core); this kernel adds each row with one contiguous loop, in
index order as ``add.at`` does, so the sums are the same to the bit.  Imported at the
first call; compiled code is cached on disk.
"""
from numba import njit

from . import jit_cache

CACHE = jit_cache.enabled()      # on disk, or a fallback on read-only installs


@njit(cache=CACHE, error_model="numpy")
def add_rows(out, rows, values):
    """``out[rows[m]] += values[m]`` for each m in order (``out``, ``values`` 2-D, rows
    already checked to lie in range)."""
    width = out.shape[1]
    for m in range(rows.size):
        r = rows[m]
        for j in range(width):
            out[r, j] += values[m, j]
