"""The one-op derivative rules of sin, cos, square and ``x ** c`` (``sin_derivative``,
``pow_derivative`` in ops/math.py) and the vectorised float32 exp kernel.

- every order of derivative (first to third) against closed forms, finite differences
  (gradcheck/gradgradcheck in float64) and PyTorch, on small arrays (numpy's loops) and
  on large float64 ones (the one-pass Numba kernels at every order);
- the derivative graphs stay small: one node per rule;
- ``exp`` of float32 within one ulp of the correctly rounded value over its whole range.
"""
import numpy as np
import pytest

import eagerad
from eagerad import autograd
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.backend import cpu

torch = pytest.importorskip("torch")

BIG = cpu.BIG + 5            # above the threshold of the one-pass kernels, odd length

FUNCTIONS = {   # name -> (f for eagerad and torch alike, input range)
    "sin_x2": (lambda m, x: m.sin(x) * x ** 2, (-3.0, 3.0)),
    "cos_cubed": (lambda m, x: m.cos(x) ** 3, (-3.0, 3.0)),
    "square_sin": (lambda m, x: m.square(m.sin(x)), (-3.0, 3.0)),
    "pow_2_5": (lambda m, x: x ** 2.5 * m.cos(x), (0.5, 2.0)),
    "reciprocal_pow": (lambda m, x: x ** -1.0 + x ** 3, (0.5, 2.0)),
    "sin_of_cos": (lambda m, x: m.sin(m.cos(x) * 2.0), (-3.0, 3.0)),
}


def _derivatives(lib, grad, f, x, order):
    """Derivatives 1..order of ``sum(f(x))``, each the gradient of the previous one's sum."""
    out, y = [], f(x).sum()
    for k in range(order):
        (y,) = grad(y, x, create_graph=k + 1 < order)
        out.append(y.detach().numpy())
        y = y.sum()
    return out


def _both(name, n, order=3, seed=0):
    f, (lo, hi) = FUNCTIONS[name]
    x_np = np.random.default_rng(seed).uniform(lo, hi, n)
    ea = _derivatives(eagerad, autograd.grad, lambda x: f(eagerad, x),
                      eagerad.tensor(x_np, requires_grad=True), order)
    pt = _derivatives(torch, torch.autograd.grad, lambda x: f(torch, x),
                      torch.tensor(x_np, requires_grad=True), order)
    return ea, pt


@pytest.mark.parametrize("name, n", [(name, 7) for name in sorted(FUNCTIONS)] +
                         [(name, BIG) for name in ("sin_x2", "cos_cubed", "sin_of_cos")])
def test_first_to_third_derivatives_match_pytorch(name, n):
    ea, pt = _both(name, n)
    for k, (a, b) in enumerate(zip(ea, pt)):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=f"order {k + 1}")


def test_closed_forms_of_sin_x2_to_third_order():
    x_np = np.random.default_rng(1).uniform(-3, 3, BIG)
    x = eagerad.tensor(x_np, requires_grad=True)
    d1, d2, d3 = _derivatives(eagerad, autograd.grad, lambda v: v.sin() * v ** 2, x, 3)
    s, c = np.sin(x_np), np.cos(x_np)
    np.testing.assert_allclose(d1, c * x_np ** 2 + 2 * x_np * s, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(d2, -s * x_np ** 2 + 4 * x_np * c + 2 * s, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(d3, -c * x_np ** 2 - 6 * x_np * s + 6 * c, rtol=1e-13, atol=1e-12)


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_gradcheck_and_gradgradcheck(name):
    f, (lo, hi) = FUNCTIONS[name]
    x = eagerad.tensor(np.random.default_rng(2).uniform(lo, hi, (2, 3)), requires_grad=True)
    assert gradcheck(lambda v: f(eagerad, v), (x,))
    assert gradgradcheck(lambda v: f(eagerad, v), (x,))
    # third order: gradgradcheck of the first derivative
    assert gradgradcheck(lambda v: autograd.grad(f(eagerad, v).sum(), v, create_graph=True)[0],
                         (x,))


@pytest.mark.parametrize("op, args", [
    ("sin_derivative", lambda g, x: (g, x, 3)),
    ("pow_derivative", lambda g, x: (g, x, 2.5, 1.5)),
    ("pow_derivative", lambda g, x: (g, x, 6, 2)),
    ("pow_derivative", lambda g, x: (g, x, 2, 0)),
])
def test_derivative_ops_check_in_both_operands(op, args):
    from eagerad.ops import OPS
    rng = np.random.default_rng(3)
    g = eagerad.tensor(rng.uniform(-1, 1, (2, 3)), requires_grad=True)
    x = eagerad.tensor(rng.uniform(0.5, 2.0, (3,)), requires_grad=True)
    fn = lambda a, b: OPS[op](*args(a, b))     # noqa: E731
    assert gradcheck(fn, (g, x), check_forward_ad=True)
    assert gradgradcheck(fn, (g, x))


def test_one_node_per_rule():
    """The first derivative of sin(x) * x**2 records the product's two rules, one node for
    sin's rule, one for the power's and their sum: not the composed formulas' cos, neg
    and products."""
    x = eagerad.tensor(np.linspace(-1, 1, 5), requires_grad=True)
    (d1,) = autograd.grad((x.sin() * x ** 2).sum(), x, create_graph=True)
    names = []
    seen, stack = set(), [d1.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen or not hasattr(node, "op"):
            continue
        seen.add(id(node))
        if node.op is not None:
            names.append(node.op.name)
        stack.extend(e[0] for e in node.next if e is not None)
    assert names.count("sin_derivative") == 1 and names.count("pow_derivative") == 1
    assert "cos" not in names and "neg" not in names


def test_fast_rules_equal_the_recorded_ones_at_second_order():
    """Second derivative on large arrays: the unrecorded array rules (one-pass kernels,
    a broadcast seed used as is) give the recorded rules' bits."""
    x_np = np.random.default_rng(4).uniform(-3, 3, BIG)
    results = []
    for create in (False, True):
        x = eagerad.tensor(x_np, requires_grad=True)
        (d1,) = autograd.grad((x.sin() * x ** 3).sum(), x, create_graph=True)
        (d2,) = autograd.grad(d1.sum(), x, create_graph=create)
        results.append(d2.detach().numpy())
    np.testing.assert_array_equal(results[0], results[1])


def test_forward_mode_through_the_rules():
    import eagerad.autograd.forward_ad as fwAD
    x_np = np.random.default_rng(5).uniform(0.5, 2.0, 6)
    with fwAD.dual_level():
        x = fwAD.make_dual(eagerad.tensor(x_np), eagerad.ones(6, dtype=eagerad.float64))
        x.requires_grad_(True)
        (d1,) = autograd.grad((x.sin() * x ** 2.5).sum(), x, create_graph=True)
        tangent = fwAD.unpack_dual(d1).tangent.numpy()
    s, c = np.sin(x_np), np.cos(x_np)
    second = -s * x_np ** 2.5 + 5 * x_np ** 1.5 * c + 3.75 * x_np ** 0.5 * s
    np.testing.assert_allclose(tangent, second, rtol=1e-12)


# ------------------------------------------------------------------ float32 exp kernel


def _ulps(a, b):
    return np.abs(a.view(np.int32).astype(np.int64) - b.view(np.int32).astype(np.int64))


def test_float32_exp_within_an_ulp_over_its_range():
    from eagerad.backend.cpu import kernels
    x = np.linspace(-104.0, 89.0, 3_000_001).astype(np.float32)
    with np.errstate(over="ignore"):
        exact = np.exp(x.astype(np.float64)).astype(np.float32)   # (ties are measure zero)
    got = kernels.exp_f32(x)
    assert _ulps(got, exact).max() <= 1
    # subnormal results, overflow, infinities, NaN and signed zero
    special = np.float32([-87.5, -100.0, -103.9, -104.5, -1e30, -np.inf, 88.72, 88.73, 1e30,
                          np.inf, 0.0, -0.0, 1e-30, np.nan])
    with np.errstate(over="ignore"):
        want = np.exp(special.astype(np.float64)).astype(np.float32)
    out = kernels.exp_f32(special)
    finite = ~np.isnan(want)
    assert _ulps(out[finite], want[finite]).max() <= 1
    assert np.isnan(out[-1])


def test_float32_exp_through_the_op():
    x_np = np.random.default_rng(6).uniform(-20, 20, BIG).astype(np.float32)
    x = eagerad.tensor(x_np, requires_grad=True)
    y = x.exp()
    assert y.dtype == np.float32
    exact = np.exp(x_np.astype(np.float64)).astype(np.float32)
    assert _ulps(y.numpy(), exact).max() <= 1
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), y.numpy())     # d exp = exp, exactly


def test_tanh_mlp_second_derivative_and_its_weight_gradients_match_pytorch():
    """A PINN's loss: u'' by grad of grad through tanh layers (broadcast seeds at every
    level), then the weights' gradients of a loss on it: eagerad's one-op tanh rules
    against PyTorch, and the unrecorded array rules against the recorded ones."""
    rng = np.random.default_rng(7)
    xs = np.linspace(0.0, 1.0, 9).reshape(-1, 1)
    weights = [rng.standard_normal(s) * 0.7 for s in ((1, 5), (5,), (5, 5), (5,), (5, 1))]

    def run(lib, tensor, grad, create_last):
        x = tensor(xs, requires_grad=True)
        w1, b1, w2, b2, w3 = ps = [tensor(w, requires_grad=True) for w in weights]
        u = (lib.tanh(lib.tanh(x @ w1 + b1) @ w2 + b2) @ w3).sum()
        (du,) = grad(u, x, create_graph=True)
        (d2u,) = grad(du.sum(), x, create_graph=True)
        loss = ((d2u - lib.sin(x)) ** 2).mean()
        return [d2u.detach().numpy()] + [g.detach().numpy() for g in
                                         grad(loss, ps, create_graph=create_last)]
    ea = run(eagerad, eagerad.tensor, autograd.grad, False)
    ea_recorded = run(eagerad, eagerad.tensor, autograd.grad, True)
    pt = run(torch, torch.tensor, torch.autograd.grad, False)
    for a, r, b in zip(ea, ea_recorded, pt):
        np.testing.assert_array_equal(a, r)
        np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("op, maxulp", [("exp", 1), ("tanh", 2)])
@pytest.mark.parametrize("n", [cpu.FUSED_MIN + 1, BIG])        # serial and prange kernels
def test_float32_kernels_at_every_size(op, maxulp, n):
    x = np.random.default_rng(8).uniform(-12, 12, n).astype(np.float32).reshape(-1, 1)
    got = cpu.unary(op, x)
    assert got.shape == x.shape and got.dtype == np.float32
    exact = getattr(np, op)(x.astype(np.float64)).astype(np.float32)
    assert _ulps(got, exact).max() <= maxulp
    np.testing.assert_array_equal(cpu.unary(op, x[::2]), getattr(np, op)(x[::2]))  # strided: numpy
