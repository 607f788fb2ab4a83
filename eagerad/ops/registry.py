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

from .. import backend
from ..autograd import forward_ad
from ..autograd.engine import _edge_of
from ..autograd.grad_mode import state as grad_state
from ..autograd.node import Node
from ..tensor import Tensor, zeros_like

OPS = {}


class Op:
    """Forward function, per-argument vjp/jvp rules and what backward must keep."""
    __slots__ = ("name", "node_name", "forward", "vjp", "jvp", "saves", "save_output",
                 "fast", "n_outputs", "view", "moves_device")

    def __init__(self, name, forward, vjp, jvp, saves, save_output, fast, n_outputs, view,
                 moves_device):
        self.name = name
        self.node_name = "".join(p.capitalize() for p in name.split("_")) + "Backward"
        self.forward = forward
        self.vjp = vjp
        self.jvp = jvp
        self.saves = saves
        self.save_output = save_output
        self.fast = fast
        self.n_outputs = n_outputs
        self.view = view
        self.moves_device = moves_device

    def __call__(self, *args, **kwargs):
        return apply(self, args, kwargs)

    def __repr__(self):
        return f"<eagerad op {self.name}>"


class PerArg:
    """Rules for ops taking any number of tensors (concat): ``rule(i, g, ans, *args)``."""
    __slots__ = ("rule",)

    def __init__(self, rule):
        self.rule = rule

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        return functools.partial(self.rule, i)


def _as_rules(rules):
    if rules is None or callable(rules) and not isinstance(rules, PerArg):
        return (rules,)
    return rules if isinstance(rules, PerArg) else tuple(rules)


def defop(name, forward, vjp=None, jvp=None, saves=None, save_output=False, fast=None,
          n_outputs=1, view=False, moves_device=False):
    """Define and register an op.

    ``forward(B, *arrays, **kw)`` gets the backend module ``B`` and arrays (or the
    Python scalars passed).  ``vjp``/``jvp`` give one rule per argument
    (a single function for one-argument ops; None for a non-differentiable
    argument): ``vjp_i(g, ans, *args, **kw)`` returns the gradient for argument
    i, ``jvp_i(t, ans, *args, **kw)`` the output tangent due to argument i's
    tangent ``t``.  ``saves`` lists the argument positions whose values the rules
    read (default: all), ``save_output`` whether they read ``ans``.  ``fast(B,
    g, ans, *arrays)`` may return a first-order gradient array for argument 0 in
    one fused pass (or None), used when no graph of the backward is recorded.
    ``view`` outputs share the input's version counter (in-place changes to one
    are seen through the other); ``moves_device`` ops take ``device=`` and put
    their output there.
    """
    op = Op(name, forward, _as_rules(vjp), _as_rules(jvp), saves, save_output, fast, n_outputs,
            view, moves_device)
    OPS[name] = op
    return op


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
    """Run ``op`` on ``args`` now; record it if any differentiable input requires grad."""
    device = _device_of(op, args)
    arrays = [a._data if isinstance(a, Tensor) else a for a in args]
    out = op.forward(backend.get(device.type), *arrays, **kwargs)
    single = op.n_outputs == 1
    if op.moves_device:
        device = kwargs["device"]
    version = args[0]._version if op.view else None
    outs = (Tensor._make(out, device, version=version),) if single else \
        tuple(Tensor._make(o, device) for o in out)

    if grad_state.enabled:
        vjp = op.vjp
        edges = None
        for i, a in enumerate(args):
            if isinstance(a, Tensor) and a._requires_grad and i < len(vjp) and vjp[i] is not None:
                if edges is None:
                    edges = [None] * len(args)
                edges[i] = _edge_of(a)
        if edges is not None:
            saves = op.saves
            saved = [a for i, a in enumerate(args) if isinstance(a, Tensor)
                     and (saves is None or i in saves)]
            node = Node(op.node_name, functools.partial(_backward, op, kwargs), tuple(edges),
                        args, saved, outs, op.save_output)
            for i, o in enumerate(outs):
                o._requires_grad = True
                o.grad_fn = node
                o._out_index = i
    if forward_ad.levels:
        forward_ad.propagate(op, args, kwargs, outs)
    return outs[0] if single else outs


def _backward(op, kwargs, grads, inputs, outs):
    """Node callback: gradients for each input from the output gradients."""
    if op.n_outputs == 1:
        g = grads[0]
        ans = outs[0] if outs is not None else None
    else:
        ans = tuple(outs)
        g = tuple(gi if gi is not None else zeros_like(ans[i]) for i, gi in enumerate(grads))
    result = []
    for i, a in enumerate(inputs):
        rule = op.vjp[i] if i < len(op.vjp) else None
        if rule is None or not isinstance(a, Tensor) or not a._requires_grad:
            result.append(None)
            continue
        gi = None
        if i == 0 and op.fast is not None and not grad_state.enabled and not g._requires_grad:
            arr = op.fast(backend.get(a._device.type), g._data,
                          ans._data if ans is not None else None,
                          *[x._data if isinstance(x, Tensor) else x for x in inputs], **kwargs)
            if arr is not None:
                gi = Tensor._make(arr, a._device)
        if gi is None:
            gi = rule(g, ans, *inputs, **kwargs)
        result.append(fit_gradient(gi, a))
    return result


def fit_gradient(g, like):
    """Undo broadcasting by summing and match the input's dtype."""
    if not isinstance(g, Tensor):
        g = Tensor._make(backend.get(like._device.type).full(like.shape, g, like.dtype), like._device)
    if g.shape != like.shape:
        g = sum_to(g, like.shape)
    if g.dtype != like.dtype:
        g = g.astype(like.dtype)
    return g


def sum_to(g, shape):
    """Sum ``g`` down to ``shape`` (the reverse of broadcasting ``shape`` up to ``g.shape``)."""
    lead = g.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape)
                                      if s == 1 and g.shape[i + lead] != 1)
    if axes:
        g = g.sum(axis=axes, keepdims=True)
    if g.shape != tuple(shape):
        g = g.reshape(shape)
    return g
