"""A physics-informed neural network (PINN) for a 1-D boundary value problem.

Solve u''(x) = -pi^2 sin(pi x) on [0, 1] with u(0) = u(1) = 0 (exact solution
u = sin(pi x)).  A small tanh MLP ``net`` is trained so that the residual
u'' + pi^2 sin(pi x) vanishes at collocation points.  u'' is the second
derivative of the network with respect to its *input*, taken with
``autograd.grad(..., create_graph=True)`` twice, and the loss is then
differentiated once more with respect to the weights (third-order graph).
The boundary conditions are built in: u(x) = x (1 - x) net(x).
Adam is written inline on plain tensors.

Run: python tutorials/pinn_1d.py   (prints the max error against sin(pi x))
"""
import math
import time

import numpy as np

import eagerad.torch as torch
from eagerad.torch import autograd

F64 = torch.float64
SIZES = (1, 24, 24, 1)


def init_params(rng):
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        w = rng.normal(0.0, math.sqrt(1.0 / fan_in), (fan_in, fan_out))
        params += [torch.tensor(w, dtype=F64, requires_grad=True),
                   torch.tensor(np.zeros(fan_out), dtype=F64, requires_grad=True)]
    return params


def u(params, x):
    h = x
    for k in range(0, len(params) - 2, 2):
        h = (h @ params[k] + params[k + 1]).tanh()
    return x * (1 - x) * (h @ params[-2] + params[-1])


def residual_loss(params, x, forcing):
    x = x.detach().requires_grad_()
    out = u(params, x)
    (du,) = autograd.grad(out.sum(), x, create_graph=True)
    (d2u,) = autograd.grad(du.sum(), x, create_graph=True)
    return ((d2u - forcing) ** 2).mean()


def adam(params, steps, loss_fn, lr=1e-2, betas=(0.9, 0.999), eps=1e-8):
    """Minimise ``loss_fn(params)``; the step size drops 10x for the last 30% of steps."""
    m = [torch.zeros_like(p) for p in params]
    v = [torch.zeros_like(p) for p in params]
    for step in range(1, steps + 1):
        loss = loss_fn(params)
        grads = autograd.grad(loss, params)
        rate = lr * (0.1 if step > 0.7 * steps else 1.0)
        with torch.no_grad():
            for i, (p, g) in enumerate(zip(params, grads)):
                m[i] = betas[0] * m[i] + (1 - betas[0]) * g
                v[i] = betas[1] * v[i] + (1 - betas[1]) * g * g
                m_hat = m[i] / (1 - betas[0] ** step)
                v_hat = v[i] / (1 - betas[1] ** step)
                params[i] = (p - rate * m_hat / (v_hat.sqrt() + eps)).requires_grad_()
        if step % 200 == 0 or step == 1:
            print(f"step {step:5d}  residual loss {loss.item():.3e}")
    return params


def main():
    start = time.perf_counter()
    rng = np.random.default_rng(0)
    x = torch.tensor(np.linspace(0.0, 1.0, 64).reshape(-1, 1), dtype=F64)
    forcing = -math.pi ** 2 * (math.pi * x).sin()
    params = adam(init_params(rng), 1000, lambda ps: residual_loss(ps, x, forcing))
    test = np.linspace(0.0, 1.0, 201).reshape(-1, 1)
    with torch.no_grad():
        pred = u(params, torch.tensor(test, dtype=F64)).numpy()
    error = np.abs(pred - np.sin(np.pi * test)).max()
    print(f"max |u - sin(pi x)| on 201 points: {error:.2e}  ({time.perf_counter() - start:.1f} s)")
    assert error < 1e-2


if __name__ == "__main__":
    main()
