"""Check analytic gradients against central finite differences (float64).

``gradcheck`` builds the Jacobian of ``fn`` twice: numerically, by nudging one
input element at a time by ``+-eps``, and analytically, with one vector-Jacobian
product per output element through ``autograd.grad``.  ``gradgradcheck`` runs
the same check on the function that maps (inputs, output cotangents) to the
gradients, recorded with ``create_graph=True``, which tests the backward rules'
own backward rules.  Any callable works: eagerad ops, compositions, custom
``autograd.Function`` classes.

>>> import eagerad
>>> x = eagerad.tensor([0.3, 0.7], dtype=eagerad.float64, requires_grad=True)
>>> gradcheck(lambda t: (t.sin() * t).sum(), x)
True
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .grad_mode import enable_grad


class GradcheckError(RuntimeError):
    """Analytic and numeric derivatives disagree (the message says where).

    >>> x = eagerad.tensor([1.0], dtype=eagerad.float64, requires_grad=True)
    >>> try:
    ...     gradcheck(lambda t: Tensor(t.numpy() * 2) + t, (x,))
    ... except GradcheckError:
    ...     print("caught")
    caught
    """


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _outputs(fn, inputs):
    out = _as_tuple(fn(*inputs))
    for k, o in enumerate(out):
        if not isinstance(o, Tensor):
            raise TypeError(f"gradcheck: output {k} of fn is {type(o).__name__}, not a Tensor")
    return out


def _differentiable(inputs):
    """Positions of the inputs to check; each must be a float64 tensor."""
    idx = []
    for i, x in enumerate(inputs):
        if isinstance(x, Tensor) and x.requires_grad:
            if x.dtype != dt.float64:
                raise ValueError(f"gradcheck: input {i} has dtype {x.dtype}; finite differences "
                                 "need float64 (use x.astype(eagerad.float64))")
            idx.append(i)
    if not idx:
        raise ValueError("gradcheck: no input requires grad, so there is nothing to check")
    return idx


def _numeric(fn, inputs, idx, eps):
    """``jac[i][k]``: (input elements, output elements) for input idx[i], output k."""
    with enable_grad():     # fn may itself differentiate (gradgradcheck's backward_of_fn)
        base = _outputs(fn, inputs)
        jac = [[np.zeros((inputs[i].size, o.size)) for o in base] for i in idx]
        for n, i in enumerate(idx):
            flat = np.array(inputs[i].numpy(), dtype=np.float64).reshape(-1)
            for e in range(flat.size):
                diffs = []
                for step in (eps, -eps):
                    moved = flat.copy()
                    moved[e] += step
                    args = list(inputs)
                    args[i] = Tensor(moved.reshape(inputs[i].shape)).requires_grad_()
                    diffs.append(_outputs(fn, args))
                for k, (hi, lo) in enumerate(zip(*diffs)):
                    delta = np.asarray(hi.numpy(), np.float64) - np.asarray(lo.numpy(), np.float64)
                    jac[n][k][e] = delta.reshape(-1) / (2 * eps)
    return jac


def _analytic(fn, inputs, idx):
    """Same layout as ``_numeric``, one ``autograd.grad`` call per output element."""
    from . import grad
    with enable_grad():
        outs = _outputs(fn, inputs)
    wrt = [inputs[i] for i in idx]
    jac = [[np.zeros((inputs[i].size, o.size)) for o in outs] for i in idx]
    for k, out in enumerate(outs):
        if not out.requires_grad:
            continue        # does not depend on any input: a zero Jacobian block
        for j in range(out.size):
            seed = np.zeros(out.size, dtype=out.dtype)
            seed[j] = 1
            grads = grad(out, wrt, grad_outputs=Tensor(seed.reshape(out.shape)),
                         retain_graph=True, allow_unused=True)
            for n, (g, x) in enumerate(zip(grads, wrt)):
                if g is None:
                    continue
                if g.shape != x.shape or g.dtype != x.dtype:
                    raise GradcheckError(
                        f"gradcheck: the gradient for input {idx[n]} has shape {g.shape} and dtype "
                        f"{g.dtype}, but the input has shape {x.shape} and dtype {x.dtype}")
                jac[n][k][:, j] = np.asarray(g.numpy(), np.float64).reshape(-1)
    return jac


def gradcheck(fn, inputs, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True):
    """True when ``fn``'s gradients match central differences for every float64 input
    that requires grad; otherwise raise ``GradcheckError`` (or return False).

    ``fn(*inputs)`` returns a Tensor or a tuple of Tensors.  An element passes when
    ``|analytic - numeric| <= atol + rtol * |numeric|``.

    >>> import eagerad
    >>> x = eagerad.tensor([[1.0, 2.0]], dtype=eagerad.float64, requires_grad=True)
    >>> gradcheck(lambda a: a.exp(), (x,))
    True
    """
    inputs = _as_tuple(inputs)
    idx = _differentiable(inputs)
    numeric = _numeric(fn, inputs, idx, eps)
    try:
        analytic = _analytic(fn, inputs, idx)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    for n, i in enumerate(idx):
        for k, (num, ana) in enumerate(zip(numeric[n], analytic[n])):
            bad = np.abs(ana - num) > atol + rtol * np.abs(num)
            if not bad.any():
                continue
            if not raise_exception:
                return False
            e, j = np.argwhere(bad)[0]
            where = np.unravel_index(e, inputs[i].shape) if inputs[i].ndim else ()
            raise GradcheckError(
                f"gradcheck: Jacobian mismatch for input {i} (shape {inputs[i].shape}) at element "
                f"{tuple(int(v) for v in where)}, output {k} element {int(j)}: numeric "
                f"{float(num[e, j])!r}, analytic {float(ana[e, j])!r} (atol={atol}, rtol={rtol}; "
                f"{int(bad.sum())} of {bad.size} entries differ)")
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, eps=1e-6, atol=1e-5, rtol=1e-3,
                  raise_exception=True):
    """``gradcheck`` of the map (inputs, cotangents) -> gradients, i.e. of the backward
    pass itself, which checks second derivatives.  ``grad_outputs`` default to
    fixed random float64 tensors shaped like ``fn``'s outputs.

    >>> import eagerad
    >>> x = eagerad.tensor([0.5], dtype=eagerad.float64, requires_grad=True)
    >>> gradgradcheck(lambda a: a ** 3, x)
    True
    """
    from . import grad
    inputs = _as_tuple(inputs)
    idx = _differentiable(inputs)
    with enable_grad():
        outs = _outputs(fn, inputs)
    if grad_outputs is None:
        rng = np.random.default_rng(0)
        grad_outputs = tuple(Tensor(rng.standard_normal(o.shape), dtype=dt.float64)
                             .requires_grad_() for o in outs)
    grad_outputs = _as_tuple(grad_outputs)
    if len(grad_outputs) != len(outs):
        raise ValueError(f"gradgradcheck: {len(grad_outputs)} grad_outputs for {len(outs)} outputs")
    n_in = len(inputs)

    def backward_of_fn(*args):
        xs, vs = args[:n_in], args[n_in:]
        res = _outputs(fn, xs)
        pairs = [(o, v) for o, v in zip(res, vs) if o.requires_grad]
        wrt = [xs[i] for i in idx]
        if not pairs:
            return tuple(x.detach() * 0 for x in wrt)
        grads = grad([o for o, _ in pairs], wrt, grad_outputs=[v for _, v in pairs],
                     create_graph=True, allow_unused=True)
        return tuple(x.detach() * 0 if g is None else g for g, x in zip(grads, wrt))

    return gradcheck(backward_of_fn, inputs + grad_outputs, eps, atol, rtol, raise_exception)
