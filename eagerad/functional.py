"""Composable transforms on any callable: vjp, jvp, jacrev, jacfwd, hessian.

``vjp`` runs the reverse-mode core every transform shares (``eagerad.reverse``: one
engine walk, one ``create_graph`` policy); ``jvp`` is true forward mode (tangents pushed
through each op's jvp rule, ``autograd.forward_ad``).  Jacobians are ``vmap`` of
them over basis vectors: ``jacrev`` is one backward walk of the engine with a
batch of cotangents (every op's rule runs batched), ``jacfwd`` one forward pass
with a batch of tangents.  A function whose every op maps element i to element i
has a diagonal Jacobian: one ordinary backward pass gives it.

Inside ``vmap`` every transform works per sample: the tensors it differentiates
are made batched at every open vmap level, and the engine runs on the physical
tensors underneath (``eagerad.vmap``'s helpers convert at the boundary).

>>> import eagerad
>>> x = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64)
>>> jacrev(lambda t: t ** 2)(x).tolist()
[[2.0, 0.0], [0.0, 4.0]]
>>> hessian(lambda t: (t ** 3).sum())(x).tolist()
[[6.0, 0.0], [0.0, 12.0]]
"""
import numpy as np

from . import reverse, tree as _tree
from .autograd import forward_ad
from .autograd.engine import _collect, _edge_of, _needed
from .face import stamp
from .ops.registry import OPS, Unsaved
from .ops.shape import _index_arrays, index_add
from .tensor import Tensor, arange, eye, ones, zeros
from .autograd.batching import wrap
from .vectorize import active, physical, vmap

__all__ = ["vjp", "jvp", "jacrev", "jacfwd", "hessian"]


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
    takes one cotangent per output (``vjp_fn(v1, v2)``, as MindSpore's, or one tree shaped
    like the output); a 0-d cotangent is broadcast to its output's shape, as in MindSpore.
    Inputs may be pytrees: each input's gradient has its structure.
    Its result is differentiable again, in the cotangents too, whenever grad mode is on
    and something can differentiate it.

    >>> out, f_vjp = vjp(lambda a, b: a * b, eagerad.tensor([2.0]), eagerad.tensor([3.0]))
    >>> [g.item() for g in f_vjp(eagerad.tensor([1.0]))]
    [3.0, 2.0]
    """
    leaves, defs = flat_leaves(inputs, "vjp: input")
    flat = OutTree(lambda *ls: fn(*regroup(list(ls), defs, False)), has_aux, _split_aux, "vjp")
    out, pull, aux, _, _ = _vjp(flat, leaves, has_aux)
    outs = out if isinstance(out, tuple) else (out,)

    def vjp_fn(*v):
        """Gradients of ``sum(v * outputs)`` w.r.t. each input (zeros where unused)."""
        vs = _tree.leaves(v[0] if len(v) == 1 else v)
        if len(vs) != len(outs):
            raise ValueError(f"vjp_fn: got {len(vs)} cotangents for {len(outs)} outputs")
        for i, g in enumerate(vs):
            if not isinstance(g, Tensor):
                raise TypeError(f"vjp_fn: v[{i}] must be a Tensor, got {type(g).__name__}")
        vs = tuple(_broadcast_scalar(g, o, i) for i, (o, g) in enumerate(zip(outs, vs)))
        return regroup(list(pull(vs)), defs, False)

    shown = flat.treedef.unflatten(outs)
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def _broadcast_scalar(g, o, i):
    """MindSpore's vjp: a 0-d cotangent stands for that value at every element of the output."""
    if g.shape == o.shape:
        return g
    if g.ndim == 0:
        return g.astype(o.dtype).broadcast_to(o.shape)
    raise ValueError(f"vjp_fn: v[{i}] has shape {g.shape}, output {i} has shape {o.shape}")


def _vjp(fn, inputs, has_aux):
    """``(shown output, pull, aux, physical variables, physical outputs)`` of ``fn`` at the
    float tensors ``inputs``, by ``eagerad.reverse``: ``pull(cotangents)`` runs the engine
    once (as often as called); the output keeps its graph only when something outside
    can differentiate it."""
    for i, x in enumerate(inputs):
        _check_float(x, f"vjp: inputs[{i}]")
    out, tr = reverse.trace(fn, inputs)
    out, aux = _split_aux(out, has_aux)
    outs, single = _tensors(out, "vjp: fn's output")

    def pull(vs):
        return tuple(tr.pull(outs, vs))

    shown = out if tr.differentiable(outs) else \
        (forward_ad.detach(outs[0]) if single else tuple(forward_ad.detach(o) for o in outs))
    return shown, pull, aux, tr.variables, tr.physical(outs)


def jvp(fn, inputs, v, has_aux=False):
    """``(outputs, jvp_out)``: the directional derivative along ``v``, by forward mode.

    ``inputs`` is one argument or a tuple of them, each a Tensor or a pytree of Tensors;
    ``v`` has the same structure, and ``jvp_out`` the structure of the output.

    >>> out, t = jvp(lambda x: x ** 3, eagerad.tensor([2.0]), eagerad.tensor([1.0]))
    >>> t.item()
    12.0
    >>> jvp(lambda p: p['a'] * p['b'], {'a': eagerad.tensor(2.0), 'b': eagerad.tensor(3.0)},
    ...     {'a': eagerad.tensor(1.0), 'b': eagerad.tensor(0.0)})[1].item()
    3.0
    """
    xs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    ts = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    if len(xs) != len(ts):
        raise ValueError(f"jvp: got {len(ts)} tangents for {len(xs)} inputs")
    leaves, defs = flat_leaves(xs, "jvp: input")
    t_leaves, t_defs = flat_leaves(ts, "jvp: tangent")
    if t_defs != defs:
        raise ValueError(f"jvp: v has the structure {t_defs}, the inputs {defs}")
    flat = OutTree(lambda *ls: fn(*regroup(list(ls), defs, False)), has_aux, _split_aux, "jvp")
    outs, tangents, aux = jvp_leaves(flat, leaves, t_leaves, has_aux)
    result = (flat.treedef.unflatten(outs), flat.treedef.unflatten(tangents))
    return result + (aux,) if has_aux else result


def jvp_leaves(fn, xs, vs, has_aux):
    """``(output leaves, their tangents, aux)`` of ``fn`` (returning a tuple of tensors, and
    its aux when ``has_aux``) at the tensors ``xs`` along ``vs``, in one forward pass.

    >>> jvp_leaves(lambda x: (x * 2,), [eagerad.ones(1)], [eagerad.ones(1)], False)[1][0].tolist()
    [2.0]
    """
    for i, (x, t) in enumerate(zip(xs, vs)):
        _check_float(x, f"jvp: inputs[{i}]")
        if t.shape != x.shape:
            raise ValueError(f"jvp: v[{i}] has shape {t.shape}, inputs[{i}] has shape {x.shape}")
    lv = active()
    with forward_ad.dual_level() as level:
        duals = [wrap(forward_ad.make_dual(physical(x, lv), physical(t.astype(x.dtype), lv), level),
                      lv) for x, t in zip(xs, vs)]
        outs, aux = _split_aux(fn(*duals), has_aux)
        tangents = tuple(_tangent_or_zeros(o, level, lv) for o in outs)
    return outs, tangents, aux


def _tangent_or_zeros(o, level, lv):
    p = physical(o, lv)
    t = p._tangents.get(level) if p._tangents else None
    return wrap(t, lv) if t is not None else zeros(*o.shape, dtype=o.dtype, device=o.device)


# ----------------------------------------------------------------- Jacobians

def jacrev(fn, grad_position=0, has_aux=False):
    """Jacobian by reverse mode, shape ``out.shape + in.shape``: one engine walk with a
    batch of cotangents (``vmap`` of the vjp) per output.

    A tuple ``grad_position`` gives a tuple per output; several outputs give a tuple.
    Arguments and outputs may be pytrees (dicts/lists/tuples of tensors): the result
    nests the output structure outside the input structure, as ``jax.jacrev``.

    >>> jacrev(lambda x: x.sin())(eagerad.tensor([0.0, 0.0])).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    >>> j = jacrev(lambda p: p['a'] * p['b'])({'a': eagerad.tensor([2.0]), 'b': eagerad.tensor([3.0])})
    >>> {k: v.tolist() for k, v in j.items()}
    {'a': [[3.0]], 'b': [[2.0]]}
    """
    def jac_fn(*args):
        positions, single_pos = _positions(grad_position, len(args))
        return tree_jacobian(jacrev_leaves, fn, args, {}, positions, single_pos, has_aux,
                             _split_aux, "jacrev")
    return jac_fn


def jacrev_leaves(fn, xs, has_aux):
    """``(jac[out][in], aux)`` of ``fn(*xs)`` (a tuple of tensors) w.r.t. the tensors ``xs``."""
    for i, x in enumerate(xs):
        _check_float(x, f"jacrev: argument leaf {i}")
    out, pull, aux, variables, phys = _vjp(fn, xs, has_aux)
    outs, _ = _tensors(out, "jacrev: fn's output")
    return tuple(_rev_rows(pull, outs, k, xs, variables, phys[k]) for k in range(len(outs))), aux


def _rev_rows(pull, outs, k, xs, variables, recorded):
    """d outs[k] / d x for each x, by pulling back a batch of basis cotangents (``recorded``:
    the output as the graph holds it)."""
    o = outs[k]

    def pull_k(v):
        return pull([v if i == k else zeros(*u.shape, dtype=u.dtype, device=u.device)
                     for i, u in enumerate(outs)])
    if _diagonal(recorded, variables):
        ones_k = ones(*o.shape, dtype=o.dtype, device=o.device)
        rows = [_diag_embed(g.reshape((1,) + g.shape)) for g in pull_k(ones_k)]
    elif o.size:
        rows = vmap(pull_k)(_seed(o.size, o))
    else:
        rows = [zeros(0, *x.shape, dtype=x.dtype, device=x.device) for x in xs]
    return tuple(r.reshape(o.shape + x.shape) for r, x in zip(rows, xs))


def _diagonal(o, variables):
    """Whether every op between the one variable and ``o`` is elementwise, keeps the shape
    and has no hook: the Jacobian is then diagonal, and one backward pass of ones gives it."""
    if active() or len(variables) != 1 or variables[0].shape != o.shape or o.grad_fn is None:
        return False
    node, idx = _edge_of(variables[0])
    order = _collect([o.grad_fn])
    for n in _needed(order, {node: {idx}}):
        if n is node:
            continue
        if n.op is None or not n.op.elementwise or n.pre_hooks is not None or n.inputs is None:
            return False
        if any(isinstance(a, (Tensor, Unsaved)) and a._requires_grad and a.shape != o.shape
               for a in n.inputs):
            return False
    return True


def _diag_embed(d):
    """(1, *shape) derivatives of an elementwise map -> its Jacobian rows (size, *shape)."""
    n = d.size
    ar = arange(n, device=d.device)
    rows = index_add((n, n), d.dtype, _index_arrays((ar, ar), d.device), d.reshape((n,)))
    return rows.reshape((n,) + d.shape[1:])


def jacfwd(fn, grad_position=0, has_aux=False):
    """Jacobian by forward mode, shape ``out.shape + in.shape``: one forward pass with a
    batch of basis tangents (``vmap`` of the jvp) per differentiated input; pytrees as
    ``jacrev``.

    >>> jacfwd(lambda x: x * x)(eagerad.tensor([3.0])).tolist()
    [[6.0]]
    """
    def jac_fn(*args):
        positions, single_pos = _positions(grad_position, len(args))
        return tree_jacobian(jacfwd_leaves, fn, args, {}, positions, single_pos, has_aux,
                             _split_aux, "jacfwd")
    return jac_fn


def jacfwd_leaves(fn, xs, has_aux):
    """``(jac[out][in], aux)`` of ``fn(*xs)`` (a tuple of tensors), one input at a time."""
    per_in, aux = [], None
    for p, x in enumerate(xs):
        _check_float(x, f"jacfwd: argument leaf {p}")

        def at_p(xp):
            return fn(*xs[:p], xp, *xs[p + 1:])

        def column(t):
            result = jvp(at_p, (x,), (t,), has_aux)
            return (result[1], result[0]) + ((result[2],) if has_aux else ())
        diagonal = _diagonal_forward(at_p, x, has_aux)
        if diagonal is not None:
            tangents, out, aux = diagonal
            outs, _ = _tensors(out, "jacfwd: fn's output")
            tangents = tuple(t.reshape((x.size,) + o.shape) for t, o in zip(tangents, outs))
        elif x.size:
            tangents, out, *aux = vmap(column)(_seed(x.size, x))
            outs, _ = _tensors(out, "jacfwd: fn's output")
            outs = tuple(o[0] for o in outs)     # every sample computed the same primal
            aux = _first(aux[0]) if has_aux else None
        else:                # nothing to batch over: every Jacobian is empty
            out, aux = _split_aux(at_p(x), has_aux)
            outs, _ = _tensors(out, "jacfwd: fn's output")
            tangents = tuple(zeros(0, *o.shape, dtype=o.dtype, device=o.device) for o in outs)
        tangents = (tangents,) if isinstance(tangents, Tensor) else tangents
        per_in.append(tuple(_columns_last(t, o, x) for o, t in zip(outs, tangents)))
    return tuple(zip(*per_in)), aux


def _diagonal_forward(at_p, x, has_aux):
    """``(Jacobian rows, out, aux)`` when ``at_p`` is elementwise in ``x`` (see ``_diagonal``),
    from one recorded forward and one backward pass; None otherwise."""
    if active() or not x.size or not any(op.elementwise for op in OPS.values()):
        return None
    out, pull, aux, variables, phys = _vjp(at_p, (x,), has_aux)
    outs, _ = _tensors(out, "jacfwd: fn's output")
    if len(outs) != 1 or not _diagonal(phys[0], variables):
        return None
    (g,) = pull([ones(*outs[0].shape, dtype=outs[0].dtype, device=outs[0].device)])
    return (_diag_embed(g.reshape((1,) + g.shape)),), out, aux


def _first(tree):
    """The first sample of what ``vmap`` stacked (aux outputs of jacfwd's columns)."""
    return _tree.map(lambda t: t[0] if isinstance(t, Tensor) else t, tree)


def _columns_last(t, o, x):
    """(n_in, *out.shape) tangents -> the Jacobian, shape out.shape + in.shape."""
    return t.reshape((x.size, o.size)).transpose((1, 0)).reshape(o.shape + x.shape)


# ------------------------------------------------------------------ pytrees

def flat_leaves(trees, what):
    """``(leaves, treedefs)`` of several pytrees whose every leaf must be a Tensor.

    >>> flat_leaves([{'a': eagerad.ones(1)}], "argument")[1]
    [TreeDef({'a': *})]
    """
    leaves, defs = [], []
    for i, t in enumerate(trees):
        ls, d = _tree.flatten(t)
        for leaf in ls:
            if not isinstance(leaf, Tensor):
                raise TypeError(f"{what} {i} holds a {type(leaf).__name__}; only Tensors (in "
                                "nested dicts/lists/tuples) can be differentiated")
        leaves += ls
        defs.append(d)
    return leaves, defs


def regroup(flat, defs, single):
    """One tree per entry of ``defs`` from flat leaf results (the bare tree when ``single``).

    >>> regroup([1, 2, 3], [_tree.structure([0, 0]), _tree.structure(0)], False)
    ([1, 2], 3)
    """
    out, start = [], 0
    for d in defs:
        out.append(d.unflatten(flat[start:start + d.num_leaves]))
        start += d.num_leaves
    return out[0] if single else tuple(out)


def at_positions(fn, args, kwargs, positions, defs):
    """``fn`` as a function of the flat leaves of the arguments at ``positions``.

    >>> at_positions(lambda a, b: a + b, (1, 2), {}, (1,), [_tree.structure(0)])(5)
    6
    """
    def flat_fn(*leaves):
        call = list(args)
        for p, t in zip(positions, regroup(list(leaves), defs, False)):
            call[p] = t
        return fn(*call, **kwargs)
    return flat_fn


class OutTree:
    """``fn`` returning its output's tensor leaves as a flat tuple (and its aux, split by
    ``split_aux(out, has_aux)``); remembers the output structure in ``treedef``.

    >>> f = OutTree(lambda x: {'y': x}, False, _split_aux, "demo"); len(f(eagerad.ones(1))), f.treedef
    (1, TreeDef({'y': *}))
    """

    def __init__(self, fn, has_aux, split_aux, name):
        self.fn, self.has_aux, self.split_aux, self.name = fn, has_aux, split_aux, name
        self.treedef = None

    def __call__(self, *args):
        out, aux = self.split_aux(self.fn(*args), self.has_aux)
        leaves, self.treedef = _tree.flatten(out)
        for i, leaf in enumerate(leaves):
            if not isinstance(leaf, Tensor):
                raise TypeError(f"{self.name}: the function's output holds a "
                                f"{type(leaf).__name__} at leaf {i}; expected Tensors")
        return (tuple(leaves), aux) if self.has_aux else tuple(leaves)


def tree_jacobian(engine, fn, args, kwargs, positions, single, has_aux, split_aux, name):
    """The Jacobian of ``fn`` w.r.t. the pytrees ``args[positions]``: ``engine(flat_fn,
    leaves, has_aux)`` (``jacrev_leaves``/``jacfwd_leaves``) on the flat leaves, regrouped
    as output structure outside input structure (a tuple of inputs unless ``single``).

    >>> tree_jacobian(jacrev_leaves, lambda x: (x * 2,), (eagerad.ones(1),), {}, (0,), True,
    ...               False, _split_aux, "demo")[0].tolist()
    [[2.0]]
    """
    leaves, defs = flat_leaves([args[p] for p in positions], "argument")
    flat = OutTree(at_positions(fn, args, kwargs, positions, defs), has_aux, split_aux, name)
    jac, aux = engine(flat, tuple(leaves), has_aux)
    if leaves:      # assembled from seeds and batches: the blocks speak as the inputs do
        stamp([block for row in jac for block in row], leaves[0]._face)
    jac = flat.treedef.unflatten([regroup(list(row), defs, single) for row in jac])
    return (jac, aux) if has_aux else jac


def hessian(fn, grad_position=0):
    """Second derivatives by forward-over-reverse: ``jacfwd(jacrev(fn))``.

    >>> hessian(lambda x: (x ** 3).sum())(eagerad.tensor([2.0])).tolist()  # 6 x
    [[12.0]]
    """
    return jacfwd(jacrev(fn, grad_position), grad_position)
