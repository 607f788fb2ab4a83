"""Worker processes of ``DataLoader(num_workers > 0)``: each worker loads and collates
the batches it is asked for; the main process hands out the requests round-robin, keeps
``prefetch_factor`` of them in flight per worker and yields the results in request order,
so the batches are the ones (and in the order) ``num_workers=0`` gives.  An exception in
a worker is raised again in the main process, naming the worker.

>>> get_worker_info() is None       # in the main process
True
"""
import collections
import queue
import random
import traceback

_INFO = None
_EXHAUSTED = "__eagerad_iterable_worker_exhausted__"


class WorkerInfo(collections.namedtuple("WorkerInfo", "id num_workers seed dataset")):
    """What ``get_worker_info()`` says inside a worker: its ``id``, ``num_workers``, its
    ``seed`` and its copy of the ``dataset`` (to split an ``IterableDataset``)."""


def get_worker_info():
    """This worker's ``WorkerInfo``; None in the main process.

    >>> get_worker_info() is None
    True
    """
    return _INFO


class WorkerFailure:
    """An exception raised in a worker, carried to the main process as text."""

    def __init__(self, worker_id, error):
        self.worker_id, self.exc_type = worker_id, type(error)
        self.text = "".join(traceback.format_exception(type(error), error, error.__traceback__))

    def reraise(self):
        """Raise the worker's exception type (RuntimeError if it cannot be rebuilt).

        >>> try:
        ...     raise KeyError('k')
        ... except KeyError as e:
        ...     failure = WorkerFailure(3, e)
        >>> failure.reraise()
        Traceback (most recent call last):
        KeyError: 'Caught KeyError in DataLoader worker process 3...
        """
        message = (f"Caught {self.exc_type.__name__} in DataLoader worker process "
                   f"{self.worker_id}.\nOriginal traceback (in the worker):\n{self.text}")
        try:
            error = self.exc_type(message)
        except Exception:
            error = RuntimeError(message)
        raise error


def fetch(dataset, collate, indices):
    """The batch of ``dataset`` at ``indices`` (a list), or the one sample at an index.

    >>> fetch('abc', list, [2, 0]), fetch('abc', list, 1)
    (['c', 'a'], 'b')
    """
    if isinstance(indices, list):
        return collate([dataset[i] for i in indices])
    return dataset[indices]


def _next_batch(iterator, batch_size, drop_last, collate):
    """The next batch of an iterable dataset's iterator, or ``_EXHAUSTED``."""
    if batch_size is None:
        return next(iterator, _EXHAUSTED)
    items = []
    for item in iterator:
        items.append(item)
        if len(items) == batch_size:
            break
    if not items or (drop_last and len(items) < batch_size):
        return _EXHAUSTED
    return collate(items)


def _worker_loop(job, worker_id, seed, requests, results):
    """A worker: answer ``(kind, tag, payload)`` requests until it gets None."""
    global _INFO
    from .tensor import manual_seed
    _INFO = WorkerInfo(worker_id, job["num_workers"], seed, job["dataset"])
    manual_seed(seed)
    random.seed(seed)
    failure, iterator = None, None
    try:
        if job["worker_init_fn"] is not None:
            job["worker_init_fn"](worker_id)
    except Exception as error:      # reported with the first request
        failure = WorkerFailure(worker_id, error)
    while True:
        message = requests.get()
        if message is None:
            return
        kind, tag, payload = message
        try:
            if failure is not None:
                data = failure
            elif kind == "reset":
                iterator = iter(job["dataset"])
                continue
            elif kind == "next":
                data = _next_batch(iterator, job["batch_size"], job["drop_last"], job["collate"])
            else:
                data = fetch(job["dataset"], job["collate"], payload)
        except Exception as error:
            data = WorkerFailure(worker_id, error)
        results.put((tag, data))


class WorkerPool:
    """``num_workers`` processes over one loader's dataset, with their request queues
    and one result queue."""

    def __init__(self, job, num_workers, base_seed, context=None, timeout=0):
        if context is None or isinstance(context, str):
            import multiprocessing          # here: importing eagerad stays light
            context = multiprocessing.get_context(context or "fork")
        self.timeout = timeout
        self.requests = [context.Queue() for _ in range(num_workers)]
        self.results = context.Queue()
        job = dict(job, num_workers=num_workers)
        self.processes = [context.Process(target=_worker_loop, daemon=True, args=(
            job, w, (base_seed + w) % 2 ** 32, self.requests[w], self.results))
            for w in range(num_workers)]
        for p in self.processes:
            p.start()
        self._stash = {}

    def put(self, worker, kind, tag, payload=None):
        """Ask ``worker`` for something; the answer comes back under ``tag``."""
        self.requests[worker].put((kind, tag, payload))

    def get(self, tag):
        """The answer under ``tag`` (answers to other tags are kept for later; those of an
        abandoned epoch are dropped by their tag's epoch)."""
        waited = 0.0
        while tag not in self._stash:
            try:
                got, data = self.results.get(timeout=1.0)
            except queue.Empty:
                waited += 1.0
                for w, p in enumerate(self.processes):
                    if not p.is_alive():
                        raise RuntimeError(f"DataLoader worker {w} (pid {p.pid}) exited "
                                           f"unexpectedly with exit code {p.exitcode}") from None
                if self.timeout and waited >= self.timeout:
                    raise RuntimeError(f"DataLoader timed out after {self.timeout} s waiting "
                                       "for a batch from its workers") from None
                continue
            if got[0] == tag[0]:
                self._stash[got] = data
        data = self._stash.pop(tag)
        if isinstance(data, WorkerFailure):
            data.reraise()
        return data

    def shutdown(self):
        """Stop the workers (politely, then by force)."""
        for q in self.requests:
            try:
                q.put(None)
            except (OSError, ValueError):
                pass
        for p in self.processes:
            p.join(timeout=5)
            if p.is_alive():
                p.terminate()
                p.join(timeout=1)
        for q in self.requests + [self.results]:
            q.cancel_join_thread()
            q.close()
        self.processes = []
