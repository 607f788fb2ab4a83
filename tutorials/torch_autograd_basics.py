"""Autograd basics, PyTorch style: a one-layer logistic model, its gradients, and the switches.

Builds ``loss = BCE(sigmoid(x @ w + b), y)``, calls ``loss.backward()`` and compares
``w.grad`` and ``b.grad`` with the closed form ``(sigmoid(z) - y) / n``.  Then shows what
the graph records (``grad_fn``), how to stop recording (``no_grad``, ``detach``), that
gradients accumulate over backward calls, and ``backward(gradient=v)`` on a vector output
(a vector-Jacobian product).  Run: ``python tutorials/torch_autograd_basics.py``.
"""
import numpy as np

import eagerad.torch as torch
from eagerad.torch.nn import functional as F
from checks import report

torch.manual_seed(0)
x = torch.ones(5, dtype=torch.float64)                 # input features
y = torch.tensor([0.0, 1.0, 0.0], dtype=torch.float64)  # targets of three outputs
w = torch.randn(5, 3, dtype=torch.float64, requires_grad=True)
b = torch.randn(3, dtype=torch.float64, requires_grad=True)
z = x @ w + b
loss = F.binary_cross_entropy_with_logits(z, y)
print("loss:", loss.item())
print("z was made by", z.grad_fn.name, "and the loss by", loss.grad_fn.name)

loss.backward()
dz = (1 / (1 + np.exp(-z.detach().numpy())) - y.numpy()) / 3   # d loss / d z, mean over 3
report("w.grad against outer(x, dL/dz)", w.grad, np.outer(x.numpy(), dz), 1e-12)
report("b.grad against dL/dz", b.grad, dz, 1e-12)

# Recording stops inside no_grad, and detach() gives a tensor outside the graph.
with torch.no_grad():
    z2 = x @ w + b
print("inside no_grad requires_grad:", z2.requires_grad, "| detached:", z.detach().requires_grad)

# Gradients accumulate: a second backward (graph kept with retain_graph) doubles w.grad.
w.grad = None
out = (x @ w).sum()
out.backward(retain_graph=True)
once = w.grad.numpy().copy()
out.backward()
report("two backward calls add up", w.grad, 2 * once, 1e-12)
report("d sum(x @ w) / dw is x in every column", once, np.repeat(x.numpy()[:, None], 3, 1), 0)

# A vector output needs a vector v: backward(v) gives v^T J, here J = diag(2 (a + 1)).
a = torch.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=torch.float64, requires_grad=True)
sq = (a + 1) ** 2
v = torch.tensor([[1.0, 0.5], [-2.0, 3.0]], dtype=torch.float64)
sq.backward(v)
report("backward(v) of (a + 1)^2 is 2 (a + 1) v", a.grad, 2 * (a.detach().numpy() + 1) * v.numpy(),
       1e-12)
