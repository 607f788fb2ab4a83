"""eagerad's ``parallel=True`` Numba kernels, launched one at a time per process.

Why: a ``prange`` kernel releases the GIL while it runs, and Numba's ``workqueue``
threading layer -- the one left where neither OpenMP nor TBB loads -- aborts the whole
process ("Concurrent access has been detected") when two Python threads launch
parallel kernels at once (measured: three threads running large GELUs or split
products).  Every parallel kernel is therefore declared with ``kernel(...)`` instead
of ``njit(parallel=True, ...)``: its launches take one process-wide lock (~0.2 us;
these kernels run on large arrays or split products only).  Under OpenMP and TBB,
which are thread-safe, this only serialises two threads' parallel kernels.

>>> @kernel()
... def double(x):
...     for i in prange(x.shape[0]):
...         x[i] *= 2
>>> import numpy as np; a = np.ones(3); double(a); a.tolist()
[2.0, 2.0, 2.0]
"""
import functools
import threading

from numba import njit, prange   # noqa: F401  (prange: for the kernels' modules and the example)

_lock = threading.Lock()


def kernel(**options):
    """A decorator: ``njit(parallel=True, **options)`` whose launches hold the lock.
    The compiled dispatcher stays reachable as ``.compiled``."""
    def wrap(fn):
        compiled = njit(parallel=True, **options)(fn)

        @functools.wraps(fn)
        def launch(*args):
            with _lock:
                return compiled(*args)
        launch.compiled = compiled
        return launch
    return wrap
