"""A network whose graph changes at every call, PyTorch style: Python control flow is the model.

``forward`` draws how many extra powers (4th, 5th, ...) to add, all sharing one weight
``e``, so each call records a different graph and the same parameter is used several
times in it.  Backward adds up every use.  The gradient of ``e`` is checked against the
closed form ``2/n sum_i (y_i - target_i) sum_k t_i^k`` for the powers drawn, then the
model is trained a little with SGD and momentum.  Run: ``python tutorials/torch_dynamic_net.py``.
"""
import random

import numpy as np

import eagerad.torch as torch
from eagerad.torch import nn
from checks import report


class DynamicCubic(nn.Module):
    """``a + b t + c t^2 + d t^3 + e (t^4 + ... + t^K)`` with K drawn at every call."""

    def __init__(self):
        super().__init__()
        self.abcd = nn.Linear(3, 1)
        self.e = nn.Parameter(torch.zeros(1))

    def forward(self, t):
        self.powers = list(range(4, random.randint(4, 6) + 1))   # 4..K, K in {4, 5, 6}
        y = self.abcd(torch.stack([t, t ** 2, t ** 3], axis=1)).flatten()
        for k in self.powers:           # the same weight e in every branch
            y = y + self.e * t ** k
        return y


random.seed(0)
torch.manual_seed(0)
t = torch.linspace(-1, 1, 100)
target = torch.sin(np.pi * t)
model = DynamicCubic()
for trial in range(3):
    model.zero_grad()
    y = model(t)
    ((y - target) ** 2).mean().backward()
    tn, r = t.numpy().astype(np.float64), (y - target).detach().numpy().astype(np.float64)
    want = 2 * np.mean(r * sum(tn ** k for k in model.powers))
    report(f"d loss / d e with powers {model.powers}", model.e.grad, [want], 1e-5)

opt = torch.optim.SGD(model.parameters(), lr=0.2, momentum=0.9)
first = None
for step in range(300):
    loss = ((model(t) - target) ** 2).mean()
    first = loss.item() if first is None else first
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"loss went from {first:.4f} to {loss.item():.4f}")
if not loss.item() < first / 4:
    raise SystemExit("training did not reduce the loss")
