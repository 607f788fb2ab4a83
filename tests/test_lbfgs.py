"""LBFGS: minimises Rosenbrock and an ill-conditioned quadratic, with and without the
strong-Wolfe line search; closure protocol and errors; the line search meets its conditions."""
import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.nn.lbfgs import strong_wolfe


def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


@pytest.mark.parametrize("line_search", [None, "strong_wolfe"])
def test_rosenbrock_reaches_the_minimum(line_search):
    x = eagerad.Parameter(eagerad.tensor([-1.5, 2.0], dtype=eagerad.float64))
    opt = nn.LBFGS([x], lr=1.0 if line_search else 0.1, max_iter=200 if line_search else 2000,
                   max_eval=4000, history_size=10, line_search_fn=line_search,
                   tolerance_grad=1e-10, tolerance_change=1e-14)

    def closure():
        opt.zero_grad()
        loss = rosenbrock(x)
        loss.backward()
        return loss
    for _ in range(5):
        opt.step(closure)
    np.testing.assert_allclose(x.numpy(), [1.0, 1.0], atol=1e-5)


def test_quadratic_with_line_search_converges_in_few_evaluations():
    rng = np.random.default_rng(0)
    q, _ = np.linalg.qr(rng.normal(size=(6, 6)))
    a = q @ np.diag(np.logspace(0, 3, 6)) @ q.T          # condition number 1000
    b = rng.normal(size=6)
    x = eagerad.Parameter(eagerad.zeros(6, dtype=eagerad.float64))
    opt = nn.LBFGS([x], line_search_fn="strong_wolfe", max_iter=100, tolerance_grad=1e-12,
                   tolerance_change=1e-16)
    A, B = eagerad.tensor(a), eagerad.tensor(b)

    def closure():
        opt.zero_grad()
        loss = 0.5 * (x @ (A @ x)) - (B * x).sum()
        loss.backward()
        return loss
    first = opt.step(closure)
    assert first.item() == 0.0
    np.testing.assert_allclose(x.numpy(), np.linalg.solve(a, b), rtol=1e-7)
    assert opt.state[x]["func_evals"] < 60      # PyTorch keeps it with the first parameter


def test_several_parameters_and_step_returns_first_loss():
    a = eagerad.Parameter(eagerad.tensor([[3.0, 1.0]], dtype=eagerad.float64))
    b = eagerad.Parameter(eagerad.tensor([-2.0], dtype=eagerad.float64))
    opt = nn.LBFGS([a, b], line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = ((a - 1.0) ** 2).sum() + ((b + 4.0) ** 2).sum()
        loss.backward()
        return loss
    assert opt.step(closure).item() == pytest.approx(4 + 0 + 4)
    np.testing.assert_allclose(a.numpy(), [[1.0, 1.0]], atol=1e-7)
    np.testing.assert_allclose(b.numpy(), [-4.0], atol=1e-7)


def test_strong_wolfe_result_meets_both_conditions():
    def f(t):                   # phi(x) = cos(3x) + x^2 along d = 1 from x = 0.3
        x = 0.3 + t
        return np.cos(3 * x) + x * x, np.array([-3 * np.sin(3 * x) + 2 * x])
    f0, g0 = f(0.0)
    slope = float(g0[0])
    assert slope < 0
    loss, g, t, _ = strong_wolfe(f, 1.0, np.array([1.0]), f0, g0, slope)
    assert loss <= f0 + 1e-4 * t * slope
    assert abs(g[0]) <= 0.9 * abs(slope)


def test_errors():
    w = eagerad.Parameter(eagerad.zeros(1))
    with pytest.raises(ValueError, match="line_search_fn"):
        nn.LBFGS([w], line_search_fn="armijo")
    with pytest.raises(TypeError, match="closure"):
        nn.LBFGS([w]).step()
    with pytest.raises(ValueError, match="parameter groups"):
        nn.LBFGS([{"params": [w]}, {"params": [eagerad.Parameter(eagerad.zeros(1))]}])
