"""A replayable plan made from a trace, and its replay.

``Plan(trace, min_fuse)`` keeps the trace's steps in order, each chain that
``fusion.find_chains`` picks replaced by one call of its fused op (at the chain's last
step), and a step before the first use of each array the backend drew or filled during
the trace (drawn again).  ``plan.run(tensors)`` replays it on the tensors of a new call:
every op runs through the registry as an eager call would (recorded for autograd as
usual; random ops draw anew), tensors that existed before the trace (parameters,
closed-over tensors) are read by reference, so updates made to them in place since are
seen.  Before replaying, ``plan.valid()`` checks those tensors kept their shape, dtype,
device and ``requires_grad`` (else the caller traces again).

>>> import eagerad
>>> from eagerad.jit.trace import record
>>> x = eagerad.ones(2)
>>> p = Plan(record(lambda a: a * 3 + 1, (x,), {}, [x]), 1 << 40)
>>> p.run([eagerad.tensor([1.0, 2.0])]).tolist()
[4.0, 7.0]
"""
import weakref

from .. import backend
from ..autograd.grad_mode import state as _grad_state
from ..ops import registry
from ..tensor import Tensor
from . import fusion
from .trace import CONST, EXTERNAL, SOURCE, Slot

_apply = registry.apply


class Plan:
    """Steps ``(fn, arg template, slot positions, kwargs, output slots, grad mode)``; see
    the module docstring."""

    def __init__(self, trace, min_fuse):
        self.n_args = trace.n_args
        self.env = [v if k in (EXTERNAL, CONST) else None
                    for k, v in zip(trace.kinds, trace.values)]
        self.checks = [(v, trace.meta[s]) for s, (k, v) in enumerate(zip(trace.kinds, trace.values))
                       if k == EXTERNAL]
        self.out_tree = trace.out_tree
        self.views = tuple((int(s), int(root), steps) for s, root, steps in trace.views)
        self.fused = []
        chains = fusion.find_chains(trace, min_fuse)
        at = {}                                # last step index -> chain
        skip = set()
        for chain in chains:
            at[chain[-1]] = chain
            skip.update(chain)
        self.steps = steps = []
        drawn = set()
        for i, st in enumerate(trace.steps):
            if i in skip and i not in at:
                continue
            if i in at:
                fused, leaves = fusion.build(trace, at[i])
                self.fused.append(fused)
                op, args, kwargs, outs = fused.op, tuple(leaves), {}, trace.steps[i].outs
            else:
                op, args, kwargs, outs = st.op, st.args, st.kwargs, st.outs
            for a in args:
                if type(a) is Slot and trace.kinds[a] == SOURCE and a not in drawn:
                    drawn.add(a)
                    steps.append(_source_step(trace, a))
            positions = tuple((p, int(a)) for p, a in enumerate(args) if type(a) is Slot)
            template = [None if type(a) is Slot else a for a in args]
            steps.append((op, template, positions, kwargs, tuple(int(o) for o in outs), st.grad))

    def valid(self):
        """Whether every tensor read by reference still has the shape, dtype, device and
        ``requires_grad`` it had when traced."""
        for t, (shape, dtype, device, rg) in self.checks:
            d = t._data
            if d.shape != shape or d.dtype != dtype or t._device != device or \
                    t._requires_grad != rg:
                return False
        return True

    def run(self, tensors):
        """Replay on the argument tensors ``tensors`` (in ``guards.flatten_args`` order);
        returns the output structure with the new tensors."""
        env = self.env[:]
        env[:self.n_args] = tensors
        mode = _grad_state.enabled
        for op, template, positions, kwargs, outs, grad in self.steps:
            args = template[:]
            for p, s in positions:
                args[p] = env[s]
            if grad is None or grad is mode:
                result = _apply(op, tuple(args), kwargs) if type(op) is registry.Op else op()
            else:
                _grad_state.enabled = grad
                try:
                    result = _apply(op, tuple(args), kwargs)
                finally:
                    _grad_state.enabled = mode
            if len(outs) == 1:
                env[outs[0]] = result
            else:
                for o, r in zip(outs, result):
                    env[o] = r
        for s, root, steps in self.views:     # what ``ops.shape.track_view`` marked
            _mark_view(env[s], env[root], steps)
        return _unflatten(self.out_tree, env)


def _mark_view(out, root, steps):
    out._view = (root, steps)
    if root._views is None:
        root._views = weakref.WeakSet()
    root._views.add(out)


def _source_step(trace, slot):
    """A step drawing (or filling) again the array the backend made for ``slot``."""
    name, bargs, device, face = trace.sources[slot]
    fn = getattr(backend.get("cpu"), name)

    def draw():
        return Tensor._make(fn(*bargs), device, face=face)
    draw.__name__ = f"draw_{name}"
    return (draw, [], (), {}, (int(slot),), None)


def _unflatten(tree, env):
    if type(tree) is Slot:
        return env[tree]
    if tree is None:
        return None
    if type(tree) is tuple or type(tree) is list:
        return type(tree)(_unflatten(v, env) for v in tree)
    return {k: _unflatten(v, env) for k, v in tree.items()}
