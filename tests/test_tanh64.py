"""The CPU backend's float64 tanh kernel (``backend/cpu/tanh64.py``): within 2.5 ulp of the
exact tanh (an extended-precision reference) over the whole range, special values exact,
and the op (lean or general path) computing with it."""
import numpy as np
import pytest

import eagerad
from eagerad.backend import cpu
from eagerad.backend.cpu import tanh64


def _ulps(got, x):
    exact = np.tanh(x.astype(np.longdouble))
    ulp = np.spacing(np.abs(exact.astype(np.float64))).astype(np.longdouble)
    return np.abs((got.astype(np.longdouble) - exact) / ulp)


@pytest.mark.parametrize("scale", [1e-300, 1e-9, 1e-3, 0.3, 0.7, 2.0, 8.0, 19.0, 25.0, 1e300])
def test_within_two_and_a_half_ulp_of_exact(scale):
    x = np.random.default_rng(int(np.log10(scale)) + 400).uniform(-scale, scale, 100_000)
    got = tanh64.tanh_f64(x)
    assert float(_ulps(got, x).max()) <= 2.5
    assert float(_ulps(np.tanh(x), x).max()) <= 1.5      # (the reference is tight enough)


def test_special_values():
    x = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 5e-324, -5e-324, 1e-310, 19.1, -40.0])
    got = tanh64.tanh_f64(x)
    ref = np.tanh(x)
    np.testing.assert_array_equal(got, ref)
    assert (np.signbit(got) == np.signbit(ref)).all()


def test_the_backend_uses_it_from_fused_min():
    x = np.random.default_rng(7).standard_normal(70_000) * 4
    np.testing.assert_array_equal(cpu.unary("tanh", x), tanh64.tanh_f64(x))
    np.testing.assert_array_equal(cpu.unary("tanh", x.reshape(700, 100)),
                                  tanh64.tanh_f64(x).reshape(700, 100))
    small = x[:cpu.FUSED_MIN - 1].copy()
    np.testing.assert_array_equal(cpu.unary("tanh", small), np.tanh(small))   # numpy below


@pytest.mark.parametrize("n", [cpu.FUSED_MIN, 128 * 64])
def test_the_op_and_its_gradient(n):
    xs = np.random.default_rng(n).standard_normal(n)
    x = eagerad.tensor(xs, requires_grad=True)
    y = x.tanh()                                  # the lean applier: the backend's bits
    np.testing.assert_array_equal(y.detach().numpy(), cpu.unary("tanh", xs))
    y.sum().backward()
    t = y.detach().numpy()
    np.testing.assert_array_equal(x.grad.numpy(), 1 - t * t)
