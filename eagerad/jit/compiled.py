"""``Compiled``: a function that is traced once per guard key and replayed after.

See ``eagerad.jit`` for the semantics.  A call first computes the guard key
(``guards.guard_key``); a key seen before replays its plan (``plan.Plan``) or, if its trace
could not be replayed, runs the function eagerly again (the reason is kept in
``compiled.fallbacks``); a new key traces the function (``trace.record``: an eager run,
whose result is returned) and makes its plan.  Calls made while vmap or forward-mode AD is
active, or while another function is being traced, run the function as written.

>>> import eagerad
>>> f = Compiled(lambda x: (x * 2).exp(), 1)
>>> f(eagerad.zeros(2)).tolist(), f(eagerad.zeros(2)).tolist(), len(f.plans)
([1.0, 1.0], [1.0, 1.0], 1)
"""
import functools

from ..autograd import batching, forward_ad
from ..ops import registry
from . import guards
from .plan import Plan
from .trace import record


class Compiled:
    """``fn`` compiled: ``plans`` maps guard keys to plans, ``fallbacks`` maps the keys run
    eagerly to the reason.  ``min_fuse_size``: chains over fewer elements are replayed op by
    op (fusing pays for passes over memory, not for small tensors)."""

    def __init__(self, fn, min_fuse_size, module=None):
        self.fn = fn
        self.min_fuse_size = min_fuse_size
        self.module = module if module is not None else guards.module_of(fn)
        self.plans = {}
        self.fallbacks = {}
        self._bound = {}
        try:
            functools.update_wrapper(self, fn)
        except AttributeError:
            pass

    def __call__(self, *args, **kwargs):
        fn = self.fn
        if registry.tracer is not None or batching.levels or forward_ad.levels:
            return fn(*args, **kwargs)
        try:
            leaves, key = guards.guard_key(self.module, args, kwargs)
        except guards.Unguardable:
            return fn(*args, **kwargs)
        plan = self.plans.get(key)
        if plan is not None and plan.valid():
            return plan.run(leaves)
        if key in self.fallbacks:
            return fn(*args, **kwargs)
        try:
            trace = record(fn, args, kwargs, leaves)
        except BaseException as e:
            self.fallbacks[key] = f"the function raised {type(e).__name__} while traced"
            self.plans.pop(key, None)
            raise
        if trace.problem is not None:
            self.fallbacks[key] = trace.problem
            self.plans.pop(key, None)
        else:
            self.plans[key] = Plan(trace, self.min_fuse_size)
        return trace.result

    def __get__(self, obj, cls=None):
        """A compiled method: bound to ``obj``, whose layer state joins the guard key."""
        if obj is None:
            return self
        bound = self._bound.get(id(obj))
        if bound is None or bound[0]() is not obj:
            import types
            import weakref
            c = Compiled(types.MethodType(self.fn, obj), self.min_fuse_size)
            try:
                ref = weakref.ref(obj, lambda _, k=id(obj), b=self._bound: b.pop(k, None))
            except TypeError:
                return c
            bound = self._bound[id(obj)] = (ref, c)
        return bound[1]

    def __repr__(self):
        return f"<eagerad.jit of {getattr(self.fn, '__qualname__', self.fn)!r}>"


def optimized_module(module, compiled, base):
    """PyTorch's ``OptimizedModule``: a layer of class ``base`` holding ``module`` as
    ``_orig_mod`` (so ``parameters()``, ``state_dict()``, ``train()``/``eval()`` work on it,
    its keys prefixed ``_orig_mod.`` as PyTorch's are) whose forward is ``compiled``; other
    attributes are ``module``'s."""
    cls = _optimized_classes.get(base)
    if cls is None:
        cls = _optimized_classes[base] = type("OptimizedModule", (_Optimized, base), {})
    return cls(module, compiled)


_optimized_classes = {}


class _Optimized:
    def __init__(self, module, compiled):
        super().__init__(auto_prefix=False)
        self.__dict__["training"] = module.training
        self.__dict__["_compiled"] = compiled
        self._orig_mod = module

    def forward(self, *args, **kwargs):
        return self.__dict__["_compiled"](*args, **kwargs)

    construct = forward

    def __getattr__(self, name):
        d = self.__dict__
        if name.startswith("__") or "_orig_mod" not in d:
            raise AttributeError(name)
        return getattr(d["_orig_mod"], name)
