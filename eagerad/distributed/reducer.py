"""The gradient reducer behind ``DistributedDataParallel``: averages the parameters'
gradients across ranks *during* backward.

After each forward, ``prepare(outputs)`` walks the recorded graph from the outputs and
wraps the backward rule of every node that feeds a gradient to a parameter.  eagerad's
engine runs a node only after all of its consumers, and a parameter's gradient is
complete once the last node feeding it ran; the wrapper then copies that gradient (plus
any ``.grad`` kept from ``no_sync`` steps) into its bucket's flat buffer and takes it out
of the engine's hands.  A bucket whose members are all in starts its nonblocking
all-reduce at once (buckets start in one fixed order on every rank, as MPI requires),
so communication runs while backward goes on computing; the progress thread of the
process group moves it along.  When the last bucket has started, the reducer waits for
all of them, divides by the group size and sets each parameter's ``.grad`` to its slot.

Parameters no output depends on: with ``find_unused_parameters=True`` they count as
ready at once (contributing zeros) and a parameter no rank used keeps its ``.grad``;
without it they make ``prepare`` raise, naming them.

>>> w = eagerad.nn.Parameter(eagerad.tensor([1.0, 2.0]), name="w")
>>> r = Reducer([w], ["w"], pg.group(), 1 << 20, False)
>>> loss = (w * w).sum(); r.prepare(loss); loss.backward(); w.grad.tolist()
[2.0, 4.0]
"""
import sys

import numpy as np

from .. import backend
from ..tensor import Tensor
from .. import tree
from .buckets import plan, start_allreduce
from .process_group import mpi
from .work import Work


def _host(t):
    """A tensor's values as a host numpy array (no copy on the CPU)."""
    return t._data if t._device.type == "cpu" else backend.get(t._device.type).to_numpy(t._data)


class _Pass:
    """The state of one backward: what is still awaited and the buffers being filled.
    Nothing talks to MPI before the first gradient arrives, so a forward that is never
    differentiated (an evaluation on one rank) leaves the ranks in step."""

    def __init__(self, reducer, counts):
        self.reducer, self.initial = reducer, dict(counts)
        self.reset()

    def reset(self):
        r = self.reducer
        self.remaining = dict(self.initial)
        self.local = {}
        self.pending = [len(b.members) for b in r.buckets]
        self.buffers = [None] * len(r.buckets)
        self.works = [None] * len(r.buckets)
        self.next_launch = 0
        self.complete = False
        self.arrived = False
        self.used = None

    def start(self):
        """The first gradient arrived: share which parameters each rank used (with
        ``find_unused_parameters``), then count this rank's unused ones as ready."""
        r = self.reducer
        self.arrived = True
        if r.find_unused:
            mask = np.zeros(len(r.params), np.uint8)
            mask[list(self.initial)] = 1
            MPI, g = mpi(), r.group
            self.used = (Work(g["comm"].Iallreduce(MPI.IN_PLACE, mask, op=MPI.MAX),
                              "find_unused_parameters mask", g["rank"], g["timeout"],
                              keep=(mask,), engine=g["engine"]), mask)
        for i in range(len(r.params)):
            if i not in self.initial:     # unused here: contributes what .grad holds, or 0
                self.ready(i)

    def arrive(self, i, grad):
        if self.complete:
            self.reset()         # a second backward through a retained graph
        if not self.arrived:
            self.start()
        if grad is not None:
            g = _host(grad)
            prev = self.local.get(i)
            self.local[i] = g if prev is None else prev + g
        self.remaining[i] -= 1
        if self.remaining[i] == 0:
            self.ready(i)

    def ready(self, i):
        r = self.reducer
        b_index, k = r.where[i]
        bucket = r.buckets[b_index]
        if self.buffers[b_index] is None:
            self.buffers[b_index] = r.buffer(b_index)
        slot = bucket.view(self.buffers[b_index], k)
        local, kept = self.local.pop(i, None), r.params[i]._grad
        if local is None and kept is None:
            slot.fill(0)
        elif kept is None:
            np.copyto(slot, local)
        else:
            np.copyto(slot, _host(kept))
            if local is not None:
                slot += local
        self.pending[b_index] -= 1
        while self.next_launch < len(r.buckets) and self.pending[self.next_launch] == 0:
            j = self.next_launch
            self.works[j] = start_allreduce(r.group, self.buffers[j], f"gradient bucket {j}")
            self.next_launch += 1
        if self.next_launch == len(r.buckets) and not self.complete:
            self.finish()

    def finish(self):
        r = self.reducer
        self.complete = True
        used = None
        if self.used is not None:
            self.used[0].wait()
            used = self.used[1]
        for j, (bucket, work) in enumerate(zip(r.buckets, self.works)):
            work.wait()
            buf = self.buffers[j]
            if bucket.dtype.kind in "fc":
                np.divide(buf, r.group["size"], out=buf)
            for k, i in enumerate(bucket.members):
                if used is not None and not used[i]:
                    continue          # no rank used it: its .grad stays as it was
                p = r.params[i]
                view = bucket.view(buf, k)
                data = view if p._device.type == "cpu" else backend.get(p._device.type).from_numpy(view)
                p._grad = Tensor._make(data, p._device, face=p._face)
        r.spare, self.buffers = self.buffers, [None] * len(r.buckets)


class Reducer:
    """Buckets ``params`` (the order reversed, ``cap_bytes`` each) and averages their
    gradients during each backward that follows a ``prepare`` (see the module).

    >>> ps = [eagerad.nn.Parameter(eagerad.zeros(3)) for _ in range(3)]
    >>> [b.members for b in Reducer(ps, ["a", "b", "c"], pg.group(), 24, False).buckets]
    [[2, 1], [0]]
    """

    def __init__(self, params, names, group, cap_bytes, find_unused):
        self.params, self.names, self.group = list(params), list(names), group
        self.find_unused = find_unused
        order = list(range(len(self.params)))[::-1]
        planned = plan([(self.params[i].shape, self.params[i].dtype) for i in order], cap_bytes)
        self.buckets = []
        self.where = {}
        for b_index, b in enumerate(planned):
            b.members = [order[m] for m in b.members]      # back to parameter indices
            for k, i in enumerate(b.members):
                self.where[i] = (b_index, k)
            self.buckets.append(b)
        self._index = {id(p): i for i, p in enumerate(self.params)}
        self.current = None
        self.spare = [None] * len(self.buckets)

    def buffer(self, b_index):
        """A flat buffer for bucket ``b_index``: last step's when nothing else references
        it any more (the gradients that were views of it are gone: ``zero_grad()`` set
        them to None), else a new one.  Reuse saves the page faults of a fresh buffer.

        >>> w = eagerad.nn.Parameter(eagerad.ones(2)); r = Reducer([w], ["w"], pg.group(), 64, False)
        >>> for _ in range(2):
        ...     loss = (w * 3).sum(); r.prepare(loss); loss.backward()
        >>> first = id(w.grad._data.base)
        >>> id(r.buffer(0)) == first          # w.grad still views it: not reused
        False
        >>> w.grad = None; id(r.buffer(0)) == first
        True
        """
        spare = self.spare[b_index]
        # references: the spare list, ``spare`` and getrefcount's argument
        if spare is not None and sys.getrefcount(spare) == 3:
            self.spare[b_index] = None
            return spare
        bucket = self.buckets[b_index]
        return np.empty(bucket.numel, bucket.dtype)

    def prepare(self, outputs):
        """Instrument the graph below ``outputs`` for the next backward (see the module)."""
        previous = self.current
        if previous is not None and previous.arrived and not previous.complete:
            missing = [self.names[i] for i, n in previous.remaining.items() if n]
            raise RuntimeError(
                "DistributedDataParallel: the previous backward did not produce gradients for "
                f"parameters {missing}, so their all-reduce never ran; make every output of the "
                "forward take part in the loss, or pass find_unused_parameters=True")
        roots = [t.grad_fn for t in tree.leaves(outputs)
                 if isinstance(t, Tensor) and t.grad_fn is not None]
        counts, wrapped = {}, []
        seen, stack = set(roots), list(roots)
        while stack:
            node = stack.pop()
            hits = []
            for pos, edge in enumerate(node.next):
                if edge is None:
                    continue
                target = edge[0]
                if isinstance(target, Tensor):
                    i = self._index.get(id(target))
                    if i is not None:
                        hits.append((pos, i))
                        counts[i] = counts.get(i, 0) + 1
                elif target not in seen:
                    seen.add(target)
                    stack.append(target)
            if hits:
                wrapped.append((node, hits))
        unused = [i for i in range(len(self.params)) if i not in counts]
        if unused and not self.find_unused:
            raise RuntimeError(
                "DistributedDataParallel: parameters "
                f"{[self.names[i] for i in unused]} took no part in computing the forward's "
                "outputs, so they would get no gradient to average; pass "
                "find_unused_parameters=True (or freeze them with requires_grad_(False))")
        state = self.current = _Pass(self, counts)
        for node, hits in wrapped:
            node.backward_fn = _wrap(node.backward_fn, hits, state, self)
            node.op = None      # the engine runs a node's op rules directly: make it call ours


def _wrap(rule, hits, state, reducer):
    """``rule`` whose gradients for the parameters in ``hits`` go to ``state`` instead of
    the engine."""
    def backward_fn(grads, inputs, outputs):
        in_grads = list(rule(grads, inputs, outputs))
        if state is not reducer.current:
            raise RuntimeError("DistributedDataParallel: backward through the output of an "
                               "earlier forward; run backward after each forward (one "
                               "forward per backward, as PyTorch's DDP requires)")
        for pos, i in hits:
            g, in_grads[pos] = in_grads[pos], None
            state.arrive(i, g)
        return in_grads
    return backward_fn
