"""A hanging chain resting on a floor, found by Newton's method on its energy.

N segments hang from an anchor at the origin; the free end is tied to a second anchor by
a stiff spring, and a floor below pushes back where the chain would pass through it.
The unknowns are the segment vectors ``d`` (N x 2), so the particle positions are their
running sum, ``p = cumsum(d)``.  The energy has three terms:

- springs:  k/2 * sum (|d_i| - L)^2          (``norm`` of the differences)
- gravity:  m g * sum y_i over p = cumsum(d)  (``cumsum``)
- contact:  c/2 * sum s^2 (1 + erf(s / eps)) / 2 with s = floor - y, a penetration
  penalty switched on smoothly by ``erf``

``eagerad.grad`` gives the gradient and ``eagerad.hessian`` the Hessian of the same Python
function; each Newton step solves ``H dx = g`` with ``eagerad.linalg.solve`` (damped by a
backtracking line search, with a Levenberg shift while H is not positive definite far
from the minimum).  The script checks the Hessian against central finite differences of
the gradient, prints the gradient norm falling quadratically to round-off, and checks
that the Hessian is positive definite there (``linalg.eigvalsh``).

Run: python tutorials/physics_newton.py
"""
import numpy as np

import eagerad
from eagerad import linalg, ops

N, L = 12, 1.0                      # segments and their rest length
K, M_G = 400.0, 1.0                 # spring stiffness, weight of each particle
ANCHOR = np.array([9.0, 0.0])       # where the last particle is tied
K_END = 1000.0                      # stiffness of that tie
FLOOR, C, EPS = -3.0, 2000.0, 0.05  # floor height, contact stiffness, smoothing width


def energy(x):
    """Total energy of the chain whose segment vectors are ``x`` flattened (2N,)."""
    d = x.reshape(N, 2)
    springs = 0.5 * K * ((ops.norm(d, axis=1) - L) ** 2).sum()
    p = ops.cumsum(d, axis=0)
    gravity = M_G * p[:, 1].sum()
    s = FLOOR - p[:, 1]
    contact = 0.5 * C * (s ** 2 * (1 + ops.erf(s / EPS)) / 2).sum()
    tie = 0.5 * K_END * ((p[-1] - eagerad.tensor(ANCHOR)) ** 2).sum()
    return springs + gravity + contact + tie


gradient = eagerad.grad(energy)
curvature = eagerad.hessian(energy)


def start():
    """A straight chain from the anchor at the origin to the tie point (float64)."""
    return eagerad.tensor(np.tile(ANCHOR / N, N), dtype=eagerad.float64)


def hessian_gap(x, h=1e-6):
    """Largest difference between ``hessian`` and central differences of ``grad`` at x,
    relative to the Hessian's largest entry."""
    H = curvature(x).numpy()
    base = x.numpy()
    columns = []
    for j in range(base.size):
        e = np.zeros_like(base)
        e[j] = h
        plus = gradient(eagerad.tensor(base + e)).numpy()
        minus = gradient(eagerad.tensor(base - e)).numpy()
        columns.append((plus - minus) / (2 * h))
    return np.abs(H - np.stack(columns, axis=1)).max() / np.abs(H).max()


def newton(x, steps=60, tol=1e-8, verbose=True):
    """Damped Newton iterations from ``x``; returns the minimiser and the history of
    gradient norms."""
    norms = []
    for step in range(steps):
        g = gradient(x)
        gnorm = float(np.linalg.norm(g.numpy()))
        norms.append(gnorm)
        e = energy(x).item()
        if verbose:
            print(f"step {step:2d}  energy {e: .10f}  |grad| {gnorm:.3e}")
        if gnorm < tol:
            break
        H = curvature(x)
        shift = 0.0
        while True:     # Levenberg shift until the step goes downhill
            A = H + shift * eagerad.tensor(np.eye(2 * N))
            dx = linalg.solve(A, g.reshape(2 * N, 1)).reshape(2 * N)
            if float((dx * g).sum().item()) > 0:
                break
            shift = max(10 * shift, 1e-3 * float(np.abs(H.numpy()).max()))
        t = 1.0
        while energy(x - t * dx).item() > e and t > 1e-8:    # backtracking
            t /= 2
        x = x - t * dx
    return x, norms


def main():
    x = start()
    gap = hessian_gap(x)
    print(f"Hessian vs finite differences of the gradient at the start: {gap:.1e}")
    x, norms = newton(x)
    gap_end = hessian_gap(x)
    lowest = linalg.eigvalsh(curvature(x)).min().item()
    print(f"Hessian vs finite differences at the minimum: {gap_end:.1e}; "
          f"its smallest eigenvalue {lowest:.3f} > 0, so a minimum")
    p = np.cumsum(x.numpy().reshape(N, 2), axis=0)
    print(f"lowest particle y = {p[:, 1].min():.4f} (floor at {FLOOR}); "
          f"on the floor: {int((p[:, 1] < FLOOR + 0.05).sum())} particles")
    assert gap < 1e-6 and gap_end < 1e-6 and norms[-1] < 1e-8 and lowest > 0
    return x, norms


if __name__ == "__main__":
    main()
