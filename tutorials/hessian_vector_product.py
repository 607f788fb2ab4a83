"""Beyond the seeds: a Hessian-vector product without forming the Hessian.

H v = d/dx (grad f(x) . v): differentiate the scalar ``sum(grad(f)(x) * v)`` once more.
Costs two backward passes whatever the dimension.  Checked here against the full Hessian
of the Rosenbrock function, written out by hand.

Run from the repository root: ``PYTHONPATH=. python tutorials/hessian_vector_product.py``.
"""
import numpy as np

import eagerad.mindspore as ms


def rosenbrock(x):
    """sum(100 (x[i+1] - x[i]^2)^2 + (1 - x[i])^2)."""
    return (100 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2).sum()


def hvp(f, x, v):
    """Hessian of ``f`` at ``x`` times ``v``."""
    return ms.grad(lambda x: (ms.grad(f)(x) * v).sum())(x)


def rosenbrock_hessian(x):
    n = len(x)
    h = np.zeros((n, n))
    for i in range(n - 1):
        h[i, i] += 1200 * x[i] ** 2 - 400 * x[i + 1] + 2
        h[i + 1, i + 1] += 200
        h[i, i + 1] = h[i + 1, i] = -400 * x[i]
    return h


x0 = np.array([-1.2, 1.0, 0.5, 2.0])
v0 = np.array([1.0, -2.0, 0.5, 3.0])
x = ms.Tensor(x0, dtype=ms.float64)
v = ms.Tensor(v0, dtype=ms.float64)

print("grad f(x)        ", ms.grad(rosenbrock)(x))
print("H v (eagerad)    ", hvp(rosenbrock, x, v))
print("H v (closed form)", rosenbrock_hessian(x0) @ v0)
