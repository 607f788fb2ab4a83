"""Forward-mode AD, PyTorch style: push a tangent through the computation with dual tensors.

Inside ``forward_ad.dual_level()``, ``make_dual(x, v)`` attaches the direction ``v`` to
``x``; every op then carries ``J v`` along, and ``unpack_dual`` reads it off the output.
One forward pass gives a Jacobian-vector product (a directional derivative) without any
backward pass.  Checked against closed forms, against reverse mode (rows of the Jacobian),
and for a custom ``autograd.Function`` that defines its own ``jvp``.
Run: ``python tutorials/torch_forward_ad.py``.
"""
import numpy as np

import eagerad.torch as torch
import eagerad.torch.autograd.forward_ad as fwAD
from checks import report

x0 = np.array([0.5, -1.0, 2.0])
v0 = np.array([1.0, 0.3, -0.7])


def f(x):
    return x * torch.sin(x) + torch.exp(-x ** 2)


with fwAD.dual_level():
    dual = fwAD.make_dual(torch.tensor(x0), torch.tensor(v0))
    out = f(dual)
    primal, tangent = fwAD.unpack_dual(out)
print("f(x) =", primal.numpy(), "  J v =", tangent.numpy())
closed = (np.sin(x0) + x0 * np.cos(x0) - 2 * x0 * np.exp(-x0 ** 2)) * v0
report("tangent of x sin x + exp(-x^2) (elementwise, so J v = f'(x) v)", tangent, closed, 1e-14)
report("primal is f(x)", primal, x0 * np.sin(x0) + np.exp(-x0 ** 2), 1e-15)

# A function mixing the entries: J v from one forward pass equals J (from reverse mode) times v.
W = torch.tensor(np.array([[1.0, 2.0, -1.0], [0.5, 0.0, 3.0]]))


def g(x):
    return torch.tanh(W @ x) * x.sum()


with fwAD.dual_level():
    jv = fwAD.unpack_dual(g(fwAD.make_dual(torch.tensor(x0), torch.tensor(v0)))).tangent
xr = torch.tensor(x0, requires_grad=True)
rows = [torch.autograd.grad(g(xr)[i], xr)[0].numpy() for i in range(2)]
report("forward J v against reverse-mode Jacobian rows times v", jv, np.stack(rows) @ v0, 1e-14)

# Two levels: forward-over-forward gives the second directional derivative v^T f'' v.
with fwAD.dual_level():
    inner = fwAD.make_dual(torch.tensor(x0), torch.tensor(v0))
    with fwAD.dual_level():
        outer = fwAD.make_dual(inner, torch.tensor(v0))
        t_outer = fwAD.unpack_dual(torch.sin(outer).sum()).tangent
    second = fwAD.unpack_dual(t_outer).tangent
report("forward over forward: sum(-sin(x) v^2)", second, np.sum(-np.sin(x0) * v0 ** 2), 1e-14)


class Square(torch.autograd.Function):
    """x^2 with both a backward (reverse) and a jvp (forward) rule."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return 2 * x * grad

    @staticmethod
    def jvp(ctx, tangent):
        (x,) = ctx.saved_tensors
        return 2 * x * tangent


with fwAD.dual_level():
    t = fwAD.unpack_dual(Square.apply(fwAD.make_dual(torch.tensor(x0), torch.tensor(v0)))).tangent
report("custom Function jvp: 2 x v", t, 2 * x0 * v0, 0)
