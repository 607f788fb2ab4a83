"""Per-op fast paths, made from an op's stanza the first time the op is used.

Most calls of an op have one shape: one or two operands, a Tensor on the CPU (and a
Tensor or a Python number), no keywords, no vmap or forward-mode level, no tracer.
For those, ``appliers(op)`` makes ``op.apply1(x)`` / ``op.apply2(x, y)``: the kernel
runs (for a declared ``kernel=`` on small float32/float64 arrays, the backend's own
numpy function, called directly), the result is made and the node recorded inline.
Each recorded node carries a backward on bare arrays generated for its op and call
shape (``lean_backward``): which operands were saved, which need a gradient, whether
the output is read.  It checks the saved versions and runs the op's array rules
(``fast=``); where any of its conditions fails it returns None and the engine runs the
op's general array backward (``op.array_backward``), which raises the usual errors or
falls back to the differentiable rules.  Everything else (keywords, views, several
outputs, other devices, hooks, ``create_graph``, anomaly mode, forward AD, vmap) takes
the general path, which is always right: these paths make no number of their own.

Nothing here runs at import: an op's appliers and backwards are made on its first call.

>>> x = eagerad.tensor([0.5, 1.0], requires_grad=True)
>>> y = OPS['sin'].apply1(x); y.grad_fn.lean is not None
True
>>> y.sum().backward(); bool((x.grad.numpy() == np.cos(np.float32([0.5, 1.0]))).all())
True
"""
import functools
from heapq import heappush

import numpy as np

from .. import backend
from ..autograd import batching, forward_ad
from ..autograd.anomaly import anomaly, creation_trace
from ..autograd.engine import _add_arrays
from ..autograd.grad_mode import state as grad_state
from ..autograd.node import Node, _sequence
from ..device import CPU
from ..tensor import Tensor
from . import registry
from .registry import OPS, PerArg, Unsaved, _backend, _backends, _sum_to_array, apply  # noqa: F401

_new = object.__new__
_ndarray = np.ndarray
_asarray = np.asarray
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)


def small_kernel(op):
    """``(function, limit)``: the array function that the CPU backend's ``unary``/``binary``
    call of ``op``'s declared ``kernel`` runs on float32/float64 arrays of fewer than
    ``limit`` elements (and Python numbers), or None (no kernel declared, or one the
    backend treats specially: ``pow``'s integer powers).

    >>> small_kernel(OPS['sin'])[0] is np.sin, small_kernel(OPS['matmul'])
    (True, None)
    """
    if op.kernel is None:
        return None
    kind, name = op.kernel
    B = backend.get("cpu")
    fn = (B.UNARY if kind == "unary" else B.BINARY).get(name)
    if fn is None or kind == "binary" and name == "pow":
        return None
    # (from FUSED_MIN elements the backend runs its own kernel for some ops: so must we)
    return fn, B.FUSED_MIN if name in B.OWN_KERNELS else B._POOL_ITEMS


def appliers(op):
    """``(apply1, apply2)`` of ``op`` (see the module docstring), generated as source from
    its stanza; ``apply`` where the op has several outputs, makes views or moves devices.

    >>> a1, a2 = appliers(OPS['mul']); a2(eagerad.tensor([2.0]), 3.0).tolist()
    [6.0]
    """
    def general1(x):
        return apply(op, (x,), {})

    def general2(x, y):
        return apply(op, (x, y), {})
    if op.n_outputs != 1 or op.view or op.moves_device:
        return general1, general2
    vjp = op.vjp
    rule0 = len(vjp) > 0 and vjp[0] is not None
    rule1 = len(vjp) > 1 and vjp[1] is not None
    kernel = small_kernel(op)

    def keeps(wanted):       # which of the two operands the node keeps (others: ``Unsaved``)
        saves = op.saves
        if saves is None:
            return (True, True)
        if type(saves) is dict:
            saves = frozenset(j for i, s in saves.items() if wanted >> i & 1 for j in s)
        return (0 in saves, 1 in saves)
    plans = [None] + [keeps(w) for w in (1, 2, 3)]
    keep_x = plans[1][0]
    # The lean step of each call shape, made at its first record (None: none applies):
    # index 0 for apply1; for apply2 ``wanted`` (bit i: operand i gets a gradient) plus 4
    # when y is a Python number.
    made = [_UNMADE] * 8

    def lean_for(key):
        if key == 0:
            spec = ("S+" if keep_x else "U+",)
        else:
            wanted, number = key & 3, key >= 4
            keep0, keep1 = plans[wanted]
            spec = (("S" if keep0 else "U") + ("+" if wanted & 1 else "-"),
                    "N" if number else ("S" if keep1 else "U") + ("+" if wanted & 2 else "-"))
        step = made[key] = lean_backward(op, spec, op.save_output)
        return step

    env = {"__name__": __name__, "op": op, "name": op.node_name, "bfn": op.backward_fn,
           "forward": op.forward,
           "uf": kernel[0] if kernel else None, "LIMIT": kernel[1] if kernel else 0,
           "blevels": batching.levels, "flevels": forward_ad.levels, "reg": registry,
           "seq": _sequence, "plans": plans, "made": made, "lean_for": lean_for,
           "UNMADE": _UNMADE, "apply": apply, "Tensor": Tensor, "Node": Node,
           "Unsaved": Unsaved, "new": _new, "ndarray": _ndarray, "asarray": _asarray,
           "F32": _F32, "F64": _F64, "CPU": CPU, "backends": _backends,
           "backend_of": _backend, "grad_state": grad_state, "anomaly": anomaly,
           "creation_trace": creation_trace}
    record = _RECORD.replace("OUT_FIELDS", _OUT_SAVED if op.save_output else _OUT_NONE)
    src1 = _APPLY1.replace("RESULT", _RESULT).replace(
        "FORWARD", _KERNEL1 if kernel else _FORWARD1).replace(
        "RECORD", _RECORD1.replace("INPUT", _KEEP_X if keep_x else _UNSAVED_X) + record
        if rule0 else "")
    src2 = _APPLY2.replace("RESULT", _RESULT).replace(
        "FORWARD", _KERNEL2 if kernel else _FORWARD2).replace(
        "RECORD", _RECORD2 + record if rule0 or rule1 else "").replace(
        "RULE0", str(rule0)).replace("RULE1", str(rule1))
    exec(compile(src1 + src2, f"<eagerad lean appliers of {op.name}>", "exec"), env)
    return env["apply1"], env["apply2"]


# Source templates of ``appliers``: the upper-case words are replaced by the parts that
# the op's stanza selects, so the generated functions carry no branch on the stanza.
_APPLY1 = """
def apply1(x):
    if type(x) is not Tensor and not isinstance(x, Tensor) or blevels or flevels \
            or reg.tracer is not None:
        return apply(op, (x,), {})
    dev = x._device
    xd = x._data
    cpu = type(xd) is ndarray and (dev is CPU or dev.type == "cpu")
FORWARD
RESULT
RECORD
    return t
"""
# the result Tensor, made field by field (``Tensor._make``)
_RESULT = """
    t = new(Tensor)
    t._data = out
    t._device = dev
    t._requires_grad = False
    t.grad_fn = None
    t._version = [0]
    t._face = x._face
"""
_FORWARD1 = """
    out = forward(backends.get(dev.type) or backend_of(dev), xd)
"""
_KERNEL1 = """
    if cpu and xd.size < LIMIT and ((dt := xd.dtype) is F32 or dt is F64):
        out = uf(xd)
        if type(out) is not ndarray:
            out = asarray(out)
    else:
        out = forward(backends.get(dev.type) or backend_of(dev), xd)
"""
_RECORD1 = """
    if x._requires_grad and grad_state.enabled:
        node = new(Node)
        fn = x.grad_fn
        node.next = ((fn, x._out_index) if fn is not None else (x, 0),)
INPUT
        key = 0
"""
_KEEP_X = """
        version = x._version
        node.inputs = (x,)
        node.saved_versions = ((x, version, version[0]),)
"""
_UNSAVED_X = """
        if cpu:       # ``Unsaved(x)``, field by field (a numpy shape is a tuple)
            u = new(Unsaved)
            u.shape = xd.shape
            u.dtype = xd.dtype
            u._device = dev
            u._requires_grad = True
        else:
            u = Unsaved(x)
        node.inputs = (u,)
        node.saved_versions = ()
"""
_APPLY2 = """
def apply2(x, y):
    if type(x) is not Tensor and not isinstance(x, Tensor) or blevels or flevels \
            or reg.tracer is not None:
        return apply(op, (x, y), {})
    dev = x._device
    xd = x._data
    ty = type(y)
    if ty is float or ty is int:
        yd = y
        y_wants = False
        number = small = True
    elif ty is Tensor or isinstance(y, Tensor):
        if y._device is not dev and y._device != dev:
            return apply(op, (x, y), {})     # raises, naming the argument
        yd = y._data
        y_wants = RULE1 and y._requires_grad
        number = False
        small = type(yd) is ndarray and yd.size < LIMIT and \\
            ((dt := yd.dtype) is F32 or dt is F64)
    else:                 # another operand (a numpy array, a complex number, ...)
        return apply(op, (x, y), {})
    cpu = type(xd) is ndarray and (dev is CPU or dev.type == "cpu")
FORWARD
RESULT
RECORD
    return t
"""
_FORWARD2 = """
    out = forward(backends.get(dev.type) or backend_of(dev), xd, yd)
"""
_KERNEL2 = """
    if small and cpu and xd.size < LIMIT and ((dt := xd.dtype) is F32 or dt is F64):
        out = uf(xd, yd)
        if type(out) is not ndarray:
            out = asarray(out)
    else:
        out = forward(backends.get(dev.type) or backend_of(dev), xd, yd)
"""
_RECORD2 = """
    x_wants = RULE0 and x._requires_grad
    if (x_wants or y_wants) and grad_state.enabled:
        wanted = 3 if x_wants and y_wants else 1 if x_wants else 2
        keep0, keep1 = plans[wanted]
        node = new(Node)
        if keep0:
            version = x._version
            saved = ((x, version, version[0]),)
            in0 = x
        elif cpu:        # ``Unsaved(x)``, field by field (a numpy shape is a tuple)
            saved = ()
            in0 = new(Unsaved)
            in0.shape = xd.shape
            in0.dtype = xd.dtype
            in0._device = dev
            in0._requires_grad = x._requires_grad
        else:
            saved = ()
            in0 = Unsaved(x)
        if number:
            in1 = y
        elif keep1:
            version = y._version
            saved += ((y, version, version[0]),)
            in1 = y
        else:
            in1 = Unsaved(y)
        if x_wants:
            fn = x.grad_fn
            e0 = (fn, x._out_index) if fn is not None else (x, 0)
        else:
            e0 = None
        if y_wants:
            fn = y.grad_fn
            e1 = (fn, y._out_index) if fn is not None else (y, 0)
        else:
            e1 = None
        node.next = (e0, e1)
        node.inputs = (in0, in1)
        node.saved_versions = saved
        key = wanted + 4 if number else wanted
        cpu = cpu and (number or type(yd) is ndarray)
"""
# the fields every lean node sets alike (``node``, ``key`` and ``cpu`` made above)
_RECORD = """
        node.name = name
        node.op = op
        node.backward_fn = bfn
        node.device = dev
OUT_FIELDS
        node.seq = next(seq)
        node.released = False
        if cpu:
            step = made[key]
            node.lean = step if step is not UNMADE else lean_for(key)
        else:
            node.lean = None
        if anomaly.enabled:
            node.trace = creation_trace()
        t.grad_fn = node
        t._requires_grad = True
"""
_OUT_SAVED = """
        node.out_data = (out,)
        node.out_version = ((t._version, 0),)
"""
_OUT_NONE = """
        node.out_data = node.out_version = None
"""
_UNMADE = object()     # (a call shape whose lean step is not made yet)


def _array_rules(op):
    """Per operand, the op's array rule where its vjp rule exists, else None; None for
    ops of any number of operands."""
    fast, vjp = op.fast, op.vjp
    if isinstance(fast, PerArg) or isinstance(vjp, PerArg):
        return None
    return tuple(fast[i] if i < len(fast) and vjp[i] is not None else None
                 for i in range(len(vjp)))


def step_for(op, spec, save_output, kwargs=False):
    """``lean_backward`` of ``op`` for ``spec`` (and keywords or none), made once per op and
    call shape: what ``registry._record`` gives the nodes it records.

    >>> step_for(OPS['sum'], ("U+",), False, True) is step_for(OPS['sum'], ("U+",), False, True)
    True
    """
    steps = op.__dict__.get("lean_steps")
    if steps is None:
        steps = op.__dict__["lean_steps"] = {}
    key = (spec, kwargs)
    step = steps.get(key, _UNMADE)
    if step is _UNMADE:
        step = steps[key] = lean_backward(op, spec, save_output, kwargs)
    return step


def lean_backward(op, spec, save_output, kwargs=False):
    """The engine's whole step for a node of ``op`` recorded with the call shape ``spec``
    (per operand: ``"S"`` saved Tensor, ``"U"`` ``Unsaved``, ``"N"`` Python number; ``+`` when
    it gets a gradient; ``kwargs``: the rules get the node's keywords), generated as source
    from the stanza; None where an operand that gets a gradient has no array rule.

    ``step(node, gd, free, buffers, leaf_grads, heap)`` runs the op's array rules on the
    output gradient array ``gd``, frees what the node saved when ``free``, delivers each
    gradient into the buffer of the node (or the sum of the leaf) it is for, pushing a node
    whose buffer it makes onto ``heap`` (as ``(-seq, node)``: the engine's queue), and
    returns True.  It
    returns None, having changed nothing, where the node was freed, a saved value changed
    in place, the arrays are complex, the operands' dtypes differ from the gradient's for
    ``SameDtype`` rules, or a rule declines: then the engine runs ``op.array_backward``,
    which raises the usual errors or falls back to the differentiable rules.

    >>> step = lean_backward(OPS['mul'], ("U+", "N"), False)
    >>> x = eagerad.tensor([1.0], requires_grad=True); node = (x * 3.0).grad_fn
    >>> sums = {}; step(node, np.ones(1, np.float32), True, {}, sums, []), sums[x]
    (True, array([3.], dtype=float32))
    """
    rules = _array_rules(op)
    if rules is None or len(rules) < len(spec):
        return None
    same = op.same_dtype
    lines = ["def step(node, gd, free, buffers, leaf_grads, heap):",
             "    if node.released:",
             "        return None",
             "    dt = gd.dtype",
             "    if dt is not F32 and dt is not F64 and dt.kind == 'c':",
             "        return None"]
    env = {"__name__": __name__, "F32": _F32, "F64": _F64, "backends": _backends,
           "backend_of": _backend, "sum_to": _sum_to_array,
           "Node": Node, "add": _add_arrays, "heappush": heappush}
    if save_output:
        lines += ["    ov, os_ = node.out_version[0]",
                  "    if ov[0] != os_:",
                  "        return None",
                  "    ad = node.out_data[0]"]
    else:
        lines.append("    ad = None")
    if any(s[0] == "S" for s in spec):
        lines.append("    sv = node.saved_versions")
    if any(s[0] != "S" for s in spec):
        lines.append("    inputs = node.inputs")
    n_saved = 0
    for i, s in enumerate(spec):
        if s[0] == "S":
            lines += [f"    t{i}, v{i}, s{i} = sv[{n_saved}]",
                      f"    if v{i}[0] != s{i}:",
                      "        return None",
                      f"    a{i} = t{i}._data"]
            n_saved += 1
        else:
            lines.append(f"    a{i} = inputs[{i}]")
        if same and s[0] != "N":
            lines += [f"    if a{i}.dtype is not dt and a{i}.dtype != dt:",
                      "        return None"]
    args = ", ".join([f"a{i}" for i in range(len(spec))] + (["**node.kwargs"] if kwargs else []))
    # (the backend looked up per call, as ``apply`` does: tests put a recorder in its place)
    lines.append("    B = backends.get('cpu') or backend_of(node.device)")
    wanted = [i for i, s in enumerate(spec) if s.endswith("+")]
    for i in wanted:
        if rules[i] is None:
            return None
        env[f"rule{i}"] = rules[i]
        lines += [f"    r{i} = rule{i}(B, gd, ad, {args})",
                  f"    if r{i} is None:",
                  "        return None",
                  f"    if r{i}.shape != a{i}.shape:",
                  f"        r{i} = sum_to(B, r{i}, a{i}.shape)",
                  f"    if r{i}.dtype is not a{i}.dtype and r{i}.dtype != a{i}.dtype:",
                  "        return None"]
    if n_saved or save_output:       # ``Node.release``, inlined
        lines += ["    if free:",
                  "        node.released = True",
                  "        node.inputs = node.backward_fn = None",
                  "        node.saved_versions = ()",
                  "        node.out_data = node.out_version = None",
                  "        if node.out_tangents is not None:",
                  "            node.out_tangents = None"]
    lines.append("    nxt = node.next")
    for i in wanted:                 # the engine's ``_send``, inlined
        lines += [f"    e = nxt[{i}]",
                  "    target = e[0]",
                  "    if type(target) is Node:",
                  "        buf = buffers.get(target)",
                  "        if buf is None:",
                  "            heappush(heap, (-target.seq, target))",
                  "            if target.n_outputs == 1:",
                  f"                buffers[target] = [r{i}]",
                  "            else:",
                  "                buf = buffers[target] = [None] * target.n_outputs",
                  f"                buf[e[1]] = r{i}",
                  "        else:",
                  f"            buf[e[1]] = add(buf[e[1]], r{i}, target.device)",
                  "    else:",
                  f"        leaf_grads[target] = add(leaf_grads.get(target), r{i}, target._device)"]
    lines.append("    return True")
    exec(compile("\n".join(lines), f"<eagerad lean step of {op.name} {' '.join(spec)}>",
                 "exec"), env)
    return env["step"]


def applier_n(op, n, keywords=False):
    """``apply_n(*args)`` of ``op`` for calls of ``n`` operands without keywords (the
    three- and four-operand ops: a linear layer with its bias, the derivative ops of
    ``ops.math``), or ``apply_n(*args, kwargs)`` with ``keywords`` (reductions, softmax:
    the keywords go to the forward and the node), generated as source from its stanza
    like ``appliers``' two: operand 0
    a CPU or device Tensor, the others Tensors on its device or Python numbers, no vmap or
    forward-mode level, no tracer; anything else goes to ``apply``.  It records what
    ``registry._record`` records (the same edges, saved operands and lean step).

    >>> x = eagerad.tensor([1.0], requires_grad=True)
    >>> y = applier_n(OPS['minus2_product'], 3)(x, x, 3.0); y.tolist(), y.grad_fn.name
    ([-6.0], 'Minus2ProductBackward')
    """
    names = [f"a{i}" for i in range(n)]
    args = ", ".join(names)
    kw = "kw" if keywords else "{}"
    params = args + (", kw" if keywords else "")
    if op.n_outputs != 1 or op.view or op.moves_device:
        env = {"apply": apply, "op": op}
        exec(f"def apply_n({params}):\n    return apply(op, ({args},), {kw})\n", env)
        return env["apply_n"]
    vjp = op.vjp
    rules = [i < len(vjp) and vjp[i] is not None for i in range(n)]
    plans = {}          # wanted (bit i: operand i gets a gradient) -> kept operands
    made = {}           # (wanted, number mask) -> lean step (None: none applies)

    def plan_for(wanted):
        saves = op.saves
        if saves is None:
            keep = (True,) * n
        else:
            if type(saves) is dict:
                saves = frozenset(j for i, s in saves.items() if wanted >> i & 1 for j in s)
            keep = tuple(i in saves for i in range(n))
        plans[wanted] = keep
        return keep

    def lean_for(wanted, numbers, keep):
        spec = tuple("N" if numbers >> i & 1 else ("S" if keep[i] else "U")
                     + ("+" if wanted >> i & 1 else "-") for i in range(n))
        step = made[(wanted, numbers)] = step_for(op, spec, op.save_output, keywords)
        return step
    fallback = f"        return apply(op, ({args},), {kw})"
    lines = [f"def apply_n({params}):",
             "    if type(a0) is not Tensor and not isinstance(a0, Tensor) or blevels "
             "or flevels or reg.tracer is not None:", fallback,
             "    dev = a0._device",
             "    d0 = a0._data",
             "    cpu = type(d0) is ndarray and (dev is CPU or dev.type == 'cpu')",
             f"    w0 = {rules[0]} and a0._requires_grad",
             "    numbers = 0"]
    for i in range(1, n):
        lines += [f"    t = type(a{i})",
                  "    if t is float or t is int:",
                  f"        d{i} = a{i}",
                  f"        w{i} = False",
                  f"        numbers |= {1 << i}",
                  "    elif t is Tensor or isinstance(a" + str(i) + ", Tensor):",
                  f"        if a{i}._device is not dev and a{i}._device != dev:",
                  "    " + fallback,
                  f"        d{i} = a{i}._data",
                  f"        w{i} = {rules[i]} and a{i}._requires_grad",
                  f"        cpu = cpu and type(d{i}) is ndarray",
                  "    else:", "    " + fallback]
    data = ", ".join(f"d{i}" for i in range(n))
    lines += [f"    out = forward(backends.get(dev.type) or backend_of(dev), {data}"
              + (", **kw)" if keywords else ")"),
              "    t = new(Tensor)",
              "    t._data = out",
              "    t._device = dev",
              "    t._requires_grad = False",
              "    t.grad_fn = None",
              "    t._version = [0]",
              "    t._face = a0._face",
              "    if (" + " or ".join(f"w{i}" for i in range(n)) + ") and grad_state.enabled:",
              "        wanted = " + " | ".join(f"(w{i} << {i})" for i in range(n)),
              "        keep = plans.get(wanted) or plan_for(wanted)",
              "        node = new(Node)",
              "        saved = ()"]
    for i in range(n):
        tensor = [f"        if keep[{i}]:",
                  f"            version = a{i}._version",
                  f"            saved += ((a{i}, version, version[0]),)",
                  f"            in{i} = a{i}",
                  "        else:",
                  f"            in{i} = Unsaved(a{i})",
                  f"        if w{i}:",
                  f"            fn = a{i}.grad_fn",
                  f"            e{i} = (fn, a{i}._out_index) if fn is not None else (a{i}, 0)",
                  "        else:",
                  f"            e{i} = None"]
        if i == 0:
            lines += tensor
        else:
            lines += [f"        if numbers & {1 << i}:",
                      f"            in{i} = a{i}",
                      f"            e{i} = None",
                      "        else:"] + ["    " + s for s in tensor]
    lines += ["        node.next = (" + ", ".join(f"e{i}" for i in range(n)) + ",)",
              "        node.inputs = (" + ", ".join(f"in{i}" for i in range(n)) + ",)",
              "        node.saved_versions = saved",
              "        node.name = name",
              "        node.op = op",
              "        node.backward_fn = partial(bwd, op, kw)" if keywords else
              "        node.backward_fn = bfn",
              "        node.device = dev"]
    if keywords:
        lines.append("        node.kwargs = kw")
    lines += (_OUT_SAVED if op.save_output else _OUT_NONE).strip("\n").split("\n")
    lines += ["        node.seq = next(seq)",
              "        node.released = False",
              "        if cpu and type(out) is ndarray:",
              "            step = made.get((wanted, numbers), UNMADE)",
              "            node.lean = step if step is not UNMADE else "
              "lean_for(wanted, numbers, keep)",
              "        else:",
              "            node.lean = None",
              "        if anomaly.enabled:",
              "            node.trace = creation_trace()",
              "        t.grad_fn = node",
              "        t._requires_grad = True",
              "    return t"]
    env = {"__name__": __name__, "op": op, "name": op.node_name, "bfn": op.backward_fn,
           "forward": op.forward, "blevels": batching.levels, "flevels": forward_ad.levels,
           "reg": registry, "seq": _sequence, "plans": plans, "plan_for": plan_for,
           "made": made, "lean_for": lean_for, "UNMADE": _UNMADE, "apply": apply,
           "Tensor": Tensor, "Node": Node, "Unsaved": Unsaved, "new": _new,
           "ndarray": _ndarray, "CPU": CPU, "backends": _backends, "backend_of": _backend,
           "grad_state": grad_state, "anomaly": anomaly, "creation_trace": creation_trace,
           "partial": functools.partial, "bwd": registry._backward}
    exec(compile("\n".join(lines), f"<eagerad lean applier of {op.name} ({n} operands)>", "exec"),
         env)
    return env["apply_n"]
