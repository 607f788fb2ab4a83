"""Gaussian-process regression: hyperparameters by gradient descent on the exact
log marginal likelihood.

Noisy samples of f(x) = sin(2x) + 0.3 cos(5x) are modelled with a squared-exponential
kernel k(x, x') = s^2 exp(-(x - x')^2 / (2 l^2)) plus noise variance n^2 on the
diagonal.  With K the kernel matrix of the data,

    log p(y) = -1/2 y^T K^-1 y - 1/2 log det K - N/2 log(2 pi),

computed with ``linalg.cholesky`` (K = L L^T), two ``linalg.solve_triangular`` calls
(alpha = K^-1 y) and ``torch.logdet``.  eagerad differentiates it with respect to
(log l, log s^2, log n^2) and Adam fits them.  Before and after fitting, the script
checks eagerad's gradient against the closed form (Rasmussen & Williams, eq. 5.9)

    d log p / d theta = 1/2 tr((alpha alpha^T - K^-1) dK/d theta)

and prints the largest difference.  Finally it predicts on a grid with the fitted
hyperparameters (posterior mean K*^T alpha) and prints the error against f.

Run: python tutorials/gaussian_process.py
"""
import math
import time

import numpy as np

import eagerad.torch as torch
from eagerad.torch import linalg

F64 = torch.float64


def truth(x):
    return np.sin(2 * x) + 0.3 * np.cos(5 * x)


def make_data(n, seed=0, noise=0.1):
    """``n`` noisy samples of ``truth`` on [0, 5] (seeded)."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(0.0, 5.0, n))
    return x, truth(x) + noise * rng.standard_normal(n)


def kernel(theta, xa, xb):
    """Squared-exponential kernel matrix; ``theta`` = (log l, log s^2, log n^2)."""
    d2 = (xa.reshape(-1, 1) - xb.reshape(1, -1)) ** 2
    return theta[1].exp() * (-0.5 * d2 / (2 * theta[0]).exp()).exp()


def log_marginal_likelihood(theta, x, y):
    """Exact log p(y | x, theta) and alpha = K^-1 y (for prediction)."""
    n = x.shape[0]
    K = kernel(theta, x, x) + theta[2].exp() * torch.eye(n, dtype=F64)
    L = linalg.cholesky(K)
    alpha = linalg.solve_triangular(L.mT, linalg.solve_triangular(L, y, upper=False), upper=True)
    lml = -0.5 * (y * alpha).sum() - 0.5 * torch.logdet(K) - 0.5 * n * math.log(2 * math.pi)
    return lml, alpha


def closed_form_gradient(theta, x, y):
    """d log p / d theta from 1/2 tr((alpha alpha^T - K^-1) dK/d theta), in numpy."""
    l2, s2, n2 = np.exp(2 * theta[0]), np.exp(theta[1]), np.exp(theta[2])
    d2 = (x[:, None] - x[None, :]) ** 2
    kf = s2 * np.exp(-0.5 * d2 / l2)
    K = kf + n2 * np.eye(len(x))
    K_inv = np.linalg.inv(K)
    alpha = K_inv @ y
    inner = np.outer(alpha, alpha) - K_inv
    dK = (kf * d2 / l2,          # d/d log l
          kf,                    # d/d log s^2
          n2 * np.eye(len(x)))   # d/d log n^2
    return np.array([0.5 * np.sum(inner * d.T) for d in dK])


def gradient_gap(theta, x, y):
    """Largest |eagerad's gradient - closed form| at ``theta`` (a numpy vector)."""
    t = torch.tensor(theta, dtype=F64, requires_grad=True)
    lml, _ = log_marginal_likelihood(t, torch.tensor(x, dtype=F64), torch.tensor(y, dtype=F64))
    lml.backward()
    return float(np.abs(t.grad.numpy() - closed_form_gradient(theta, x, y)).max())


def fit(n=40, steps=150, lr=0.05, seed=0, verbose=True):
    """Fit the hyperparameters by Adam on -log p(y); returns a summary dict."""
    say = print if verbose else (lambda *a, **k: None)
    x_np, y_np = make_data(n, seed)
    x, y = torch.tensor(x_np, dtype=F64), torch.tensor(y_np, dtype=F64)
    theta0 = np.array([0.0, 0.0, math.log(0.5)])
    gap_start = gradient_gap(theta0, x_np, y_np)
    say(f"gradient check at the start: max |eagerad - closed form| = {gap_start:.2e}")
    theta = torch.tensor(theta0, dtype=F64, requires_grad=True)
    opt = torch.optim.Adam([theta], lr=lr)
    for step in range(1, steps + 1):
        opt.zero_grad()
        lml, _ = log_marginal_likelihood(theta, x, y)
        (-lml).backward()
        opt.step()
        if step == 1 or step % 25 == 0 or step == steps:
            l, s2, n2 = np.exp(theta.detach().numpy()) ** (0.5, 1, 1)
            say(f"step {step:4d}  log p(y) {lml.item():9.3f}  lengthscale {l:.3f}  "
                f"signal var {s2:.3f}  noise sd {math.sqrt(n2):.3f}")
    theta_np = theta.detach().numpy()
    gap_end = gradient_gap(theta_np, x_np, y_np)
    say(f"gradient check at the end:   max |eagerad - closed form| = {gap_end:.2e}")
    with torch.no_grad():
        lml, alpha = log_marginal_likelihood(theta, x, y)
        grid = torch.tensor(np.linspace(0.0, 5.0, 101), dtype=F64)
        mean = (kernel(theta, grid, x) @ alpha).numpy()
    rmse = float(np.sqrt(np.mean((mean - truth(grid.numpy())) ** 2)))
    say(f"posterior mean vs f on 101 grid points: RMSE {rmse:.3f}")
    return {"theta": theta_np, "lml": lml.item(), "gap_start": gap_start, "gap_end": gap_end,
            "rmse": rmse}


def main():
    start = time.perf_counter()
    result = fit()
    l, s2, n2 = np.exp(result["theta"]) ** (0.5, 1, 1)
    print(f"fitted: lengthscale {l:.3f}, signal variance {s2:.3f}, noise sd {math.sqrt(n2):.3f} "
          f"(data noise sd 0.1)  ({time.perf_counter() - start:.1f} s)")
    assert max(result["gap_start"], result["gap_end"]) < 1e-8
    assert result["rmse"] < 0.1


if __name__ == "__main__":
    main()
