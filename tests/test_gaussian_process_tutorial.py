"""tutorials/gaussian_process.py on a tiny problem: eagerad's gradient of the exact
log marginal likelihood (cholesky, solve_triangular, logdet) equals the closed form
1/2 tr((alpha alpha^T - K^-1) dK/dtheta), and a few Adam steps increase it."""
import importlib.util
import os

import numpy as np

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tutorials",
                    "gaussian_process.py")


def _tutorial():
    spec = importlib.util.spec_from_file_location("gaussian_process_tutorial", PATH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gradient_matches_the_closed_form_and_fitting_improves_the_likelihood():
    gp = _tutorial()
    x, y = gp.make_data(8, seed=3)
    for theta in ([0.0, 0.0, -0.7], [-0.5, 0.4, -2.0], [0.8, -0.3, -1.0]):
        assert gp.gradient_gap(np.array(theta), x, y) < 1e-9
    start = gp.fit(n=8, steps=1, verbose=False)
    result = gp.fit(n=8, steps=20, verbose=False)
    assert result["gap_start"] < 1e-9 and result["gap_end"] < 1e-9
    assert result["lml"] > start["lml"]
