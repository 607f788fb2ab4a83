"""Fit a cubic to sin(x) four ways, PyTorch style: raw autograd, a custom Function, a Module, an optimizer.

The same model ``y = a + b t + c t^2 + d t^3`` (``t = x / pi`` on ``[-pi, pi]``) is trained
by gradient descent on the mean squared error, written four ways:

1. tensors with ``requires_grad`` and a hand-written update under ``no_grad``;
2. the cubic term computed by a custom ``autograd.Function`` (forward ``t^3``, backward ``3 t^2``);
3. ``nn.Sequential(nn.Linear(3, 1), nn.Flatten(0, 1))`` on the features ``t, t^2, t^3``;
4. the same module trained by ``optim.SGD`` with momentum.

Each way checks its first gradient against the closed form ``2 A^T (A p - y) / n`` and
its fitted coefficients against the least-squares solution (numpy ``lstsq``).
Run: ``python tutorials/torch_polynomial_four_ways.py``.
"""
import numpy as np

import eagerad.torch as torch
from eagerad.torch import nn
from checks import report

x = torch.linspace(-np.pi, np.pi, 200, dtype=torch.float64)
t = x / np.pi
y = torch.sin(x)
A = np.stack([np.ones(200), t.numpy(), t.numpy() ** 2, t.numpy() ** 3], axis=1)
best = np.linalg.lstsq(A, y.numpy(), rcond=None)[0]
print("least-squares coefficients a, b, c, d:", np.round(best, 6))
STEPS, LR = 600, 0.8


def closed_gradient(p):
    """d/dp mean((A p - y)^2)."""
    return 2 * A.T @ (A @ np.asarray(p) - y.numpy()) / A.shape[0]


# 1. raw autograd ---------------------------------------------------------------------------
torch.manual_seed(1)
coef = [torch.randn(1, dtype=torch.float64, requires_grad=True) for _ in range(4)]
for step in range(STEPS):
    a, b, c, d = coef
    loss = ((a + b * t + c * t ** 2 + d * t ** 3 - y) ** 2).mean()
    loss.backward()
    if step == 0:
        start = [float(p) for p in coef]
        report("1. first gradient, raw autograd", [p.grad.item() for p in coef],
               closed_gradient(start), 1e-12)
    with torch.no_grad():
        for p in coef:
            p -= LR * p.grad
            p.grad = None
print("1. loss", loss.item())
report("1. raw autograd reaches least squares", [p.item() for p in coef], best, 1e-5)


# 2. custom Function -------------------------------------------------------------------------
class Cube(torch.autograd.Function):
    """t^3 with its derivative written by hand."""

    @staticmethod
    def forward(ctx, v):
        ctx.save_for_backward(v)
        return v ** 3

    @staticmethod
    def backward(ctx, grad):
        (v,) = ctx.saved_tensors
        return grad * 3 * v ** 2


probe = torch.tensor([0.3, -1.2], dtype=torch.float64, requires_grad=True)
print("2. gradcheck of Cube:", torch.autograd.gradcheck(Cube.apply, (probe,)))
coef = [torch.zeros(1, dtype=torch.float64, requires_grad=True) for _ in range(4)]
for step in range(STEPS):
    a, b, c, d = coef
    loss = ((a + b * t + c * t ** 2 + d * Cube.apply(t) - y) ** 2).mean()
    loss.backward()
    if step == 0:
        report("2. first gradient, custom Function", [p.grad.item() for p in coef],
               closed_gradient([0, 0, 0, 0]), 1e-12)
    with torch.no_grad():
        for p in coef:
            p -= LR * p.grad
            p.grad = None
report("2. custom Function reaches least squares", [p.item() for p in coef], best, 1e-5)

# 3. nn.Module, updated by hand --------------------------------------------------------------
features = t.unsqueeze(-1) ** torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)


def make_model():
    torch.manual_seed(2)
    return nn.Sequential(nn.Linear(3, 1, dtype=torch.float64), nn.Flatten(0, 1))


def coefficients(model):
    lin = model[0]
    return [lin.bias.item()] + lin.weight.numpy().ravel().tolist()


model = make_model()
loss_fn = nn.MSELoss()
for step in range(STEPS):
    loss = loss_fn(model(features), y)
    model.zero_grad()
    loss.backward()
    if step == 0:
        lin = model[0]
        report("3. first gradient, nn.Module", [lin.bias.grad.item()] + lin.weight.grad.numpy().ravel().tolist(),
               closed_gradient(coefficients(model)), 1e-12)
    with torch.no_grad():
        for p in model.parameters():
            p -= LR * p.grad
report("3. nn.Module reaches least squares", coefficients(model), best, 1e-5)

# 4. nn.Module and an optimizer ------------------------------------------------------------
model = make_model()
opt = torch.optim.SGD(model.parameters(), lr=0.3, momentum=0.9)
for step in range(STEPS // 2):
    loss = loss_fn(model(features), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
print("4. loss", loss.item())
report("4. SGD with momentum reaches least squares", coefficients(model), best, 1e-5)
