"""tutorials/physics_newton.py: the Hessian of the chain energy (norm, cumsum, erf terms)
equals central differences of its gradient, and Newton's method drives the gradient to
round-off with quadratic convergence at the end, at a positive definite minimum."""
import os
import runpy
import types

import numpy as np

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tutorials",
                    "physics_newton.py")


def test_hessian_matches_finite_differences_and_newton_converges():
    phys = types.SimpleNamespace(**runpy.run_path(PATH))     # without running main()
    x0 = phys.start()
    # a point where the contact term is active: the chain pushed below the floor
    below = phys.eagerad.tensor(x0.numpy() + np.tile([0.0, -0.6], phys.N))
    assert phys.hessian_gap(x0) < 1e-6 and phys.hessian_gap(below) < 1e-6
    x, norms = phys.newton(x0, verbose=False)
    assert norms[-1] < 1e-8 and norms[0] > 100
    assert norms[-3] < 1e-1 and norms[-2] < 10 * norms[-3] ** 2    # quadratic at the end
    H = phys.curvature(x).numpy()
    assert np.linalg.eigvalsh(H).min() > 0
    p = np.cumsum(x.numpy().reshape(phys.N, 2), axis=0)
    assert p[:, 1].min() > phys.FLOOR - 0.01 and abs(p[-1] - phys.ANCHOR).max() < 0.1
