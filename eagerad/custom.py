"""JAX's ``custom_jvp`` and ``custom_vjp``: give a Python function its own derivative rule.

``custom_vjp``: ``f.defvjp(fwd, bwd)``; ``fwd(*args)`` returns ``(output, residuals)``,
``bwd(residuals, cotangent)`` one gradient tree per argument.  ``fwd`` runs with the
graph recorded, so residuals that depend on the inputs keep that dependence and a
``bwd`` written in eagerad ops is differentiated again (``grad(grad(f))``).  As in
JAX, forward mode (``jvp``, ``jacfwd``) through a ``custom_vjp`` function is an error.

``custom_jvp``: ``f.defjvp(rule)``; ``rule(primals, tangents)`` returns
``(output, tangent_out)`` and must be linear in the tangents.  Forward mode uses it
directly; reverse mode transposes it (the gradient of ``<g, tangent_out>`` w.r.t. the
tangents), so ``grad``, ``jacrev`` and ``hessian`` work too, to any order.

Both take and return pytrees (``eagerad.tree``); inside ``vmap`` they run once per
sample.

>>> import eagerad
>>> @custom_jvp
... def log1pexp(x):
...     return (1 + x.exp()).log()
>>> @log1pexp.defjvp
... def log1pexp_jvp(primals, tangents):
...     (x,), (t,) = primals, tangents
...     return log1pexp(x), t * (1 - 1 / (1 + x.exp()))
>>> round(eagerad.grad(log1pexp)(eagerad.tensor(100.0)).item(), 6)   # no inf/inf
1.0
"""
import functools
import threading

from . import reverse, tree
from .autograd import batching, forward_ad
from .autograd.engine import _edge_of
from .autograd.grad_mode import no_grad, state as grad_state
from .autograd.node import Node
from .tensor import Tensor, zeros_like

__all__ = ["custom_jvp", "custom_vjp"]


class _Depth(threading.local):
    """A per-thread nesting count."""
    value = 0


def _batched(args):
    return batching.levels and any(type(a) is batching.BatchedTensor for a in tree.leaves(args))


def _per_sample(fn, args):
    """``fn(*args)`` one sample at a time (tensor outputs only), as a custom ``Function``."""
    leaves, treedef = tree.flatten(args)
    out_def = []

    def flat(*ls):
        out_leaves, d = tree.flatten(fn(*treedef.unflatten(ls)))
        out_def.append(d)
        return tuple(out_leaves)
    result = batching.apply_per_sample(flat, tuple(leaves))
    return out_def[-1].unflatten(result)


def _record(name, leaves, out, backward):
    """``out`` (a tree) re-issued as the outputs of one graph node over the tensor
    ``leaves`` that require grad; ``backward(output_grads) -> one gradient per leaf``."""
    out_leaves, out_def = tree.flatten(out)
    needs = [isinstance(a, Tensor) and a._requires_grad for a in leaves]
    fresh = [Tensor._make(o._data, o._device, version=o._version) if isinstance(o, Tensor) else o
             for o in out_leaves]
    if grad_state.enabled and any(needs):
        tensors = [o for o in fresh if isinstance(o, Tensor)]

        def backward_fn(grads, inputs, outs):
            grads = iter(grads)
            full = [(next(grads) if isinstance(o, Tensor) else None) for o in fresh]
            full = [zeros_like(o) if g is None and isinstance(o, Tensor) else g
                    for g, o in zip(full, fresh)]
            result = backward(out_def.unflatten(full))
            return [g for g, need in zip(result, needs) if need]
        node = Node(name, backward_fn, tuple(_edge_of(a) for a, need in zip(leaves, needs) if need),
                    tuple(a for a, need in zip(leaves, needs) if need), (), tensors, False)
        for k, o in enumerate(tensors):
            o._requires_grad, o.grad_fn, o._out_index = True, node, k
    return out_def.unflatten(fresh)


def _fit(grads, leaves, what):
    """Gradient leaves checked against the argument leaves (None for non-tensors)."""
    if len(grads) != len(leaves):
        raise ValueError(f"{what} returned {len(grads)} gradient leaves for {len(leaves)} argument "
                         "leaves; return one gradient tree per argument")
    fitted = []
    for i, (g, a) in enumerate(zip(grads, leaves)):
        if not isinstance(a, Tensor) or g is None:
            fitted.append(None if g is None or not isinstance(a, Tensor) else g)
            continue
        if not isinstance(g, Tensor) or g.shape != a.shape:
            raise ValueError(f"{what}: gradient leaf {i} has shape "
                             f"{getattr(g, 'shape', type(g).__name__)}, the argument has {a.shape}")
        fitted.append(g if g.dtype == a.dtype else g.astype(a.dtype))
    return fitted


class _Custom:
    """What both decorators share: the wrapped function, its non-differentiable positions,
    the "no rule yet" error and the per-sample path inside ``vmap``."""
    kind = ""

    def __init__(self, fun, nondiff_argnums=()):
        self.fun, self.nondiff_argnums = fun, tuple(nondiff_argnums)
        self._rule_set = False
        functools.update_wrapper(self, fun)

    def _split(self, args):
        """``(positions of the differentiable arguments, the non-differentiable ones)``."""
        return ([i for i in range(len(args)) if i not in self.nondiff_argnums],
                tuple(args[i] for i in self.nondiff_argnums))

    def __call__(self, *args):
        if not self._rule_set:
            raise AttributeError(f"No {self.kind.upper()} defined for custom_{self.kind} function "
                                 f"{self.__name__} using def{self.kind}.")
        if _batched(args):
            return _per_sample(self, args)
        return self._call(*args)


class custom_vjp(_Custom):
    """Decorator: ``fun`` with a reverse-mode rule given by ``defvjp(fwd, bwd)`` (JAX).

    ``nondiff_argnums`` name arguments that are passed to ``bwd`` first and get no gradient.

    >>> @custom_vjp
    ... def clip_gradient(x):
    ...     return x * 1.0
    >>> clip_gradient.defvjp(lambda x: (x * 1.0, None), lambda res, g: (g.clip(-1, 1),))
    >>> eagerad.grad(lambda x: clip_gradient(x) * 5.0)(eagerad.tensor(2.0)).item()
    1.0
    """

    kind = "vjp"

    def __init__(self, fun, nondiff_argnums=()):
        super().__init__(fun, nondiff_argnums)
        self.fwd = self.bwd = None
        self._in_fwd = _Depth()   # fwd calling the function itself gets the plain primal
        # (per thread: another thread's fwd running at the same time must not switch
        # this call's rule off)

    def defvjp(self, fwd, bwd):
        """Set the rule: ``fwd(*args) -> (out, residuals)``, ``bwd(res, g) -> grads``.

        >>> f = custom_vjp(lambda x: x); f.defvjp(lambda x: (x, None), lambda r, g: (g,))
        """
        self.fwd, self.bwd, self._rule_set = fwd, bwd, True

    def _call(self, *args):
        if any(True for _ in forward_ad.levels_with_tangents(tree.leaves(args))):
            raise TypeError(f"can't apply forward-mode autodiff (jvp) to a custom_vjp function "
                            f"({self.__name__}).")
        diff, kept = self._split(args)
        leaves = tree.leaves(tuple(args[i] for i in diff))
        if self._in_fwd.value or not (grad_state.enabled and any(
                isinstance(a, Tensor) and a._requires_grad for a in leaves)):
            return self.fun(*args)
        self._in_fwd.value += 1
        try:
            out, res = self.fwd(*args)
        finally:
            self._in_fwd.value -= 1

        def backward(g):
            grads = self.bwd(*kept, res, g)
            if not isinstance(grads, (tuple, list)) or len(grads) != len(diff):
                raise ValueError(f"custom_vjp {self.__name__}: bwd must return a tuple with one "
                                 f"entry per differentiable argument ({len(diff)}), got "
                                 f"{type(grads).__name__}")
            flat = [g for arg, gt in zip((args[i] for i in diff), grads)
                    for g in (tree.leaves(gt) if gt is not None else
                              [None] * len(tree.leaves(arg)))]
            return _fit(flat, leaves, f"custom_vjp {self.__name__}: bwd")
        return _record(f"CustomVjp{_title(self.__name__)}Backward", leaves,
                       tree.map(lambda t: t.detach() if isinstance(t, Tensor) else t, out),
                       backward)


class custom_jvp(_Custom):
    """Decorator: ``fun`` with a forward-mode rule given by ``defjvp(rule)`` (JAX); reverse
    mode transposes the rule.

    >>> @custom_jvp
    ... def f(x):
    ...     return x.sin()
    >>> _ = f.defjvp(lambda p, t: (f(p[0]), t[0] * 2.0))   # a deliberately different rule
    >>> eagerad.grad(f)(eagerad.tensor(0.3)).item()
    2.0
    """

    kind = "jvp"

    def defjvp(self, rule):
        """Set ``rule(primals, tangents) -> (out, tangent_out)``; usable as a decorator.

        >>> f = custom_jvp(lambda x: x); f.defjvp(lambda p, t: (p[0], t[0])) is not None
        True
        """
        self.rule, self._rule_set = rule, True
        return rule

    def _apply_rule(self, args, tangents):
        diff, kept = self._split(args)
        return self.rule(*kept, tuple(args[i] for i in diff), tuple(tangents))

    def _call(self, *args):
        diff, _ = self._split(args)
        diff_args = tuple(args[i] for i in diff)
        leaves, leaves_def = tree.flatten(diff_args)
        with no_grad():
            out = forward_ad.without_tangents(self.fun, *args)
        if grad_state.enabled and any(isinstance(a, Tensor) and a._requires_grad for a in leaves):
            out = _record(f"CustomJvp{_title(self.__name__)}Backward", leaves, out,
                          lambda g: self._transpose(args, leaves, leaves_def, g))
        for level, tangents in list(forward_ad.levels_with_tangents(leaves)):
            full = [t if t is not None else (zeros_like(a) if isinstance(a, Tensor) else None)
                    for t, a in zip(tangents, leaves)]
            _, t_out = forward_ad.without_level(level, self._apply_rule, args,
                                                leaves_def.unflatten(full))
            for o, t in zip(tree.leaves(out), tree.leaves(t_out)):
                if isinstance(o, Tensor) and isinstance(t, Tensor):
                    forward_ad.set_tangent(o, level, t if t.shape == o.shape else
                                           t.broadcast_to(o.shape))
        return out

    def _transpose(self, args, leaves, leaves_def, g):
        """Gradients of ``<g, tangent_out>`` w.r.t. the tangents: the rule's transpose, by the
        reverse-mode core on zero tangents (this runs inside the engine's walk, on the
        physical tensors: no vmap level applies)."""
        where = [i for i, a in enumerate(leaves) if isinstance(a, Tensor)]

        def tangent_out(*ts):
            full = [None] * len(leaves)
            for i, t in zip(where, ts):
                full[i] = t
            return tree.leaves(self._apply_rule(args, leaves_def.unflatten(full))[1])
        # tangents of enclosing forward levels flow through the rule's primals:
        # forward-over-reverse sees the rule move
        t_out, tr = reverse.trace(tangent_out, [zeros_like(leaves[i]) for i in where], levels=[])
        pairs = [(t, c) for t, c in zip(t_out, tree.leaves(g)) if isinstance(t, Tensor)]
        found = tr.pull([t for t, _ in pairs], [c for _, c in pairs], None, fill=False)
        flat = [None] * len(leaves)
        for i, grad in zip(where, found):
            flat[i] = grad
        return _fit(flat, leaves, f"custom_jvp {self.__name__}: rule")


def _title(name):
    return "".join(part[:1].upper() + part[1:] for part in name.split("_"))
