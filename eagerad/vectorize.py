"""``vmap``: run a function written for one sample on a whole batch, eagerly.

Each batched argument becomes a ``BatchedTensor`` (``autograd.batching``) whose
shape is one sample's; every op it meets runs its batching rule on the whole
batch at once (``ops.registry.apply_batched``).  Because graph recording and
tangents live on the plain ("physical") tensors underneath, vmap composes with
every transform in any order: ``vmap(grad(f))`` gives per-sample gradients,
``grad(vmap(f))`` differentiates the batched computation, and ``jacrev``/
``jacfwd`` are ``vmap`` of ``vjp``/``jvp`` over basis vectors.

The helpers below move tensors between the logical view (one sample) and the
physical one (batch axes first, oldest vmap level first) at transform boundaries.

>>> import eagerad
>>> vmap(lambda x: (x * x).sum())(eagerad.Tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
[5.0, 25.0]
"""
from . import _upcalls
from .autograd import batching, forward_ad
from .autograd.batching import BatchedTensor, unwrap, wrap
from .autograd.grad_mode import enable_grad
from .ops.registry import OPS, move_batch
from .tensor import Tensor

__all__ = ["vmap"]


# ------------------------------------------------------------- the transform

def vmap(fn, in_axes=0, out_axes=0):
    """Vectorise ``fn`` over the axis ``in_axes`` of its arguments (JAX/torch.func semantics).

    ``in_axes``: an int (every argument batched along it), None (not batched), or a
    tuple/list with one entry per positional argument, itself an int, None or a nested
    tuple/list/dict matching that argument.  Negative axes count from the end.  The
    batch sizes must agree.  ``out_axes`` (int, None or a tree matching the output) says
    where the batch axis goes in each output; an output that does not depend on the
    batch is broadcast along it.

    >>> x = eagerad.Tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> vmap(lambda a, b: a * b, in_axes=(1, None))(x, eagerad.Tensor(10.0)).tolist()
    [[10.0, 30.0], [20.0, 40.0]]
    """
    if not callable(fn):
        raise TypeError(f"vmap: fn must be callable, got {type(fn).__name__}")

    def vmapped(*args):
        axes = in_axes if isinstance(in_axes, (tuple, list)) else (in_axes,) * len(args)
        if len(axes) != len(args):
            raise ValueError(f"vmap: in_axes has {len(axes)} entries but the function was called "
                             f"with {len(args)} positional arguments")
        sizes = []
        for i, (a, ax) in enumerate(zip(args, axes)):
            _batch_sizes(a, ax, f"argument {i}", sizes)
        if not sizes:
            raise ValueError("vmap: in_axes leaves every argument unbatched; batch at least one")
        n = sizes[0][1]
        for where, size in sizes:
            if size != n:
                listing = ", ".join(f"{w} has size {s}" for w, s in sizes)
                raise ValueError(f"vmap: the batched axes must all have the same size, but {listing}")
        level = batching.push(n)
        try:
            out = fn(*[_wrap_tree(a, ax, level) for a, ax in zip(args, axes)])
            return _unwrap_tree(out, out_axes, level, n, "output")
        finally:
            batching.pop()

    vmapped.__name__ = f"vmap_of_{getattr(fn, '__name__', type(fn).__name__)}"
    vmapped.__doc__ = f"Batched version of {fn!r} (made by eagerad.vmap)."
    return vmapped


def _norm(ax, ndim, where):
    if not isinstance(ax, int) or isinstance(ax, bool):
        raise TypeError(f"vmap: the axis for {where} must be an int or None, got {ax!r}")
    if not -ndim <= ax < ndim:
        raise ValueError(f"vmap: axis {ax} for {where} is out of range for a tensor with "
                         f"{ndim} dimensions")
    return ax % ndim


def _batch_sizes(a, ax, where, sizes):
    """Collect ``(where, batch size)`` of every batched tensor in argument ``a``."""
    if ax is None:
        return
    if isinstance(a, (tuple, list)) or isinstance(a, dict):
        for key, item, sub in _pairs(a, ax, where):
            _batch_sizes(item, sub, key, sizes)
        return
    if not isinstance(a, Tensor):
        raise TypeError(f"vmap: {where} is a {type(a).__name__}, which cannot be batched along "
                        f"axis {ax}; give it in_axes None")
    if isinstance(ax, (tuple, list, dict)):
        raise TypeError(f"vmap: in_axes for {where} is a {type(ax).__name__}, but it is a Tensor")
    if a.ndim == 0:
        raise ValueError(f"vmap: {where} is 0-d and cannot be batched along axis {ax}")
    sizes.append((where, a.shape[_norm(ax, a.ndim, where)]))


def _pairs(tree, axes, where):
    """``(where, item, its axis spec)`` for each item of a tuple/list/dict argument."""
    keys = list(tree) if isinstance(tree, dict) else range(len(tree))
    if isinstance(axes, (tuple, list, dict)):
        if isinstance(axes, dict) != isinstance(tree, dict) or len(axes) != len(tree):
            raise ValueError(f"vmap: in_axes for {where} does not match its structure")
        return [(f"{where}[{k!r}]", tree[k], axes[k]) for k in keys]
    return [(f"{where}[{k!r}]", tree[k], axes) for k in keys]


def _wrap_tree(a, ax, level):
    if ax is None:
        return a
    if isinstance(a, (tuple, list, dict)):
        items = {k: _wrap_tree(item, sub, level) for k, (_, item, sub) in
                 zip(list(a) if isinstance(a, dict) else range(len(a)), _pairs(a, ax, "argument"))}
        return items if isinstance(a, dict) else type(a)(items[k] for k in range(len(a)))
    return BatchedTensor(move_batch(a, ax % a.ndim), level)


def _unwrap_tree(out, axes, level, n, where):
    if isinstance(out, (tuple, list, dict)):
        keys = list(out) if isinstance(out, dict) else range(len(out))
        if isinstance(axes, (tuple, list, dict)):
            if isinstance(axes, dict) != isinstance(out, dict) or len(axes) != len(out):
                raise ValueError(f"vmap: out_axes does not match the structure of the {where}")
            items = {k: _unwrap_tree(out[k], axes[k], level, n, f"{where}[{k!r}]") for k in keys}
        else:
            items = {k: _unwrap_tree(out[k], axes, level, n, f"{where}[{k!r}]") for k in keys}
        return items if isinstance(out, dict) else type(out)(items[k] for k in keys)
    if not isinstance(out, Tensor):
        return out
    batched = type(out) is BatchedTensor and out._level == level
    if axes is None:
        if batched:
            raise ValueError(f"vmap: out_axes is None for {where}, but it depends on the batch")
        return out
    if not batched:       # independent of the batch: the same for every sample
        out = BatchedTensor(OPS["broadcast_to"](OPS["reshape"](out, shape=(1,) + out.shape),
                                                shape=(n,) + out.shape), level)
    value = out._value
    return move_batch(value, 0, _norm(axes, value.ndim, f"out_axes of the {where}"))


# -------------------------------------------- logical <-> physical at transform boundaries

def materialize(x, lv):
    """``x`` batched at every level in ``lv`` as well as its own (copies along new axes):
    what a transform inside vmap differentiates, so each sample gets its own derivative.

    >>> level = batching.push(3); m = materialize(eagerad.ones(2), [level])
    >>> type(m).__name__, m._value.shape
    ('BatchedTensor', (3, 2))
    >>> batching.pop()
    """
    p, have = unwrap(x)
    want = sorted(set(have) | set(lv))
    if want == have:
        return x
    rest = p.shape[len(have):]
    kept = iter(p.shape[:len(have)])
    unit = tuple(next(kept) if level in have else 1 for level in want)
    full = tuple(batching.levels[level] for level in want)
    q = OPS["broadcast_to"](OPS["reshape"](p, shape=unit + rest), shape=full + rest)
    return wrap(q, want)


def physical(x, lv):
    """The physical tensor of ``x`` batched at exactly the levels ``lv``.

    >>> physical(eagerad.ones(2), []).shape
    (2,)
    """
    return unwrap(materialize(x, lv))[0]


_upcalls.register("to_physical", physical)   # for autograd.grad inside vmap (the PyTorch face)


def lower(x, keep):
    """``x`` (batched at least at ``keep``) with the levels ``keep`` turned into plain
    leading axes, the other (newer) levels still batched: a cotangent for a graph that
    was recorded on physical tensors at levels ``keep``.

    >>> lower(eagerad.ones(2), []).shape
    (2,)
    """
    p, have = unwrap(x)
    new = [level for level in have if level not in keep]
    order = new + [level for level in have if level in keep]
    return wrap(_permute(p, [have.index(level) for level in order], len(have)), new)


def lift(g, keep):
    """Inverse of ``lower``: a result whose leading physical axes are the levels ``keep``
    (under its own batched levels) seen as batched at all of them again.

    >>> lift(eagerad.ones(2), []).shape
    (2,)
    """
    p, new = unwrap(g)
    order = new + list(keep)
    want = sorted(order)
    return wrap(_permute(p, [order.index(level) for level in want], len(order)), want)


def _permute(p, lead, n_lead):
    if lead == list(range(n_lead)):
        return p
    return OPS["transpose"](p, axes=tuple(lead) + tuple(range(n_lead, p.ndim)))


def active():
    """The vmap levels open on this thread, oldest first (empty outside vmap).

    >>> active()
    []
    """
    return batching.active()


def variable(x, lv):
    """``(logical, physical)`` fresh variable for one input position of a transform,
    batched at the vmap levels ``lv``: its own graph node (connected to whatever
    differentiates ``x`` from outside) or a new leaf, tangents kept either way.

    >>> v, p = variable(eagerad.tensor([1.0]), []); v is p, p.requires_grad
    (True, True)
    """
    p = physical(x, lv)
    if p._requires_grad:
        with enable_grad():
            v = OPS["alias"](p)
    else:
        v = forward_ad.detach(p)
        v._requires_grad = True   # set directly: the MindSpore face differentiates integers too
    return wrap(v, lv), v
