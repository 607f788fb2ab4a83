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
from . import batching, forward_ad
from .engine import backward as _engine_backward
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


def _forward(fn, inputs, idx):
    """Same layout as ``_numeric``, one forward-mode pass per input element (``jvp``)."""
    jac = None
    for n, i in enumerate(idx):
        x = inputs[i]
        for e in range(x.size):
            basis = np.zeros(x.size, dtype=np.float64)
            basis[e] = 1
            with forward_ad.dual_level(), enable_grad():   # fn may differentiate (fwd-over-rev)
                args = list(inputs)
                args[i] = forward_ad.make_dual(x.detach().requires_grad_(),
                                               Tensor(basis.reshape(x.shape)))
                outs = _outputs(fn, args)
                if jac is None:
                    jac = [[np.zeros((inputs[j].size, o.size)) for o in outs] for j in idx]
                for k, o in enumerate(outs):
                    tangent = forward_ad.unpack_dual(o).tangent
                    if tangent is not None:
                        jac[n][k][e] = np.asarray(tangent.numpy(), np.float64).reshape(-1)
    return jac


def _batched(fn, inputs, idx):
    """Same layout as ``_numeric``, one backward pass per output with all of its basis
    cotangents batched at a vmap level: checks the vjp rules' batching."""
    with enable_grad():
        outs = _outputs(fn, inputs)
    wrt = [inputs[i] for i in idx]
    jac = [[np.zeros((inputs[i].size, o.size)) for o in outs] for i in idx]
    for k, out in enumerate(outs):
        if not out.requires_grad or not out.size:
            continue
        level = batching.push(out.size)
        try:
            seeds = batching.BatchedTensor(
                Tensor(np.eye(out.size, dtype=out.dtype).reshape((out.size,) + out.shape)), level)
            grads = _engine_backward([out], [seeds], True, False, wrt, True)
        finally:
            batching.pop()
        for n, g in enumerate(grads):
            if g is not None:
                rows = np.asarray(batching.unwrap(g)[0].numpy(), np.float64)
                jac[n][k] = rows.reshape(out.size, -1).T
    return jac


def _undefined_grads(fn, inputs, idx):
    """Zero cotangents must give zero (or no) gradients."""
    from . import grad
    with enable_grad():
        outs = [o for o in _outputs(fn, inputs) if o.requires_grad]
    if not outs:
        return
    wrt = [inputs[i] for i in idx]
    grads = grad(outs, wrt, grad_outputs=[Tensor(np.zeros(o.shape, o.dtype)) for o in outs],
                 allow_unused=True)
    for n, g in enumerate(grads):
        if g is not None and np.any(g.numpy()):
            raise GradcheckError(f"gradcheck (check_undefined_grad): zero output gradients gave a "
                                 f"non-zero gradient for input {idx[n]}")


def _mismatch(what, numeric, computed, inputs, idx, atol, rtol):
    """The error message for the first entry where ``computed`` misses ``numeric``, or None."""
    for n, i in enumerate(idx):
        for k, (num, ana) in enumerate(zip(numeric[n], computed[n])):
            bad = np.abs(ana - num) > atol + rtol * np.abs(num)
            if not bad.any():
                continue
            e, j = np.argwhere(bad)[0]
            where = np.unravel_index(e, inputs[i].shape) if inputs[i].ndim else ()
            return (f"gradcheck: {what} Jacobian mismatch for input {i} (shape {inputs[i].shape}) "
                    f"at element {tuple(int(v) for v in where)}, output {k} element {int(j)}: "
                    f"numeric {float(num[e, j])!r}, {what} {float(ana[e, j])!r} (atol={atol}, "
                    f"rtol={rtol}; {int(bad.sum())} of {bad.size} entries differ)")
    return None


def gradcheck(fn, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False, check_forward_ad=False,
              check_backward_ad=True, fast_mode=False, masked=None):
    """True when ``fn``'s derivatives match central differences for every float64 input
    that requires grad; otherwise raise ``GradcheckError`` (or return False).

    ``fn(*inputs)`` returns a Tensor or a tuple of Tensors.  An element passes when
    ``|analytic - numeric| <= atol + rtol * |numeric|``.  As in PyTorch:
    ``check_backward_ad`` checks reverse mode (one vjp per output element),
    ``check_forward_ad`` forward mode (one jvp per input element), ``check_batched_grad``
    the vjps run batched (all basis cotangents at once, at a vmap level), and
    ``check_undefined_grad`` that zero output gradients give zero gradients.
    ``fast_mode`` is accepted and runs the full check; ``nondet_tol`` is accepted
    (eagerad's backward is deterministic).

    >>> import eagerad
    >>> x = eagerad.tensor([[1.0, 2.0]], dtype=eagerad.float64, requires_grad=True)
    >>> gradcheck(lambda a: a.exp(), (x,), check_forward_ad=True, check_batched_grad=True)
    True
    """
    inputs = _as_tuple(inputs)
    idx = _differentiable(inputs)
    numeric = _numeric(fn, inputs, idx, eps)
    checks = [("analytic", _analytic)] if check_backward_ad else []
    if check_forward_ad or check_batched_forward_grad:
        checks.append(("forward-mode", _forward))
    if check_batched_grad and check_backward_ad:
        checks.append(("batched", _batched))
    try:
        if check_undefined_grad and check_backward_ad:
            _undefined_grads(fn, inputs, idx)
        for what, jacobian in checks:
            message = _mismatch(what, numeric, jacobian(fn, inputs, idx), inputs, idx, atol, rtol)
            if message is not None:
                raise GradcheckError(message)
    except GradcheckError:
        if raise_exception:
            raise
        return False
    return True


def gradgradcheck(fn, inputs, grad_outputs=None, *, eps=1e-6, atol=1e-5, rtol=1e-3,
                  gen_non_contig_grad_outputs=False, raise_exception=True, nondet_tol=0.0,
                  check_undefined_grad=True, check_grad_dtypes=False, check_batched_grad=False,
                  check_fwd_over_rev=False, check_rev_over_rev=True, fast_mode=False, masked=False):
    """``gradcheck`` of the map (inputs, cotangents) -> gradients, i.e. of the backward
    pass itself, which checks second derivatives.  ``grad_outputs`` default to
    fixed random float64 tensors shaped like ``fn``'s outputs.  ``check_fwd_over_rev``
    checks forward mode through the backward pass, ``check_rev_over_rev`` reverse mode.

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

    return gradcheck(backward_of_fn, inputs + grad_outputs, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol,
                     check_undefined_grad=check_undefined_grad, check_batched_grad=check_batched_grad,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev)
