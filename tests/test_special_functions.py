"""Special functions and the elementwise extras: values against closed forms and Python's
``math``, derivatives to fourth order against closed forms or compositions of core ops,
PyTorch's edge conventions, and CUDA (simulator) parity with the CPU."""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops
from eagerad.ops import OPS
from eagerad.ops import activations as act, special
from test_engine import _derivatives as derivatives    # [f', ..., f^(n)] by repeated grad
from test_special_bessel_gaussian import (CLOSED_FORMS as BESSEL_GAUSSIAN_FORMS,  # noqa: E402
                                          COMPOSITIONS as BESSEL_GAUSSIAN_COMPOSITIONS)

F64 = eagerad.float64
EULER = 0.5772156649015329
ZETA3, ZETA5 = 1.2020569031595942, 1.0369277551433699
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def t64(values, requires_grad=False):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), dtype=F64,
                          requires_grad=requires_grad)


# ------------------------------------------------------------------ values

def test_erf_erfc_lgamma_match_python_math_in_float64_and_float32():
    xs = np.concatenate([np.linspace(-6, 6, 61), [1e-8, -1e-300, 0.0]])
    for fn, ref in ((ops.erf, math.erf), (ops.erfc, math.erfc)):
        want = np.array([ref(v) for v in xs])
        np.testing.assert_allclose(fn(t64(xs)).numpy(), want, rtol=1e-15, atol=0)
        got32 = fn(eagerad.tensor(xs.astype(np.float32))).numpy()
        want32 = np.array([ref(v) for v in xs.astype(np.float32).astype(np.float64)])
        assert got32.dtype == np.float32
        np.testing.assert_allclose(got32, want32, rtol=1e-6, atol=1e-30)
    xs = np.concatenate([np.linspace(0.05, 40, 80), [-0.5, -1.5, -2.25, 1e5]])
    want = np.array([math.lgamma(v) for v in xs])
    np.testing.assert_allclose(ops.lgamma(t64(xs)).numpy(), want, rtol=1e-14, atol=1e-15)
    assert ops.gammaln is ops.lgamma


def test_digamma_and_polygamma_closed_forms():
    # digamma(1) = -gamma, digamma(n + 1) = H_n - gamma, digamma(1/2) = -gamma - 2 ln 2,
    # digamma(x) = digamma(1 - x) - pi / tan(pi x) for negative x
    n = np.arange(1, 30)
    harmonic = np.cumsum(1.0 / n)
    got = ops.digamma(t64(np.concatenate([[1.0, 0.5], n + 1.0]))).numpy()
    want = np.concatenate([[-EULER, -EULER - 2 * math.log(2)], harmonic - EULER])
    np.testing.assert_allclose(got, want, rtol=1e-13)
    x = np.array([-0.5, -1.3, -7.75])
    reflected = ops.digamma(t64(1 - x)).numpy() - np.pi / np.tan(np.pi * x)
    np.testing.assert_allclose(ops.digamma(t64(x)).numpy(), reflected, rtol=1e-12)
    # polygamma(n, 1) = (-1)^(n+1) n! zeta(n+1); at 1/2 times (2^(n+1) - 1)
    cases = {1: math.pi ** 2 / 6, 2: -2 * ZETA3, 3: math.pi ** 4 / 15, 4: -24 * ZETA5}
    for order, at_one in cases.items():
        got = ops.polygamma(order, t64([1.0, 0.5])).numpy()
        np.testing.assert_allclose(got, [at_one, at_one * (2 ** (order + 1) - 1)], rtol=1e-13)
    assert ops.polygamma(0, t64([2.0])).item() == pytest.approx(1 - EULER, rel=1e-14)
    x = t64([1.0])
    assert x.polygamma(1).item() == pytest.approx(math.pi ** 2 / 6, rel=1e-14)
    # large arguments: polygamma(1, x) ~ 1/x + 1/(2x^2)
    assert ops.polygamma(1, t64([1e9])).item() == pytest.approx(1e-9 + 0.5e-18, rel=1e-12)


def test_erfinv_inverts_erf_to_float64_accuracy():
    x = np.concatenate([np.linspace(-3, 3, 61), [1e-12, 3e-200]])
    y = np.array([math.erf(v) for v in x])
    inside = np.abs(y) < 1
    got = ops.erfinv(t64(y[inside])).numpy()
    np.testing.assert_allclose(got, x[inside], rtol=2e-12, atol=0)
    # in the far tail, erf rounds to 1: check erfc(erfinv(1 - d)) = d instead
    d = 1 - (1 - np.array([1e-10, 1e-13, 2 ** -52]))    # exactly 1 - y for the y passed
    r = ops.erfinv(t64(1 - d)).numpy()
    np.testing.assert_allclose([math.erfc(v) for v in r], d, rtol=1e-12)
    edges = ops.erfinv(t64([1.0, -1.0, 1.5, np.nan])).numpy()
    assert edges[0] == np.inf and edges[1] == -np.inf and np.isnan(edges[2:]).all()
    y32 = np.linspace(-0.99, 0.99, 41).astype(np.float32)
    got32 = ops.erfinv(eagerad.tensor(y32)).numpy()
    np.testing.assert_allclose([math.erf(v) for v in got32.astype(np.float64)], y32, atol=2e-7)


def test_poles_and_domain_edges_follow_pytorch():
    lg = ops.lgamma(t64([0.0, -1.0, -2.0, -np.inf, np.inf])).numpy()
    assert (lg == np.inf).all()
    dg = ops.digamma(t64([0.0, -0.0, -1.0, -3.0, np.inf])).numpy()
    assert dg[0] == -np.inf and dg[1] == np.inf and np.isnan(dg[2:4]).all() and dg[4] == np.inf
    assert ops.polygamma(1, t64([0.0])).item() == np.inf
    assert ops.polygamma(2, t64([-1.0])).item() == -np.inf
    np.testing.assert_array_equal(ops.xlogy(t64([0.0, 0.0, 2.0]), t64([0.0, 5.0, 0.0])).numpy(),
                                  [0.0, 0.0, -np.inf])
    assert np.isnan(ops.xlogy(t64([0.0]), t64([np.nan])).item())
    np.testing.assert_array_equal(ops.xlog1py(t64([0.0, 1.0]), t64([-1.0, -1.0])).numpy(),
                                  [0.0, -np.inf])
    lo = ops.logit(t64([0.0, 1.0, 0.5])).numpy()
    assert lo.tolist() == [-np.inf, np.inf, 0.0]
    np.testing.assert_allclose(ops.logit(t64([0.0, 1.0]), eps=0.1).numpy(),
                               [math.log(1 / 9), math.log(9)], rtol=1e-15)
    with pytest.raises(ValueError, match="polygamma: n must be a non-negative integer"):
        ops.polygamma(1.5, t64([1.0]))
    with pytest.raises(ValueError, match="logit: eps"):
        ops.logit(t64([0.5]), eps=2.0)
    with pytest.raises(ValueError, match=r"hypot: shapes \(2,\) and \(3,\)"):
        ops.hypot(eagerad.ones(2), eagerad.ones(3))


def test_elementwise_extras_match_numpy():
    rng = np.random.default_rng(0)
    a, b = rng.uniform(-3, 3, (3, 4)), rng.uniform(-3, 3, (4,))
    pos = np.abs(a) + 0.1
    pairs = [(ops.exp2, np.exp2, a), (ops.log2, np.log2, pos), (ops.log10, np.log10, pos),
             (ops.rsqrt, lambda v: 1 / np.sqrt(v), pos), (ops.sinc, np.sinc, a),
             (ops.deg2rad, np.deg2rad, a), (ops.rad2deg, np.rad2deg, a)]
    for fn, ref, x in pairs:
        np.testing.assert_allclose(fn(t64(x)).numpy(), ref(x), rtol=1e-14)
    binary = [(ops.atan2, np.arctan2), (ops.hypot, np.hypot), (ops.logaddexp, np.logaddexp),
              (ops.logaddexp2, np.logaddexp2), (ops.fmax, np.fmax), (ops.fmin, np.fmin),
              (ops.copysign, np.copysign)]
    for fn, ref in binary:
        np.testing.assert_allclose(fn(t64(a), t64(b)).numpy(), ref(a, b), rtol=1e-14)
    np.testing.assert_allclose(ops.xlogy(t64(a), t64(pos)).numpy(), a * np.log(pos), rtol=1e-14)
    withnan = t64([np.nan, 1.0, np.nan])
    other = t64([2.0, np.nan, np.nan])
    assert ops.fmax(withnan, other).numpy()[:2].tolist() == [2.0, 1.0]
    assert np.isnan(ops.fmin(withnan, other).numpy()[2])
    x = eagerad.tensor([np.nan, np.inf, -np.inf, 2.0])
    assert ops.nan_to_num(x).tolist() == [0.0, float(np.finfo(np.float32).max),
                                          float(np.finfo(np.float32).min), 2.0]
    assert ops.logaddexp(t64([1000.0]), t64([1000.0])).item() == pytest.approx(1000 + math.log(2))
    assert ops.exp2(eagerad.tensor([1, 2])).dtype == eagerad.float32      # ints become floats


# ------------------------------------------------------------- derivatives

def _sig(x):
    return 1 / (1 + np.exp(-x))


def _polygamma_ref(n, x):
    """polygamma(n, x) at x in {1/2, 1, 3/2, ...} from its values at 1/2 and 1 and the
    recurrence psi^(n)(x + 1) = psi^(n)(x) + (-1)^n n! / x^(n+1)."""
    at_one = {0: -EULER, 1: math.pi ** 2 / 6, 2: -2 * ZETA3, 3: math.pi ** 4 / 15, 4: -24 * ZETA5}
    at_half = {0: -EULER - 2 * math.log(2), 1: math.pi ** 2 / 2, 2: -14 * ZETA3, 3: math.pi ** 4,
               4: -744 * ZETA5}
    out = []
    for v in x:
        start = 1.0 if float(v).is_integer() else 0.5
        value = at_one[n] if start == 1.0 else at_half[n]
        while start < v:
            value += (-1) ** n * math.factorial(n) / start ** (n + 1)
            start += 1
        out.append(value)
    return np.array(out)


def _erfinv_forms(x):
    y = special.erfinv(t64(x)).numpy()
    d1 = math.sqrt(math.pi) / 2 * np.exp(y * y)
    return [d1, 2 * y * d1 ** 2, d1 ** 3 * (2 + 8 * y * y), d1 ** 4 * (28 * y + 48 * y ** 3)]


def _erf_forms(sign):
    d1 = lambda x: sign * 2 / math.sqrt(math.pi) * np.exp(-x * x)   # noqa: E731
    return [d1, lambda x: -2 * x * d1(x), lambda x: (4 * x * x - 2) * d1(x),
            lambda x: (12 * x - 8 * x ** 3) * d1(x)]


# op -> (domain, [f', f'', f''', f''''] as numpy functions of x)
CLOSED_FORMS = {
    "erf": ((-1.5, 1.5), _erf_forms(1)),
    "erfc": ((-1.5, 1.5), _erf_forms(-1)),
    "erfinv": ((-0.9, 0.9), [lambda x, k=k: _erfinv_forms(x)[k] for k in range(4)]),
    "lgamma": ((0.5, 3.5), [lambda x, n=n: _polygamma_ref(n, x) for n in range(4)]),
    "digamma": ((0.5, 3.5), [lambda x, n=n: _polygamma_ref(n, x) for n in range(1, 5)]),
    "exp2": ((-1, 1), [lambda x, k=k: math.log(2) ** k * 2 ** x for k in range(1, 5)]),
    "log2": ((0.5, 2), [lambda x, k=k: (-1) ** (k - 1) * math.factorial(k - 1) / x ** k / math.log(2)
                        for k in range(1, 5)]),
    "log10": ((0.5, 2), [lambda x, k=k: (-1) ** (k - 1) * math.factorial(k - 1) / x ** k
                         / math.log(10) for k in range(1, 5)]),
    "rsqrt": ((0.5, 2), [lambda x: -0.5 * x ** -1.5, lambda x: 0.75 * x ** -2.5,
                         lambda x: -1.875 * x ** -3.5, lambda x: 6.5625 * x ** -4.5]),
    "deg2rad": ((-1, 1), [lambda x: np.pi / 180 + 0 * x] + [lambda x: 0 * x] * 3),
    "rad2deg": ((-1, 1), [lambda x: 180 / np.pi + 0 * x] + [lambda x: 0 * x] * 3),
    "log_sigmoid": ((-2, 2), [lambda x: 1 - _sig(x), lambda x: -_sig(x) * (1 - _sig(x)),
                              lambda x: -_sig(x) * (1 - _sig(x)) * (1 - 2 * _sig(x)),
                              lambda x: -_sig(x) * (1 - _sig(x)) * (1 - 6 * _sig(x) + 6 * _sig(x) ** 2)]),
    "relu6": ((0.5, 5.5), [lambda x: 1 + 0 * x] + [lambda x: 0 * x] * 3),
    "hardsigmoid": ((-2.5, 2.5), [lambda x: 1 / 6 + 0 * x] + [lambda x: 0 * x] * 3),
    "hardswish": ((-2.5, 2.5), [lambda x: x / 3 + 0.5, lambda x: 1 / 3 + 0 * x,
                                lambda x: 0 * x, lambda x: 0 * x]),
    "softsign": ((0.2, 2), [lambda x: (1 + x) ** -2, lambda x: -2 * (1 + x) ** -3,
                            lambda x: 6 * (1 + x) ** -4, lambda x: -24 * (1 + x) ** -5]),
}

CLOSED_FORMS.update(BESSEL_GAUSSIAN_FORMS)     # i0 ... ndtri, entr (issue 20)


@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
def test_first_to_fourth_derivative_closed_forms(name):
    (lo, hi), forms = CLOSED_FORMS[name]
    x_np = np.linspace(lo, hi, 7)
    x = t64(x_np, requires_grad=True)
    got = derivatives(getattr(ops, name), x, 4)
    for order, (value, form) in enumerate(zip(got, forms), start=1):
        np.testing.assert_allclose(value, form(x_np), rtol=1e-9, atol=1e-12,
                                   err_msg=f"{name}: derivative of order {order}")


_SOFTPLUS = lambda x: ops.log(1 + ops.exp(x))   # noqa: E731
# op applied to x -> the same function composed of core ops (their derivatives are tested
# against closed forms in test_engine.py)
COMPOSITIONS = {
    "sinc": (lambda x: ops.sinc(x), lambda x: ops.sin(math.pi * x) / (math.pi * x), (0.2, 1.7)),
    "silu": (ops.silu, lambda x: x * ops.sigmoid(x), (-3, 3)),
    "swish": (ops.swish, lambda x: x * ops.sigmoid(x), (-3, 3)),
    "mish": (ops.mish, lambda x: x * ops.tanh(_SOFTPLUS(x)), (-3, 3)),
    "softplus": (lambda x: ops.softplus(x, beta=2.0), lambda x: _SOFTPLUS(2 * x) / 2, (-3, 3)),
    "gelu": (ops.gelu, lambda x: 0.5 * x * (1 + ops.erf(x / math.sqrt(2))), (-3, 3)),
    "gelu_tanh": (lambda x: ops.gelu(x, approximate="tanh"),
                  lambda x: 0.5 * x * (1 + ops.tanh(math.sqrt(2 / math.pi)
                                                    * (x + 0.044715 * x ** 3))), (-3, 3)),
    "elu_neg": (lambda x: ops.elu(x, alpha=0.7), lambda x: 0.7 * (ops.exp(x) - 1), (-3, -0.1)),
    "elu_pos": (lambda x: ops.elu(x, alpha=0.7), lambda x: x * 1.0, (0.1, 3)),
    "selu": (ops.selu, lambda x: act.SELU_SCALE * act.SELU_ALPHA * (ops.exp(x) - 1), (-3, -0.1)),
    "celu_neg": (lambda x: ops.celu(x, alpha=2.0), lambda x: 2 * (ops.exp(x / 2) - 1), (-3, -0.1)),
    "leaky_relu": (lambda x: ops.leaky_relu(x, 0.3), lambda x: 0.3 * x, (-3, -0.1)),
    "hardtanh": (lambda x: ops.hardtanh(x, -2.0, 2.0), lambda x: x * 1.0, (-1.9, 1.9)),
    "logit": (ops.logit, lambda x: ops.log(x / (1 - x)), (0.1, 0.9)),
    "polygamma2": (lambda x: ops.polygamma(2, x), lambda x: ops.digamma(x) * 0 + ops.polygamma(2, x),
                   (0.5, 3)),
}

COMPOSITIONS.update(BESSEL_GAUSSIAN_COMPOSITIONS)


@pytest.mark.parametrize("name", sorted(COMPOSITIONS))
def test_derivatives_match_core_op_composition_to_fourth_order(name):
    fn, ref, (lo, hi) = COMPOSITIONS[name]
    x_np = np.linspace(lo, hi, 7)
    got = derivatives(fn, t64(x_np, requires_grad=True), 4)
    want = derivatives(ref, t64(x_np, requires_grad=True), 4)
    np.testing.assert_allclose(fn(t64(x_np)).numpy(), ref(t64(x_np)).numpy(), rtol=1e-12,
                               atol=1e-14)
    for order, (g, w) in enumerate(zip(got, want), start=1):
        np.testing.assert_allclose(g, w, rtol=1e-9, atol=1e-10, err_msg=f"order {order}")


def test_binary_partials_match_closed_forms():
    x, y = t64([0.7, -1.3], True), t64([1.5, 0.4], True)
    xn, yn = x.numpy(), y.numpy()
    r2 = xn ** 2 + yn ** 2
    checks = [(ops.atan2(y, x), [-yn / r2, xn / r2]),
              (ops.hypot(x, y), [xn / np.sqrt(r2), yn / np.sqrt(r2)]),
              (ops.logaddexp(x, y), [_sig(xn - yn), _sig(yn - xn)]),
              (ops.logaddexp2(x, y), [_sig((xn - yn) * math.log(2)), _sig((yn - xn) * math.log(2))]),
              (ops.xlogy(x, y), [np.log(yn), xn / yn]),
              (ops.xlog1py(x, y), [np.log1p(yn), xn / (1 + yn)]),
              (ops.copysign(x, y), [np.sign(xn) * np.sign(yn), [0.0, 0.0]])]
    for out, (gx, gy) in checks:
        got = autograd.grad(out.sum(), (x, y))
        np.testing.assert_allclose(got[0].numpy(), gx, rtol=1e-13)
        np.testing.assert_allclose(got[1].numpy(), gy, rtol=1e-13)


def _grad(fn, values, **kw):
    x = t64(values, True)
    return autograd.grad(fn(x, **kw).sum(), x)[0].numpy().tolist()


def test_subgradients_at_kinks_follow_pytorch():
    assert _grad(ops.hardtanh, [-1.0, 1.0, 0.0, 2.0]) == [0.0, 0.0, 1.0, 0.0]
    assert _grad(ops.relu6, [0.0, 6.0, 3.0]) == [0.0, 0.0, 1.0]
    assert _grad(ops.leaky_relu, [0.0, 1.0], alpha=0.1) == [0.1, 1.0]
    assert _grad(ops.elu, [0.0], alpha=0.5) == [0.5]
    assert _grad(ops.celu, [0.0], alpha=2.0) == [1.0]
    assert _grad(ops.hardsigmoid, [-3.0, 3.0, 0.0]) == [0.0, 0.0, 1 / 6]
    assert _grad(ops.hardswish, [-3.0, 3.0, -4.0, 4.0]) == [-0.5, 1.5, 0.0, 1.0]
    assert _grad(ops.sinc, [0.0]) == [0.0]
    assert _grad(ops.nan_to_num, [np.nan, np.inf, 1.0]) == [0.0, 0.0, 1.0]
    assert _grad(ops.softplus, [30.0, 0.0]) == [1.0, 0.5]
    assert _grad(ops.logit, [0.05, 0.5], eps=0.1) == [0.0, 4.0]
    # fmax/fmin: the whole gradient to x on ties and where y is nan, else to y
    x, y = t64([1.0, 1.0, 2.0], True), t64([1.0, np.nan, 3.0], True)
    gx, gy = autograd.grad(ops.fmax(x, y).sum(), (x, y))
    assert gx.tolist() == [1.0, 1.0, 0.0] and gy.tolist() == [0.0, 0.0, 1.0]
    # xlogy(0, 0): gradient 0 for x (PyTorch), x / y for y
    x, y = t64([0.0], True), t64([0.0], True)
    gx, gy = autograd.grad(ops.xlogy(x, y).sum(), (x, y))
    assert gx.tolist() == [0.0] and np.isnan(gy.item())


def test_stable_forms_do_not_overflow_in_float32():
    x = eagerad.tensor([-1000.0, -50.0, 0.0, 50.0, 1000.0], requires_grad=True)
    sp, ls = ops.softplus(x), ops.log_sigmoid(x)
    assert sp.dtype == eagerad.float32
    np.testing.assert_allclose(sp.numpy(), [0.0, math.exp(-50), math.log(2), 50.0, 1000.0],
                               rtol=1e-6)
    np.testing.assert_allclose(ls.numpy(), [-1000.0, -50.0, -math.log(2), -math.exp(-50), 0.0],
                               rtol=1e-6)
    (g,) = autograd.grad((sp + ls).sum(), x)
    assert np.isfinite(g.numpy()).all()
    for fn in (ops.gelu, ops.silu, ops.mish, ops.softsign, ops.selu, ops.elu, ops.hardswish):
        out = fn(eagerad.tensor([-np.inf, -1000.0, 1000.0])).numpy()
        assert np.isfinite(out[1:]).all() and not np.isnan(out).any(), fn.__name__
    assert ops.softsign(eagerad.tensor([np.inf, -np.inf])).tolist() == [1.0, -1.0]
    assert ops.gelu(t64([-10.0])).item() == pytest.approx(-10 * 0.5 * math.erfc(10 / math.sqrt(2)),
                                                          rel=1e-12)


def test_bad_arguments_name_themselves():
    x = eagerad.ones(2)
    with pytest.raises(ValueError, match="gelu: approximate must be 'none' or 'tanh'"):
        ops.gelu(x, approximate="fast")
    with pytest.raises(ValueError, match="softplus: beta"):
        ops.softplus(x, beta=0)
    with pytest.raises(ValueError, match="celu: alpha"):
        ops.celu(x, alpha=0)
    with pytest.raises(ValueError, match="hardtanh: min_val"):
        ops.hardtanh(x, 1.0, -1.0)


# ------------------------------------------------------ batching and names

NEW_OPS = ("exp2 log2 log10 rsqrt sinc deg2rad rad2deg nan_to_num atan2 hypot logaddexp "
           "logaddexp2 fmax fmin copysign xlogy xlog1py erf erfc erfinv lgamma digamma polygamma "
           "logit log_sigmoid softplus gelu silu elu selu celu leaky_relu hardtanh relu6 "
           "hardsigmoid hardswish mish softsign").split()


def test_every_new_op_is_a_broadcasting_elementwise_stanza():
    for name in NEW_OPS:
        op = OPS[name]
        assert op.elementwise and op.cases and all(r is not None for r in op.vjp), name
    # elementwise means the batched op is the op on the stacked input: check a few by hand
    xs = np.random.default_rng(1).uniform(0.2, 0.8, (3, 2, 4))
    for name, kw in (("digamma", {}), ("softplus", dict(beta=2.0, threshold=20.0)),
                     ("polygamma", dict(n=1))):
        whole = OPS[name](t64(xs), **kw).numpy()
        loop = np.stack([OPS[name](t64(row), **kw).numpy() for row in xs])
        np.testing.assert_array_equal(whole, loop)


def test_public_names_and_tensor_methods():
    x = t64([0.5])
    for name in ("exp2", "log2", "log10", "rsqrt", "sinc", "deg2rad", "rad2deg", "nan_to_num",
                 "erf", "erfc", "erfinv", "lgamma", "digamma", "logit"):
        assert getattr(x, name)().item() == getattr(ops, name)(x).item(), name
    for name in ("atan2", "arctan2", "hypot", "logaddexp", "logaddexp2", "fmax", "fmin",
                 "copysign", "xlogy"):
        assert getattr(x, name)(x).item() == getattr(ops, name)(x, x).item(), name
    assert ops.swish is ops.silu and ops.logsigmoid is ops.log_sigmoid and ops.psi is ops.digamma
    assert ops.Erf()(x).item() == ops.erf(x).item()
    assert ops.HSwish()(x).item() == ops.hardswish(x).item()
    assert act.FUNCTIONAL["leaky_relu"](eagerad.tensor([-1.0])).tolist() == [pytest.approx(-0.01)]
    assert ops.leaky_relu(eagerad.tensor([-1.0])).tolist() == [pytest.approx(-0.2)]


# ---------------------------------------------------------------- CUDA simulator

SIM_SCRIPT = r"""
import json, numpy as np, eagerad
from eagerad import autograd, ops
rng = np.random.default_rng(0)
report = {}
def both(fn, *arrays):
    res = []
    for dev in ("cpu", "cuda"):
        ts = [eagerad.tensor(a, requires_grad=True, device=dev) for a in arrays]
        out = fn(*ts)
        grads = autograd.grad(out.sum(), ts)
        res.append([out.numpy()] + [g.numpy() for g in grads])
    return max(float(np.max(np.abs(a - b) / (1 + np.abs(a)))) if a.size else 0.0
               for a, b in zip(*res))
x = rng.uniform(-2, 2, (2, 3))
p = rng.uniform(0.3, 3, (2, 3))
report["erf"] = both(ops.erf, x)
report["lgamma"] = both(ops.lgamma, p)
report["digamma"] = both(ops.digamma, p)
report["gelu"] = both(ops.gelu, x)
report["softplus"] = both(lambda t: ops.softplus(t, beta=2.0, threshold=1.0), x)
report["atan2"] = both(ops.atan2, x, p[:1])
report["xlogy"] = both(ops.xlogy, x, p)
report["erfinv_f32"] = both(ops.erfinv, (x / 3).astype(np.float32))
edge = eagerad.tensor([0.0, -1.0, np.inf], device="cuda")
report["edges_ok"] = float(ops.lgamma(edge).numpy().tolist() == [np.inf] * 3)
print("SPECIAL-SIM " + json.dumps(report))
"""


def test_cuda_simulator_matches_cpu():
    pytest.importorskip("numba_cuda")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-c", SIM_SCRIPT], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("SPECIAL-SIM ")), None)
    assert line is not None, proc.stderr[-3000:]
    report = json.loads(line[len("SPECIAL-SIM "):])
    assert report.pop("edges_ok") == 1.0
    tol = {"erfinv_f32": 1e-6}
    for name, err in report.items():
        assert err <= tol.get(name, 1e-12), (name, err)


PTX_SCRIPT = r"""
from numba import cuda, float64
from eagerad.backend import formulas as F
try:
    cuda.compile_ptx(F.UNARY["erf"], (float64,) * 3, device=True, cc=(8, 0))
except Exception as err:
    print("NO-NVVM", type(err).__name__, err)
    raise SystemExit(0)
for table, arity in ((F.UNARY, 3), (F.BINARY, 2)):
    for fn in table.values():
        cuda.compile_ptx(fn, (float64,) * arity, device=True, cc=(8, 0))
print("PTX-OK", len(F.UNARY) + len(F.BINARY))
"""


def test_every_formula_compiles_for_a_real_gpu():
    """The simulator runs formulas as Python; this types and lowers each one to PTX, as the
    CUDA target does (no GPU needed, only numba-cuda's NVVM)."""
    pytest.importorskip("numba_cuda")
    proc = subprocess.run([sys.executable, "-c", PTX_SCRIPT], cwd=ROOT, capture_output=True,
                          text=True, timeout=300,
                          env=dict(os.environ, PYTHONPATH=ROOT, NUMBA_ENABLE_CUDASIM="0"))
    if "NO-NVVM" in proc.stdout:
        pytest.skip(proc.stdout.strip())
    assert proc.returncode == 0 and "PTX-OK" in proc.stdout, proc.stderr[-3000:]
