"""The process group: which rank this process is, how many there are, and the MPI
communicator every collective of eagerad uses.

``init_process_group(backend="mpi")`` initialises MPI through ``mpi4py`` (the extra
``pip install 'eagerad[distributed]'`` brings ``mpi4py`` and the ``mpich`` wheels).
Started by ``mpiexec -n N`` (or ``python -m eagerad.distributed.run --nproc N``) the
group has N ranks; started as a plain ``python`` it is a group of one.

With more than one rank, an uncaught exception on any rank prints the rank and the
error, then calls ``MPI_Abort``: ``mpiexec`` stops the other ranks and exits non-zero
instead of leaving them waiting in a collective.  Each collective also has a watchdog
(``timeout=``, default 10 minutes): a rank that waits longer raises
``DistributedTimeout`` naming itself and the operation.

>>> init_process_group(backend="mpi")
>>> is_initialized(), get_rank(), get_world_size()
(True, 0, 1)
>>> destroy_process_group(); is_initialized()
False
"""
import atexit
import datetime
import os
import sys
import threading
import traceback

from .work import ProgressEngine

DEFAULT_TIMEOUT_S = 600.0
_state = {}     # "comm", "rank", "size", "timeout", "engine", "hooks" while initialised


def mpi():
    """The ``mpi4py.MPI`` module, or an ImportError saying how to install it.

    >>> mpi().COMM_WORLD.Get_size() >= 1
    True
    """
    try:
        from mpi4py import MPI
    except ImportError as exc:
        raise ImportError("eagerad.distributed needs mpi4py and an MPI library: "
                          "pip install 'eagerad[distributed]' (mpi4py + the mpich wheels)") from exc
    return MPI


def _seconds(timeout):
    if timeout is None:
        return DEFAULT_TIMEOUT_S
    if isinstance(timeout, datetime.timedelta):
        timeout = timeout.total_seconds()
    if not isinstance(timeout, (int, float)) or timeout <= 0:
        raise ValueError(f"init_process_group: timeout must be a positive number of seconds or "
                         f"a datetime.timedelta, got {timeout!r}")
    return float(timeout)


def init_process_group(backend="mpi", init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job's process group (PyTorch's ``torch.distributed.init_process_group``).

    Only ``backend="mpi"`` exists: MPI decides the ranks, so ``world_size``/``rank``, when
    given, must agree with what ``mpiexec`` started.  A second call raises, as in PyTorch.

    >>> init_process_group("mpi", timeout=30); get_world_size()
    1
    >>> destroy_process_group()
    """
    if backend not in (None, "mpi"):
        raise ValueError(f"init_process_group: backend {backend!r} is not available; eagerad "
                         "runs its collectives over MPI: use backend='mpi'")
    if _state:
        raise RuntimeError("init_process_group: the default process group is already initialised "
                           "(call destroy_process_group() first)")
    MPI = mpi()
    comm = MPI.COMM_WORLD.Dup()     # our own communicator: user MPI traffic cannot interleave
    r, n = comm.Get_rank(), comm.Get_size()
    for name, given, actual in (("world_size", world_size, n), ("rank", rank, r)):
        if given not in (-1, None) and given != actual:
            raise ValueError(f"init_process_group: {name}={given}, but mpiexec started this "
                             f"process as {name} {actual}")
    threaded = MPI.Query_thread() >= MPI.THREAD_MULTIPLE
    atexit.unregister(_at_exit)     # once, registered after mpi4py's own: runs before it
    atexit.register(_at_exit)
    _state.update(comm=comm, rank=r, size=n, timeout=_seconds(timeout),
                  engine=ProgressEngine() if threaded else None)
    if n > 1:
        _install_abort_hooks(comm, r, n)
    _register_pid(r)


def _register_pid(r):
    """Tell the launcher (``eagerad.distributed.run``) which PID is which rank, so that it
    can name a rank that died (MPICH reports PIDs)."""
    run_dir = os.environ.get("EAGERAD_RUN_DIR")
    if run_dir and os.path.isdir(run_dir):
        try:
            with open(os.path.join(run_dir, str(os.getpid())), "w") as f:
                f.write(str(r))
        except OSError:
            pass       # only the error message gets less precise


def _install_abort_hooks(comm, r, n):
    """Make an uncaught exception on this rank end the whole job, naming the rank."""
    previous = sys.excepthook, threading.excepthook

    def report_and_abort(kind, value, tb, where="the main thread"):
        traceback.print_exception(kind, value, tb)
        sys.stderr.write(f"eagerad.distributed: rank {r} of {n} failed in {where} with "
                         f"{kind.__name__}: {value}; aborting all {n} ranks\n")
        sys.stderr.flush()
        comm.Abort(1)

    def thread_hook(args):
        report_and_abort(args.exc_type, args.exc_value, args.exc_traceback,
                         f"thread {args.thread.name if args.thread else '?'}")
    sys.excepthook, threading.excepthook = report_and_abort, thread_hook
    _state["hooks"] = previous


def _require():
    if not _state:
        raise RuntimeError("eagerad.distributed: the default process group is not initialised; "
                           "call init_process_group(backend='mpi') first")
    return _state


def is_initialized():
    """True between ``init_process_group`` and ``destroy_process_group``.

    >>> is_initialized()
    False
    """
    return bool(_state)


def is_available():
    """True when mpi4py (hence an MPI library) can be imported.

    >>> is_available()
    True
    """
    try:
        mpi()
    except ImportError:
        return False
    return True


def get_rank(group=None):
    """This process's rank, 0 ... world size - 1.

    >>> init_process_group(); get_rank()
    0
    >>> destroy_process_group()
    """
    return _require()["rank"]


def get_world_size(group=None):
    """The number of ranks in the job.

    >>> init_process_group(); get_world_size()
    1
    >>> destroy_process_group()
    """
    return _require()["size"]


def get_backend(group=None):
    """The backend's name: always ``'mpi'``.

    >>> init_process_group(); get_backend()
    'mpi'
    >>> destroy_process_group()
    """
    _require()
    return "mpi"


def group():
    """The state of the default group (``comm``, ``rank``, ``size``, ``timeout``, ``engine``)
    for the collectives; raises when it is not initialised.

    >>> init_process_group(); sorted(group())[:3]
    ['comm', 'engine', 'rank']
    >>> destroy_process_group()
    """
    return _require()


def destroy_process_group(group=None):
    """Leave the group: stop the progress thread, free the communicator, restore the
    exception hooks.  MPI itself stays initialised (mpi4py finalises it at exit).

    >>> init_process_group(); destroy_process_group(); is_initialized()
    False
    """
    if not _state:
        return
    state = dict(_state)
    _state.clear()
    if state["engine"] is not None:
        state["engine"].stop()
    if "hooks" in state:
        sys.excepthook, threading.excepthook = state["hooks"]
    state["comm"].Free()


def _at_exit():
    engine = _state.get("engine")
    if engine is not None:     # the thread must not test requests while MPI finalises
        engine.stop()
        _state["engine"] = None
