"""Composable transforms on any callable: vjp, jvp, jacrev, jacfwd, hessian.

``vjp`` runs the backward engine; ``jvp`` is true forward mode (tangents pushed
through each op's jvp rule, ``autograd.forward_ad``).  Jacobians are built with
*batched* cotangents/tangents that carry one extra leading dimension, one row
per Jacobian row/column, so a 1000x1000 Jacobian is one vectorised backward (or
forward) pass instead of 1000.  Elementwise rules broadcast over that leading
dimension unchanged; ops whose rules use shapes or axes have a batched rule in
``_BATCHED_VJP``/``_BATCHED_JVP`` below.  An op with neither (a custom
``autograd.Function``, a new op) sends that one call to a per-row loop.

>>> import eagerad
>>> x = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64)
>>> jacrev(lambda t: t ** 2)(x).tolist()
[[2.0, 0.0], [0.0, 4.0]]
>>> hessian(lambda t: (t ** 3).sum())(x).tolist()
[[6.0, 0.0], [0.0, 12.0]]
"""
import functools

import numpy as np

from .autograd import forward_ad
from .autograd.engine import _collect, _edge_of, _needed, backward as _engine_backward, \
    reaches_foreign
from .autograd.grad_mode import enable_grad, state as grad_state
from .autograd.node import Node
from .ops import registry
from .ops.linalg import _as_2d, _matmul, _matmul_shape
from .ops.reduction import _extreme_share, _spread, _sum
from .ops.shape import _getitem, _index_arrays, alias, index_add
from .tensor import Tensor, arange, eye, ones, zeros

__all__ = ["vjp", "jvp", "jacrev", "jacfwd", "hessian"]


class _Unbatchable(Exception):
    """An op on the path has no batched rule; the caller falls back to one pass per row."""


# ----------------------------------------------------------------- helpers

def _tensors(value, what):
    """``(tuple_of_tensors, was_single)`` for a Tensor or a tuple/list of Tensors."""
    single = isinstance(value, Tensor)
    items = (value,) if single else value
    if not isinstance(items, (tuple, list)):
        raise TypeError(f"{what} must be a Tensor or a tuple of Tensors, got {type(value).__name__}")
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            raise TypeError(f"{what}[{i}] must be a Tensor, got {type(t).__name__}")
    return tuple(items), single


def _split_aux(out, has_aux):
    """MindSpore's ``has_aux``: the first output is differentiated, the rest is returned as is."""
    if not has_aux:
        return out, None
    if not isinstance(out, (tuple, list)) or len(out) < 2:
        raise ValueError("has_aux=True needs fn to return a tuple (output, aux...)")
    return out[0], tuple(out[1:]) if len(out) > 2 else out[1]


def _variable(x):
    """A fresh variable for one input position: its own graph node, tangents kept."""
    with enable_grad():
        v = alias(x)
    if not v._requires_grad:
        v.requires_grad_()
    return v


def _nested(tensors):
    """Whether an outer transform differentiates through this one (record the backward)."""
    return any(isinstance(t, Tensor) and t._requires_grad for t in tensors)


def _positions(grad_position, n_args):
    single = isinstance(grad_position, (int, np.integer))
    positions = (grad_position,) if single else tuple(grad_position)
    if not positions or not all(isinstance(p, (int, np.integer)) for p in positions):
        raise TypeError(f"grad_position must be an int or a tuple of ints, got {grad_position!r}")
    for p in positions:
        if not -n_args <= p < n_args:
            raise ValueError(f"grad_position {p} is out of range for a function called with "
                             f"{n_args} argument(s)")
    return tuple(int(p) % n_args for p in positions), single


def _check_float(x, where):
    if not isinstance(x, Tensor):
        raise TypeError(f"{where} must be a Tensor, got {type(x).__name__}")
    if x.dtype.kind != "f":
        raise TypeError(f"{where} must be a floating-point Tensor to differentiate, got {x.dtype}")


def _seed(n, like):
    """The identity as ``n`` stacked cotangents/tangents shaped like ``like``."""
    return eye(n, dtype=like.dtype, device=like.device).reshape((n,) + tuple(like.shape))


# ----------------------------------------------------------------- vjp / jvp

def vjp(fn, *inputs, has_aux=False):
    """``(outputs, vjp_fn)``; ``vjp_fn(v)`` gives one gradient of ``<v, outputs>`` per input.

    ``vjp_fn`` may be called many times (the graph is kept); for several outputs it
    takes one cotangent per output (``vjp_fn(v1, v2)``, as MindSpore's, or one tuple).
    Its result is differentiable again, in the cotangents too, whenever grad mode is on
    and something can differentiate it.

    >>> out, f_vjp = vjp(lambda a, b: a * b, eagerad.tensor([2.0]), eagerad.tensor([3.0]))
    >>> [g.item() for g in f_vjp(eagerad.tensor([1.0]))]
    [3.0, 2.0]
    """
    for i, x in enumerate(inputs):
        _check_float(x, f"vjp: inputs[{i}]")
    variables = tuple(_variable(x) for x in inputs)
    with enable_grad():
        out = fn(*variables)
    out, aux = _split_aux(out, has_aux)
    outs, single = _tensors(out, "vjp: fn's output")
    # the graph reaches a tensor this call does not own (an input that requires grad, a
    # closure over an outer transform's variable): a recorded backward stays connected to it
    foreign = reaches_foreign([o for o in outs if o._requires_grad],
                              {id(v) for v in variables if v.grad_fn is None})

    def vjp_fn(*v):
        """Gradients of ``sum(v * outputs)`` w.r.t. each input (zeros where unused)."""
        if len(v) == 1 and (len(outs) > 1 or not isinstance(v[0], Tensor)):
            v = v[0]
        vs, _ = _tensors(v, "vjp_fn: v")
        if len(vs) != len(outs):
            raise ValueError(f"vjp_fn: got {len(vs)} cotangents for {len(outs)} outputs")
        for i, (o, g) in enumerate(zip(outs, vs)):
            if g.shape != o.shape:
                raise ValueError(f"vjp_fn: v[{i}] has shape {g.shape}, output {i} has shape {o.shape}")
        live = [(o, g) for o, g in zip(outs, vs) if o._requires_grad]
        create = grad_state.enabled and (foreign or any(g._requires_grad for g in vs))
        grads = [None] * len(variables)
        if live:
            grads = _engine_backward([o for o, _ in live], [g for _, g in live], True, create,
                                     variables, True)
        return tuple(g if g is not None else zeros(*x.shape, dtype=x.dtype, device=x.device)
                     for g, x in zip(grads, inputs))

    shown = out if foreign and grad_state.enabled else \
        (forward_ad.detach(outs[0]) if single else tuple(forward_ad.detach(o) for o in outs))
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def jvp(fn, inputs, v, has_aux=False):
    """``(outputs, jvp_out)``: the directional derivative along ``v``, by forward mode.

    >>> out, t = jvp(lambda x: x ** 3, eagerad.tensor([2.0]), eagerad.tensor([1.0]))
    >>> t.item()
    12.0
    """
    xs, _ = _tensors(inputs, "jvp: inputs")
    vs, _ = _tensors(v, "jvp: v")
    if len(xs) != len(vs):
        raise ValueError(f"jvp: got {len(vs)} tangents for {len(xs)} inputs")
    for i, (x, t) in enumerate(zip(xs, vs)):
        _check_float(x, f"jvp: inputs[{i}]")
        if t.shape != x.shape:
            raise ValueError(f"jvp: v[{i}] has shape {t.shape}, inputs[{i}] has shape {x.shape}")
    with forward_ad.dual_level() as level:
        duals = [forward_ad.make_dual(x, t.astype(x.dtype), level) for x, t in zip(xs, vs)]
        out = fn(*duals)
        out, aux = _split_aux(out, has_aux)
        outs, single = _tensors(out, "jvp: fn's output")
        tangents = tuple(_tangent_or_zeros(o, level, ()) for o in outs)
    result = (out, tangents[0] if single else tangents)
    return result + (aux,) if has_aux else result


def _tangent_or_zeros(o, level, batch):
    t = o._tangents.get(level) if o._tangents else None
    return t if t is not None else zeros(*(batch + o.shape), dtype=o.dtype, device=o.device)


# ----------------------------------------------------------------- Jacobians

def jacrev(fn, grad_position=0, has_aux=False):
    """Jacobian by reverse mode, shape ``out.shape + in.shape``; every output row in one pass.

    A tuple ``grad_position`` gives a tuple per output; several outputs give a tuple.

    >>> jacrev(lambda x: x.sin())(eagerad.tensor([0.0, 0.0])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    def jac_fn(*args):
        positions, single_pos = _positions(grad_position, len(args))
        for p in positions:
            _check_float(args[p], f"jacrev: argument {p}")
        create = _nested(args)
        call = list(args)
        for p in positions:
            call[p] = _variable(args[p])
        with enable_grad():
            out = fn(*call)
        out, aux = _split_aux(out, has_aux)
        outs, single_out = _tensors(out, "jacrev: fn's output")
        xs = [call[p] for p in positions]
        jac = tuple(_rev_rows(o, xs, create) for o in outs)
        return _shape_result(jac, single_out, single_pos, aux, has_aux)
    return jac_fn


def _rev_rows(o, xs, create):
    """d o / d x for each x: batched backward of the identity seed, or one row at a time."""
    n = o.size
    grads = [None] * len(xs)
    if o._requires_grad:
        try:
            grads = _batched_backward(o, xs, create)
        except _Unbatchable:
            grads = _reverse_rows(o, _seed(n, o), xs, create)
    return tuple((g if g is not None else zeros(n, *x.shape, dtype=x.dtype, device=x.device))
                 .reshape(o.shape + x.shape) for g, x in zip(grads, xs))


def _reverse_rows(o, seed, xs, create):
    """The fallback: one backward pass per output element."""
    rows = [_engine_backward([o], [seed[k]], True, create, xs, True) for k in range(o.size)]
    return [None if all(r[i] is None for r in rows) else _stack_rows([r[i] for r in rows], x)
            for i, x in enumerate(xs)]


def _stack_rows(rows, like):
    from .ops import stack
    return stack([r if r is not None else zeros(*like.shape, dtype=like.dtype, device=like.device)
                  for r in rows])


def jacfwd(fn, grad_position=0, has_aux=False):
    """Jacobian by forward mode, shape ``out.shape + in.shape``; all columns in one pass.

    >>> jacfwd(lambda x: x * x)(eagerad.tensor([3.0])).tolist()
    [[6.0]]
    """
    def jac_fn(*args):
        positions, single_pos = _positions(grad_position, len(args))
        per_pos = []
        aux = None
        for p in positions:
            _check_float(args[p], f"jacfwd: argument {p}")
            x = args[p]
            try:
                outs, single_out, tangents, aux = _batched_forward(fn, args, p, has_aux)
            except _Unbatchable:
                outs, single_out, tangents, aux = _forward_rows(fn, args, p, has_aux)
            per_pos.append(tuple(_columns_last(t, o, x) for o, t in zip(outs, tangents)))
        jac = tuple(zip(*per_pos))
        return _shape_result(jac, single_out, single_pos, aux, has_aux)
    return jac_fn


def _batched_forward(fn, args, p, has_aux):
    """Run ``fn`` once with the identity as a batch of tangents on argument ``p``."""
    x = args[p]
    for probe in (True, False):
        rules = _BatchedJvp(probe)
        with forward_ad.dual_level() as level:
            forward_ad.batched[level] = rules
            try:
                call = list(args)
                call[p] = alias(x)
                call[p]._tangents = dict(call[p]._tangents or {})
                call[p]._tangents[level] = ones(1, *x.shape, dtype=x.dtype, device=x.device) \
                    if probe else _seed(x.size, x)
                out, aux = _split_aux(fn(*call), has_aux)
                outs, single = _tensors(out, "jacfwd: fn's output")
                tangents = [_tangent_or_zeros(o, level, (1 if probe else x.size,)) for o in outs]
            finally:
                del forward_ad.batched[level]
        if not probe:
            return outs, single, tangents, aux
        if rules.diagonal and all(o.shape == x.shape for o in outs):
            return outs, single, [_diag_embed(t) for t in tangents], aux


def _forward_rows(fn, args, p, has_aux):
    """The fallback: one forward-mode pass per input element."""
    x = args[p]
    seed = _seed(x.size, x)
    columns = []
    for k in range(x.size):
        def at_p(xp):
            return fn(*args[:p], xp, *args[p + 1:])
        result = jvp(at_p, (x,), (seed[k],), has_aux)
        columns.append(result[1])
    out, aux = result[0], (result[2] if has_aux else None)
    outs, single = _tensors(out, "jacfwd: fn's output")
    from .ops import stack
    cols = [columns] if single else list(zip(*columns))
    return outs, single, [stack(list(c)) for c in cols], aux


def _columns_last(t, o, x):
    """(n_in, *out.shape) tangents -> the Jacobian, shape out.shape + in.shape."""
    return t.reshape((x.size, o.size)).transpose((1, 0)).reshape(o.shape + x.shape)


def _shape_result(jac, single_out, single_pos, aux, has_aux):
    """``jac[out][pos]`` unwrapped where fn had one output or one position was asked for."""
    if single_pos:
        jac = tuple(j[0] for j in jac)
    result = jac[0] if single_out else jac
    return (result, aux) if has_aux else result


def hessian(fn, grad_position=0):
    """Second derivatives by forward-over-reverse: ``jacfwd(jacrev(fn))``.

    >>> hessian(lambda x: (x ** 3).sum())(eagerad.tensor([2.0])).tolist()  # 6 x
    [[12.0]]
    """
    return jacfwd(jacrev(fn, grad_position), grad_position)


# ----------------------------------------------------- batched reverse pass

def _batched_backward(out, xs, create):
    """Rows of d out / d x, shape (out.size,) + x.shape, for each of ``xs``, in one walk.

    When every op between them maps element i to element i (elementwise, no
    broadcasting of a differentiated input), the Jacobian is diagonal: one
    ordinary backward of ones gives it, and it is scattered onto the diagonal.
    """
    capture = {}
    for x in xs:
        node, idx = _edge_of(x)
        capture.setdefault(node, set()).add(idx)
    root, idx = _edge_of(out)
    if type(root) is not Node:
        return [_seed(out.size, out) if _edge_of(x)[0] is root else None for x in xs]
    order = _collect([root])
    need = _needed(order, capture)
    diagonal = all(x.shape == out.shape for x in xs) and \
        all(_keeps_elements(node, out.shape, need, capture) for node in need)
    buffers = {root: [None] * root.n_outputs}
    buffers[root][idx] = ones(1, *out.shape, dtype=out.dtype, device=out.device) if diagonal \
        else _seed(out.size, out)
    captured = {}
    prev = grad_state.enabled
    grad_state.enabled = bool(create)
    try:
        for node in reversed(order):     # creation order reversed is a topological order
            grads = buffers.pop(node, [None] * node.n_outputs)
            for i in capture.get(node, ()):
                captured[(node, i)] = grads[i]
            if node in need and any(g is not None for g in grads):
                for edge, g in zip(node.next, _node_vjp(node, grads)):
                    if edge is not None and g is not None:
                        target, i = edge
                        if type(target) is Node:
                            buf = buffers.setdefault(target, [None] * target.n_outputs)
                            buf[i] = g if buf[i] is None else buf[i] + g
                        elif target in capture:
                            prior = captured.get((target, 0))
                            captured[(target, 0)] = g if prior is None else prior + g
    finally:
        grad_state.enabled = prev
    grads = [captured.get(_edge_of(x)) for x in xs]
    return [_diag_embed(g) if diagonal and g is not None else g for g in grads]


def _keeps_elements(node, shape, need, capture):
    """Whether ``node`` is elementwise and every differentiated input has the output's shape."""
    fn = node.backward_fn
    if not (isinstance(fn, functools.partial) and fn.func is registry._backward) or \
            fn.args[0].name not in _ELEMENTWISE or node.inputs is None:
        return False
    return all(a.shape == shape for a, e in zip(node.inputs, node.next)
               if e is not None and (e[0] in need or e[0] in capture))


def _diag_embed(d):
    """(1, *shape) derivatives of an elementwise map -> its Jacobian rows (size, *shape)."""
    n = d.size
    ar = arange(n, device=d.device)
    rows = index_add((n, n), d.dtype, _index_arrays((ar, ar), d.device), d.reshape((n,)))
    return rows.reshape((n,) + d.shape[1:])


def _node_vjp(node, grads):
    fn = node.backward_fn
    if not (isinstance(fn, functools.partial) and fn.func is registry._backward):
        raise _Unbatchable(node.name)
    op, kwargs = fn.args
    batched = _BATCHED_VJP.get(op.name)
    if op.n_outputs != 1 or (batched is None and op.name not in _ELEMENTWISE):
        raise _Unbatchable(node.name)
    inputs, outs = node.unpack()
    g, ans = grads[0], (outs[0] if outs is not None else None)
    result = []
    for i, a in enumerate(inputs):
        rule = op.vjp[i] if i < len(op.vjp) else None
        if rule is None or not isinstance(a, Tensor) or not a._requires_grad:
            result.append(None)
            continue
        gi = batched(i, g, ans, *inputs, **kwargs) if batched else rule(g, ans, *inputs, **kwargs)
        result.append(_fit(gi, a, g.shape[0]))
    return result


def _fit(g, like, n):
    """Batched ``fit_gradient``: sum broadcast dimensions, keep the leading batch one."""
    shape = (n,) + tuple(like.shape)
    if g.shape != shape:
        lead = g.ndim - len(shape)
        axes = tuple(range(1, 1 + lead)) + tuple(
            lead + i for i, s in enumerate(shape) if i and s == 1 and g.shape[lead + i] != 1)
        if axes:
            g = _sum(g, axes=axes, keepdims=True)
        g = g.reshape(shape) if g.size == n * like.size else g.broadcast_to(shape)
    return g if g.dtype == like.dtype else g.astype(like.dtype)


def _batch_index(index):
    return (slice(None),) + (index if isinstance(index, tuple) else (index,))


def _shift(axes):
    return tuple(a + 1 for a in axes)


def _bspread(g, shape, axes, keepdims):
    """``reduction._spread`` for a batched gradient."""
    if not keepdims:
        g = g.reshape(g.shape[:1] + tuple(1 if i in axes else s for i, s in enumerate(shape)))
    return g.broadcast_to(g.shape[:1] + tuple(shape))


def _concat_slot(i, xs, axis):
    start = sum(x.shape[axis] for x in xs[:i])
    return (slice(None),) * (axis + 1) + (slice(start, start + xs[i].shape[axis]),)


def _matmul_vjp(i, g, ans, a, b):
    a2, b2 = _as_2d(a, b)
    g2 = g.reshape(g.shape[:1] + _matmul_shape(a2.shape, b2.shape))
    if i == 0:
        r, own, like = _matmul(g2, b2.swapaxes(-1, -2)), a2, a
    else:
        r, own, like = _matmul(a2.swapaxes(-1, -2), g2), b2, b
    return _fit(r, own, g.shape[0]).reshape(g.shape[:1] + like.shape)


# Rules for a gradient with a leading batch dimension, for ops whose plain rule uses shapes
# or axes: ``rule(i, g, ans, *inputs, **kwargs)`` returns the batched gradient of input i.
_BATCHED_VJP = {
    "reshape": lambda i, g, ans, x, shape: g.reshape(g.shape[:1] + x.shape),
    "transpose": lambda i, g, ans, x, axes: g.transpose((0,) + _shift(np.argsort(axes))),
    "broadcast_to": lambda i, g, ans, x, shape: _fit(g, x, g.shape[0]),
    "sum": lambda i, g, ans, x, axes, keepdims: _bspread(g, x.shape, axes, keepdims),
    "max": lambda i, g, ans, x, axes, keepdims:
        _bspread(g, x.shape, axes, keepdims) * _extreme_share(ans, x, axes, keepdims),
    "min": lambda i, g, ans, x, axes, keepdims:
        _bspread(g, x.shape, axes, keepdims) * _extreme_share(ans, x, axes, keepdims),
    "logsumexp": lambda i, g, ans, x, axes, keepdims:
        _bspread(g, x.shape, axes, keepdims) * (x - _spread(ans, x.shape, axes, keepdims)).exp(),
    "getitem": lambda i, g, ans, x, index:
        index_add(g.shape[:1] + x.shape, x.dtype, _batch_index(index), g),
    "index_add": lambda i, g, ans, v, shape, dtype, index: _getitem(g, index=_batch_index(index)),
    "concat": lambda i, g, ans, *xs, axis: _getitem(g, index=_concat_slot(i, xs, axis)),
    "matmul": _matmul_vjp,
    "softmax": lambda i, g, ans, x, axis: ans * (g - _sum(g * ans, axes=(axis + 1,), keepdims=True)),
    "log_softmax": lambda i, g, ans, x, axis:
        g - ans.exp() * _sum(g, axes=(axis + 1,), keepdims=True),
}

# Ops whose plain rules broadcast over a leading batch dimension as they are.
_ELEMENTWISE = frozenset((
    "neg exp log sin cos tan sinh cosh tanh atanh asin acos atan asinh acosh sigmoid relu abs "
    "sqrt square log1p expm1 reciprocal sign floor ceil round add sub mul div pow maximum "
    "minimum mod where clip alias clone astype to").split())


# ----------------------------------------------------- batched forward pass

def _align(t, ndim):
    """(n, *x.shape) -> (n, 1, ..., *x.shape) with ``ndim`` dims after the batch one."""
    pad = ndim - (t.ndim - 1)
    return t.reshape(t.shape[:1] + (1,) * pad + t.shape[1:]) if pad > 0 else t


def _matmul_jvp(i, t, ans, a, b):
    a2, b2 = _as_2d(a, b)
    out2 = _matmul_shape(a2.shape, b2.shape)
    own = a2 if i == 0 else b2
    t2 = _align(t.reshape(t.shape[:1] + own.shape), len(out2))
    r = _matmul(t2, b2) if i == 0 else _matmul(a2, t2)
    return r.reshape(t.shape[:1] + ans.shape)


def _place(i, t, ans, xs, axis):
    return index_add(t.shape[:1] + ans.shape, t.dtype, _concat_slot(i, xs, axis), t)


# Batched tangent rules: ``rule(i, t, ans, *inputs, **kwargs)`` with t of shape (n,) + input.shape.
_BATCHED_JVP = {
    "reshape": lambda i, t, ans, x, shape: t.reshape(t.shape[:1] + shape),
    "transpose": lambda i, t, ans, x, axes: t.transpose((0,) + _shift(axes)),
    "broadcast_to": lambda i, t, ans, x, shape: _align(t, len(shape)).broadcast_to(t.shape[:1] + shape),
    "sum": lambda i, t, ans, x, axes, keepdims: _sum(t, axes=_shift(axes), keepdims=keepdims),
    "max": lambda i, t, ans, x, axes, keepdims:
        _sum(t * _extreme_share(ans, x, axes, keepdims), axes=_shift(axes), keepdims=keepdims),
    "min": lambda i, t, ans, x, axes, keepdims:
        _sum(t * _extreme_share(ans, x, axes, keepdims), axes=_shift(axes), keepdims=keepdims),
    "logsumexp": lambda i, t, ans, x, axes, keepdims:
        _sum(t * (x - _spread(ans, x.shape, axes, keepdims)).exp(), axes=_shift(axes),
             keepdims=keepdims),
    "getitem": lambda i, t, ans, x, index: _getitem(t, index=_batch_index(index)),
    "index_add": lambda i, t, ans, v, shape, dtype, index:
        index_add(t.shape[:1] + shape, dtype, _batch_index(index), t),
    "concat": lambda i, t, ans, *xs, axis: _place(i, t, ans, xs, axis),
    "matmul": _matmul_jvp,
    "softmax": lambda i, t, ans, x, axis: ans * (t - _sum(t * ans, axes=(axis + 1,), keepdims=True)),
    "log_softmax": lambda i, t, ans, x, axis:
        t - _sum(ans.exp() * t, axes=(axis + 1,), keepdims=True),
}


class _BatchedJvp:
    """``forward_ad`` hook for jacfwd's level: output tangents, batch dimension first.

    With ``probe`` it also notes whether every op that saw a tangent kept
    elements in place (then a batch of one ones-tangent gives a diagonal Jacobian).
    """

    def __init__(self, probe):
        self.diagonal = probe

    def __call__(self, op, tangents, args, kwargs, outs):
        name = getattr(op, "name", getattr(op, "__name__", "?"))
        if not isinstance(op, registry.Op) or op.n_outputs != 1:
            raise _Unbatchable(name)
        if all(i >= len(op.vjp) or op.vjp[i] is None for i in range(len(args))):
            return None     # not differentiable (comparisons): no tangent
        if self.diagonal and (name not in _ELEMENTWISE or any(
                t is not None and a.shape != outs[0].shape for t, a in zip(tangents, args))):
            self.diagonal = False
        return _batched_jvp(op, name, tangents, args, kwargs, outs[0])


def _batched_jvp(op, name, tangents, args, kwargs, ans):
    batched = _BATCHED_JVP.get(name)
    if batched is None and name not in _ELEMENTWISE:
        raise _Unbatchable(name)
    total = None
    for i, t, rule in forward_ad.jvp_rules(op, tangents):
        part = batched(i, t, ans, *args, **kwargs) if batched else \
            rule(_align(t, ans.ndim), ans, *args, **kwargs)
        total = part if total is None else total + part
    if total is None:
        return None
    shape = total.shape[:1] + ans.shape
    return total if total.shape == shape else total.broadcast_to(shape)
