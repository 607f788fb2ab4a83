"""Waitable handles for MPI nonblocking operations, and the thread that drives them.

MPICH (and most MPI libraries) move a nonblocking collective forward only while some
thread is inside an MPI call.  So that an all-reduce started from a gradient hook runs
*while* the rest of backward computes, one daemon thread per process group polls the
pending requests (``MPI_Test``, which releases the GIL) and marks each ``Work`` done.
``Work.wait`` tests its request itself (the thread steps aside meanwhile: MPI forbids two
threads completing one request), spinning briefly and then backing off, with a watchdog:
past the group's timeout it raises ``DistributedTimeout`` naming the rank and the
operation instead of hanging.

Where the MPI library was not initialised with ``MPI_THREAD_MULTIPLE`` there is no
thread: only ``wait`` polls (correct, without overlap).

>>> w = Work.completed("barrier"); w.is_completed(), w.wait()
(True, True)
"""
import threading
import time

# Seconds between two polls of the pending requests: short enough that a chunked
# message keeps moving, long enough that the thread leaves the CPU to the compute.
POLL_S = 0.0002
# How long ``wait`` polls without sleeping before it backs off to POLL_S.
SPIN_S = 0.002


class DistributedTimeout(RuntimeError):
    """A collective did not finish within the process group's timeout: another rank has
    probably failed, or is not calling the same collective.

    >>> issubclass(DistributedTimeout, RuntimeError)
    True
    """


class Work:
    """One nonblocking operation: ``wait()`` blocks until it is done (then runs its
    finishing step once: copy-back, division by the group size, ...), ``is_completed()``
    asks without blocking.  What ``async_op=True`` returns (PyTorch's ``Work``).

    >>> w = Work.completed("all_reduce"); w.is_completed()
    True
    """

    def __init__(self, request, what, rank, timeout, finish=None, keep=(), engine=None):
        self._request, self.what, self.rank = request, what, rank
        self._timeout, self._finish, self._keep = timeout, finish, keep
        self._done = threading.Event()
        self._testing = threading.Lock()    # one thread at a time may test the request
        self._error = None
        self._finished = False
        self._engine = engine
        if engine is not None:
            engine.add(self)

    @classmethod
    def completed(cls, what, finish=None):
        """A Work that is already done (a collective with nothing to exchange).

        >>> Work.completed("barrier").wait()
        True
        """
        w = cls(None, what, 0, None, finish)
        w._done.set()
        return w

    def _poll(self):
        """Test the request once unless another thread is testing it (MPI forbids two
        threads completing one request); True when done."""
        if self._done.is_set() or not self._testing.acquire(blocking=False):
            return self._done.is_set()
        try:
            if not self._done.is_set() and self._request.Test():
                self._done.set()
        except Exception as exc:        # an MPI error: report it from wait()
            self._error = exc
            self._done.set()
        finally:
            self._testing.release()
        return self._done.is_set()

    def is_completed(self):
        """True once the operation finished (without blocking).

        >>> Work.completed("broadcast").is_completed()
        True
        """
        return self._request is None and self._done.is_set() or self._poll()

    def wait(self, timeout=None):
        """Block until done (at most ``timeout`` seconds or a ``timedelta``, default the
        group's), run the finishing step, return True; raise ``DistributedTimeout`` past
        the limit.

        >>> Work.completed("all_gather").wait()
        True
        """
        if hasattr(timeout, "total_seconds"):          # PyTorch passes a timedelta
            timeout = timeout.total_seconds()
        limit = self._timeout if timeout is None else timeout
        if not self._done.is_set():
            # the waiting thread tests the request itself (the progress thread steps aside
            # while it does): no hand-over latency; it spins for SPIN_S, then backs off
            start = time.monotonic()
            deadline = None if limit is None else start + limit
            while not self._poll():
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    break
                time.sleep(0 if now - start < SPIN_S else POLL_S)
        if not self._done.is_set():
            raise DistributedTimeout(
                f"eagerad.distributed: rank {self.rank}: {self.what} did not complete within "
                f"{limit:g} s; another rank has probably failed or is not calling the same "
                "collective (see its error above)")
        if self._error is not None:
            raise RuntimeError(f"eagerad.distributed: rank {self.rank}: {self.what} failed: "
                               f"{self._error}") from self._error
        if not self._finished:
            self._finished = True
            if self._finish is not None:
                self._finish()
            self._keep = ()
        return True


class ProgressEngine:
    """A daemon thread testing the pending ``Work`` requests so they progress during
    computation; it sleeps on a condition while nothing is pending.

    >>> e = ProgressEngine(); e.stop()
    """

    def __init__(self):
        self._pending = []
        self._cond = threading.Condition()
        self._stopped = False
        self._thread = threading.Thread(target=self._loop, name="eagerad-mpi-progress",
                                        daemon=True)
        self._thread.start()

    def add(self, work):
        with self._cond:
            self._pending.append(work)
            self._cond.notify()

    def _loop(self):
        while True:
            with self._cond:
                while not self._pending and not self._stopped:
                    self._cond.wait()
                if self._stopped:
                    return
                pending = list(self._pending)
            done = [w for w in pending if w._poll()]
            if done:
                with self._cond:
                    self._pending = [w for w in self._pending if w not in done]
            time.sleep(POLL_S)

    def stop(self):
        """End the thread (pending operations are abandoned).

        >>> ProgressEngine().stop()
        """
        with self._cond:
            self._stopped = True
            self._cond.notify()
        self._thread.join()
