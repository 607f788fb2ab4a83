"""``torch.autograd.functional``: Jacobians, Hessians and their products with PyTorch's
argument and return conventions.

``inputs`` is a Tensor or a tuple of Tensors, and so is the function's output; a
Jacobian is a Tensor when both are single, a tuple over the tuple side, and a tuple
(over outputs) of tuples (over inputs) when both are tuples.  Results are detached
unless ``create_graph=True``; then they stay differentiable w.r.t. ``inputs`` that
require grad.  The numbers come from ``eagerad.func`` (one batched engine walk per
Jacobian, so ``vectorize`` is accepted and changes nothing).

Reachable as ``eagerad.autograd.functional`` (the package wires the name; the
autograd layer itself never imports the transforms).

>>> import eagerad
>>> jacobian(lambda x: x ** 2, eagerad.tensor([1.0, 2.0])).tolist()
[[2.0, 0.0], [0.0, 4.0]]
"""
from . import func as _func, reverse, tree
from .tensor import Tensor, ones_like

__all__ = ["jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"]


def _as_tuple(value, arg_name, fn_name):
    """``(tuple_of_tensors, was_tuple)``, as PyTorch's ``_as_tuple``."""
    is_tuple = isinstance(value, tuple)
    items = value if is_tuple else (value,)
    for i, t in enumerate(items):
        if not isinstance(t, Tensor):
            where = f"{arg_name}[{i}]" if is_tuple else arg_name
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a tuple "
                            f"of Tensors but the value at index {i} ({where}) has type "
                            f"{type(t).__name__}.")
    return items, is_tuple


def _checked(func, fn_name):
    """``func`` with its output checked to be a Tensor or a tuple of Tensors."""
    def checked(*args):
        out = func(*args)
        _as_tuple(out, "outputs of the user-provided function", fn_name)
        return out
    return checked


def _finish(result, create_graph):
    """Detach every tensor of ``result`` unless the caller asked for a graph."""
    return result if create_graph else tree.map(lambda t: t.detach() if isinstance(t, Tensor)
                                                else t, result)


def _check_strict(func, xs, fn_name):
    """``strict=True``: every input must reach the output through the graph."""
    out, tr = reverse.trace(func, xs)
    outs, _ = _as_tuple(out, "outputs of the user-provided function", fn_name)
    for i, g in enumerate(tr.pull(outs, [ones_like(o) for o in outs], False, fill=False)):
        if g is None:
            raise RuntimeError(f"The output of the user-provided function is independent of input "
                               f"{i}. This is not allowed in strict mode.")


def _vectors(v, like, arg_name, fn_name):
    """``v`` as a tuple matching the tensors ``like`` (ones when None and ``like`` is one
    single-element tensor)."""
    if v is None:
        if len(like) != 1 or like[0].size != 1:
            raise RuntimeError(f"The vector v can only be None if the {arg_name} of the "
                               "user-provided function is a single Tensor with a single element.")
        return (ones_like(like[0]),)
    vs, _ = _as_tuple(v, "v", fn_name)
    if len(vs) != len(like):
        raise RuntimeError(f"v has {len(vs)} entries but the {arg_name} has {len(like)}")
    for i, (a, b) in enumerate(zip(vs, like)):
        if a.shape != b.shape:
            raise RuntimeError(f"Entry {i} in v has invalid size: should be {tuple(b.shape)} but "
                               f"got {tuple(a.shape)}.")
    return vs


def jacobian(func, inputs, create_graph=False, strict=False, vectorize=False,
             strategy="reverse-mode"):
    """The Jacobian of ``func`` at ``inputs`` (``torch.autograd.functional.jacobian``).

    >>> x, y = eagerad.tensor([1.0]), eagerad.tensor([2.0])
    >>> [j.tolist() for j in jacobian(lambda a, b: a * b, (x, y))]
    [[[2.0]], [[1.0]]]
    """
    if strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode". Hint: '
                         f'If your strategy is "{strategy}", use "reverse-mode".')
    xs, is_tuple = _as_tuple(inputs, "inputs", "jacobian")
    if strict:
        _check_strict(func, xs, "jacobian")
    engine = _func.jacrev if strategy == "reverse-mode" else _func.jacfwd
    jac = engine(_checked(func, "jacobian"), argnums=tuple(range(len(xs))))(*xs)
    if not is_tuple:
        jac = jac[0] if not isinstance(jac[0], tuple) else tuple(j[0] for j in jac)
    return _finish(jac, create_graph)


def _as_scalar(out, fn_name):
    """The single element of ``func``'s output as a 0-d tensor (what ``func.grad`` wants)."""
    if not isinstance(out, Tensor) or out.size != 1:
        raise RuntimeError(f"The function given to {fn_name} should return a single Tensor "
                           "with a single element")
    return out.reshape(())


def hessian(func, inputs, create_graph=False, strict=False, vectorize=False,
            outer_jacobian_strategy="reverse-mode"):
    """The Hessian of a scalar ``func`` (``torch.autograd.functional.hessian``): a Tensor of
    shape ``x.shape + x.shape`` for one input, a tuple of tuples for several.

    >>> hessian(lambda x: (x ** 3).sum(), eagerad.tensor([1.0, 2.0])).tolist()
    [[6.0, 0.0], [0.0, 12.0]]
    """
    if outer_jacobian_strategy not in ("reverse-mode", "forward-mode"):
        raise ValueError('Expected strategy to be either "forward-mode" or "reverse-mode".')
    xs, is_tuple = _as_tuple(inputs, "inputs", "hessian")
    if strict:
        _check_strict(func, xs, "hessian")
    argnums = tuple(range(len(xs)))
    outer = _func.jacrev if outer_jacobian_strategy == "reverse-mode" else _func.jacfwd
    h = outer(_func.jacrev(lambda *a: _as_scalar(func(*a), "hessian"), argnums), argnums)(*xs)
    return _finish(h if is_tuple else h[0][0], create_graph)


def vjp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, vjp)``: ``v``^T times the Jacobian, one entry per input
    (``torch.autograd.functional.vjp``).

    >>> out, g = vjp(lambda x: x.sin(), eagerad.tensor([0.0, 0.0]), eagerad.tensor([1.0, 2.0]))
    >>> g.tolist()
    [1.0, 2.0]
    """
    xs, is_tuple = _as_tuple(inputs, "inputs", "vjp")
    if strict:
        _check_strict(func, xs, "vjp")
    out, vjp_fn = _func.vjp(_checked(func, "vjp"), *xs)
    outs, out_tuple = _as_tuple(out, "outputs of the user-provided function", "vjp")
    vs = _vectors(v, outs, "output", "vjp")
    grads = vjp_fn(vs if out_tuple else vs[0])
    return _finish((out, grads if is_tuple else grads[0]), create_graph)


def jvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, jvp)``: the Jacobian times ``v``, one entry per output
    (``torch.autograd.functional.jvp``).

    >>> out, t = jvp(lambda x: x ** 2, eagerad.tensor([3.0]), eagerad.tensor([1.0]))
    >>> t.tolist()
    [6.0]
    """
    xs, _ = _as_tuple(inputs, "inputs", "jvp")
    if strict:
        _check_strict(func, xs, "jvp")
    vs = _vectors(v, xs, "input", "jvp")
    return _finish(_func.jvp(_checked(func, "jvp"), xs, vs), create_graph)


def _hessian_product(mode, func, inputs, v, create_graph, strict):
    xs, is_tuple = _as_tuple(inputs, "inputs", mode)
    if strict:
        _check_strict(func, xs, mode)
    vs = _vectors(v, xs, "input", mode)

    def with_value(*args):
        out = func(*args)
        return _as_scalar(out, mode), out
    gradient = _func.grad(with_value, argnums=tuple(range(len(xs))), has_aux=True)
    if mode == "hvp":     # forward over reverse: d/dt grad(x + t v)
        _, product, out = _func.jvp(gradient, xs, vs, has_aux=True)
    else:                 # reverse over reverse: v^T d grad / dx
        _, vjp_fn, out = _func.vjp(gradient, *xs, has_aux=True)
        product = vjp_fn(vs)
    return _finish((out, product if is_tuple else product[0]), create_graph)


def hvp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, H v)`` for a scalar ``func`` (``torch.autograd.functional.hvp``).

    >>> out, hv = hvp(lambda x: (x ** 3).sum(), eagerad.tensor([1.0, 2.0]), eagerad.tensor([1.0, 1.0]))
    >>> hv.tolist()
    [6.0, 12.0]
    """
    return _hessian_product("hvp", func, inputs, v, create_graph, strict)


def vhp(func, inputs, v=None, create_graph=False, strict=False):
    """``(func_output, v^T H)`` for a scalar ``func`` (``torch.autograd.functional.vhp``).

    >>> out, vh = vhp(lambda x: (x ** 3).sum(), eagerad.tensor([1.0, 2.0]), eagerad.tensor([1.0, 0.0]))
    >>> vh.tolist()
    [6.0, 0.0]
    """
    return _hessian_product("vhp", func, inputs, v, create_graph, strict)
