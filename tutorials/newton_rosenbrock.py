"""Newton's method on the Rosenbrock function with ``eagerad.hessian``.

f(x, y) = (1 - x)^2 + 100 (y - x^2)^2 has its minimum at (1, 1).  Each Newton
step solves H(p) d = -grad f(p); the gradient comes from ``jacrev`` and the
Hessian from ``hessian`` (forward-over-reverse), both on the same plain
Python function.  Convergence is quadratic near the minimum.

Run: python tutorials/newton_rosenbrock.py
"""
import numpy as np

import eagerad


def rosenbrock(p):
    x, y = p[0], p[1]
    return (1 - x) ** 2 + 100 * (y - x ** 2) ** 2


def main():
    gradient = eagerad.jacrev(rosenbrock)
    curvature = eagerad.hessian(rosenbrock)
    p = eagerad.tensor([-1.2, 1.0], dtype=eagerad.float64)
    for step in range(50):
        g = gradient(p).numpy()
        h = curvature(p).numpy()
        print(f"step {step:2d}  x = {p[0].item(): .12f}  y = {p[1].item(): .12f}  "
              f"f = {rosenbrock(p).item():.3e}  |grad| = {np.linalg.norm(g):.3e}")
        if np.abs(p.numpy() - 1.0).max() < 1e-10 and np.linalg.norm(g) < 1e-10:
            break
        p = p - eagerad.tensor(np.linalg.solve(h, g), dtype=eagerad.float64)
    error = np.abs(p.numpy() - 1.0).max()
    print(f"converged to ({p[0].item():.12f}, {p[1].item():.12f}); max error {error:.1e}")
    assert error < 1e-8


if __name__ == "__main__":
    main()
