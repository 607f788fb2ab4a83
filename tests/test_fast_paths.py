"""The performance paths give the numbers of the plain paths.

- array-level first-order rules (``fast=`` in ops/math.py) against the
  differentiable vjp rules (run when ``create_graph=True``), bit for bit;
- large unary ops on every core (threaded numpy chunks / Numba ``prange``)
  against numpy's single-threaded ufunc;
- in-place gradient accumulation in the engine against out-of-place sums, and
  it never writes into a gradient someone else holds.
"""
import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops
from eagerad.backend import cpu

BIG = cpu.BIG + 3        # above the multi-core threshold, odd so chunks are uneven


def _x(n, dtype, low=0.5, high=2.0, seed=0):
    return np.random.default_rng(seed).uniform(low, high, n).astype(dtype)


CASES = {   # name -> function of two tensors (the second may be unused)
    "neg": lambda x, y: -x,
    "exp": lambda x, y: x.exp(),
    "sin": lambda x, y: x.sin(),
    "cos": lambda x, y: x.cos(),
    "sub": lambda x, y: x - y,
    "mul": lambda x, y: x * y,
    "mul_scalar": lambda x, y: x * 1.01,
    "div": lambda x, y: x / y,
    "pow_2": lambda x, y: x ** 2,
    "pow_3.5": lambda x, y: x ** 3.5,
    "chain": lambda x, y: (x.sin() * x ** 2 + (-y).exp() / x).cos(),
}


def _grads(fn, x_np, y_np, create_graph):
    x = eagerad.tensor(x_np, requires_grad=True)
    y = eagerad.tensor(y_np, requires_grad=True)
    w = eagerad.tensor(np.linspace(-1, 1, x_np.size).astype(x_np.dtype))
    out = (fn(x, y) * w).sum()
    grads = autograd.grad(out, (x, y), create_graph=create_graph, allow_unused=True)
    return [None if g is None else g.detach().numpy() for g in grads]


@pytest.mark.parametrize("size", [5, BIG])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(CASES))
def test_fast_rules_equal_the_differentiable_rules(name, dtype, size, monkeypatch):
    used = []
    for op_name in ("neg", "exp", "sin", "cos", "sub", "mul", "div", "pow"):
        op = ops.registry.OPS[op_name]
        wrapped = tuple(None if f is None else
                        (lambda f, n: lambda *a, **k: used.append(n) or f(*a, **k))(f, op_name)
                        for f in op.fast)
        monkeypatch.setattr(op, "fast", wrapped)
    x_np, y_np = _x(size, dtype), _x(size, dtype, seed=1)
    fast = _grads(CASES[name], x_np, y_np, create_graph=False)
    assert used, "no array-level rule ran on the first-order backward"
    used.clear()
    slow = _grads(CASES[name], x_np, y_np, create_graph=True)
    assert not used, "an array-level rule ran while the backward was being recorded"
    for f, s in zip(fast, slow):
        assert (f is None) == (s is None)
        if f is not None:
            assert f.dtype == dtype
            np.testing.assert_array_equal(f, s)


def test_fast_rules_match_closed_forms():
    x_np = _x(7, np.float64)
    x = eagerad.tensor(x_np, requires_grad=True)
    (g,) = autograd.grad((x.sin() * x ** 2).sum(), x)
    np.testing.assert_allclose(g.numpy(), np.cos(x_np) * x_np ** 2 + 2 * x_np * np.sin(x_np),
                               rtol=1e-14)
    (g,) = autograd.grad((1.0 / x).cos().sum(), x)
    np.testing.assert_allclose(g.numpy(), np.sin(1 / x_np) / x_np ** 2, rtol=1e-14)


def test_fast_rule_declines_mixed_dtypes():
    """A float64 gradient for a float32 product goes through the Tensor rule (promotion)."""
    x = eagerad.tensor(np.float32([1.5, 2.0]), requires_grad=True)
    y = x * 3.0
    (g,) = autograd.grad(y, x, grad_outputs=eagerad.tensor(np.float64([1.0, 2.0])))
    assert g.dtype == np.float32
    np.testing.assert_array_equal(g.numpy(), np.float32([3.0, 6.0]))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", ["exp", "sin", "cos", "tanh", "log", "sqrt"])
def test_large_unary_on_every_core_equals_numpy(op, dtype):
    x = _x(BIG, dtype, low=-3.0 if op not in ("log", "sqrt") else 0.1, high=3.0)
    got = cpu.unary(op, x)
    ref = getattr(np, op)(x)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    if dtype == np.float32:         # numpy's own loop on chunks: identical
        np.testing.assert_array_equal(got, ref)
    else:                           # Numba's libm calls: within one ulp of numpy's
        np.testing.assert_array_max_ulp(got, ref, maxulp=1)
    two_d = x.reshape(-1, 1)
    assert cpu.unary(op, two_d).shape == two_d.shape


def test_large_unary_keeps_non_contiguous_input_right():
    x = _x(2 * BIG, np.float32)[::2]
    np.testing.assert_array_equal(cpu.unary("sin", x), np.sin(x))


def _w3(x):
    return (x.tanh() * x + (-x).exp()).sum()


def test_in_place_accumulation_gives_the_out_of_place_sum(monkeypatch):
    x_np = _x(BIG, np.float32, low=-2.0)
    x = eagerad.tensor(x_np, requires_grad=True)
    _w3(x).backward()
    t = np.tanh(x_np)
    expected = (((1 - t * t) * x_np) + t) + -np.exp(-x_np)   # the engine's summation order
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-6, atol=1e-6)
    calls = []
    real = cpu.inplace
    monkeypatch.setattr(cpu, "inplace", lambda op, a, b: calls.append(op) or real(op, a, b))
    x.grad = None
    _w3(x).backward()
    assert calls.count("add") >= 1, "three paths into x should accumulate in place"
    in_place = x.grad.numpy().copy()
    (recorded,) = autograd.grad(_w3(x), x, create_graph=True)   # out-of-place sums
    np.testing.assert_array_equal(in_place, recorded.detach().numpy())


def test_in_place_accumulation_never_touches_a_held_gradient():
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    seed = eagerad.tensor([1.0, 1.0, 1.0])
    y = x * 1.0
    z = y + y + y                     # three paths into y's node
    seen = []
    y.register_hook(lambda g: seen.append(g.numpy().copy()))
    z.backward(seed)
    np.testing.assert_array_equal(seed.numpy(), [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.grad.numpy(), [3.0, 3.0, 3.0])
    np.testing.assert_array_equal(seen[0], [3.0, 3.0, 3.0])
    # a retained intermediate gradient is not changed by later accumulation
    a = eagerad.tensor([2.0], requires_grad=True)
    b = a * 1.0
    b.retain_grad()
    (b * 2.0 + b * 3.0 + b).sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), [6.0])
    np.testing.assert_array_equal(b.grad.numpy(), [6.0])


def test_large_unary_passes_nan_and_inf_silently():
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(cpu.unary("log", -np.ones(BIG, np.float32))).all()
        assert np.isinf(cpu.unary("exp", np.full(BIG, 1000.0))).all()
