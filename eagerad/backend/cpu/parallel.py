"""eagerad's ``parallel=True`` Numba kernels: one launch at a time per process, timed,
and a pause of the splits that do not pay.

Why one at a time: a ``prange`` kernel releases the GIL while it runs, and Numba's
``workqueue`` threading layer -- the one left where neither OpenMP nor TBB loads --
aborts the whole process ("Concurrent access has been detected") when two Python
threads launch parallel kernels at once (measured: three threads running large GELUs
or split products).  So every launch takes one process-wide lock (~0.2 us; these
kernels run on large arrays or split products only).

Why a pause: with the other core taken by another process, a launch waits for a
worker the OS has descheduled -- an LSTM step's split product went from 30 us to
0.6-0.8 ms, a small CNN's step from 6 to 14 ms.  Callers with a single-threaded way
to the same bits (split products: their blocks one by one with numpy, ``gemm_split``;
convolutions: numpy's path, ``conv_gemm``) run it first for each size of work and
every ``REFRESH`` runs after, timed (``measured``, the fastest kept); each launch is
judged against that time (it must take under ``PAYS`` of it), other kernels'
launches against their fastest (under ``MISS`` times it).  Two misses in a row pause
for 1 ms, doubling with each further pause up to ``PAUSE_MAX`` (as
``threads._back_off`` pauses the pool); while ``paused()`` those callers take their
single-threaded way, and kernels with a serial twin (GELU, softmax rows, fused
gradients) run it (``worth``).  (Setting Numba's thread count to 1 for a pause
instead made every later launch slow: ~2 ms for a 30 us product.)

>>> @kernel()
... def double(x):
...     for i in prange(x.shape[0]):
...         x[i] *= 2
>>> import numpy as np; a = np.ones(3); double(a); a.tolist()
[2.0, 2.0, 2.0]
"""
import functools
import threading
import time

import numpy as np
from numba import njit, prange   # noqa: F401  (prange: for the kernels' modules and the example)

MISS = 3.0                       # a launch this many times its key's fastest is a miss
MISSES = 2                       # consecutive misses that start a pause
PAUSE_MAX = 1.0                  # seconds
MIN_SECONDS = 50e-6              # launches faster than this are never misses (timer noise)
_lock = threading.Lock()
_pause = {"until": 0.0, "wait": 0.0, "misses": 0}
PAYS = 0.9                       # ... or over this share of the key's single-thread time
_fastest = {}                    # key -> fastest launch seen
_single = {}                     # key -> fastest run of its single-threaded way
_launches = {}                   # key -> runs so far (both ways)
REFRESH = 128                    # every this many runs of a key, its single-threaded way


def _key(compiled, args):
    return (compiled, tuple(a.shape if isinstance(a, np.ndarray) else None for a in args))


def unmeasured(key):
    """Whether ``key``'s work should take its single-threaded way now, timed (callers
    pass the time to ``measured``): it has no time yet, or ``REFRESH`` launches went
    by since (the fastest of such runs is kept: a first run is often slow).

    >>> unmeasured(("example", 3))
    True
    """
    return _launches.get(key, 0) % REFRESH == 0


def measured(key, seconds):
    """Record a run of ``key``'s single-threaded way (the fastest is kept).

    >>> measured(("example", 3), 1e-3); unmeasured(("example", 3))
    False
    >>> reset()
    """
    if seconds < _single.get(key, float("inf")):
        _single[key] = seconds
    _launches[key] = _launches.get(key, 0) + 1


def _note(key, seconds):
    """Judge a launch: a miss takes over ``PAYS`` of the key's single-threaded time where
    known, else over ``MISS`` times its fastest launch.  After ``MISSES`` misses in a row
    pause (doubling up to ``PAUSE_MAX``); a launch that is no miss ends the doubling."""
    best = _fastest.get(key)
    if best is None or seconds < best:
        _fastest[key] = seconds
    _launches[key] = _launches.get(key, 0) + 1
    single = _single.get(key)
    if single is not None:
        paid = seconds <= PAYS * single
    else:
        paid = best is None or seconds <= MISS * best
    if paid or seconds <= MIN_SECONDS:
        _pause["misses"] = 0
        _pause["wait"] = 0.0
        return
    _pause["misses"] += 1
    if _pause["misses"] >= MISSES:
        _pause["misses"] = 0
        _pause["wait"] = min(max(2 * _pause["wait"], 1e-3), PAUSE_MAX)
        _pause["until"] = time.monotonic() + _pause["wait"]


def paused():
    """Whether splits that have a single-threaded way with the same bits should take it
    now (``gemm_split``, ``conv_gemm``): recent launches did not pay.

    >>> paused() in (True, False)
    True
    """
    return time.monotonic() < _pause["until"]


def worth(size, minimum):
    """Whether a kernel with a serial twin (the same bits) runs its parallel one: from
    ``minimum`` elements, unless ``paused()``.

    >>> worth(10, 100), worth(1000, 100) in (True, False)
    (False, True)
    """
    return size >= minimum and not paused()


def reset():
    """Forget launch times and end any pause (``set_num_threads`` calls it).

    >>> reset(); paused()
    False
    """
    _fastest.clear()
    _single.clear()
    _launches.clear()
    _pause.update(until=0.0, wait=0.0, misses=0)


def kernel(**options):
    """A decorator: ``njit(parallel=True, **options)`` launched as the module says.
    The compiled dispatcher stays reachable as ``.compiled``."""
    def wrap(fn):
        compiled = njit(parallel=True, **options)(fn)

        @functools.wraps(fn)
        def launch(*args, key=None):
            """(``key``: what identifies the work's size where the arrays' shapes do not,
            as for kernels taking their sizes packed in an array)"""
            with _lock:
                start = time.perf_counter()
                result = compiled(*args)
                _note(key if key is not None else _key(compiled, args),
                      time.perf_counter() - start)
                return result
        launch.compiled = compiled
        return launch
    return wrap
