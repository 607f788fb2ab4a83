"""Custom ``autograd.Function``s that can be differentiated twice, PyTorch style.

When ``backward`` is written with differentiable tensor operations, the gradient it returns
has a graph of its own under ``create_graph=True``, so a second derivative (and a
``gradgradcheck``) works.  Three patterns: saving an input (``x^3``), saving the output
(``exp``), and saving an intermediate computed in ``forward`` (``sinh`` via ``exp``).
Each is checked against its closed-form first and second derivatives and by
``gradcheck``/``gradgradcheck``.  Run: ``python tutorials/torch_double_backward_function.py``.
"""
import numpy as np

import eagerad.torch as torch
from checks import report


class Cube(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)          # an input
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2          # tensor ops: differentiable again


class Exp(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        out = torch.exp(x)
        ctx.save_for_backward(out)        # the output
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * out


class SinhAndExp(torch.autograd.Function):
    """An intermediate saved for backward must also be an output to carry a graph:
    ``forward`` runs without recording, so ``exp(x)`` kept privately would be a constant
    to the second derivative (which would then be missing).  Returned as a second output,
    it is linked to ``x`` and its own gradient flows back through ``backward``."""

    @staticmethod
    def forward(ctx, x):
        ex = torch.exp(x)
        ctx.save_for_backward(ex)
        return (ex - 1 / ex) / 2, ex

    @staticmethod
    def backward(ctx, grad, grad_ex):
        (ex,) = ctx.saved_tensors
        return grad * (ex + 1 / ex) / 2 + grad_ex * ex


def sinh(x):
    return SinhAndExp.apply(x)[0]


x0 = np.array([-1.3, 0.2, 0.9, 2.0])
closed = {  # first and second derivatives
    Cube: (lambda v: 3 * v ** 2, lambda v: 6 * v),
    Exp: (np.exp, np.exp),
    sinh: (np.cosh, np.sinh),
}
for fn, (d1, d2) in closed.items():
    call, name = getattr(fn, "apply", fn), fn.__name__
    x = torch.tensor(x0, requires_grad=True)          # float64 from numpy
    (g,) = torch.autograd.grad(call(x).sum(), x, create_graph=True)
    (gg,) = torch.autograd.grad(g.sum(), x)
    report(f"{name}: first derivative", g, d1(x0), 1e-12)
    report(f"{name}: second derivative", gg, d2(x0), 1e-12)
    ok = torch.autograd.gradcheck(call, (x,)) and torch.autograd.gradgradcheck(call, (x,))
    print(f"{name}: gradcheck and gradgradcheck pass: {ok}")
    if not ok:
        raise SystemExit(f"{name} failed gradcheck")

# Composed with built-in ops, the chain rule reaches through the custom backward twice:
# d^2/dx^2 exp(x)^3 = 9 exp(3x).
x = torch.tensor(x0, requires_grad=True)
(g,) = torch.autograd.grad(Cube.apply(Exp.apply(x)).sum(), x, create_graph=True)
(gg,) = torch.autograd.grad(g.sum(), x)
report("exp(x)^3 second derivative 9 exp(3x)", gg, 9 * np.exp(3 * x0), 1e-9)
