"""How an op is defined and applied.

An op is one ``defop`` call: its forward (a backend call on arrays), one vjp
rule per differentiable argument and optionally one jvp rule per argument, all
written in eagerad ops so they are differentiable again.  ``apply`` runs the
forward at once and, when grad mode is on and an input requires grad, records
a ``Node``; when forward-mode AD is active it also pushes tangents through the
jvp rules.  Nothing in the engine changes when an op is added.

>>> from eagerad.ops.registry import defop
>>> cube = defop("cube", lambda B, x: B.binary("pow", x, 3),
...              vjp=lambda g, ans, x: g * 3 * x ** 2,
...              jvp=lambda t, ans, x: t * 3 * x ** 2)
"""
import functools
import warnings

import numpy as np

from .. import _upcalls, backend
from ..autograd import batching, forward_ad
from ..autograd.grad_mode import state as grad_state
from ..autograd.node import Node, lean_node
from ..tensor import Tensor, zeros_like

OPS = {}
# NaN/inf results pass silently from the backend functions that ``eagerad.ops.lean`` calls
# directly, as from the backend's own calls of them (the filter is set here, at import,
# since that module is imported at the first op call)
warnings.filterwarnings("ignore", category=RuntimeWarning, module="eagerad.ops.lean")


class _Made:
    """An attribute of an ``Op`` made from its stanza at the first read (``make_lean``)
    and kept in the op's ``__dict__``, which later reads find first.

    >>> OPS['neg'].apply1 is OPS['neg'].apply1
    True
    """
    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __get__(self, op, owner=None):
        if op is None:
            return self
        if self.name in ("apply3", "apply4", "apply1k"):   # made alone: most ops never
            from .lean import applier_n                      # need them
            op.__dict__[self.name] = applier_n(op, int(self.name[5]), self.name == "apply1k")
        else:
            make_lean(op)
        return op.__dict__[self.name]


def make_lean(op):
    """Make ``op``'s ``apply1``, ``apply2`` and ``array_backward`` (at its first use).

    >>> make_lean(OPS['sin']); {'apply1', 'apply2', 'array_backward'} <= set(OPS['sin'].__dict__)
    True
    """
    from .lean import appliers
    made = op.__dict__
    if "apply1" not in made:
        made["apply1"], made["apply2"] = appliers(op)
    if "array_backward" not in made:
        made["array_backward"] = _lean_backward(op)


# eagerad.jit's recorder while it traces a function: ``tracer(op, args, kwargs, result)``;
# while set, every op takes ``apply`` (the lean appliers of ``eagerad.ops.lean`` check it)
tracer = None


def set_tracer(fn):
    """Make ``fn(op, args, kwargs, result)`` see every op applied (None: nothing does)."""
    global tracer
    tracer = fn


class Op:
    """Forward function, per-argument vjp/jvp rules and what backward must keep.

    >>> op = OPS['sin']; op, op.node_name
    (<eagerad op sin>, 'SinBackward')
    >>> op(eagerad.Tensor([0.0])).tolist()
    [0.0]
    """
    __slots__ = ("name", "node_name", "forward", "vjp", "jvp", "saves", "save_output",
                 "_fast", "n_outputs", "view", "moves_device", "cases", "batch", "elementwise",
                 "backward_fn", "same_dtype", "saves_by_wanted", "kernel", "__dict__")

    def __init__(self, name, forward, vjp, jvp, saves, save_output, fast, n_outputs, view,
                 moves_device, cases, batch=None, elementwise=False, kernel=None):
        self.name = name
        self.node_name = "".join(p.capitalize() for p in name.split("_")) + "Backward"
        self.forward = forward
        self.vjp = vjp
        self.jvp = jvp
        self.saves = saves
        self.save_output = save_output
        self._fast = fast
        self.same_dtype = type(fast) is SameDtype
        self.saves_by_wanted = {}
        self.n_outputs = n_outputs
        self.view = view
        self.moves_device = moves_device
        self.cases = tuple(cases or ())
        self.batch = batch
        self.elementwise = elementwise
        self.kernel = kernel
        # the node callback of a call without keywords, made once instead of per record
        self.backward_fn = functools.partial(_backward, self, {})

    # Made at the op's first use, never at import (``eagerad.ops.lean``): ``apply1(x)`` and
    # ``apply2(x, y)``, ``apply`` for the common call shapes (one Tensor; a Tensor and a
    # Tensor or Python number; no keywords), and the node backward on bare arrays.
    apply1 = _Made("apply1")
    apply2 = _Made("apply2")
    apply3 = _Made("apply3")     # (``lean.applier_n``: three and four operands)
    apply4 = _Made("apply4")
    apply1k = _Made("apply1k")   # (one operand and keywords: ``apply1k(x, kwargs)``)
    array_backward = _Made("array_backward")

    def __call__(self, *args, **kwargs):
        if kwargs:
            if len(args) == 1:   # one operand with keywords (reductions, softmax, ...)
                return self.apply1k(args[0], kwargs)
        else:                    # the common call shapes: the lean appliers (same numbers)
            n = len(args)
            if n == 2:
                return self.apply2(args[0], args[1])
            if n == 1:
                return self.apply1(args[0])
            if n == 3:
                return self.apply3(args[0], args[1], args[2])
            if n == 4:
                return self.apply4(args[0], args[1], args[2], args[3])
        return apply(self, args, kwargs)

    @property
    def fast(self):
        """The array-level rules (``defop``'s ``fast=``); setting them remakes the node
        backward built from them (``array_backward``).

        >>> len(OPS['mul'].fast)
        2
        """
        return self._fast

    @fast.setter
    def fast(self, rules):
        self._fast = rules
        for made in ("apply1", "apply2", "apply3", "apply4", "apply1k", "array_backward",
                     "lean_steps"):      # made again from the new rules
            self.__dict__.pop(made, None)

    def __repr__(self):
        return f"<eagerad op {self.name}>"


class PerArg:
    """Rules for ops taking any number of tensors (concat): ``rule(i, g, ans, *args)``.

    >>> rules = PerArg(lambda i, g, ans, *xs: g * i)
    >>> rules[2](eagerad.Tensor([1.0]), None).tolist()
    [2.0]
    """
    __slots__ = ("rule",)

    def __init__(self, rule):
        self.rule = rule

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        return functools.partial(self.rule, i)


class SameDtype(tuple):
    """Array rules (``fast=``) that apply only where every array operand has ``g``'s
    dtype, so that numpy computes exactly what the Tensor rule computes; the backward
    checks that once per node, not once per rule.

    >>> OPS['sin'].same_dtype, OPS['tanh'].same_dtype
    (True, False)
    """
    __slots__ = ()


def _as_rules(rules):
    if rules is None or callable(rules) and not isinstance(rules, PerArg):
        return (rules,)
    return rules if isinstance(rules, PerArg) else tuple(rules)


def defop(name, forward, vjp=None, jvp=None, saves=None, save_output=False, fast=None,
          n_outputs=1, view=False, moves_device=False, cases=None, batch=None, elementwise=False,
          kernel=None):
    """Define and register an op.

    ``forward(B, *arrays, **kw)`` gets the backend module ``B`` and arrays (or the
    Python scalars passed).  ``vjp``/``jvp`` give one rule per argument
    (a single function for one-argument ops; None for a non-differentiable
    argument): ``vjp_i(g, ans, *args, **kw)`` returns the gradient for argument
    i, ``jvp_i(t, ans, *args, **kw)`` the output tangent due to argument i's
    tangent ``t``.  ``saves`` lists the argument positions whose values the rules
    read (default: all): the node keeps those (version-checked at backward) and only
    the shape, dtype and device of the other tensors (``Unsaved``); a dict ``{i:
    positions}`` says it per rule, so only the rules of inputs that need a gradient
    keep theirs (``x * 3`` keeps nothing of ``x``).  ``save_output``: whether they
    read ``ans``.  ``fast``
    gives array-level first-order rules, one per argument like ``vjp`` (a single
    function for argument 0): ``fast_i(B, g, ans, *arrays, **kw)`` returns the
    gradient array for argument i computed with the same arithmetic as the vjp
    rule (or None to fall back to it); they run when no graph of the backward is
    recorded, skipping the per-op dispatch of the differentiable rule.
    ``view`` outputs share the input's version counter (in-place changes to one
    are seen through the other); ``moves_device`` ops take ``device=`` and put
    their output there.  ``cases`` are the op's gradcheck inputs (a list of
    ``Case``); the test-suite gradchecks every op to second order from them.
    ``batch(args, bdims, **kw) -> (out, out_bdim)`` is the op's batching rule (as
    JAX's): ``args`` are the operands with their batch axis at ``bdims[i]`` (None:
    not batched), it returns the batched result and where its batch axis is (a
    tuple of both for ops with several outputs).  ``elementwise=True`` declares a
    broadcasting elementwise op, whose batching rule follows from that.
    ``kernel=("unary", name)`` / ``("binary", name)`` declares that ``forward`` is exactly
    the backend's ``unary``/``binary`` call of that name, so that the op's fast path
    (``eagerad.ops.lean``) may call the backend's array function directly.

    >>> twice = defop("doc_twice", lambda B, x: B.binary("mul", x, 2.0),
    ...               vjp=lambda g, ans, x: g * 2, saves=())
    >>> x = eagerad.tensor([1.0], requires_grad=True); twice(x).sum().backward(); x.grad.tolist()
    [2.0]
    >>> del OPS["doc_twice"]
    """
    op = Op(name, forward, _as_rules(vjp), _as_rules(jvp), saves, save_output,
            fast if type(fast) is SameDtype else _as_rules(fast) if fast is not None else (),
            n_outputs, view, moves_device, cases,
            batch, elementwise, kernel)
    OPS[name] = op
    return op


PUBLIC = {}       # public name in ``eagerad.ops`` -> function
METHODS = {}      # Tensor method name -> function (its first argument is the tensor)
PRIMITIVES = {}   # MindSpore primitive class name -> function the class calls


def export(fn=None, *, name=None, methods=(), primitive=None, aliases=()):
    """Declare the public names of an op's function where the op is defined.

    ``name`` (default ``fn.__name__``) and ``aliases`` become ``eagerad.ops``
    names, each of ``methods`` a Tensor method, ``primitive`` a MindSpore
    primitive class (``ops.Erf()(x)``).  Usable as ``@export(...)`` or
    ``export(fn, ...)``; returns ``fn``.

    >>> def twice(x):
    ...     return x * 2
    >>> _ = export(twice, methods=("twice",))
    >>> PUBLIC["twice"] is twice and METHODS["twice"] is twice
    True
    >>> del PUBLIC["twice"], METHODS["twice"]
    """
    if fn is None:
        return lambda f: export(f, name=name, methods=methods, primitive=primitive,
                                aliases=aliases)
    for table, key in [(PUBLIC, public) for public in (name or fn.__name__,) + tuple(aliases)] \
            + [(METHODS, method) for method in methods] \
            + ([(PRIMITIVES, primitive)] if primitive is not None else []):
        _claim(table, key, fn)
    return fn


def _claim(table, key, fn):
    """``table[key] = fn``, refusing a name that another function already holds: two op
    modules exporting one name would otherwise let import order pick the winner."""
    held = table.get(key)
    if held is not None and held is not fn:
        raise RuntimeError(f"eagerad.ops: the public name {key!r} is exported by both "
                           f"{getattr(held, '__module__', '?')}.{getattr(held, '__name__', held)} "
                           f"and {getattr(fn, '__module__', '?')}.{getattr(fn, '__name__', fn)}")
    table[key] = fn


class U:
    """A float64 input drawn uniformly from ``[low, high)`` (times a random sign when
    ``signed``, which keeps values away from kinks at 0) for a gradcheck ``Case``.

    >>> U(2, 3, low=0.5).draw(np.random.default_rng(0)).shape
    (2, 3)
    """
    __slots__ = ("shape", "low", "high", "signed")

    def __init__(self, *shape, low=-1.0, high=1.0, signed=False):
        self.shape, self.low, self.high, self.signed = shape, low, high, signed

    def draw(self, rng):
        """Sample the array from ``rng`` (a numpy Generator).

        >>> bool((U(4, low=0.5, high=1.0, signed=True).draw(np.random.default_rng(0)) != 0).all())
        True
        """
        x = rng.uniform(self.low, self.high, self.shape)
        return x * rng.choice((-1.0, 1.0), self.shape) if self.signed else x


class Case:
    """One gradcheck call of an op: ``U`` arguments become float64 tensors that
    require grad; numpy arrays become constant tensors; anything else (Python
    scalars, keywords) is passed as is.

    >>> Case(U(2, 3), U(3), axis=0).kwargs
    {'axis': 0}
    """
    __slots__ = ("args", "kwargs")

    def __init__(self, *args, **kwargs):
        self.args, self.kwargs = args, kwargs

    def __repr__(self):
        shapes = [a.shape if isinstance(a, U) else a for a in self.args]
        return f"Case{tuple(shapes)}{self.kwargs or ''}"


def _device_of(op, args):
    device = None
    for i, a in enumerate(args):
        if type(a) is Tensor or isinstance(a, Tensor):
            if device is None:
                device = a._device
            elif a._device != device:
                raise RuntimeError(f"{op.name}: expected all tensors on one device, but argument "
                                   f"{i} is on {a._device} and an earlier one on {device}")
    return device


def apply(op, args, kwargs):
    """Run ``op`` on ``args`` now; record it if any differentiable input requires grad.

    This is the per-op hot path (a few microseconds on small tensors), so it
    walks ``args`` once and builds nothing for the graph unless it records.

    >>> apply(OPS['mul'], (eagerad.tensor([2.0], requires_grad=True), 3.0), {}).grad_fn.name
    'MulBackward'
    """
    if batching.levels and any(type(a) is batching.BatchedTensor for a in args):
        return apply_batched(op, args, kwargs)
    device = None
    arrays = []
    grad_arg = False
    for a in args:
        if isinstance(a, Tensor):
            d = a._device
            if device is None:
                device = d
                face = a._face
            elif d is not device and d != device:
                _device_of(op, args)   # raises, naming the argument
            arrays.append(a._data)
            if a._requires_grad:
                grad_arg = True
        else:
            arrays.append(a)
    B = _backends.get(device.type) or _backend(device)
    if kwargs:
        out = op.forward(B, *arrays, **kwargs)
        if op.moves_device:
            device = kwargs["device"]
    else:
        out = op.forward(B, *arrays)
    if op.n_outputs == 1:
        result = Tensor._make(out, device, False, None, args[0]._version if op.view else None,
                              face)
        outs = (result,)
    else:
        result = outs = tuple(Tensor._make(o, device, face=face) for o in out)
    if grad_arg and grad_state.enabled:
        _record(op, args, kwargs, outs)
    if forward_ad.levels:
        forward_ad.propagate(op, args, kwargs, outs)
    if tracer is not None:
        tracer(op, args, kwargs, result)
    return result




_backends = {}    # device type -> backend module, a dict lookup instead of ``backend.get``


def _backend(device):
    B = _backends[device.type] = backend.get(device.type)
    return B


def _record(op, args, kwargs, outs):
    """Attach a ``Node`` to ``outs`` with an edge per input whose gradient is needed.

    Once per recorded op: one walk of ``args`` finds the edges, and what the node keeps
    follows from the op's ``saves`` for that set of edges (worked out once per op)."""
    vjp = op.vjp
    n_rules = len(vjp)
    edges = []
    wanted = 0                       # bit i: argument i gets a gradient
    i = 0
    for a in args:
        if i < n_rules and isinstance(a, Tensor) and a._requires_grad and vjp[i] is not None:
            fn = a.grad_fn
            edges.append((fn, a._out_index) if fn is not None else (a, 0))
            wanted |= 1 << i
        else:
            edges.append(None)
        i += 1
    if not wanted:
        return
    saves = op.saves
    if saves is None:
        inputs = args
        # one argument with an edge is a Tensor: no list to build
        saved = args if len(args) == 1 else [a for a in args if isinstance(a, Tensor)]
    else:
        if type(saves) is dict:      # per rule: only the rules that will run
            saves = _saves_for(op, wanted)
        saved = []
        inputs = []
        i = 0
        for a in args:
            if not isinstance(a, Tensor):
                inputs.append(a)
            elif i in saves:
                inputs.append(a)
                saved.append(a)
            else:                    # keep only the metadata of the others
                inputs.append(Unsaved(a))
            i += 1
        inputs = tuple(inputs)
    if len(outs) == 1:
        o = outs[0]
        node = lean_node(op.node_name, op, op.backward_fn, tuple(edges), inputs,
                         tuple([(t, t._version, t._version[0]) for t in saved]), o, op.save_output,
                         _lean_step(op, args, inputs, wanted, kwargs, o)
                         if type(o._data) is np.ndarray else None)
        if kwargs:
            node.kwargs = kwargs
            node.backward_fn = functools.partial(_backward, op, kwargs)
        o._requires_grad = True
        o.grad_fn = node
        return
    node = Node(op.node_name, functools.partial(_backward, op, kwargs) if kwargs else op.backward_fn,
                tuple(edges), inputs, saved, outs, op.save_output, op, kwargs)
    for i, o in enumerate(outs):
        o._requires_grad = True
        o.grad_fn = node
        if i:
            o._out_index = i      # (0 is the class default: no instance dict)


def _lean_step(op, args, inputs, wanted, kwargs, out):
    """The lean step (``eagerad.ops.lean``) of a node that ``_record`` makes on the CPU with
    the node's ``inputs`` for ``args``, or None where an argument is neither a Tensor nor a
    Python number."""
    spec = []
    i = 0
    for a, kept in zip(args, inputs):
        ta = type(a)
        if ta is float or ta is int:
            spec.append("N")
        elif isinstance(a, Tensor) and type(a._data) is np.ndarray:
            spec.append(("U" if type(kept) is Unsaved else "S") + ("+" if wanted >> i & 1 else "-"))
        else:
            return None
        i += 1
    return _lean.step_for(op, tuple(spec), op.save_output, bool(kwargs))


def _saves_for(op, wanted):
    """The argument positions that the rules of the wanted gradients (bit i: argument i)
    read, for an op whose ``saves`` is a dict; worked out once per op and set of gradients."""
    held = op.saves_by_wanted.get(wanted)
    if held is None:
        held = op.saves_by_wanted[wanted] = frozenset(
            j for i, s in op.saves.items() if wanted >> i & 1 for j in s)
    return held


class Unsaved:
    """What a node keeps of an input whose value no rule of its op reads (not in ``saves``):
    its shape, dtype and device, so that the tensor itself can be freed.  Rules get it in
    the input's place; reading its values is an error, never a silent number.

    >>> u = Unsaved(eagerad.ones(2, 3)); u.shape, u.dtype, u.ndim
    ((2, 3), dtype('float32'), 2)
    """
    __slots__ = ("shape", "dtype", "_device", "_requires_grad")

    def __init__(self, t):
        data = t._data     # the array's own metadata: no face-dependent property on the hot path
        shape = data.shape
        self.shape = shape if type(shape) is tuple else tuple(shape)
        self.dtype = data.dtype
        self._device = t._device
        self._requires_grad = t._requires_grad

    @property
    def _data(self):      # the array metadata (shape, dtype) that gradient fitting reads
        return self

    @property
    def device(self):
        return self._device

    @property
    def ndim(self):
        return len(self.shape)

    @property
    def size(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    def __repr__(self):
        return f"Unsaved(shape={self.shape}, dtype={self.dtype})"


def _backward(op, kwargs, grads, inputs, outs, skip=0):
    """Node callback: gradients for each input from the output gradients (None for the
    inputs whose bit is set in ``skip``: the engine needs no gradient there).

    When nothing of the backward is recorded, the op's array rules (``fast``) run where
    they apply and broadcasting is undone on arrays: the same backend calls as the
    Tensor rules, so the same numbers, without per-op dispatch.  Array rules would drop
    g's graph (create_graph) and its tangents (forward-mode AD), so a recorded backward
    runs the rules themselves (``_backward_rules``)."""
    if op.n_outputs == 1:
        g = grads[0]
        ans = outs[0] if outs is not None else None
    else:
        ans = tuple(outs)
        g = tuple(gi if gi is not None else zeros_like(ans[i]) for i, gi in enumerate(grads))
    if grad_state.enabled or forward_ad.levels or type(g) is not Tensor or g._requires_grad:
        return _backward_rules(op, kwargs, g, ans, inputs, skip)
    arrays = _input_grads(op, kwargs, inputs, g._data, ans._data if ans is not None else None,
                          g._device, g, ans, None, skip)
    return [None if arr is None else Tensor._make(arr, a._device)
            for arr, a in zip(arrays, inputs)]


def _lean_backward(op):
    """The engine's backward of a one-output node of ``op`` on bare arrays (nothing of the
    backward recorded), made once from the op's stanza: ``backward(node, gd)`` gives the
    gradient array of each input (None where none flows) from the output's gradient array
    ``gd``, with the checks of ``Node.unpack`` (None for the inputs whose bit is set in
    ``skip``: the engine needs no gradient there).  A node without keywords whose array rules
    cover the inputs that need a gradient runs them here at once; everything else goes
    through ``_input_grads``.

    >>> x = eagerad.tensor([1.0, 2.0], requires_grad=True); y = x * 3.0
    >>> y.grad_fn.op.array_backward(y.grad_fn, np.ones(2, np.float32))
    [array([3., 3.], dtype=float32), None]
    """
    fast, vjp = op.fast, op.vjp
    if isinstance(fast, PerArg) or isinstance(vjp, PerArg):
        n_lean = 0                       # any number of operands: ``_input_grads``
        rules = has_rule = ()
    else:
        n_lean = len(vjp)
        has_rule = tuple(r is not None for r in vjp)
        # per operand: its array rule, or None (no gradient, or only the Tensor rule)
        rules = tuple(fast[i] if i < len(fast) and has_rule[i] else None for i in range(n_lean))
        if not any(r is not None for r in rules):
            n_lean = 0
    rule0 = rules[0] if n_lean else None
    rule1 = rules[1] if n_lean > 1 else None
    same = op.same_dtype

    def operand(a, dtype):
        """(array given to the array rule, what the gradient must match or None when
        ``a`` gets none), or None when the array rules do not apply."""
        ta = type(a)
        if ta is Unsaved:
            return a, a if a._requires_grad else None
        if ta is Tensor or isinstance(a, Tensor):
            arr = a._data
            if same and arr.dtype != dtype:
                return None
            return arr, arr if a._requires_grad else None
        return (a, None) if ta is float or ta is int else None

    def fit(B, arr, like):
        if arr.shape != like.shape:
            arr = _sum_to_array(B, arr, like.shape)
        return arr if arr.dtype == like.dtype else None

    def lean(node, B, gd, ad, inputs, skip):
        """The array rules of every input that needs a gradient, or None when one of them
        does not apply (then ``_input_grads`` decides)."""
        dtype = gd.dtype
        operands = []
        for a in inputs:
            x = operand(a, dtype)
            if x is None:
                return None
            operands.append(x)
        arrays = [x[0] for x in operands]
        out = []
        i = 0
        for arr, like in operands:
            if like is None or not has_rule[i] or skip >> i & 1:
                out.append(None)
            else:
                rule = rules[i]
                if rule is None:
                    return None
                gi = rule(B, gd, ad, *arrays)
                if gi is None:
                    return None
                gi = fit(B, gi, like)
                if gi is None:
                    return None
                out.append(gi)
            i += 1
        return out

    def backward(node, gd, skip=0):
        if node.released:
            node.unpack()                 # raises: the graph was freed
        for t, ver, seen in node.saved_versions:
            if ver[0] != seen:
                node.unpack()             # raises, naming the tensor
        ad = node.out_data
        if ad is not None:
            ver, seen = node.out_version[0]
            if ver[0] != seen:
                node.unpack()
            ad = ad[0]
        inputs = node.inputs
        kwargs = node.kwargs
        if gd.dtype.kind == "c" or kwargs or not n_lean:   # array rules: real numbers only
            pass
        elif len(inputs) == 1:
            a = inputs[0]
            ta = type(a)
            like = a if ta is Unsaved else a._data if ta is Tensor or isinstance(a, Tensor) \
                else None
            if like is not None and rule0 is not None and a._requires_grad and not skip \
                    and (not same or like.dtype == gd.dtype):
                device = node.device
                arr = rule0(_backends.get(device.type) or _backend(device), gd, ad, like)
                if arr is not None and arr.shape == like.shape and arr.dtype == like.dtype:
                    return [arr]
        elif len(inputs) == 2 and rule1 is not None and rule0 is not None:
            dtype = gd.dtype
            x = operand(inputs[0], dtype)
            y = operand(inputs[1], dtype)
            if x is not None and y is not None:
                device = node.device
                B = _backends.get(device.type) or _backend(device)
                gx = gy = None
                if x[1] is not None and not skip & 1:
                    gx = rule0(B, gd, ad, x[0], y[0])
                    gx = gx if gx is None else fit(B, gx, x[1])
                if y[1] is not None and not skip & 2:
                    gy = rule1(B, gd, ad, x[0], y[0])
                    gy = gy if gy is None else fit(B, gy, y[1])
                if (gx is not None or x[1] is None or skip & 1) and \
                        (gy is not None or y[1] is None or skip & 2):
                    return [gx, gy]
        elif len(inputs) <= n_lean:
            device = node.device
            out = lean(node, _backends.get(device.type) or _backend(device), gd, ad, inputs, skip)
            if out is not None:
                return out
        return _input_grads(op, kwargs, inputs, gd, ad, node.device, None, None, node, skip)
    return backward


def _input_grads(op, kwargs, inputs, gd, ad, device, g, ans, node, skip=0):
    """Gradient arrays of ``inputs`` from the output gradient array ``gd`` (and output
    array ``ad``): the op's array rules (``fast``) where they apply, else its Tensor rules
    on ``g``/``ans`` (built from ``node`` when not given); broadcasting is undone on arrays
    and the dtype matched to the input's; None for inputs whose bit is set in ``skip``."""
    B = _backends.get(device.type) or _backend(device)
    fast = op.fast
    vjp = op.vjp
    n_fast, n_rules = len(fast), len(vjp)
    arrays = None
    result = []
    i = 0
    for a in inputs:
        rule = vjp[i] if i < n_rules else None
        if rule is None or not isinstance(a, (Tensor, Unsaved)) or not a._requires_grad \
                or skip >> i & 1:
            result.append(None)
            i += 1
            continue
        arr = None
        if i < n_fast and fast[i] is not None and gd.dtype.kind != "c":
            if arrays is None:           # the operands' arrays, read once per node
                arrays = []
                usable = True
                same = op.same_dtype         # SameDtype rules: every array has g's dtype
                for x in inputs:
                    if isinstance(x, Tensor):
                        x = x._data
                    if same and isinstance(x, np.ndarray) and x.dtype != gd.dtype:
                        usable = False
                    arrays.append(x)
            if usable:
                arr = fast[i](B, gd, ad, *arrays, **kwargs) if kwargs else fast[i](B, gd, ad, *arrays)
        i += 1
        if arr is None:
            if g is None:                # the Tensor rule's arguments, made once per node
                g = Tensor._make(gd, device)
                ans = node.unpack()[1][0] if ad is not None else None
            if _complex_node(op, g, inputs):
                gi = _conjugated(rule, g, ans, inputs, kwargs)
            else:
                gi = rule(g, ans, *inputs, **kwargs)
            if not isinstance(gi, Tensor):
                result.append(fit_gradient(gi, a)._data)
                continue
            arr = gi._data
        like = a if type(a) is Unsaved else a._data     # (Unsaved's ``_data`` is itself)
        if arr.shape != like.shape and tuple(arr.shape) != tuple(like.shape):
            arr = _sum_to_array(B, arr, like.shape)
        if arr.dtype is not like.dtype and arr.dtype != like.dtype:
            arr = fit_gradient(Tensor._make(arr, a._device), a)._data
        result.append(arr)
    return result


def _backward_rules(op, kwargs, g, ans, inputs, skip=0):
    """``_backward`` through the differentiable rules (recorded when grad mode is on)."""
    vjp = op.vjp
    n_rules = len(vjp)
    result = []
    conj = _complex_node(op, g, inputs)
    i = 0
    for a in inputs:
        rule = vjp[i] if i < n_rules else None
        ta = type(a)
        if rule is None or not (ta is Tensor or ta is Unsaved or isinstance(a, Tensor)) \
                or not a._requires_grad or skip >> i & 1:
            result.append(None)
        elif conj:
            result.append(fit_gradient(_conjugated(rule, g, ans, inputs, kwargs), a))
        else:
            gi = rule(g, ans, *inputs, **kwargs) if kwargs else rule(g, ans, *inputs)
            like = a._data    # (``fit_gradient``'s usual case, inlined; Unsaved: itself)
            if type(gi) is not Tensor or gi._data.shape != like.shape \
                    or gi._data.dtype != like.dtype:
                gi = fit_gradient(gi, a)
            result.append(gi)
        i += 1
    return result


# Ops whose vjp rules are right for complex tensors as written (PyTorch's convention: the
# gradient of a real loss L in z = a + ib is dL/da + i dL/db).  Every other op's rules are
# written as for real numbers, ``g * f'(x)``; for complex operands the engine runs them as
# ``conj(rule(conj(g)))`` = ``g * conj(f'(x))``, which is PyTorch's gradient wherever f is
# holomorphic (mul, div, matmul, exp, ...).  Non-holomorphic ops (conj, real, abs, angle,
# the FFTs of real signals) say so by adding their name here and writing complex rules.
COMPLEX_AWARE = {"add", "sub", "neg", "sum", "mean", "reshape", "transpose", "clone", "astype"}


def _is_complex(t):
    return isinstance(t, (Tensor, Unsaved)) and t._data.dtype.kind == "c"


def _complex_node(op, g, inputs):
    """Whether ``op``'s rules must be conjugated at this node: complex operands or output
    gradient, and rules written for real numbers."""
    if op.name in COMPLEX_AWARE:
        return False
    for x in (g if isinstance(g, tuple) else (g,)):      # (loops: this runs once per node
        if _is_complex(x):                                 # of a recorded backward)
            return True
    for x in inputs:
        tx = type(x)
        if tx is Tensor:          # (the usual operands first: no property, no isinstance)
            if x._data.dtype.kind == "c":
                return True
        elif tx is Unsaved:
            if x.dtype.kind == "c":
                return True
        elif _is_complex(x):
            return True
    return False


def _conjugated(rule, g, ans, inputs, kwargs):
    """``conj(rule(conj(g)))``: the vjp in PyTorch's complex convention of a rule written
    as for real numbers (see ``COMPLEX_AWARE``)."""
    conj = OPS["conj"]

    def c(t):
        return conj(t) if _is_complex(t) else t
    out = rule(tuple(c(x) for x in g) if isinstance(g, tuple) else c(g), ans, *inputs, **kwargs)
    if isinstance(out, complex):
        return out.conjugate()
    return c(out)


# ------------------------------------------------------------------ batching (vmap)

def apply_batched(op, args, kwargs):
    """``op`` on arguments some of which are ``BatchedTensor``s: the newest level among
    them is unwrapped and the op's batching rule runs on the values (its declared
    ``batch``, the broadcasting rule of an ``elementwise`` op, or else a loop over the
    batch that slices, applies and stacks, which is always right); the result is
    wrapped again at that level.

    >>> level = batching.push(2)
    >>> b = batching.BatchedTensor(eagerad.Tensor([[1.0, 2.0], [3.0, 4.0]]), level)
    >>> out = apply_batched(OPS['mul'], (b, eagerad.Tensor([10.0, 100.0])), {}); batching.pop()
    >>> out._value.tolist()
    [[10.0, 200.0], [30.0, 400.0]]
    """
    level = max(a._level for a in args if type(a) is batching.BatchedTensor)
    values = [a._value if type(a) is batching.BatchedTensor and a._level == level else a
              for a in args]
    bdims = [0 if type(a) is batching.BatchedTensor and a._level == level else None
             for a in args]
    if op.batch is not None:
        out, out_bdim = op.batch(values, bdims, **kwargs)
    elif op.elementwise:
        out, out_bdim = broadcast_batch(op, values, bdims, kwargs), 0
    else:
        out, out_bdim = loop_batch(op, values, bdims, kwargs, batching.levels[level])
    if op.n_outputs == 1:
        return batching.BatchedTensor(move_batch(out, out_bdim), level)
    return tuple(batching.BatchedTensor(move_batch(o, b), level) for o, b in zip(out, out_bdim))


def move_batch(x, bdim, to=0):
    """``x`` with its axis ``bdim`` moved to position ``to`` (a recorded transpose).

    >>> move_batch(eagerad.ones(2, 3, 4), 2).shape
    (4, 2, 3)
    """
    if bdim == to:
        return x
    axes = [i for i in range(x.ndim) if i != bdim]
    axes.insert(to, bdim)
    return OPS["transpose"](x, axes=tuple(axes))


def broadcast_batch(op, values, bdims, kwargs):
    """The batching rule of a broadcasting elementwise op: each batched operand (batch
    axis 0) gets unit axes after its batch axis so that it broadcasts as one sample would.

    >>> broadcast_batch(OPS['add'], [eagerad.ones(2, 3), eagerad.ones(4, 1, 3)], [0, None],
    ...                 {}).shape
    (2, 4, 1, 3)
    """
    nd = 0
    for v, b in zip(values, bdims):
        if isinstance(v, Tensor):
            nd = max(nd, v.ndim - (b is not None))
    args = []
    for v, b in zip(values, bdims):
        if b is not None and v.ndim - 1 < nd:
            v = OPS["reshape"](v, shape=v.shape[:1] + (1,) * (nd - v.ndim + 1) + v.shape[1:])
        args.append(v)
    return op(*args, **kwargs)



def loop_batch(op, values, bdims, kwargs, n):
    """The batching rule every op has: slice each sample, apply ``op``, stack the results
    (batch axis 0 of each output).

    >>> out, bdim = loop_batch(OPS['mul'], [eagerad.Tensor([[1.0], [2.0]]), 3.0], [0, None], {}, 2)
    >>> out.tolist(), bdim
    ([[3.0], [6.0]], 0)
    """
    if n == 0:
        raise RuntimeError(f"vmap: op '{op.name}' has no batching rule, and a batch of size 0 "
                           "gives no sample to infer its output shape from")
    out = map_samples(lambda *a: op(*a, **kwargs), values, bdims, n)
    return out, (0 if op.n_outputs == 1 else (0,) * op.n_outputs)


def map_samples(fn, values, bdims, n):
    """``fn`` on each sample (slices of the batched ``values`` along axis 0), results stacked
    along a new axis 0 (each output stacked when ``fn`` returns a tuple).

    >>> map_samples(lambda a: a * 2, [eagerad.Tensor([[1.0], [2.0]])], [0], 2).tolist()
    [[2.0], [4.0]]
    """
    from .shape import stack   # shape ops are defined with this registry
    rows = [fn(*[v[i] if b is not None else v for v, b in zip(values, bdims)]) for i in range(n)]
    if isinstance(rows[0], Tensor):
        return stack(rows)
    return tuple(stack([r[k] for r in rows]) for k in range(len(rows[0])))


_upcalls.register("map_samples", map_samples)   # for custom Functions, below the op layer


def _alias(t):
    from .shape import alias      # the family module imports this one, so look it up late
    return alias(t)


_upcalls.register("alias", _alias)   # make_dual's view, for forward mode below the op layer


def fit_gradient(g, like):
    """Undo broadcasting by summing and match the input's dtype.

    >>> fit_gradient(eagerad.ones(2, 3), eagerad.Tensor([[1.0, 2.0, 3.0]])).tolist()
    [[2.0, 2.0, 2.0]]
    """
    if type(g) is Tensor and g._data.shape == like._data.shape and g._data.dtype == like._data.dtype:
        return g      # the usual case, checked first: this runs once per gradient
    if not isinstance(g, Tensor):
        g = Tensor._make(backend.get(like._device.type).full(like.shape, g, like.dtype), like._device)
    if g.shape != like.shape:
        g = sum_to(g, like.shape)
    if g.dtype != like.dtype:
        g = g.astype(like.dtype)
    return g


def _sum_axes(have, shape):
    """Axes of an array of shape ``have`` to sum (keeping them) to get ``shape``."""
    lead = len(have) - len(shape)
    return tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and have[i + lead] != 1)


def _sum_to_array(B, arr, shape):
    """``sum_to`` on a backend array (the same reduce and reshape calls)."""
    shape = tuple(shape)
    axes = _sum_axes(tuple(arr.shape), shape)
    if axes:
        arr = B.reduce("sum", arr, axes, True)
    return arr if tuple(arr.shape) == shape else B.reshape(arr, shape)


def sum_to(g, shape):
    """Sum ``g`` down to ``shape`` (the reverse of broadcasting ``shape`` up to ``g.shape``).

    >>> sum_to(eagerad.ones(2, 3), (3,)).tolist()
    [2.0, 2.0, 2.0]
    """
    axes = _sum_axes(g.shape, shape)
    lead = g.ndim - len(shape)
    if lead and axes == tuple(range(lead)):
        return g.sum(axis=axes, keepdims=False)    # the leading axes only: one node, no reshape
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    if g.shape != tuple(shape):
        g = g.reshape(shape)
    return g


from . import lean as _lean  # noqa: E402  (it builds on this module: imported once it is whole)
