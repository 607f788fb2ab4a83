"""The one reverse-mode core under every transform.

MindSpore's ``grad``/``value_and_grad``/``GradOperation``, ``torch.func`` and
``torch.autograd.functional``, eagerad's ``vjp``/``jacrev``/``hessian``, the transpose
of a ``custom_jvp`` rule and the recomputation of ``checkpoint`` all differentiate the
same way, here; each front end only maps its spelling (``grad_position``, ``argnums``,
``has_aux``, ``weights``, ``sens``, ``strict``, ...) onto ``trace`` and ``Trace.pull``:

1. ``trace(fn, leaves)`` gives every leaf its *own* fresh variable (so one Tensor passed
   twice gets two partial derivatives, and a nested transform never confuses its
   variable with an outer one) -- inside ``vmap`` batched at every open level, so each
   sample gets its own derivative -- and runs ``fn`` on them with graph recording on;
2. ``Trace.pull(outputs, cotangents)`` runs the engine once from the outputs and gives
   one gradient per leaf (and per weight), zeros where nothing reached it.

One ``create_graph`` policy: the backward pass is recorded exactly when something can
still differentiate its result -- grad mode is on, and the graph reaches a tensor that
requires grad and that this call does not own (an outer transform's variable, a
tensor of the PyTorch face, a Parameter not listed in ``weights``), or a cotangent
requires grad, or this call runs inside another transform's function.  Otherwise the
results carry no graph, which is faster and frees the forward graph at once; the
value a transform returns keeps its graph under the same condition (``differentiable``).

>>> import eagerad
>>> out, tr = trace(lambda a, b: a * b, [eagerad.tensor([2.0]), eagerad.tensor([3.0])])
>>> [g.tolist() for g in tr.pull([out], [eagerad.tensor([1.0])])]
[[3.0], [2.0]]
"""
import threading

from .autograd import forward_ad
from .autograd.batching import unwrap
from .autograd.engine import backward as _engine_backward, reaches_foreign
from .autograd.grad_mode import state as _grad_state
from .tensor import zeros_like
from .vectorize import active, lift, lower, materialize, physical, variable

__all__ = ["trace", "Trace", "nested"]


class _Depth(threading.local):
    """How many transforms are running their function on this thread right now."""
    value = 0


_depth = _Depth()


def nested():
    """Whether some transform's function is running on this thread now (its result may
    then be differentiated again, so a transform called here records its backward).

    >>> nested()
    False
    >>> trace(lambda x: nested(), [eagerad.ones(1)])[0]
    True
    """
    return _depth.value > 0


def trace(fn, leaves, weights=(), levels=None):
    """``(fn's raw output, Trace)``: ``fn`` run once on fresh variables for the tensors
    ``leaves``, recording the graph; ``weights`` (Parameters) are differentiated where
    they are, as MindSpore's ``weights=``.

    ``levels`` are the vmap levels the variables are batched at: by default every open
    one (a transform called by user code); ``[]`` for a caller that already works on the
    physical tensors (a rule running inside the engine's walk).

    >>> w = eagerad.Parameter(eagerad.tensor([2.0]), name='w')
    >>> out, tr = trace(lambda x: (x * w).sum(), [eagerad.tensor([3.0])], [w])
    >>> [g.tolist() for g in tr.pull([out], [eagerad.tensor(1.0)])]
    [[2.0], [3.0]]
    """
    lv = active() if levels is None else levels
    pairs = [_variable(x, weights, lv) for x in leaves]
    own = {id(p) for _, p in pairs if p.grad_fn is None}
    if not _depth.value:      # an outer transform may still differentiate its weights
        own.update(id(w) for w in weights)
    outer = _grad_state.enabled
    _grad_state.enabled = True
    _depth.value += 1
    try:
        out = fn(*[v for v, _ in pairs])
    finally:
        _depth.value -= 1
        _grad_state.enabled = outer
    return out, Trace(pairs, tuple(weights), lv, own)


def _variable(x, weights, lv):
    """``(logical, physical)`` fresh variable for ``x`` (``vectorize.variable``); a tensor
    that is also one of ``weights`` becomes a leaf of its own, its tangents kept, so that
    forward mode over the transform still sees it move."""
    if any(x is w for w in weights):
        v = forward_ad.detach(x)
        v._requires_grad = True
        return v, v
    return variable(x, lv)


class Trace:
    """A function run by ``trace``: its variables, and the engine walk back to them.

    >>> out, tr = trace(lambda x: x * x, [eagerad.tensor([3.0])])
    >>> tr.pull([out], [eagerad.tensor([1.0])])[0].tolist(), tr.differentiable([out])
    ([6.0], False)
    """
    __slots__ = ("pairs", "weights", "levels", "own", "_foreign")

    def __init__(self, pairs, weights, levels, own):
        self.pairs, self.weights, self.levels, self.own = pairs, weights, levels, own
        self._foreign = None

    @property
    def variables(self):
        """The physical variables, one per leaf (what the graph was recorded on).

        >>> trace(lambda x: x, [eagerad.ones(1)])[1].variables[0].requires_grad
        True
        """
        return [p for _, p in self.pairs]

    def physical(self, outs):
        """The outputs ``outs`` as the graph holds them (physical at this call's levels).

        >>> out, tr = trace(lambda x: x, [eagerad.ones(1)]); tr.physical([out])[0] is out
        True
        """
        return [physical(o, self.levels) for o in outs]

    def _reaches_foreign(self, phys):
        if self._foreign is None:
            self._foreign = reaches_foreign([o for o in phys if o._requires_grad], self.own)
        return self._foreign

    def differentiable(self, outs):
        """Whether something outside this call can differentiate what it computed from
        ``outs`` (the policy of the module docstring, without the cotangents): then the
        transform's results keep their graph.

        >>> x = eagerad.tensor([1.0], requires_grad=True)
        >>> out, tr = trace(lambda v: v * x, [eagerad.ones(1)]); tr.differentiable([out])
        True
        """
        return _grad_state.enabled and (nested() or self._reaches_foreign(self.physical(outs)))

    def pull(self, outs, cotangents, retain_graph=True, fill=True):
        """One engine walk from ``outs`` seeded with ``cotangents`` (one per output, each
        shaped like it): a gradient per leaf, then per weight (zeros where nothing reached
        it, or None with ``fill=False``).  ``retain_graph`` keeps the graph for another pull.

        >>> out, tr = trace(lambda x, y: x * 2, [eagerad.ones(1), eagerad.ones(1)])
        >>> [g.tolist() for g in tr.pull([out], [eagerad.ones(1)])]
        [[2.0], [0.0]]
        """
        lv = self.levels
        phys = self.physical(outs)
        seeds = [lower(materialize(g, lv), lv) for g in cotangents]
        live = [(o, g) for o, g in zip(phys, seeds) if o._requires_grad]
        create = bool(live) and _grad_state.enabled and (
            nested() or any(unwrap(g)[0]._requires_grad for g in cotangents)
            or self._reaches_foreign(phys))
        targets = self.variables + list(self.weights)
        wanted = [t for t in targets if t._requires_grad]   # a weight may not require grad
        found = iter(_engine_backward([o for o, _ in live], [g for _, g in live], retain_graph,
                                      create, wanted, True) if live and wanted else ())
        grads = [next(found, None) if t._requires_grad else None for t in targets]
        n = len(self.pairs)
        grads = [lift(g, lv) if g is not None and i < n else g for i, g in enumerate(grads)]
        if not fill:
            return grads
        logical = [v for v, _ in self.pairs] + list(self.weights)
        return [g if g is not None else zeros_like(t) for g, t in zip(grads, logical)]

