"""A replayable plan made from a trace, and its replay.

``Plan(trace, min_fuse)`` keeps the trace's steps in order, each chain that
``fusion.find_chains`` picks replaced by one call of its fused op (at the chain's last
step), and a step before the first use of each array the backend drew or filled during
the trace (drawn again) and of each constant built from host data (copied again).  ``plan.run(tensors)`` replays it on the tensors of a new call:
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
from .trace import CONST, EXTERNAL, SOURCE, Slot

_apply = registry.apply


class Plan:
    """See the module docstring.  ``steps`` are ``(call, arguments, output slots, grad
    mode)`` with each tensor argument a ``Slot``; ``run`` is a Python function made from
    them (``_source``): one line per step, tensors in local variables."""

    def __init__(self, trace, min_fuse):
        self.checks = [(v, trace.meta[s]) for s, (k, v) in enumerate(zip(trace.kinds, trace.values))
                       if k == EXTERNAL]
        from . import fusion          # (Numba loads with the first plan, not with eagerad)
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
                if type(a) is Slot and trace.kinds[a] in (SOURCE, CONST) and a not in drawn:
                    drawn.add(a)
                    steps.append(_source_step(trace, a))
            steps.append((_caller(op, len(args), kwargs), args, outs, st.grad))
        self.run = _compile(self, trace)

    def valid(self):
        """Whether every tensor read by reference still has the shape, dtype, device and
        ``requires_grad`` it had when traced."""
        for t, (shape, dtype, device, rg) in self.checks:
            d = t._data
            if d.shape != shape or d.dtype != dtype or t._device != device or \
                    t._requires_grad != rg:
                return False
        return True


def _compile(plan, trace):
    """``run(tensors)``: the plan's steps as one Python function (``_source``)."""
    scope = {"_with_grad": _with_grad, "_mark_view": _mark_view}
    source = _source(plan, trace, scope)
    exec(compile(source, "<eagerad.jit plan>", "exec"), scope)
    return scope["run"]


def _source(plan, trace, scope):
    """The replay function's source; ``scope`` receives the objects it names (calls,
    constants, the tensors read by reference)."""
    def name(x):
        if type(x) is Slot:
            if trace.kinds[x] == EXTERNAL:
                scope[f"t{int(x)}"] = trace.values[x]
            return f"t{int(x)}"
        if x is None or type(x) in (bool, int, float, str) and repr(x) == repr(type(x)(x)) \
                and x == x and x not in (float("inf"), float("-inf")):
            return repr(x)
        key = f"k{len(scope)}"
        scope[key] = x
        return key
    lines = ["def run(tensors):"]
    if trace.arg_slots:
        seen = set()
        names = []
        for s in trace.arg_slots:
            names.append("_" if s in seen else f"t{int(s)}")
            seen.add(s)
        lines.append("    " + "".join(n + ", " for n in names) + "= tensors")
    for i, (call, args, outs, grad) in enumerate(plan.steps):
        scope[f"c{i}"] = call
        target = ", ".join(f"t{int(o)}" for o in outs)
        if grad is None or grad is trace.grad_mode:     # (the key holds the call's mode)
            expr = f"c{i}({', '.join(name(a) for a in args)})"
        else:
            expr = f"_with_grad({grad}, c{i}{''.join(', ' + name(a) for a in args)})"
        lines.append(f"    {target} = {expr}")
    for s, root, steps in trace.views:          # what ``ops.shape.track_view`` marked
        lines.append(f"    _mark_view(t{int(s)}, t{int(root)}, {name(steps)})")
    lines.append(f"    return {_tree(trace.out_tree, name)}")
    return "\n".join(lines) + "\n"


def _tree(tree, name):
    if type(tree) is Slot:
        return f"t{int(tree)}"
    if tree is None:
        return "None"
    if type(tree) is tuple:
        return "(" + "".join(_tree(v, name) + ", " for v in tree) + ")"
    if type(tree) is list:
        return "[" + ", ".join(_tree(v, name) for v in tree) + "]"
    return "{" + ", ".join(f"{name(k)}: {_tree(v, name)}" for k, v in tree.items()) + "}"


def _with_grad(flag, call, *args):
    """``call(*args)`` with grad mode ``flag`` (a ``no_grad`` block inside the function)."""
    mode = _grad_state.enabled
    if flag is mode:
        return call(*args)
    _grad_state.enabled = flag
    try:
        return call(*args)
    finally:
        _grad_state.enabled = mode


def _caller(op, n_args, kwargs):
    """``op`` applied to its positional arguments as the registry's lean paths do it for
    the common shapes (``Op.apply1``/``apply2``: the same result, recorded the same way)."""
    if op.n_outputs == 1 and not kwargs and n_args == 1:
        return op.apply1
    if op.n_outputs == 1 and not kwargs and n_args == 2:
        return op.apply2

    def call(*args):
        return _apply(op, args, kwargs)
    return call


def _mark_view(out, root, steps):
    out._view = (root, steps)
    if root._views is None:
        root._views = weakref.WeakSet()
    root._views.add(out)


def _source_step(trace, slot):
    """A step drawing (or filling) again the array the backend made for ``slot``, or
    copying a constant's array."""
    name, bargs, device, face = trace.sources[slot]
    fn = backend.get("cpu").copy if name == "copy" else getattr(backend.get("cpu"), name)

    def draw():
        return Tensor._make(fn(*bargs), device, face=face)
    draw.__name__ = f"draw_{name}"
    return (draw, (), (slot,), None)
