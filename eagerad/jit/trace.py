"""Recording one eager run of a function: every op call, and whether it can be replayed.

``record(fn, args, kwargs, leaves)`` runs ``fn`` eagerly (its result is the call's result)
while ``registry.tracer`` receives every op applied.  Each tensor the run meets gets a slot:
an argument's tensors, outputs of recorded ops, tensors that existed before the run
(parameters, closed-over tensors: read by reference when replayed), constants built from
host data during the run (``Tensor(...)``: kept by value, a fresh copy at each replay),
and arrays the backend drew or filled during the run (``rand``, a dropout mask,
``zeros``: drawn or filled again when replayed).  A tensor made any other way (``detach()``, ``.data``, a gradient from the
autograd engine, a kernel run outside the ops) makes the trace unreplayable, and so do a
tensor's value read on the host (``item``, ``bool``, ``float``, ``int``, ``tolist``,
``numpy``, printing, ``__index__``), a tensor changed in place, the autograd engine, a
tensor hook, vmap or forward-mode levels met inside, and non-tensor outputs.

>>> import eagerad
>>> x = eagerad.ones(2)
>>> t = record(lambda a: (a * 2).exp(), (x,), {}, [x])
>>> [s.op.name for s in t.steps], t.problem
(['mul', 'exp'], None)
"""
import gc
import threading
import weakref

import numpy as np

from .. import backend
from ..autograd import batching, engine, forward_ad
from ..autograd.grad_mode import state as _grad_state
from ..ops import registry
from ..tensor import Tensor

# Tensor methods that read values on the host (their result is a Python value, baked into
# the trace if it were replayed) or that hook into the autograd engine.
HOST_READS = ("item", "tolist", "numpy", "__bool__", "__float__", "__int__", "__index__",
              "__complex__", "__repr__", "__str__", "__format__", "__array__", "__contains__")
AUTOGRAD = ("register_hook", "retain_grad", "backward", "register_post_accumulate_grad_hook")
# backend functions whose arrays depend on no tensor: drawn or filled again when replayed
SOURCES = ("uniform", "normal", "bernoulli", "integers", "full", "arange")

ARG, EXTERNAL, CONST, SOURCE, PRODUCED = range(5)


class Step:
    """One recorded op call: ``op``, its arguments with each tensor replaced by its slot
    (``Slot``), its keywords and the slots of its outputs, and the grad mode it ran under."""
    __slots__ = ("op", "args", "kwargs", "outs", "grad")

    def __init__(self, op, args, kwargs, outs, grad):
        self.op, self.args, self.kwargs, self.outs, self.grad = op, args, kwargs, outs, grad

    def __repr__(self):
        return f"Step({self.op.name}, {self.args}, {self.outs})"


class Slot(int):
    """A tensor's slot number where a step's argument was a tensor (an int subclass, so a
    plain int argument is never mistaken for one)."""
    __slots__ = ()

    def __repr__(self):
        return f"%{int(self)}"


class Trace:
    """What ``record`` saw: ``steps``; per slot its ``kinds`` entry (ARG, EXTERNAL, CONST,
    SOURCE, PRODUCED) and ``values`` entry (the tensor); ``sources`` (CONST and SOURCE slot
    -> (backend function name, or "copy" of a constant's array, its arguments, device,
    face)); the output
    structure ``out_tree`` (slots at the tensors); and ``problem``, why it cannot be
    replayed (None when it can)."""

    def __init__(self):
        self.steps = []
        self.kinds = []
        self.values = []
        self.meta = []          # (shape, dtype, device, requires_grad) when first met
        self.sources = {}
        self.out_tree = None
        self.problem = None
        self.arg_slots = ()     # the slot of each argument tensor (one tensor passed twice: one)
        self.grad_mode = True
        self.views = []         # (slot, root slot, view steps): ``ops.shape.track_view``'s marks


class _Recorder:
    """The state of one recording: the hook ``registry.tracer`` calls, and the patches.

    While recording (``with`` this object) some attributes are replaced and restored after:
    the ``Tensor`` methods that read values on the host or reach the autograd engine,
    ``Tensor.__init__`` (to know the constants built), the CPU backend's ``SOURCES`` (to know
    the arrays drawn) and the engine's ``_check_seed`` (to know it ran); only while the
    recorded function runs (process-wide: ops of other threads are not recorded)."""

    def __init__(self, trace, leaves):
        self.trace = trace
        self.slot_of = {}          # id(tensor) -> slot
        self.seen = {}             # slot -> (version counter value, id of _data)
        self.keep = []             # tensors met (kept alive so their ids stay unique)
        self.created = {}          # id(tensor) -> (weak ref, copy of its array): Tensor(host data)
        self.drawn = {}            # id(array) -> (array, copy, backend name, args)
        self.pre = None
        self.thread = threading.get_ident()
        trace.arg_slots = tuple(self.slot_of[id(t)] if id(t) in self.slot_of
                                else self._new_slot(t, ARG, t) for t in leaves)
        trace.grad_mode = _grad_state.enabled

    # ------------------------------------------------------------ slots
    def _new_slot(self, t, kind, value):
        tr = self.trace
        s = Slot(len(tr.values))
        tr.kinds.append(kind)
        tr.values.append(value)
        d = t._data
        tr.meta.append((d.shape, d.dtype, t._device, t._requires_grad))
        self.slot_of[id(t)] = s
        self.seen[s] = (t._version[0], id(d))
        self.keep.append(t)
        return s

    def fail(self, why):
        if self.trace.problem is None:
            self.trace.problem = why

    def _existed(self, t):
        ref = self.pre.get(id(t))
        return ref is not None and ref() is t

    def slot(self, t):
        """The slot of tensor ``t`` met as an argument (classified at first sight)."""
        s = self.slot_of.get(id(t))
        if s is not None:
            version, data = self.seen[s]
            if t._version[0] != version or id(t._data) != data:
                self.fail("a tensor was changed in place")
            return s
        if self._existed(t):
            return self._new_slot(t, EXTERNAL, t)
        made = self.created.get(id(t))
        if made is not None and made[0]() is t:
            snap = made[1]
            if t._requires_grad or not np.array_equal(snap, t._data, equal_nan=True):
                self.fail("a tensor built inside the function requires grad or was changed")
            s = self._new_slot(t, CONST, t)
            self.trace.sources[s] = ("copy", (snap,), t._device, t._face)
            return s
        drawn = self.drawn.pop(id(t._data), None)    # (one tensor per drawn array)
        if drawn is not None and drawn[0] is t._data and not t._requires_grad:
            arr, copy, name, bargs = drawn
            if not np.array_equal(copy, arr, equal_nan=arr.dtype.kind in "fc"):
                self.fail(f"an array from the backend's {name} was changed before use")
            s = self._new_slot(t, SOURCE, t)
            self.trace.sources[s] = (name, bargs, t._device, t._face)
            return s
        self.fail("a tensor was computed outside eagerad's ops (detach(), .data, a gradient, "
                  "or a kernel called directly)")
        return self._new_slot(t, EXTERNAL, t)

    # ------------------------------------------------------------ the op hook
    def __call__(self, op, args, kwargs, result):
        if threading.get_ident() != self.thread:
            return                  # another thread's work is not the function's
        try:
            if batching.levels or forward_ad.levels:
                self.fail("vmap or forward-mode AD inside the function")
            sargs = tuple(self.slot(a) if isinstance(a, Tensor) else self._constant(a)
                          for a in args)
            skw = {k: self._constant(v) for k, v in kwargs.items()} if kwargs else kwargs
            outs = result if type(result) is tuple else (result,)
            slots = []
            for o in outs:
                if id(o) in self.slot_of:       # an op returning one of its arguments
                    self.fail(f"op {op.name} returned an existing tensor")
                slots.append(self._new_slot(o, PRODUCED, None))
            self.trace.steps.append(Step(op, sargs, skw, tuple(slots), _grad_state.enabled))
        except Exception as e:   # noqa: BLE001 -- never break the user's eager run
            self.fail(f"the tracer failed on op {op.name}: {e!r}")

    def _constant(self, v):
        """A non-tensor argument of an op, kept by value: tensors inside containers or numpy
        arrays (which may hold a tensor's values read on the host) make the trace fail."""
        tv = type(v)
        if tv is tuple or tv is list:
            return tv(self._constant(x) for x in v)
        if isinstance(v, Tensor):
            self.fail("a tensor passed inside a container to an op")
        elif isinstance(v, np.ndarray):
            self.fail("a numpy array passed to an op")
        elif isinstance(v, dict):
            return {k: self._constant(x) for k, x in v.items()}
        return v

    # ------------------------------------------------------------ patches
    def _refusing(self, name, orig, why):
        """Tensor method ``name`` that marks the trace unreplayable (``why``), then runs."""
        rec = self

        def method(self, *args, **kwargs):
            rec.fail(f"{why} ({name})")
            return orig.__get__(self, type(self))(*args, **kwargs)
        method.__name__ = name
        return method

    def _autograd_use(self, name, orig):
        rec = self

        def use(*args, **kwargs):
            rec.fail(f"the autograd engine or a hook was used inside the function ({name})")
            return orig(*args, **kwargs)
        return use

    def _draw(self, name, orig):
        drawn = self.drawn

        def draw(*args):
            arr = orig(*args)
            if isinstance(arr, np.ndarray):
                drawn[id(arr)] = (arr, arr.copy(), name, args)
            return arr
        return draw

    def _init(self, orig):
        created = self.created

        def __init__(self, data=None, *args, **kwargs):
            orig(self, data, *args, **kwargs)
            if not isinstance(data, Tensor) and isinstance(self._data, np.ndarray):
                created[id(self)] = (weakref.ref(self), self._data.copy())
        return __init__

    def __enter__(self):
        self.pre = {id(o): weakref.ref(o) for o in gc.get_objects() if issubclass(type(o), Tensor)}
        for t in self.keep:
            self.pre.pop(id(t), None)
        self.saved = saved = []
        d = Tensor.__dict__
        for name in HOST_READS:
            if name in d:
                saved.append((Tensor, name, d[name]))
                setattr(Tensor, name, self._refusing(name, d[name], "a tensor's value was read "
                                                               "on the host"))
        for name in AUTOGRAD:
            if name in d:
                orig = d[name]
                saved.append((Tensor, name, orig))
                setattr(Tensor, name, self._refusing(name, orig, "the autograd engine or a "
                                                     "hook was used inside the function"))
        saved.append((Tensor, "__init__", d["__init__"]))
        Tensor.__init__ = self._init(d["__init__"])
        seed = engine._check_seed       # (the engine's first call in every backward walk)
        saved.append((engine, "_check_seed", seed))
        setattr(engine, "_check_seed", self._autograd_use("autograd.grad/backward", seed))
        cpu = backend.get("cpu")
        for name in SOURCES:
            saved.append((cpu, name, getattr(cpu, name)))
            setattr(cpu, name, self._draw(name, getattr(cpu, name)))
        registry.set_tracer(self)
        return self

    def __exit__(self, *exc):
        registry.set_tracer(None)
        for owner, name, orig in reversed(self.saved):
            setattr(owner, name, orig)
        self.saved = []
        return False

    # ------------------------------------------------------------ the end of the run
    def finish(self, result):
        """Map the result to slots and check what the run left behind."""
        tr = self.trace
        tr.out_tree = self._out(result)
        for s, (version, data) in self.seen.items():
            t = self.keep[s]
            if t._version[0] != version or id(t._data) != data:
                self.fail("a tensor was changed in place")
            view = t.__dict__.get("_view") if tr.kinds[s] == PRODUCED else None
            if view is not None:
                root = self.slot_of.get(id(view[0]))
                if root is None or self.keep[root] is not view[0]:
                    self.fail("a view of a tensor the trace does not know")
                else:
                    tr.views.append((s, root, view[1]))
        if tr.problem is None:
            known = self.slot_of
            for o in gc.get_objects():
                if issubclass(type(o), Tensor) and id(o) not in known and not self._existed(o) \
                        and (self.created.get(id(o)) or (lambda: None,))[0]() is not o:
                    self.fail("a tensor made outside eagerad's ops outlived the function "
                              "(a gradient, a detached copy, a cached value)")
                    break

    def _out(self, x):
        tx = type(x)
        if isinstance(x, Tensor):
            s = self.slot_of.get(id(x))
            if s is None:
                s = self.slot(x)
            if tr_kind(self.trace, s) in (CONST, SOURCE):
                self.fail("an output is a tensor built inside the function without ops")
            return s
        if tx is tuple or tx is list:
            return tx(self._out(v) for v in x)
        if tx is dict:
            return {k: self._out(v) for k, v in x.items()}
        if x is None:
            return None
        self.fail(f"the function returned a {tx.__name__}, not tensors")
        return None


def tr_kind(trace, s):
    """The kind of slot ``s`` (ARG, EXTERNAL, CONST, SOURCE or PRODUCED).

    >>> t = Trace(); t.kinds.append(ARG); tr_kind(t, 0) == ARG
    True
    """
    return trace.kinds[s]


def record(fn, args, kwargs, leaves):
    """Run ``fn(*args, **kwargs)`` eagerly, recording it (see the module's docstring);
    returns the ``Trace``, whose ``result`` is the call's result.  An exception from ``fn``
    propagates (with ``trace.problem`` set first, so the caller can remember it)."""
    trace = Trace()
    if registry.tracer is not None:
        raise RuntimeError("eagerad.jit: already recording a trace")
    rec = _Recorder(trace, leaves)
    with rec:
        try:
            result = fn(*args, **kwargs)
        except BaseException:
            rec.fail("the function raised")
            raise
    rec.finish(result)
    trace.result = result
    trace.keep = rec.keep
    return trace
