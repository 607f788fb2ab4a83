"""Forward-mode AD: tangents ride along with primal values.

Inside ``dual_level()`` a tensor may carry a tangent (``make_dual``); every op
then also runs its jvp rules, written in eagerad ops, so tangents are
themselves differentiable (forward-over-reverse gives Hessian-vector products).
Levels nest: while a rule for level L runs, level L is switched off, so the
rule's own ops only carry the tangents of the other levels.  Levels are per
thread: a level opened on one thread is invisible to every other.

>>> import eagerad
>>> from eagerad.autograd import forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(eagerad.tensor([1.0]), eagerad.tensor([1.0]))
...     print(fwAD.unpack_dual(x.sin() * 2).tangent)
[1.0806046]
"""
import collections
import contextlib
import itertools
import threading
import weakref

from .. import _upcalls
from ..tensor import Tensor
from . import batching

# Levels open on any thread (empty: forward AD costs nothing, which is all the per-op hot
# path asks); a level's number is unique in the process.  The levels that count on a
# thread are that thread's own, innermost last: ``_here.levels``.
levels = []
_numbers = itertools.count(1)    # next() is atomic: two threads never share a level
UnpackedDual = collections.namedtuple("UnpackedDual", "primal tangent")
# level -> the tangents of saved outputs, owned by the open level (see ``keep_out_tangents``)
_kept = {}


class _Kept:
    """The tangents a level owns, each with a weak reference to the node that needs it;
    an entry goes once its node was released by a backward pass (amortised: a sweep
    whenever the list has doubled), so a long-lived level that trains stays flat."""
    __slots__ = ("entries", "sweep_at")

    def __init__(self):
        self.entries, self.sweep_at = [], 64

    def add(self, node, tangent):
        self.entries.append((weakref.ref(node), tangent))
        if len(self.entries) >= self.sweep_at:
            self.entries = [(ref, t) for ref, t in self.entries
                            if ref() is not None and not ref().released]
            self.sweep_at = max(64, 2 * len(self.entries))


class _Here(threading.local):
    """This thread's open levels, innermost last."""
    def __init__(self):
        self.levels = []


_here = _Here()


@contextlib.contextmanager
def dual_level():
    """Open a level for tangents on this thread; they are dropped from every tensor's view
    when it closes.

    >>> with dual_level():
    ...     x = make_dual(eagerad.tensor([2.0]), eagerad.tensor([1.0]))
    ...     print(unpack_dual(x * x).tangent)
    [4.]
    """
    level = next(_numbers)
    _kept[level] = _Kept()
    _here.levels.append(level)
    levels.append(level)
    try:
        yield level
    finally:
        levels.remove(level)
        _here.levels.remove(level)
        del _kept[level]


def active():
    """This thread's open levels, innermost last.

    >>> with dual_level() as level:
    ...     active() == [level]
    True
    """
    return list(_here.levels)


def _current(level):
    if level is None:
        if not _here.levels:
            raise RuntimeError("make_dual/unpack_dual need an open forward_ad.dual_level()")
        return _here.levels[-1]
    return level


def make_dual(primal, tangent, level=None):
    """A view of ``primal`` that carries ``tangent`` at ``level`` (default: innermost).

    >>> with dual_level():
    ...     x = make_dual(eagerad.tensor([1.0]), [5.0])
    ...     print(unpack_dual(x.exp()).tangent)
    [13.591409]
    """
    level = _current(level)
    if not isinstance(tangent, Tensor):
        tangent = Tensor(tangent, dtype=primal.dtype)
    if tangent.shape != primal.shape:
        raise ValueError(f"make_dual: tangent shape {tangent.shape} does not match primal shape "
                         f"{primal.shape}")
    dual = _upcalls.get("alias")(primal)     # a view behind its own node: the op layer's
    dual._tangents = dict(primal._tangents or {})
    dual._tangents[level] = tangent
    return dual


def unpack_dual(tensor, level=None):
    """``(primal, tangent)``; tangent is None when the tensor carries none at ``level``
    (or when no level is open, as in PyTorch).

    >>> with dual_level():
    ...     p, t = unpack_dual(eagerad.tensor([1.0]))
    ...     print(p.tolist(), t)
    [1.0] None
    >>> unpack_dual(eagerad.tensor([1.0])).tangent is None
    True
    """
    if level is None and not _here.levels:
        return UnpackedDual(tensor, None)
    level = _current(level)
    tangents = tensor._tangents
    return UnpackedDual(tensor, tangents.get(level) if tangents else None)


def detach(t):
    """``t.detach()`` that keeps ``t``'s tangents: what a transform does to a tensor it cuts
    from the reverse graph, so an enclosing forward-mode level still sees it move.

    >>> with dual_level():
    ...     x = make_dual(eagerad.tensor([1.0]), eagerad.tensor([2.0]))
    ...     print(unpack_dual(detach(x) * 3).tangent)
    [6.]
    """
    if type(t) is batching.BatchedTensor:    # tangents live on the physical tensor
        return batching.BatchedTensor(detach(t._value), t._level)
    d = t.detach()
    if t._tangents:
        d._tangents = dict(t._tangents)
    return d


def propagate(op, args, kwargs, outs):
    """Give the outputs of ``op`` their tangents at every active level.

    >>> from eagerad.ops.registry import OPS
    >>> with dual_level():
    ...     x = make_dual(eagerad.tensor([1.0]), eagerad.tensor([3.0]))
    ...     out = eagerad.tensor([-1.0]); propagate(OPS['neg'], (x,), {}, [out])
    ...     print(unpack_dual(out).tangent)
    [-3.]
    """
    found = False
    for level, tangents in levels_with_tangents(args):
        out_tangent = without_level(level, _rule_sum, op, tangents, args, kwargs, outs)
        if out_tangent is None:
            continue
        pairs = zip(outs, out_tangent) if op.n_outputs > 1 else ((outs[0], out_tangent),)
        for out, t in pairs:
            if t is None:
                continue
            if t.shape != out.shape:
                t = t.broadcast_to(out.shape)
            if t.dtype != out.dtype:
                t = t.astype(out.dtype)
            set_tangent(out, level, t)
            found = True
    if found:
        keep_out_tangents(outs)


def levels_with_tangents(args):
    """``(level, tangents)`` for each active level at which some of ``args`` carry a tangent;
    ``tangents`` has one entry per argument (None where it carries none).

    >>> list(levels_with_tangents([eagerad.ones(1)]))
    []
    """
    for level in tuple(_here.levels):
        tangents = [a._tangents.get(level) if isinstance(a, Tensor) and a._tangents else None
                    for a in args]
        if any(t is not None for t in tangents):
            yield level, tangents


def without_level(level, fn, *args):
    """``fn(*args)`` with ``level`` switched off, so the ops of a jvp rule for that level
    carry only the tangents of the other levels.

    >>> with dual_level() as level:
    ...     without_level(level, lambda: len(active()))
    0
    """
    here = _here.levels
    idx = here.index(level)
    here.pop(idx)
    try:
        return fn(*args)
    finally:
        here.insert(idx, level)


def without_tangents(fn, *args):
    """``fn(*args)`` with every level of this thread switched off.

    >>> with dual_level():
    ...     without_tangents(lambda: active())
    []
    """
    here = _here.levels
    saved = list(here)
    here.clear()
    try:
        return fn(*args)
    finally:
        here.extend(saved)


def set_tangent(out, level, tangent):
    """Attach ``tangent`` to the op output ``out`` at ``level``.

    >>> t = eagerad.ones(1); set_tangent(t, 7, eagerad.zeros(1)); list(t._tangents)
    [7]
    """
    if out._tangents is None:
        out._tangents = {}
    out._tangents[level] = tangent


def keep_out_tangents(outs):
    """Let the node that made ``outs`` (when it keeps them) see their tangents too.

    A tangent computed from a saved output (``exp``'s is ``t * exp(x)``) is recorded
    over that output, so its graph points back at the node: the node holds it by weak
    reference only, or every such graph would be a reference cycle that only the cycle
    collector frees.  The open level owns those tangents (``_kept``) until it closes
    (after that no rule asks for them) or a backward pass releases the node.

    >>> keep_out_tangents([eagerad.ones(1)])   # no node: nothing to do
    """
    node = outs[0].grad_fn
    if node is not None and node.out_data is not None:
        weak = []
        for o in outs:
            pairs = ()
            if o._tangents:
                pairs = tuple((level, weakref.ref(t)) for level, t in o._tangents.items())
                for level, t in o._tangents.items():
                    kept = _kept.get(level)
                    if kept is not None:
                        kept.add(node, t)
            weak.append(pairs)
        node.out_tangents = tuple(weak)


def kept_tangents(weak):
    """The tangents of one saved output, from what ``keep_out_tangents`` stored (None
    when it carries none): what a node gives the output it rebuilds for its rule.

    >>> x = eagerad.tensor([1.0], requires_grad=True)
    >>> with dual_level() as level:
    ...     y = make_dual(x, eagerad.tensor([2.0])).exp()
    ...     print(kept_tangents(y.grad_fn.out_tangents[0])[level].tolist() == unpack_dual(y).tangent.tolist())
    True
    """
    tangents = {}
    for level, ref in weak:
        t = ref()
        if t is not None:
            tangents[level] = t
    return tangents or None


def jvp_rules(op, tangents):
    """``(i, tangent, rule)`` for each argument ``i`` of the registry op ``op`` that carries a
    tangent and is differentiable; a differentiable argument without a jvp rule is an error.

    >>> from eagerad.ops import math
    >>> [i for i, t, rule in jvp_rules(math._mul, [None, eagerad.ones(1)])]
    [1]
    """
    for i, t in enumerate(tangents):
        if t is None:
            continue
        rule = op.jvp[i] if i < len(op.jvp) else None
        if rule is None:
            if i >= len(op.vjp) or op.vjp[i] is None:
                continue    # not differentiable in this argument (comparisons, indices)
            raise NotImplementedError(f"forward-mode AD: op '{op.name}' has no jvp rule for "
                                      f"argument {i}")
        yield i, t, rule


def _stand_in(out):
    """A second Tensor object for the op output ``out`` (same data, version, graph node and
    tangents so far): what a jvp rule reads as the result.  The rule's tangent is recorded
    over it, and ``out`` holds that tangent; were the rule to read ``out`` itself (``tanh``'s
    tangent is ``t * (1 - out * out)``), ``out`` and its tangent's graph would form a
    reference cycle that only the cycle collector frees.

    >>> x = eagerad.tensor([1.0], requires_grad=True) * 2
    >>> s = _stand_in(x); s is not x and s.grad_fn is x.grad_fn and s._version is x._version
    True
    """
    s = Tensor._make(out._data, out._device, out._requires_grad, out.grad_fn, out._version,
                     out._face)
    s.__dict__.update(out.__dict__)          # the rarely set fields (_out_index, ...)
    if out._tangents:
        s._tangents = dict(out._tangents)
    return s


def _rule_sum(op, tangents, args, kwargs, outs):
    ans = _stand_in(outs[0]) if op.n_outputs == 1 else tuple(_stand_in(o) for o in outs)
    total = None
    for _, t, rule in jvp_rules(op, tangents):
        part = rule(t, ans, *args, **kwargs)
        if op.n_outputs > 1:
            total = part if total is None else tuple(a + b for a, b in zip(total, part))
        else:
            total = part if total is None else total + part
    return total
