"""Leaf and non-leaf tensors, PyTorch style: which ones keep ``.grad`` and how to ask for more.

A leaf is a tensor the user created; ``backward`` stores gradients only in leaves that
require grad.  An intermediate (non-leaf) result keeps its gradient only after
``retain_grad()``; a hook (``register_hook``) sees, and may replace, the gradient that flows
through it.  The numbers are checked against the chain rule for ``loss = sum((w*x)^2)``.
Run: ``python tutorials/torch_leaf_nonleaf.py``.
"""
import numpy as np

import eagerad.torch as torch
from checks import report

x = torch.tensor([1.0, -2.0, 0.5], dtype=torch.float64)         # data: a leaf without grad
w = torch.tensor([0.3, 0.7, -1.1], dtype=torch.float64, requires_grad=True)
h = w * x               # non-leaf: made by an op
h.retain_grad()         # keep its gradient too
seen = []
h.register_hook(lambda g: seen.append(g.numpy().copy()))  # observe without changing
loss = (h ** 2).sum()
print("is_leaf  x:", x.is_leaf, " w:", w.is_leaf, " h:", h.is_leaf, " loss:", loss.is_leaf)
print("requires_grad  x:", x.requires_grad, " w:", w.requires_grad, " h:", h.requires_grad)
loss.backward()

hn = (w.detach() * x).numpy()
report("h.grad (retained) is 2 h", h.grad, 2 * hn, 1e-14)
report("the hook saw the same gradient", seen[0], 2 * hn, 1e-14)
report("w.grad is 2 h x", w.grad, 2 * hn * x.numpy(), 1e-14)
print("x.grad stays", x.grad, "(x does not require grad)")

# A hook that returns a tensor replaces the gradient flowing on: here it is halved.
w.grad = None
h2 = w * x
h2.register_hook(lambda g: g * 0.5)
(h2 ** 2).sum().backward()
report("a hook that halves the gradient halves w.grad", w.grad, hn * x.numpy(), 1e-14)

# detach() makes a new leaf that shares the values but not the history.
d = h2.detach()
print("detached: is_leaf", d.is_leaf, "requires_grad", d.requires_grad)
report("detached values equal the original", d, h2.detach().numpy(), 0)
