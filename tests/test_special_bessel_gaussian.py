"""Bessel I0/I1 (and scaled), erfcx, ndtr, log_ndtr, ndtri, entr, frexp, nextafter and
torch.gradient: values against integrals, Python's ``math`` and closed forms (no scipy),
float64 gradcheck to second order, PyTorch's values where torch is installed."""
import math

import numpy as np
import pytest

import eagerad
import eagerad.torch as et
from eagerad import autograd, ops

F64 = eagerad.float64


def t64(values, requires_grad=False):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), dtype=F64,
                          requires_grad=requires_grad)


def bessel_integral(x, order, scaled):
    """``I_n(x) = 1/pi int_0^pi exp(x cos t) cos(n t) dt`` (times exp(-|x|)): the trapezoid
    rule is exact to round-off for this periodic integrand."""
    t = np.linspace(0.0, np.pi, 4001)
    shift = abs(x) if scaled else 0.0
    f = np.exp(x * np.cos(t) - shift) * np.cos(order * t)
    return (f.sum() - 0.5 * (f[0] + f[-1])) * (t[1] - t[0]) / np.pi


def _bessel_derivatives(order, scaled):
    """The first four derivatives of I_order (times exp(-x), x > 0, when scaled), from
    I_n' = (I_(n-1) + I_(n+1)) / 2 and Leibniz's rule, every I_n by its integral."""
    def plain(k, x):
        return sum(math.comb(k, j) * np.array([bessel_integral(v, abs(order + k - 2 * j), False)
                                               for v in x]) for j in range(k + 1)) / 2 ** k

    def form(k, x):
        if not scaled:
            return plain(k, x)
        return np.exp(-x) * sum(math.comb(k, m) * (-1) ** (k - m) * plain(m, x)
                                for m in range(k + 1))
    return [lambda x, k=k: form(k, x) for k in range(1, 5)]


def _erfcx_derivatives(x):
    f = np.array([math.exp(v * v) * math.erfc(v) for v in x])
    d1 = 2 * x * f - 2 / math.sqrt(math.pi)
    d2 = 2 * f + 2 * x * d1
    d3 = 4 * d1 + 2 * x * d2
    return [d1, d2, d3, 6 * d2 + 2 * x * d3]


def _phi(x):
    return np.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def _log_ndtr_derivatives(x):
    h = _phi(x) / np.array([0.5 * math.erfc(-v / math.sqrt(2)) for v in x])
    d1 = -x * h - h * h
    d2 = -h - x * d1 - 2 * h * d1
    return [h, d1, d2, -2 * d1 - x * d2 - 2 * d1 * d1 - 2 * h * d2]


def _ndtri_derivatives(p):
    y = ops.ndtri(t64(p)).numpy()
    d = math.sqrt(2 * math.pi) * np.exp(0.5 * y * y)
    return [d, y * d ** 2, d ** 3 * (1 + 2 * y * y), d ** 4 * y * (7 + 6 * y * y)]


# op -> (domain, its first four derivatives as numpy functions of x): merged into
# test_special_functions.CLOSED_FORMS, whose tests check them
CLOSED_FORMS = {
    "i0": ((-3.0, 3.0), _bessel_derivatives(0, False)),
    "i1": ((-3.0, 3.0), _bessel_derivatives(1, False)),
    "i0e": ((0.3, 4.0), _bessel_derivatives(0, True)),
    "i1e": ((0.3, 4.0), _bessel_derivatives(1, True)),
    "erfcx": ((-2.0, 12.0), [lambda x, k=k: _erfcx_derivatives(x)[k] for k in range(4)]),
    "ndtr": ((-3.0, 3.0), [_phi, lambda x: -x * _phi(x), lambda x: (x * x - 1) * _phi(x),
                           lambda x: (3 * x - x ** 3) * _phi(x)]),
    "log_ndtr": ((-4.0, 3.0), [lambda x, k=k: _log_ndtr_derivatives(x)[k] for k in range(4)]),
    "ndtri": ((0.05, 0.95), [lambda x, k=k: _ndtri_derivatives(x)[k] for k in range(4)]),
    "entr": ((0.3, 3.0), [lambda x: -(1 + np.log(x)), lambda x: -1 / x, lambda x: 1 / x ** 2,
                          lambda x: -2 / x ** 3]),
}
# label -> (op, the same function of core ops, domain): merged into
# test_special_functions.COMPOSITIONS (their derivatives compared to fourth order)
COMPOSITIONS = {
    "frexp_mantissa": (lambda x: ops.frexp(x)[0], lambda x: x * 0.25, (2.1, 3.9)),
}


@pytest.mark.parametrize("name, order, scaled", [("i0", 0, False), ("i1", 1, False),
                                                 ("i0e", 0, True), ("i1e", 1, True)])
def test_bessel_functions_match_their_integral_on_both_branches(name, order, scaled):
    xs = [-30.0, -7.5, -1.0, 0.0, 1e-3, 0.5, 3.0, 24.9, 25.1, 40.0]     # series | expansion
    got = getattr(ops, name)(t64(xs)).numpy()
    want = [bessel_integral(x, order, scaled) for x in xs]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-300)


def test_bessel_edges_and_overflow():
    big = t64([700.0, 1000.0, -1000.0, math.inf, math.nan])
    i0 = ops.i0(big).numpy()
    assert np.isfinite(i0[0]) and i0[1] == math.inf and i0[3] == math.inf and math.isnan(i0[4])
    assert ops.i1(t64([-1000.0])).item() == -math.inf
    # I0e(x) ~ 1/sqrt(2 pi x) (1 + 1/(8x)) for large x
    assert ops.i0e(t64([1e6])).item() == pytest.approx(
        (1 + 1 / 8e6 + 9 / (2 * 64e12)) / math.sqrt(2 * math.pi * 1e6), rel=1e-14)
    assert ops.i0e(t64([math.inf])).item() == 0.0
    assert ops.i0(eagerad.tensor([1.0])).dtype == eagerad.float32


def test_erfcx_matches_exp_times_erfc_and_its_asymptote():
    xs = [-26.0, -3.0, -0.5, 0.0, 0.7, 9.99, 10.01, 15.0, 26.0]
    want = [math.exp(x * x) * math.erfc(x) for x in xs]
    np.testing.assert_allclose(ops.erfcx(t64(xs)).numpy(), want, rtol=1e-13)
    far = ops.erfcx(t64([1e4, 1e200, math.inf, -27.0])).numpy()
    assert far[0] == pytest.approx((1 - 0.5e-8) / (1e4 * math.sqrt(math.pi)), rel=1e-15)
    assert far[1] == pytest.approx(1 / (1e200 * math.sqrt(math.pi)), rel=1e-15)
    assert far[2] == 0.0 and far[3] == math.inf


def test_normal_distribution_functions():
    xs = np.array([-38.0, -20.0, -3.0, -1.0, 0.0, 0.5, 4.0, 8.0])
    ndtr = ops.ndtr(t64(xs)).numpy()
    np.testing.assert_allclose(ndtr, [0.5 * math.erfc(-x / math.sqrt(2)) for x in xs], rtol=1e-12)
    # log_ndtr is finite far below where ndtr underflows: log(phi(x) / |x| (1 - 1/x^2 + 3/x^4))
    x = -40.0
    tail = -0.5 * x * x - 0.5 * math.log(2 * math.pi) - math.log(-x) + math.log1p(
        -1 / x ** 2 + 3 / x ** 4 - 15 / x ** 6)
    assert ops.log_ndtr(t64([x])).item() == pytest.approx(tail, rel=1e-12)
    np.testing.assert_allclose(ops.log_ndtr(t64(xs)).numpy()[1:],
                               [math.log1p(-0.5 * math.erfc(v / math.sqrt(2))) if v > -1 else
                                math.log(0.5 * math.erfc(-v / math.sqrt(2))) for v in xs[1:]],
                               rtol=1e-13)
    # ndtri inverts ndtr, keeping relative precision of tiny probabilities
    p = ops.ndtr(t64(xs[1:-1]))              # (ndtr(-38) is subnormal: 9 digits left)
    np.testing.assert_allclose(ops.ndtri(p).numpy(), xs[1:-1], rtol=1e-12)
    tiny = t64([1e-300, 1e-20, 0.5, 0.975])
    np.testing.assert_allclose(ops.ndtr(ops.ndtri(tiny)).numpy(), tiny.numpy(), rtol=1e-12)
    edges = ops.ndtri(t64([0.0, 1.0, -0.1, 1.1])).numpy()
    assert edges[0] == -math.inf and edges[1] == math.inf and np.isnan(edges[2:]).all()


def test_entr_values_and_edges():
    got = ops.entr(t64([0.0, 0.25, 2.0, -1.0, math.inf, math.nan])).numpy()
    assert got[0] == 0.0 and got[1] == pytest.approx(0.25 * math.log(4))
    assert got[2] == pytest.approx(-2 * math.log(2)) and got[3] == -math.inf
    assert got[4] == -math.inf and math.isnan(got[5])


@pytest.mark.parametrize("name, low, high", [
    ("i0", -4.0, 4.0), ("i1", -4.0, 4.0), ("i0e", -4.0, 4.0), ("i1e", -4.0, 4.0),
    ("erfcx", -2.0, 3.0), ("ndtr", -3.0, 3.0), ("log_ndtr", -8.0, 3.0), ("ndtri", 0.05, 0.95),
    ("entr", 0.2, 3.0)])
def test_first_and_second_order_gradcheck(name, low, high):
    x = t64(np.random.default_rng(0).uniform(low, high, 6), requires_grad=True)
    fn = getattr(ops, name)
    assert autograd.gradcheck(fn, (x,), atol=1e-7, rtol=1e-6)
    assert autograd.gradgradcheck(fn, (x,), atol=1e-6, rtol=1e-5)


def test_i1_derivative_at_zero_is_one_half_in_every_order_written():
    x = t64([0.0], requires_grad=True)
    for fn in (ops.i1, ops.i1e):
        (g,) = autograd.grad(fn(x), x, create_graph=True)
        assert g.item() == 0.5
        (h,) = autograd.grad(g, x)
        assert np.isfinite(h.item())


def test_frexp_and_nextafter():
    m, e = ops.frexp(t64([8.0, -0.75, 0.0, 3e-310, 1e308]))
    np.testing.assert_array_equal(np.ldexp(m.numpy(), e.numpy()),
                                  [8.0, -0.75, 0.0, 3e-310, 1e308])
    assert e.dtype == eagerad.int32 and (np.abs(m.numpy()[[0, 1, 3, 4]]) >= 0.5).all()
    x = t64([3.0, -5.0], requires_grad=True)
    m, _ = ops.frexp(x)
    (g,) = autograd.grad(m.sum(), x)
    np.testing.assert_array_equal(g.numpy(), [0.25, 0.125])
    one = eagerad.tensor([1.0])
    assert (ops.nextafter(one, 2.0) - one).item() == 2.0 ** -23     # float32's step
    y = t64([1.0, 2.0], requires_grad=True)
    z = t64([0.0, 5.0], requires_grad=True)
    gy, gz = autograd.grad(ops.nextafter(y, z).sum(), (y, z))
    assert gy.tolist() == [1.0, 1.0] and gz.tolist() == [0.0, 0.0]
    with pytest.raises(TypeError, match="float16"):
        ops.nextafter(eagerad.tensor([1.0], dtype=eagerad.float16), 2.0)
    with pytest.raises(TypeError, match="floating"):
        ops.frexp(eagerad.tensor([1, 2]))


def test_gradient_matches_numpy_and_differentiates():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((5, 6))
    coords = np.array([0.0, 0.5, 1.5, 1.7, 3.0])
    for kw, nkw in [({}, {}), ({"spacing": 2.0}, {}), ({"edge_order": 2}, {"edge_order": 2}),
                    ({"dim": 1, "spacing": [0.3]}, {"axis": 1})]:
        got = ops.gradient(t64(a), **kw)
        spacing = kw.get("spacing", 1.0)
        args = spacing if isinstance(spacing, list) else [spacing] * (1 if "dim" in kw else 2)
        want = np.gradient(a, *args, **nkw)
        want = want if isinstance(want, (list, tuple)) else [want]
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.numpy(), w, rtol=1e-12)
    for order in (1, 2):
        (g,) = ops.gradient(t64(a), spacing=[t64(coords)], dim=0, edge_order=order)
        np.testing.assert_allclose(g.numpy(), np.gradient(a, coords, axis=0, edge_order=order),
                                   rtol=1e-12)
    x = t64(a, requires_grad=True)
    assert autograd.gradcheck(lambda v: ops.gradient(v, edge_order=2)[1], (x,))
    with pytest.raises(ValueError, match="edge_order"):
        ops.gradient(t64([1.0, 2.0]), edge_order=2)


def test_torch_face_spellings():
    x = et.tensor([0.5, 1.5], dtype=et.float64)
    assert et.i0(x).tolist() == x.i0().tolist() == et.special.i0(x).tolist()
    for name in ("i0e", "i1", "i1e", "entr", "erfcx", "ndtr", "log_ndtr", "ndtri", "xlog1py"):
        assert callable(getattr(et.special, name))
    m, e = x.frexp()
    assert m.tolist() == [0.5, 0.75] and e.tolist() == [0, 1]
    b = et.tensor(np.arange(4.0).reshape(2, 1, 2))
    c = et.tensordot(et.ones(1, 1, 1) * 3.0, b, dims=([0, 1], [2, 0]))    # size-1 axes broadcast
    assert c.shape == (1, 1) and c.item() == 3.0 * 6.0
    a, b = et.tensor(-3.0), et.tensor(2.0)
    assert et.nn.functional.cosine_similarity(a, b, dim=0).item() == -1.0
    with pytest.raises(IndexError, match="dim"):
        et.nn.functional.cosine_similarity(a, b, dim=1)


def test_values_match_pytorch_where_installed():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    x = rng.uniform(-30.0, 30.0, 200)
    for name in ("i0", "i0e", "i1", "i1e", "erfcx", "ndtr", "log_ndtr"):
        want = getattr(torch.special, name)(torch.tensor(x)).numpy()
        # (PyTorch's ndtr loses the lower tail below about -8: 0 where ours is ~1e-40)
        np.testing.assert_allclose(getattr(ops, name)(t64(x)).numpy(), want, rtol=1e-10,
                                   atol=1e-16 if name == "ndtr" else 1e-300)
    p = rng.uniform(0.0, 1.0, 200)
    np.testing.assert_allclose(ops.ndtri(t64(p)).numpy(),
                               torch.special.ndtri(torch.tensor(p)).numpy(), rtol=1e-10)
    q = np.abs(x)
    np.testing.assert_allclose(ops.entr(t64(q)).numpy(),
                               torch.special.entr(torch.tensor(q)).numpy(), rtol=1e-13)
