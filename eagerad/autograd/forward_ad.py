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

levels = []          # active levels, innermost last (empty: forward AD costs nothing)
_counter = [0]
UnpackedDual = collections.namedtuple("UnpackedDual", "primal tangent")
# level -> function used instead of the per-op jvp rules at that level; jacfwd's levels carry
# tangents with one extra leading batch dimension and need shape-aware rules
batched = {}


@contextlib.contextmanager
def dual_level():
    """Open a level for tangents; they are dropped from every tensor's view when it closes."""
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
    """A view of ``primal`` that carries ``tangent`` at ``level`` (default: innermost)."""
    level = _current(level)
    if not isinstance(tangent, Tensor):
        tangent = Tensor(tangent, dtype=primal.dtype)
    if tangent.shape != primal.shape:
        raise ValueError(f"make_dual: tangent shape {tangent.shape} does not match primal shape "
                         f"{primal.shape}")
    from ..ops import alias
    dual = alias(primal)
    dual._tangents = dict(primal._tangents or {})
    dual._tangents[level] = tangent
    return dual


def unpack_dual(tensor, level=None):
    """``(primal, tangent)``; tangent is None when the tensor carries none at ``level``."""
    level = _current(level)
    tangents = tensor._tangents
    return UnpackedDual(tensor, tangents.get(level) if tangents else None)


def propagate(op, args, kwargs, outs):
    """Give the outputs of ``op`` their tangents at every active level."""
    for level in tuple(levels):
        tangents = [a._tangents.get(level) if isinstance(a, Tensor) and a._tangents else None
                    for a in args]
        if not any(t is not None for t in tangents):
            continue
        idx = levels.index(level)
        levels.pop(idx)
        try:
            out_tangent = batched.get(level, _rule_sum)(op, tangents, args, kwargs, outs)
        finally:
            levels.insert(idx, level)
        if out_tangent is None:
            continue
        pairs = zip(outs, out_tangent) if op.n_outputs > 1 else ((outs[0], out_tangent),)
        for out, t in pairs:
            if t is None:
                continue
            if t.shape != out.shape and level not in batched:
                t = t.broadcast_to(out.shape)
            if t.dtype != out.dtype:
                t = t.astype(out.dtype)
            if out._tangents is None:
                out._tangents = {}
            out._tangents[level] = t
        node = outs[0].grad_fn
        if node is not None and node.out_data is not None:
            node.out_tangents = tuple(o._tangents for o in outs)


def _rule_sum(op, tangents, args, kwargs, outs):
    ans = outs[0] if op.n_outputs == 1 else outs
    total = None
    for i, t in enumerate(tangents):
        if t is None:
            continue
        rule = op.jvp[i] if i < len(op.jvp) else None
        if rule is None:
            if i >= len(op.vjp) or op.vjp[i] is None:
                continue    # not differentiable in this argument (comparisons, indices)
            raise NotImplementedError(f"forward-mode AD: op '{op.name}' has no jvp rule for "
                                      f"argument {i}")
        part = rule(t, ans, *args, **kwargs)
        if op.n_outputs > 1:
            total = part if total is None else tuple(a + b for a, b in zip(total, part))
        else:
            total = part if total is None else total + part
    return total
