"""Fusing a trace's elementwise chains into one op each.

``find_chains`` picks maximal chains of elementwise float ops (``codegen.UNARY`` and
``codegen.BINARY``: broadcasting allowed, every tensor of one dtype, float32 or float64, on
the CPU) whose intermediate values nothing outside the chain uses, optionally ending in a
full ``sum``.  ``FusedChain`` makes each one a proper op (``registry.Op``), recorded by the
engine like any other: its forward is one generated Numba pass (``codegen``); its
first-order backward (no graph of the backward recorded) one generated pass that
recomputes the chain from the saved leaves, except for a chain ending in a sum run in grad
mode (a loss): its forward pass also writes the gradients for an output gradient of 1,
which the backward scales by the output gradient; its differentiable vjp rules (``create_graph``,
higher order) re-run the chain with the original ops and compose their own vjp rules, so
n-th derivatives are those of the unfused ops.

>>> prog = FusedChain((("tanh", (("L", 0),)), ("mul", (("V", 0), ("L", 0)))), "float64",
...                   False, (True,), ("tanh", "mul"))
>>> prog.op.name
'fused_tanh_mul'
"""
import weakref

import numba
import numpy as np

from ..autograd.grad_mode import state as _grad_state
from ..backend.cpu import pool
from ..ops import registry
from ..tensor import Tensor, zeros_like
from . import codegen
from .trace import Slot

FUSABLE = frozenset(codegen.UNARY) | frozenset(codegen.BINARY)
PARALLEL_MIN = 1 << 16     # elements from which the kernels run on every core


def _number(v):
    t = type(v)
    return (t is float or t is int) and t is not bool


def _fusable(trace, step, dtype=None):
    """The dtype of an elementwise step that can join a chain, else None."""
    if step.op.name not in FUSABLE or step.kwargs or len(step.outs) != 1:
        return None
    d = trace.meta[step.outs[0]][1]
    if trace.meta[step.outs[0]][2].type != "cpu" or d.name not in ("float32", "float64") or (dtype is not None and d != dtype):
        return None
    for a in step.args:
        if type(a) is Slot:
            shape, adt, device, _ = trace.meta[a]
            if adt != d or device.type != "cpu":
                return None
        elif not _number(a):
            return None
    return d


def _uses(trace):
    """How many times each slot is an argument of a step (outputs: uncountably many)."""
    uses = {}
    for st in trace.steps:
        for a in st.args:
            if type(a) is Slot:
                uses[a] = uses.get(a, 0) + 1

    def walk(x):
        if type(x) is Slot:
            uses[x] = 1 << 30
        elif isinstance(x, (tuple, list)):
            for v in x:
                walk(v)
        elif isinstance(x, dict):
            for v in x.values():
                walk(v)
    walk(trace.out_tree)
    return uses


def _sum_sink(trace, st, src):
    """Whether step ``st`` is a full ``sum`` of slot ``src`` keeping its dtype."""
    kw = st.kwargs
    ndim = len(trace.meta[src][0])
    return kw.get("keepdims") is False and tuple(kw.get("axes", ())) == tuple(range(ndim)) \
        and trace.meta[st.outs[0]][1] == trace.meta[src][1]


def find_chains(trace, min_size):
    """Chains to fuse: lists of step indices (in trace order, the last one the chain's
    output, possibly a full ``sum``) of at least two ops over ``min_size`` elements."""
    steps = trace.steps
    uses = _uses(trace)
    producer = {}                       # slot -> index of the step making it
    chain_of = {}                       # step index -> chain id
    chains, closed = {}, set()          # chain id -> step indices; chains ended by a sum
    for i, st in enumerate(steps):
        if st.op.name == "sum" and len(st.args) == 1 and type(st.args[0]) is Slot:
            src = st.args[0]
            cid = chain_of.get(producer.get(src))
            if cid is not None and cid not in closed and uses.get(src) == 1 and \
                    steps[producer[src]].grad == st.grad and _sum_sink(trace, st, src):
                chains[cid].append(i)
                chain_of[i] = cid
                closed.add(cid)
        elif _fusable(trace, st) is not None:
            dtype = trace.meta[st.outs[0]][1]
            cid = i
            chains[cid] = [i]
            chain_of[i] = cid
            for a in st.args:
                if type(a) is not Slot:
                    continue
                pc = chain_of.get(producer.get(a))
                if pc is None or pc == cid or pc in closed or steps[producer[a]].grad != st.grad \
                        or trace.meta[a][1] != dtype \
                        or uses.get(a) != sum(1 for b in st.args if type(b) is Slot and b == a):
                    continue
                for k in chains[pc]:
                    chain_of[k] = cid
                chains[cid] = chains.pop(pc) + chains[cid]
        for o in st.outs:
            producer[o] = i
    out = []
    for chain in chains.values():
        chain.sort()
        last = chain[-2] if steps[chain[-1]].op.name == "sum" else chain[-1]
        if len(chain) >= 2 and int(np.prod(trace.meta[steps[last].outs[0]][0])) >= min_size:
            out.append(chain)
    return sorted(out)


class FusedChain:
    """One fused chain: the generated kernels and the op (``.op``) that runs them.

    ``program`` (see ``codegen``), ``dtype`` (a name), ``reduce`` (ends in a full sum),
    ``needs`` (which leaves get gradients) and ``names`` (the original ops, for the op's
    name); ``originals`` are the original ops with their keywords, per instruction."""

    def __init__(self, program, dtype, reduce, needs, names, originals=None):
        self.program, self.dtype, self.reduce, self.needs = program, dtype, reduce, needs
        self.np_dtype = np.dtype(dtype)
        self.originals = originals or tuple((registry.OPS[n], {}) for n in names)
        self.modules = {}
        self.memo = None
        k = len(needs)
        vjp = tuple(self._rule(i) if needs[i] else None for i in range(k))
        fast = tuple(self._fast(i) if needs[i] else None for i in range(k))
        self.stash = {}        # id(output array) -> (weak ref to it, {leaf: gradient array})
        self.op = registry.Op("fused_" + "_".join(names), self._forward, vjp, (None,) * k,
                              None, reduce, fast, 1, False, False, None)

    # ------------------------------------------------------------ kernels
    def _kernels(self, kinds, g_kind):
        key = (kinds, g_kind)
        mod = self.modules.get(key)
        if mod is None:
            mod = self.modules[key] = codegen.load(codegen.kernel_source(
                self.program, kinds, self.dtype, self.reduce, self.needs, g_kind))
        return mod

    def _operands(self, leaves, shape):
        """Each leaf as the kernel takes it, and its kind ("a": array of the output's size,
        "s": one number)."""
        t = self.np_dtype.type
        args, kinds = [], []
        for x in leaves:
            if not isinstance(x, np.ndarray):
                args.append(t(x))
                kinds.append("s")
            elif x.size == 1 and x.shape != shape or x.ndim == 0:
                args.append(t(x.reshape(-1)[0]))
                kinds.append("s")
            else:
                if x.shape != shape:
                    x = np.broadcast_to(x, shape)
                args.append(np.ascontiguousarray(x).reshape(-1))
                kinds.append("a")
        return args, "".join(kinds)

    def _shape(self, leaves):
        return np.broadcast_shapes(*[x.shape for x in leaves if isinstance(x, np.ndarray)])

    def _forward(self, B, *leaves):
        shape = self._shape(leaves)
        n = int(np.prod(shape))
        args, kinds = self._operands(leaves, shape)
        mod = self._kernels(kinds, "s" if self.reduce else "a")
        parallel = n >= PARALLEL_MIN and numba.get_num_threads() > 1
        if self.reduce and any(self.needs) and _grad_state.enabled:
            # A sum is a loss: its gradient (for an output gradient of 1) comes in the same
            # pass, kept until the node's backward takes it (or the output dies).
            outs = {k: pool.empty((n,), self.np_dtype) for k, need in enumerate(self.needs)
                    if need}
            fn = mod.forward_grad_p if parallel else mod.forward_grad_s
            out = np.array(fn(n, *args, *outs.values()), dtype=self.np_dtype)
            key = id(out)
            self.stash[key] = (weakref.ref(out), outs, shape)
            weakref.finalize(out, self.stash.pop, key, None)
            return out
        if self.reduce:
            fn = mod.forward_p if parallel else mod.forward_s
            return np.array(fn(n, *args), dtype=self.np_dtype)
        out = pool.empty((n,), self.np_dtype)
        (mod.forward_p if parallel else mod.forward_s)(n, out, *args)
        return out.reshape(shape)

    def _backward_arrays(self, gd, leaves):
        """Every needed leaf's gradient at the output's shape (the engine sums it down)."""
        shape = self._shape(leaves)
        n = int(np.prod(shape))
        args, kinds = self._operands(leaves, shape)
        if self.reduce or gd.ndim == 0 or not any(gd.strides):
            g, g_kind = self.np_dtype.type(gd.reshape(-1)[0]), "s"
        else:
            g, g_kind = np.ascontiguousarray(np.broadcast_to(gd, shape)).reshape(-1), "a"
        mod = self._kernels(kinds, g_kind)
        outs = {k: pool.empty((n,), self.np_dtype) for k, need in enumerate(self.needs) if need}
        parallel = n >= PARALLEL_MIN and numba.get_num_threads() > 1
        (mod.backward_p if parallel else mod.backward_s)(n, g, *args, *outs.values())
        return {k: v.reshape(shape) for k, v in outs.items()}

    def _fast(self, i):
        def rule(B, gd, ans, *leaves):
            if gd.dtype != self.np_dtype or gd.dtype.kind != "f":
                return None
            kept = self.stash.get(id(ans)) if ans is not None else None
            if kept is not None and kept[0]() is ans and i in kept[1]:
                arr = kept[1].pop(i)            # the forward's: scaled by g in place
                g = gd.reshape(-1)[0]
                if g != 1:
                    np.multiply(arr, g, out=arr)
                return arr.reshape(kept[2])
            memo = self.memo
            if memo is None or memo[0] is not gd or len(memo[1]) != len(leaves) or \
                    any(a is not b for a, b in zip(memo[1], leaves)) or i not in memo[2]:
                memo = self.memo = (gd, leaves, self._backward_arrays(gd, leaves))
            grads = memo[2]
            out = grads.pop(i)
            if not grads:
                self.memo = None
            return out
        return rule

    # ------------------------------------------------------------ differentiable rules
    def _rule(self, i):
        def rule(g, ans, *leaves):
            return self.composed_vjp(g, leaves)[i]
        return rule

    def composed_vjp(self, g, leaves):
        """The gradients of the leaves by the original ops and their own vjp rules (recorded
        when grad mode is on, so differentiable again); zeros where a leaf gets none."""
        vals = []

        def value(ref):
            return leaves[ref[1]] if ref[0] == "L" else vals[ref[1]]
        calls = []
        for (name, operands), (op, kw) in zip(self.program, self.originals):
            args = tuple(value(r) for r in operands)
            vals.append(registry.apply(op, args, kw))
            calls.append((op, args, kw))
        if self.reduce:
            op, kw = self.originals[-1]
            args = (vals[-1],)
            vals.append(registry.apply(op, args, kw))
            calls.append((op, args, kw))
        adj = {len(calls) - 1: g}
        grads = [None] * len(leaves)
        refs = [operands for _, operands in self.program] + ([(("V", len(self.program) - 1),)]
                                                             if self.reduce else [])
        for j in range(len(calls) - 1, -1, -1):
            gj = adj.pop(j, None)
            if gj is None:
                continue
            op, args, kw = calls[j]
            for pos, ref in enumerate(refs[j]):
                a = args[pos]
                if not isinstance(a, Tensor) or (ref[0] == "L" and not self.needs[ref[1]]):
                    continue
                part = registry.fit_gradient(op.vjp[pos](gj, vals[j], *args, **kw), a)
                if ref[0] == "L":
                    k = ref[1]
                    grads[k] = part if grads[k] is None else grads[k] + part
                else:
                    k = ref[1]
                    adj[k] = part if k not in adj else adj[k] + part
        return [gr if gr is not None or not isinstance(x, Tensor) else zeros_like(x)
                for gr, x in zip(grads, leaves)]


def build(trace, chain):
    """The ``FusedChain`` of ``chain`` (step indices of ``trace``) and its leaves: slots or
    Python numbers, in the order the fused op takes them."""
    steps = trace.steps
    inside = {}
    program, names, originals = [], [], []
    leaves, leaf_index = [], {}
    reduce = steps[chain[-1]].op.name == "sum"
    body = chain[:-1] if reduce else chain
    for idx in body:
        st = steps[idx]
        operands = []
        for a in st.args:
            if type(a) is Slot and a in inside:
                operands.append(("V", inside[a]))
                continue
            key = ("slot", int(a)) if type(a) is Slot else ("num", type(a), a, len(leaves))
            if key not in leaf_index:
                leaf_index[key] = len(leaves)
                leaves.append(a)
            operands.append(("L", leaf_index[key]))
        inside[st.outs[0]] = len(program)
        program.append((st.op.name, tuple(operands)))
        names.append(st.op.name)
        originals.append((st.op, {}))
    if reduce:
        st = steps[chain[-1]]
        names.append("sum")
        originals.append((st.op, dict(st.kwargs)))
    dtype = trace.meta[steps[chain[-1]].outs[0]][1].name
    grad = steps[chain[-1]].grad
    needs = tuple(bool(grad and type(a) is Slot and trace.meta[a][3]) for a in leaves)
    fused = FusedChain(tuple(program), dtype, reduce, needs, tuple(names), tuple(originals))
    return fused, leaves

