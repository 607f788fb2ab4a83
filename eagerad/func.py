"""``torch.func``: composable transforms with PyTorch's conventions, on pytrees.

Every transform takes and returns nested dicts/lists/tuples of tensors
(``eagerad.tree``), so a model's parameters can be one dict; ``argnums`` is an int
(the result is that argument's tree) or a tuple (a tuple of them).  The numbers
come from eagerad's own engine (``eagerad.functional``, ``eagerad.vmap``), so these
compose with each other and with the MindSpore-style transforms in any order.

Differences from the MindSpore-style ``eagerad.grad``: the function must return
one scalar tensor (no summing of several outputs), ``has_aux`` means exactly
``(output, aux)``, ``vjp``'s function takes one cotangent tree and returns a
tuple with one entry per primal, and Jacobians of tree outputs w.r.t. tree inputs
nest the output structure outside the input structure (as ``jax.jacrev``).

>>> import eagerad
>>> from eagerad import func
>>> params = {'w': eagerad.tensor([1.0, 2.0]), 'b': eagerad.tensor(0.5)}
>>> g = func.grad(lambda p, x: ((p['w'] * x).sum() + p['b']) ** 2)(params, eagerad.tensor([3.0, 4.0]))
>>> g['w'].tolist(), g['b'].item()
([69.0, 92.0], 23.0)
"""
from . import functional as _functional, tree
from .ops import stack
from .tensor import Tensor, ones_like
from .vectorize import vmap as _vmap

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "jacrev", "jacfwd", "hessian", "vmap",
           "functional_call", "stack_module_state", "make_functional", "make_functional_with_buffers"]


# ----------------------------------------------------------------- pytrees of arguments

def _argnums(argnums, n_args):
    """``(positions, single)``: ``argnums`` checked against the number of arguments."""
    single = isinstance(argnums, int) and not isinstance(argnums, bool)
    positions = (argnums,) if single else argnums
    if not isinstance(positions, tuple) or not positions or \
            any(not isinstance(p, int) or isinstance(p, bool) for p in positions):
        raise TypeError(f"argnums must be an int or a non-empty tuple of ints, got {argnums!r}")
    for p in positions:
        if not -n_args <= p < n_args:
            raise RuntimeError(f"Got argnums={p}, but the function was called with {n_args} "
                               "positional argument(s)")
    positions = tuple(p % n_args for p in positions)
    if len(set(positions)) != len(positions):
        raise RuntimeError(f"argnums must be unique, got {argnums!r}")
    return positions, single


def _split_aux(out, has_aux):
    """torch.func's ``has_aux``: the function returns exactly ``(output, aux)``."""
    if not has_aux:
        return out, None
    if not isinstance(out, tuple) or len(out) != 2:
        raise RuntimeError("f(*args): output of function f should be a tuple: (output, aux) if "
                           "has_aux is True")
    return out


# ----------------------------------------------------------------------- grad

def grad_and_value(func, argnums=0, has_aux=False):
    """``(gradient, value)`` of a scalar function (``torch.func.grad_and_value``); with
    ``has_aux`` the function returns ``(value, aux)`` and this gives ``(grad, (value, aux))``.

    >>> g, v = grad_and_value(lambda x: (x ** 2).sum())(eagerad.tensor([1.0, 3.0]))
    >>> g.tolist(), v.item()
    ([2.0, 6.0], 10.0)
    """
    if not callable(func):
        raise TypeError(f"grad: func must be callable, got {type(func).__name__}")

    def wrapper(*args, **kwargs):
        positions, single = _argnums(argnums, len(args))
        leaves, defs = _functional.flat_leaves([args[p] for p in positions], "argument")
        flat_fn = _functional.at_positions(func, args, kwargs, positions, defs)

        def scalar_fn(*ls):
            out = flat_fn(*ls)
            value, aux = _split_aux(out, has_aux)
            if not isinstance(value, Tensor):
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"Tensor, got {type(value).__name__}")
            if value.ndim != 0:
                raise RuntimeError(f"grad_and_value(f)(*args): Expected f(*args) to return a "
                                   f"scalar Tensor, got tensor with {value.ndim} dims. Maybe you "
                                   "wanted to use the vjp or jacrev APIs instead?")
            return out
        value, pull, aux, _, _ = _functional._vjp(scalar_fn, leaves, has_aux)
        grads = _functional.regroup(list(pull([ones_like(value)])), defs, single)
        return (grads, (value, aux)) if has_aux else (grads, value)
    return wrapper


def grad(func, argnums=0, has_aux=False):
    """The gradient of a scalar function w.r.t. ``args[argnums]`` (``torch.func.grad``).

    >>> gx, gy = grad(lambda x, y: (x * y).sum(), argnums=(0, 1))(eagerad.tensor([2.0]), eagerad.tensor([5.0]))
    >>> gx.tolist(), gy.tolist()
    ([5.0], [2.0])
    """
    gv = grad_and_value(func, argnums, has_aux)

    def wrapper(*args, **kwargs):
        grads, value = gv(*args, **kwargs)
        return (grads, value[1]) if has_aux else grads
    return wrapper


# ----------------------------------------------------------------- vjp / jvp

def vjp(func, *primals, has_aux=False):
    """``(output, vjp_fn[, aux])``: ``vjp_fn(cotangents)`` (a tree shaped like the output)
    returns a tuple with one gradient tree per primal (``torch.func.vjp``).

    >>> out, vjp_fn = vjp(lambda x: x.sin(), eagerad.tensor([0.0]))
    >>> vjp_fn(eagerad.tensor([2.0]))[0].tolist()
    [2.0]
    """
    leaves, defs = _functional.flat_leaves(primals, "primal")
    flat = _functional.OutTree(func, has_aux, _split_aux, "vjp")
    value, pull, aux, _, _ = _functional._vjp(
        lambda *ls: flat(*_functional.regroup(list(ls), defs, False)), leaves, has_aux)
    outs = value if isinstance(value, tuple) else (value,)
    out_def = flat.treedef

    def vjp_fn(cotangents, retain_graph=True, create_graph=None):
        """Gradients of ``sum(cotangents * output)`` w.r.t. each primal; ``retain_graph`` and
        ``create_graph`` are accepted (the graph is kept for further calls, and the result is
        differentiable whenever something can differentiate it)."""
        cts, ct_def = tree.flatten(cotangents)
        if ct_def != out_def:
            raise RuntimeError(f"Expected pytree structure of cotangents to be the same as pytree "
                               f"structure of outputs to the function. cotangents: {ct_def}, "
                               f"primal output: {out_def}")
        for i, (o, c) in enumerate(zip(outs, cts)):
            if not isinstance(c, Tensor):
                raise RuntimeError(f"vjp_fn: cotangent {i} is a {type(c).__name__}, not a Tensor")
            if c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {c.shape} "
                                   f"and output[{i}] has a shape of {o.shape}.")
        return _functional.regroup(list(pull(cts)), defs, False)
    shown = out_def.unflatten(outs)
    return (shown, vjp_fn, aux) if has_aux else (shown, vjp_fn)


def jvp(func, primals, tangents, has_aux=False):
    """``(output, jvp_out[, aux])``: the derivative of ``func`` at ``primals`` along
    ``tangents`` by forward mode (``torch.func.jvp``; both are tuples of trees).

    >>> out, t = jvp(lambda x: x ** 3, (eagerad.tensor([2.0]),), (eagerad.tensor([1.0]),))
    >>> out.tolist(), t.tolist()
    ([8.0], [12.0])
    """
    for name, v in (("primals", primals), ("tangents", tangents)):
        if not isinstance(v, tuple):
            raise RuntimeError(f"jvp(f, primals, tangents): Expected {name} to be a tuple. E.g. "
                               f"it should be valid to call f(*{name}).")
    leaves, defs = _functional.flat_leaves(primals, "primal")
    t_leaves, t_defs = _functional.flat_leaves(tangents, "tangent")
    if t_defs != defs:
        raise RuntimeError("jvp(f, primals, tangents): Expected primals and tangents to have the "
                           f"same python structure, got {defs} and {t_defs}")
    flat = _functional.OutTree(lambda *ls: func(*_functional.regroup(list(ls), defs, False)),
                               has_aux, _split_aux, "jvp")
    out, tangent_out, aux = _functional.jvp_leaves(flat, leaves, t_leaves, has_aux)
    shown = (flat.treedef.unflatten(out), flat.treedef.unflatten(tangent_out))
    return shown + (aux,) if has_aux else shown


# ----------------------------------------------------------------- Jacobians

def _jacobian(engine, name, func, argnums, has_aux, chunk_size):
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"{name}: chunk_size must be None or a positive int, got {chunk_size!r}")

    def wrapper(*args, **kwargs):
        positions, single = _argnums(argnums, len(args))
        return _functional.tree_jacobian(engine, func, args, kwargs, positions, single, has_aux,
                                         _split_aux, name)
    return wrapper


def jacrev(func, argnums=0, *, has_aux=False, chunk_size=None, _preallocate_and_copy=False):
    """Jacobian by reverse mode (``torch.func.jacrev``): for output leaf ``o`` and input leaf
    ``x`` the block has shape ``o.shape + x.shape``, nested output tree outside input tree.

    >>> jacrev(lambda x: {'y': x * 2})(eagerad.tensor([1.0, 1.0]))['y'].tolist()
    [[2.0, 0.0], [0.0, 2.0]]
    """
    return _jacobian(_functional.jacrev_leaves, "jacrev", func, argnums, has_aux, chunk_size)


def jacfwd(func, argnums=0, has_aux=False, *, randomness="error", chunk_size=None):
    """Jacobian by forward mode (``torch.func.jacfwd``), same layout as ``jacrev``.

    >>> jacfwd(lambda x: x ** 2)(eagerad.tensor([3.0])).tolist()
    [[6.0]]
    """
    _check_randomness(randomness)
    return _jacobian(_functional.jacfwd_leaves, "jacfwd", func, argnums, has_aux, chunk_size)


def hessian(func, argnums=0):
    """Second derivatives, ``jacfwd(jacrev(func, argnums), argnums)`` (``torch.func.hessian``).

    >>> hessian(lambda x: (x ** 3).sum())(eagerad.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    return jacfwd(jacrev(func, argnums), argnums)


# ----------------------------------------------------------------------- vmap

def _check_randomness(randomness):
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or "
                           f"'same'. Got {randomness}")


def vmap(func, in_dims=0, out_dims=0, randomness="error", *, chunk_size=None):
    """``torch.func.vmap``: ``func`` written for one sample, run on a batch at once.

    ``in_dims``/``out_dims`` are ``eagerad.vmap``'s ``in_axes``/``out_axes``; keyword
    arguments are passed unbatched.  ``chunk_size`` is accepted (the whole batch runs
    at once; the result is the same).

    >>> vmap(lambda x, y: x @ y, in_dims=(0, None))(eagerad.ones(3, 2), eagerad.ones(2)).tolist()
    [2.0, 2.0, 2.0]
    """
    _check_randomness(randomness)
    if chunk_size is not None and (not isinstance(chunk_size, int) or chunk_size < 1):
        raise ValueError(f"vmap: chunk_size must be None or a positive int, got {chunk_size!r}")

    def wrapper(*args, **kwargs):
        return _vmap(lambda *a: func(*a, **kwargs), in_dims, out_dims)(*args)
    return wrapper


# --------------------------------------------------------------------- modules

def _owner(module, path):
    """``(cell holding the attribute, attribute name)`` for a dotted parameter path."""
    *cells, name = path.split(".")
    owner = module
    for c in cells:
        if not hasattr(owner, c):
            raise AttributeError(f"functional_call: {type(module).__name__} has no submodule "
                                 f"{c!r} (in {path!r})")
        owner = getattr(owner, c)
    return owner, name


def _tied_paths(module):
    """``{id(parameter): [(cell, attribute name), ...]}`` over every cell, shared ones included."""
    places = {}
    for _, cell in module.cells_and_names():
        for name in cell._registry()[0]:
            places.setdefault(id(getattr(cell, name)), []).append((cell, name))
    return places


def functional_call(module, parameter_and_buffer_dicts, args=(), kwargs=None, *, tie_weights=True,
                    strict=False):
    """Call ``module`` with its parameters replaced by the given tensors (``torch.func``).

    ``parameter_and_buffer_dicts`` maps dotted names (``'0.weight'``) to tensors (a dict or
    a tuple of dicts); the module's own parameters are back in place afterwards.  With
    ``tie_weights`` a parameter shared by several submodules is replaced everywhere;
    ``strict`` requires every parameter to be given.  This is how ``grad``/``vmap`` take
    a model's parameters as a dict.

    >>> net = eagerad.nn.Dense(2, 1)
    >>> p = {'weight': eagerad.tensor([[1.0, 2.0]]), 'bias': eagerad.tensor([0.5])}
    >>> functional_call(net, p, (eagerad.tensor([[1.0, 1.0]]),)).tolist()
    [[3.5]]
    >>> grad(lambda p, x: functional_call(net, p, (x,)).sum())(p, eagerad.ones(1, 2))['weight'].tolist()
    [[1.0, 1.0]]
    """
    dicts = parameter_and_buffer_dicts if isinstance(parameter_and_buffer_dicts, (tuple, list)) \
        else (parameter_and_buffer_dicts,)
    given = {}
    for d in dicts:
        for key, value in d.items():
            if key in given:
                raise ValueError(f"functional_call: {key!r} appeared in more than one of the "
                                 "dictionaries")
            given[key] = value
    names = dict(module.parameters_and_names())
    if strict:
        missing = sorted(set(names) - set(given))
        unexpected = sorted(set(given) - set(names))
        if missing or unexpected:
            raise RuntimeError(f"functional_call (strict=True): missing key(s) {missing}, "
                               f"unexpected key(s) {unexpected}")
    swaps = [(_owner(module, k), v) for k, v in given.items()]
    if tie_weights:
        places = _tied_paths(module)
        for key, value in given.items():
            if key in names:
                swaps += [(place, value) for place in places[id(names[key])]
                          if place != _owner(module, key)]
    saved = []
    try:
        for (cell, name), value in swaps:
            saved.append((cell, name, cell.__dict__.get(name, _MISSING)))
            object.__setattr__(cell, name, value)   # bypass registration: the Parameter stays listed
        args = args if isinstance(args, tuple) else (args,)
        return module(*args, **(kwargs or {}))
    finally:
        for cell, name, old in reversed(saved):
            if old is _MISSING:
                object.__delattr__(cell, name)
            else:
                object.__setattr__(cell, name, old)


_MISSING = object()


def stack_module_state(models):
    """``(params, buffers)``: each parameter of identically built ``models`` stacked along a new
    axis 0, for ``vmap(functional_call)`` over an ensemble (``torch.func.stack_module_state``).
    eagerad modules keep no buffers outside their parameters, so ``buffers`` is empty.

    >>> ms = [eagerad.nn.Dense(2, 1) for _ in range(3)]
    >>> params, buffers = stack_module_state(ms); params['weight'].shape, buffers
    ((3, 1, 2), {})
    """
    models = list(models)
    if not models:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    keys = [n for n, _ in models[0].parameters_and_names()]
    for i, m in enumerate(models[1:], 1):
        other = [n for n, _ in m.parameters_and_names()]
        if other != keys:
            raise RuntimeError(f"stack_module_state: model {i} has parameters {other}, model 0 "
                               f"has {keys}; all models must be built alike")
    tables = [dict(m.parameters_and_names()) for m in models]
    params = {k: stack([t[k].detach() for t in tables]).requires_grad_(tables[0][k].requires_grad)
              for k in keys}
    return params, {}


def make_functional_with_buffers(model, disable_autograd_tracking=False):
    """functorch's ``(fmodel, params, buffers)``: ``fmodel(params, buffers, *args)`` runs
    ``model`` with the tuple ``params`` in place of its parameters (``functional_call``).
    eagerad modules keep no buffers outside their parameters, so ``buffers`` is empty.

    >>> fmodel, params, buffers = make_functional_with_buffers(eagerad.nn.Dense(2, 1))
    >>> fmodel(tuple(p * 0 for p in params), buffers, eagerad.ones(1, 2)).tolist()
    [[0.0]]
    """
    names = [n for n, _ in model.parameters_and_names()]
    params = tuple(p.detach() if disable_autograd_tracking else p
                   for _, p in model.parameters_and_names())

    def fmodel(new_params, buffers, *args, **kwargs):
        if len(new_params) != len(names):
            raise ValueError(f"fmodel: got {len(new_params)} parameters, the model has "
                             f"{len(names)} ({names})")
        return functional_call(model, dict(zip(names, new_params)), args, kwargs)
    return fmodel, params, ()


def make_functional(model, disable_autograd_tracking=False):
    """functorch's ``(fmodel, params)``: ``fmodel(params, *args)`` (see
    ``make_functional_with_buffers``).

    >>> fmodel, params = make_functional(eagerad.nn.Dense(2, 1))
    >>> [tuple(p.shape) for p in params]
    [(1, 2), (1,)]
    """
    fmodel, params, buffers = make_functional_with_buffers(model, disable_autograd_tracking)
    return (lambda new_params, *args, **kwargs: fmodel(new_params, buffers, *args, **kwargs)), \
        params
