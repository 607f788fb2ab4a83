"""Extending autograd with numpy code, PyTorch style: a custom Function whose kernels are numpy.

``forward`` leaves the graph (``.numpy()``), computes with numpy and wraps the result back;
``backward`` does the same for the gradients.  The example is a 1-D "valid"
cross-correlation with a learnable filter, as in a tiny convolution layer:
``out[i] = sum_k x[i + k] w[k]``.  Its gradients are ``dx = convolve(g, w, "full")`` and
``dw = correlate(x, g, "valid")``.  Checked with ``gradcheck`` (finite differences) and
against the same result computed with eagerad ops; then the filter is learnt back from data.
Run: ``python tutorials/torch_numpy_extension.py``.
"""
import numpy as np

import eagerad.torch as torch
from checks import report


class Correlate1d(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(x, w)
        return torch.tensor(np.correlate(x.numpy(), w.numpy(), mode="valid"))

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.saved_tensors
        g = grad.numpy()
        dx = np.convolve(g, w.numpy(), mode="full")
        dw = np.correlate(x.numpy(), g, mode="valid")
        return torch.tensor(dx), torch.tensor(dw)


rng = np.random.default_rng(0)
x = torch.tensor(rng.normal(size=12), requires_grad=True)
w = torch.tensor(rng.normal(size=4), requires_grad=True)
print("gradcheck:", torch.autograd.gradcheck(Correlate1d.apply, (x, w)))


def correlate_with_ops(x, w):
    """The same correlation written with eagerad ops, as an independent reference."""
    n = x.shape[0] - w.shape[0] + 1
    return torch.stack([(x[i:i + w.shape[0]] * w).sum() for i in range(n)])


out = Correlate1d.apply(x, w)
report("numpy forward against eagerad ops", out, correlate_with_ops(x, w).detach(), 1e-14)
g = torch.tensor(rng.normal(size=out.shape[0]))
gx, gw = torch.autograd.grad(out, (x, w), g)
rx, rw = torch.autograd.grad(correlate_with_ops(x, w), (x, w), g)
report("numpy backward d/dx against eagerad ops", gx, rx, 1e-14)
report("numpy backward d/dw against eagerad ops", gw, rw, 1e-14)

# Learn a filter back from input/output pairs with plain gradient descent.
true_w = np.array([0.5, -1.0, 2.0])
signal = torch.tensor(rng.normal(size=64))
target = torch.tensor(np.correlate(signal.numpy(), true_w, mode="valid"))
w = torch.zeros(3, dtype=torch.float64, requires_grad=True)
for step in range(200):
    loss = ((Correlate1d.apply(signal, w) - target) ** 2).mean()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
        w.grad = None
print("loss", loss.item())
report("learnt filter", w.detach(), true_w, 1e-6)
