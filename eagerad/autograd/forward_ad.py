"""Forward-mode AD: tangents ride along with primal values.

Inside ``dual_level()`` a tensor may carry a tangent (``make_dual``); every op
then also runs its jvp rules, written in eagerad ops, so tangents are
themselves differentiable (forward-over-reverse gives Hessian-vector products).
Levels nest: while a rule for level L runs, level L is switched off, so the
rule's own ops only carry the tangents of the other levels.

>>> import eagerad
>>> from eagerad.autograd import forward_ad as fwAD
>>> with fwAD.dual_level():
...     x = fwAD.make_dual(eagerad.tensor([1.0]), eagerad.tensor([1.0]))
...     print(fwAD.unpack_dual(x.sin() * 2).tangent)
[1.0806046]
"""
import collections
import contextlib

from ..tensor import Tensor
from . import batching

levels = []          # active levels, innermost last (empty: forward AD costs nothing)
_counter = [0]
UnpackedDual = collections.namedtuple("UnpackedDual", "primal tangent")
alias = None         # tensor -> a view of it behind its own graph node: set by the op layer


@contextlib.contextmanager
def dual_level():
    """Open a level for tangents; they are dropped from every tensor's view when it closes.

    >>> with dual_level():
    ...     x = make_dual(eagerad.tensor([2.0]), eagerad.tensor([1.0]))
    ...     print(unpack_dual(x * x).tangent)
    [4.]
    """
    _counter[0] += 1
    level = _counter[0]
    levels.append(level)
    try:
        yield level
    finally:
        levels.remove(level)


def _current(level):
    if level is None:
        if not levels:
            raise RuntimeError("make_dual/unpack_dual need an open forward_ad.dual_level()")
        return levels[-1]
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
    dual = alias(primal)
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
    if level is None and not levels:
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
        keep_out_tangents(outs)


def levels_with_tangents(args):
    """``(level, tangents)`` for each active level at which some of ``args`` carry a tangent;
    ``tangents`` has one entry per argument (None where it carries none).

    >>> list(levels_with_tangents([eagerad.ones(1)]))
    []
    """
    for level in tuple(levels):
        tangents = [a._tangents.get(level) if isinstance(a, Tensor) and a._tangents else None
                    for a in args]
        if any(t is not None for t in tangents):
            yield level, tangents


def without_level(level, fn, *args):
    """``fn(*args)`` with ``level`` switched off, so the ops of a jvp rule for that level
    carry only the tangents of the other levels.

    >>> with dual_level() as level:
    ...     without_level(level, lambda: len(levels))
    0
    """
    idx = levels.index(level)
    levels.pop(idx)
    try:
        return fn(*args)
    finally:
        levels.insert(idx, level)


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

    >>> keep_out_tangents([eagerad.ones(1)])   # no node: nothing to do
    """
    node = outs[0].grad_fn
    if node is not None and node.out_data is not None:
        node.out_tangents = tuple(o._tangents for o in outs)


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


def _rule_sum(op, tangents, args, kwargs, outs):
    ans = outs[0] if op.n_outputs == 1 else outs
    total = None
    for _, t, rule in jvp_rules(op, tangents):
        part = rule(t, ans, *args, **kwargs)
        if op.n_outputs > 1:
            total = part if total is None else tuple(a + b for a, b in zip(total, part))
        else:
            total = part if total is None else total + part
    return total
