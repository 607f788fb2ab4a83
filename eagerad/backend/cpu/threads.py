"""One intra-op thread count for the CPU backend: BLAS, Numba's kernels and the pool.

Why: three thread pools live in an eagerad process, and on a small machine they
fought.  numpy's bundled OpenBLAS threads every product above ~0.3 MFLOP (even a
16x128 @ 128x512 LSTM step) and its idle threads then spin for ~0.1 s of CPU each
(``OPENBLAS_THREAD_TIMEOUT``, fixed when numpy loads the library); GNU OpenMP,
under Numba's ``parallel=True`` kernels, spins ~300000 rounds after every
parallel loop.  On 2 cores the spinners took the core the Python thread and the
other pool needed: a transformer step went from 31 ms single-threaded to 55 ms
with default threads, and on a loaded machine a threaded product waited for a
descheduled BLAS thread (1024x64 @ 64x192: 0.3 ms alone, 9 ms threaded).

The policy, applied when the CPU backend is imported:

- numpy's BLAS runs on one thread (through the library's own
  ``openblas_set_num_threads``, found with ``ctypes``; nothing happens where
  numpy uses another BLAS).  Products are instead split by eagerad (``matmul``:
  stacks by matrices, tall products by row blocks, products of few rows by column
  blocks), as one Numba kernel calling numpy's GEMM once per block
  (``gemm_split``) where numpy's BLAS is the OpenBLAS its wheels bundle, else over
  the backend's pool, whose threads sleep when idle.
- GNU OpenMP (Numba's workers) is loaded with ``GOMP_SPINCOUNT=OPENMP_SPIN``
  (restored right after): an idle worker spins ~1.5 ms, then sleeps.  Sleeping at
  once (``GOMP_SPINCOUNT=0``, this policy before) made every parallel kernel pay a
  wake-up of ~80 us on a 2-core VM, more than a 0.3 ms product gains from a
  second thread; libgomp's default (300000 rounds, ~10 ms) kept a core busy long
  after the last kernel.
- Work split over the pool is shared dynamically (``share``): the calling thread
  takes chunks until none is left and only ever waits for a chunk a worker has
  already started, so a worker descheduled by other load costs at most a chunk.
  A split that did not pay pauses the pool's splitting for a while
  (``_back_off``): on a machine whose other core is taken by other processes
  eagerad then runs as it does single-threaded, which measured best there.

An explicit ``OPENBLAS_NUM_THREADS``, ``OMP_WAIT_POLICY`` or ``GOMP_SPINCOUNT`` in
the environment is the user's choice and is left alone.  ``set_num_threads``
caps all three pools together, as PyTorch's intra-op setting does.

The public API other backend modules build on (kept stable): ``share(work, chunks)``
runs ``work(i)`` for ``i < chunks`` over the pool (``work`` must release the GIL:
numpy calls, ``nogil`` Numba kernels); ``shares()`` is how many threads that uses
now; ``kernel_threads()`` how many a Numba kernel's split uses; ``row_chunks(rows,
align)`` and ``column_chunks(m, k, n)`` are the split geometries; ``matmul(a, b)``
is a split product or None, ``product_plan`` one prepared for repeated operands.
Results must not depend on how chunks land on threads: chunk boundaries that change
rounding depend on shapes only (``column_chunks``) -- except for products of few
rows below ``MATMUL_SPLIT``, which only the kernel splits (``_blocks_2d``).

>>> from eagerad.backend.cpu import threads
>>> threads.get_num_threads() >= 1
True
"""
import ctypes
import itertools
import os
import sys
import threading
import time

import numpy as np

from . import openblas

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
# exported names of OpenBLAS's setter/getter: plain builds, then the symbol-suffixed
# ``scipy_openblas`` builds numpy's wheels bundle (64-bit integer and 32-bit ones)
_BLAS_NAMES = (("openblas_set_num_threads", "openblas_get_num_threads"),
               ("scipy_openblas_set_num_threads64_", "scipy_openblas_get_num_threads64_"),
               ("scipy_openblas_set_num_threads", "scipy_openblas_get_num_threads"),
               ("openblas_set_num_threads64_", "openblas_get_num_threads64_"))
# products of at least this many multiply-adds are split over the pool: a row
# block of such a product is ~0.1 ms of BLAS, several times the hand-off
MATMUL_SPLIT = 1 << 23
# with ``gemm_split``'s kernel (a few microseconds a hand-off) from ~30 us of BLAS
GEMM_SPLIT = 1 << 20
ROW_ALIGN = 48                # row blocks of a split product start at multiples of this
COL_ALIGN = 64                # column blocks (``column_chunks``) start at multiples of this
_state = {"blas": None}
# GNU OpenMP's spin rounds before an idle worker sleeps (~1.5 ms of CPU here; its
# default, 300000, spun ~10 ms after every kernel)
OPENMP_SPIN = "30000"
BACKOFF_MAX = 1.0                     # seconds (see ``_back_off``)
_backoff = {"until": 0.0, "wait": 0.0}
_workers = None
_workers_lock = threading.Lock()


def _default_threads():
    """The intra-op count before any ``set_num_threads``: ``NUMBA_NUM_THREADS`` or
    ``OMP_NUM_THREADS`` where set (as the benchmarks' single-threaded runs do),
    else the cores this process may use."""
    for key in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS"):
        first = os.environ.get(key, "").split(",")[0].strip()
        if first.isdigit() and int(first) > 0:
            return int(first)
    return CORES


_state["threads"] = _default_threads()


def _blas():
    """``(set, get)`` ctypes functions of numpy's OpenBLAS thread count, or None where
    there is none (MKL, Accelerate, an unknown build): then BLAS threads are left as
    they are."""
    if _state["blas"] is None:
        _state["blas"] = ()
        for set_name, get_name in _BLAS_NAMES:
            found = openblas.functions(set_name, get_name)
            if found is not None:
                setter, getter = found
                setter.argtypes, setter.restype = [ctypes.c_int], None
                getter.argtypes, getter.restype = [], ctypes.c_int
                _state["blas"] = (setter, getter)
                break
    return _state["blas"] or None


def blas_threads():
    """How many threads numpy's OpenBLAS uses (as its own getter reports), or None
    where numpy's BLAS is not an OpenBLAS eagerad can find.

    >>> n = blas_threads(); n is None or n >= 1
    True
    """
    funcs = _blas()
    return None if funcs is None else int(funcs[1]())


def set_blas_threads(n):
    """Set numpy's OpenBLAS thread count to ``n`` (a no-op without OpenBLAS); returns
    whether it could.  eagerad keeps it at 1 and splits large products itself;
    this is for programs that want numpy's own products threaded again.

    >>> old = blas_threads(); _ = set_blas_threads(1); blas_threads() in (1, None)
    True
    >>> _ = set_blas_threads(old or 1)
    """
    funcs = _blas()
    if funcs is None:
        return False
    funcs[0](int(n))
    return True


def _openmp_wait_policy():
    """Load GNU OpenMP (Numba's ``omp`` threading layer) with ``GOMP_SPINCOUNT`` set to
    ``OPENMP_SPIN``, so its idle workers spin ~1.5 ms before they sleep; the variable
    is removed again at once, so a libgomp loaded later (PyTorch's own copy) keeps its
    defaults.  Does nothing off Linux, where the user set a wait policy, or where
    libgomp is already loaded (its settings are read once, at load)."""
    if not sys.platform.startswith("linux") or "GOMP_SPINCOUNT" in os.environ \
            or "OMP_WAIT_POLICY" in os.environ:
        return
    try:
        ctypes.CDLL("libgomp.so.1", mode=getattr(os, "RTLD_NOLOAD", 4))
        return                         # already loaded: too late to change
    except OSError:
        pass
    os.environ["GOMP_SPINCOUNT"] = OPENMP_SPIN
    try:
        _state["gomp"] = ctypes.CDLL("libgomp.so.1")    # held: stays loaded for Numba
    except OSError:
        pass
    finally:
        del os.environ["GOMP_SPINCOUNT"]


def apply_policy():
    """The import-time policy (the CPU backend calls it once): BLAS on one thread,
    OpenMP workers that sleep; safe to call again.

    >>> apply_policy(); blas_threads() in (1, None) or "OPENBLAS_NUM_THREADS" in os.environ
    True
    """
    if "OPENBLAS_NUM_THREADS" not in os.environ:
        set_blas_threads(1)
    _openmp_wait_policy()


def get_num_threads():
    """The intra-op thread count: how many threads a large elementwise op, a large
    product or a Numba ``parallel`` kernel may use.

    >>> get_num_threads() >= 1
    True
    """
    return _state["threads"]


def set_num_threads(num):
    """Cap eagerad's intra-op threads at ``num``, as ``torch.set_num_threads`` does:
    the pool splits work into at most ``num`` shares, Numba's parallel kernels run
    on at most ``num`` threads (Numba's setting is per calling thread) and numpy's
    BLAS stays on one (large products are split by the pool instead).

    >>> old = get_num_threads(); set_num_threads(1); get_num_threads()
    1
    >>> set_num_threads(old)
    """
    if isinstance(num, bool) or not hasattr(num, "__index__") or num.__index__() < 1:
        raise ValueError(f"set_num_threads: num must be a positive int, got {num!r}")
    num = num.__index__()
    _state["threads"] = num
    _backoff.update(until=0.0, wait=0.0)
    if "OPENBLAS_NUM_THREADS" not in os.environ:
        set_blas_threads(1)
    from . import parallel
    parallel.reset()
    import numba
    numba.set_num_threads(min(num, numba.config.NUMBA_NUM_THREADS))


def kernel_threads():
    """How many threads a split run as one Numba kernel (``gemm_split``) may use: the
    intra-op count, at most the cores.  Unlike ``shares()`` no pause applies: such a
    hand-off costs microseconds, and a busy core holds back at most its own block.

    >>> 1 <= kernel_threads() <= CORES
    True
    """
    return min(_state["threads"], CORES)


def shares():
    """How many threads (the caller included) work split over the pool uses now: the
    intra-op count (at most the cores), or 1 while splitting pauses (``_back_off``).

    >>> 1 <= shares() <= CORES
    True
    """
    n = min(_state["threads"], CORES)
    return n if n < 2 or time.monotonic() >= _backoff["until"] else 1


def _executor():
    """The pool: ``CORES - 1`` workers (the calling thread takes a share too), which
    sleep on a queue when idle."""
    global _workers
    if _workers is None:
        with _workers_lock:
            if _workers is None:
                from concurrent.futures import ThreadPoolExecutor
                _workers = ThreadPoolExecutor(CORES - 1, thread_name_prefix="eagerad-cpu")
    return _workers


def share(work, chunks):
    """Run ``work(i)`` for every ``i`` in ``range(chunks)``, shared between the calling
    thread and ``shares() - 1`` pool workers (``work`` must release the GIL to gain,
    as numpy's loops and BLAS do).  Chunks are claimed one at a time: the caller never
    waits for a chunk no worker has started, so a busy core costs at most the chunk
    in flight on it, never a fixed half of the work.  Exceptions reach the caller.

    >>> out = []; share(out.append, 3); sorted(out)
    [0, 1, 2]
    """
    helpers = min(shares(), chunks) - 1
    if helpers < 1:
        for i in range(chunks):
            work(i)
        return
    claims = itertools.count()          # next() on it is atomic under the GIL

    def drain(fastest=None):
        for i in claims:
            if i >= chunks:
                break
            t0 = time.perf_counter()
            work(i)
            if fastest is not None:
                fastest[0] = min(fastest[0], time.perf_counter() - t0)

    pool = _executor()
    jobs = [pool.submit(drain) for _ in range(helpers)]
    start, fastest = time.perf_counter(), [float("inf")]
    try:
        drain(fastest)
    finally:
        for job in jobs:
            if not job.cancel():        # started: it finishes its chunk in flight
                job.result()
    # a miss: the split took over 90% of what this thread alone would have taken at
    # its fastest chunk's pace (other load, GIL hand-offs to a preempted worker);
    # (an ideal two-way split of compute-bound work takes ~50%)
    _back_off(time.perf_counter() - start > 0.9 * chunks * fastest[0])


def _back_off(missed):
    """After a split that did not pay (the workers' cores taken by other processes,
    chunks shorter than a wake-up), splitting pauses for ``wait`` seconds, doubling
    with each such miss up to ``BACKOFF_MAX``; a split that pays ends the pause.
    On a loaded machine eagerad then runs as single-threaded (measured: the best
    there), on a quiet one every split gets help and nothing changes."""
    if missed:
        _backoff["wait"] = min(max(2 * _backoff["wait"], 1e-3), BACKOFF_MAX)
        _backoff["until"] = time.monotonic() + _backoff["wait"]
    elif _backoff["wait"]:
        _backoff["wait"] = 0.0


def row_chunks(rows, align=1):
    """``(start, stop)`` ranges splitting ``rows`` rows into two chunks per share,
    every start a multiple of ``align`` (fewer chunks where rows are few).

    >>> chunks = row_chunks(100, 8); chunks[0][0], chunks[-1][1], all(lo % 8 == 0 for lo, _ in chunks)
    (0, 100, True)
    """
    n = max(1, min(2 * shares(), rows // align))
    step = -(-rows // n // align) * align
    return [(i, min(i + step, rows)) for i in range(0, rows, step)]


def _rows(a, b, out, lo, hi):
    """Rows ``lo:hi`` of the 2-D ``out = a @ b``."""
    with np.errstate(all="ignore"):     # as the backend's module filter, in any thread
        np.matmul(a[lo:hi], b, out=out[lo:hi])


def _matrices(a, b, out, lo, hi):
    """Matrices ``lo:hi`` of the stack ``out = a @ b``; an operand that is one (2-D)
    matrix is used whole with each."""
    with np.errstate(all="ignore"):
        np.matmul(a if a.ndim == 2 else a[lo:hi], b if b.ndim == 2 else b[lo:hi],
                  out=out[lo:hi])


def _columns(a, b, out, lo, hi):
    """Columns ``lo:hi`` of ``out = a @ b`` (both 2-D)."""
    with np.errstate(all="ignore"):
        np.matmul(a, b[:, lo:hi], out=out[:, lo:hi])


def _stack(x, rows, k):
    """``x`` as a 3-D stack of ``rows`` x ``k`` matrices, if that is a view; else None."""
    flat = x.reshape(-1, rows, k)
    return flat if np.shares_memory(flat, x) or x.size == 0 else None


def kernel_splits(work_size):
    """Whether ``gemm_split``'s kernel splits a product of ``work_size`` multiply-adds
    below ``MATMUL_SPLIT``: from ``GEMM_SPLIT`` on, with more than one thread, where
    numpy's BLAS is an OpenBLAS whose GEMM it can call.

    >>> kernel_splits(GEMM_SPLIT - 1)
    False
    """
    return work_size >= GEMM_SPLIT and kernel_threads() > 1 and bool(openblas.gemm_address("f"))


def column_chunks(m, k, n, split=MATMUL_SPLIT):
    """``(start, stop)`` column ranges of a 2-D product ``(m, k) @ (k, n)`` with fewer
    than ``2 * ROW_ALIGN`` rows, which row blocks cannot split without changing bits:
    a power of two of blocks (at most 8) of at least ``split / 2`` multiply-adds
    and ``COL_ALIGN`` columns each, starting at multiples of ``COL_ALIGN``.  For
    products of at least ``MATMUL_SPLIT`` the ranges depend on the shape alone -- not
    on the thread count or the machine's load -- so every thread count gives the same
    bits; they can differ in the last bit from one unsplit call (OpenBLAS's blocking
    then differs), as any BLAS's can between sizes.

    >>> column_chunks(64, 784, 256)
    [(0, 128), (128, 256)]
    >>> column_chunks(64, 64, 256)
    [(0, 256)]
    """
    count = 1
    while count < 8 and m * k * n >= count * split and n >= 2 * count * COL_ALIGN:
        count *= 2
    step = -(-n // count // COL_ALIGN) * COL_ALIGN
    return [(lo, min(lo + step, n)) for lo in range(0, n, step)]


def _batch(shape):
    """The stack size of a batch shape, 1 for a single (broadcast) matrix."""
    size = 1
    for d in shape:
        size *= d
    return size


def matmul(a, b, out=None):
    """``np.matmul(a, b)`` with large products split over the pool; None where this
    does not apply (small products, broadcast batch shapes other than one matrix
    against a stack, vectors, integers, one share), for the caller to run
    ``np.matmul`` itself.  Stacks split by whole matrices and 2-D products with at
    least ``2 * ROW_ALIGN`` rows by row blocks starting at multiples of ``ROW_ALIGN``
    (OpenBLAS's kernels step through rows in blocks of 1-24 rows; a block boundary
    elsewhere can change the last bit of a float32 sum): every output element then
    comes from the very BLAS call shape it would get unsplit, so results are
    bit-identical to ``np.matmul`` under any thread count.  2-D products with fewer
    rows (a 64-sample batch through a linear layer, ``x.T @ g`` of a weight
    gradient) split by columns (``column_chunks``), the same ranges under every thread
    count, single-threaded included.

    A 2-D product goes into ``out`` where given (C-contiguous, of the result's shape
    and dtype; the recurrent layers' per-step products write into their saved state):
    then ``out`` is returned, or None with ``out`` untouched.

    >>> a = np.ones((2048, 64), np.float32); b = np.ones((64, 128), np.float32)
    >>> r = matmul(a, b); r is None or bool((r == 64).all())
    True
    """
    if a.ndim < 2 or b.ndim < 2 or a.dtype.kind not in "fc" or b.dtype.kind not in "fc":
        return None
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    if b.shape[-2] != k:
        return None
    stack_a, stack_b = _batch(a.shape[:-2]), _batch(b.shape[:-2])
    work_size = max(stack_a, stack_b) * m * k * n
    if work_size < MATMUL_SPLIT and not kernel_splits(work_size):
        return None
    dtype = np.result_type(a, b)
    if a.ndim == 2 and b.ndim == 2 and m < 2 * ROW_ALIGN:
        chunks = _blocks_2d(m, k, n)[1]
        if len(chunks) < 2:
            return None
        out = np.empty((m, n), dtype) if out is None else out
        if not _split(a, b, out, 1, chunks, _columns, work_size):
            if work_size < MATMUL_SPLIT:
                return None                # (a layout the kernel refuses: numpy's whole)
            for lo, hi in chunks:          # (one share: the same blocks, in turn)
                _columns(a, b, out, lo, hi)
        return out
    if kernel_threads() < 2:
        return None
    if a.ndim == 2 and b.ndim == 2:
        (mode, chunks), shape = _blocks_2d(m, k, n), (m, n)
        out, work = np.empty((m, n), dtype) if out is None else out, _rows
    elif out is not None:
        return None
    elif a.shape[:-2] == b.shape[:-2] or stack_a == 1 or stack_b == 1:
        count = max(stack_a, stack_b)
        shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (m, n)
        a = a.reshape(m, k) if stack_a == 1 else _stack(a, m, k)
        b = b.reshape(k, n) if stack_b == 1 else _stack(b, k, n)
        if a is None or b is None or count < 2:
            return None
        chunks, out = row_chunks(count), np.empty((count, m, n), dtype)
        work, mode = _matrices, 2
    else:
        return None                 # two stacks broadcast against each other: numpy's loop
    return out.reshape(shape) if _split(a, b, out, mode, chunks, work, work_size) else None


def _blocks_2d(m, k, n):
    """``(mode, chunks)`` of a 2-D product's split: columns (``gemm_split.COLUMNS``)
    for fewer than ``2 * ROW_ALIGN`` rows, else row blocks.  Below ``MATMUL_SPLIT``
    only the kernel splits, into a block per thread: such a product's bits can differ
    in the last place between one thread and several."""
    if m < 2 * ROW_ALIGN:
        work_size = m * k * n
        return 1, column_chunks(m, k, n, work_size // kernel_threads() + 1
                                if work_size < MATMUL_SPLIT else MATMUL_SPLIT)
    return 0, row_chunks(m, ROW_ALIGN)


def product_plan(a, b, out):
    """A ``gemm_split.Plan``: ``plan(a, b, out)`` computes ``out[...] = a @ b`` for
    2-D float operands shaped and laid out like these, split as ``matmul`` splits
    them, with ~1 us of Python a call (a recurrent layer's per-step products: one
    plan per sequence).  None where ``matmul``'s kernel split does not apply.

    >>> a = np.ones((16, 128), np.float32); b = np.ones((128, 512), np.float32)
    >>> out = np.empty((16, 512), np.float32); step = product_plan(a, b, out)
    >>> step is None or step(a, b, out) or bool((out == 128).all())
    True
    """
    if a.ndim != 2 or b.ndim != 2 or out.ndim != 2 or not kernel_splits(a.size * b.shape[1]):
        return None
    mode, chunks = _blocks_2d(a.shape[0], a.shape[1], b.shape[1])
    return gemm_split().plan(a, b, out, mode, chunks) if len(chunks) > 1 else None


def _split(a, b, out, mode, chunks, work, work_size):
    """Fill ``out`` by the blocks ``chunks``: ``gemm_split``'s kernel where it applies
    and more than one thread may run, else the pool's ``work`` for products of at
    least ``MATMUL_SPLIT`` while splitting pays; False (nothing done) otherwise."""
    if kernel_threads() > 1 and gemm_split().run(a, b, out, mode, chunks):
        return True
    if work_size < MATMUL_SPLIT or shares() < 2:
        return False
    share(lambda i: work(a, b, out, *chunks[i]), len(chunks))
    return True


def gemm_split():
    """``gemm_split`` (Numba: imported at the first split product, not with eagerad)."""
    from . import gemm_split
    return gemm_split
