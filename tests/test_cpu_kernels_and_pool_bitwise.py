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
    # (w requires grad, so that every node of the recorded backward has a graph to record:
    # a node whose rules would record nothing runs its array rules there too)
    w = eagerad.tensor(np.linspace(-1, 1, x_np.size).astype(x_np.dtype), requires_grad=True)
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
    if dtype == np.float32 and op in ("tanh", "exp"):   # vectorised kernels: 2 (tanh) and
        exact = getattr(np, op)(x.astype(np.float64)).astype(np.float32)   # 1 ulp (exp) of
        np.testing.assert_array_max_ulp(got, exact, maxulp=2 if op == "tanh" else 1)  # exact
    elif dtype == np.float32:       # numpy's own loop on chunks: identical
        np.testing.assert_array_equal(got, ref)
    elif op == "tanh":              # the vectorised kernel (2 ulp of exact), libm (1.2)
        np.testing.assert_array_max_ulp(got, ref, maxulp=3)
    else:                           # Numba kernels and numpy's loop (CPU-dependent SIMD
        np.testing.assert_array_max_ulp(got, ref, maxulp=2)   # code): each about 1 ulp off
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
    """Warnings raised in the pool's threads, which the backend's module filter does not
    see, are silenced there too (the split path: any pause of splitting ended first)."""
    import warnings
    from eagerad.backend.cpu import threads
    threads.set_num_threads(threads.get_num_threads())      # ends a pause (back-off)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(cpu.unary("log", -np.ones(BIG, np.float32))).all()
        assert np.isinf(cpu.unary("exp", np.full(BIG, 1000.0))).all()


# ------------------------------------------------ pooled outputs, threaded binary ops

POOLED = 5 * (cpu.pool.MIN_BYTES // 8 // 5 * 2 + 7)   # float64 elements above the pool minimum


def test_pool_reuses_a_buffer_only_when_nothing_sees_it():
    x = _x(POOLED, np.float64)
    a = cpu.unary("neg", x)
    assert a.base is not None and a.base.dtype == np.uint8
    del a
    held = cpu.pool.held_bytes()
    b = cpu.unary("neg", x)
    assert cpu.pool.held_bytes() == held, "a dropped output's buffer is handed out again"
    view = b[10:20]                   # a view keeps the buffer
    kept = view.copy()
    del b
    outs = [cpu.binary("mul", x, float(i)) for i in range(4)]   # drains every idle buffer
    assert not any(np.shares_memory(c, view) for c in outs)
    np.testing.assert_array_equal(view, kept)
    np.testing.assert_array_equal(outs[3], x * 3.0)


def test_pool_never_hands_out_arrays_users_or_tensors_hold():
    x_np = _x(POOLED, np.float64, low=-1.0, high=1.0)
    x = eagerad.tensor(x_np)
    held_numpy = (x * 2.0).numpy()    # the Tensor is gone, its array is the user's
    kept_tensor = x.exp()
    mem = memoryview((x + 1.0).numpy())
    outs = [x * 5.0, x.sin(), -x, x ** 2, x - 1.0, x / 3.0]   # many same-sized outputs
    for o in outs:
        for other in (held_numpy, kept_tensor.numpy(), np.asarray(mem)):
            assert not np.shares_memory(o.numpy(), other)
    np.testing.assert_array_equal(held_numpy, x_np * 2.0)
    # float64 exp of this size runs a Numba kernel: a few ulp from numpy's, whose SIMD
    # code differs by CPU (exact equality would hold on one machine only)
    np.testing.assert_array_max_ulp(kept_tensor.numpy(), np.exp(x_np), maxulp=2)
    np.testing.assert_array_equal(np.asarray(mem), x_np + 1.0)
    np.testing.assert_array_equal(outs[0].numpy(), x_np * 5.0)


def test_pool_repeated_steps_give_the_same_gradients():
    x_np = _x(POOLED, np.float32, low=-2.0)
    x = eagerad.tensor(x_np, requires_grad=True)
    grads = []
    for _ in range(3):
        _w3(x).backward()
        grads.append(x.grad)          # each step's gradient stays alive
        x.grad = None
    for g in grads[1:]:
        assert not np.shares_memory(g.numpy(), grads[0].numpy())
        np.testing.assert_array_equal(g.numpy(), grads[0].numpy())


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "atan2"])
def test_large_binary_on_every_core_equals_numpy(op, monkeypatch):
    monkeypatch.setattr(cpu, "SPLIT_BYTES", cpu.pool.MIN_BYTES)     # split these sizes too
    x = _x(POOLED, np.float64, low=0.5)
    y = _x(POOLED, np.float64, seed=1)
    ufunc = cpu.BINARY[op]
    np.testing.assert_array_equal(cpu.binary(op, x, y), ufunc(x, y))
    np.testing.assert_array_equal(cpu.binary(op, x, 1.5), ufunc(x, 1.5))
    np.testing.assert_array_equal(cpu.binary(op, 2, x), ufunc(2, x))
    m = x.reshape(-1, 5)               # broadcasting a row and a column
    np.testing.assert_array_equal(cpu.binary(op, m, y[:5]), ufunc(m, y[:5]))
    col = y[:m.shape[0], None]
    np.testing.assert_array_equal(cpu.binary(op, m, col), ufunc(m, col))
    x32 = x.astype(np.float32)
    got = cpu.binary(op, x32, 2.5)     # a Python float keeps float32 (weak scalar)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(got, ufunc(x32, 2.5))


def test_large_binary_keeps_promotion_and_non_float_results():
    x = _x(POOLED, np.float32)
    y = _x(POOLED, np.float64)
    assert cpu.binary("add", x, y).dtype == np.float64
    assert cpu.binary("lt", x, y).dtype == np.bool_
    i = np.arange(POOLED)
    np.testing.assert_array_equal(cpu.binary("div", i, 3), i / 3)


def test_pow_by_two_and_one_is_exact():
    x = np.random.default_rng(0).standard_normal(POOLED) * 1e3
    np.testing.assert_array_equal(cpu.binary("pow", x, 2), x * x)   # libm's pow may round differently
    np.testing.assert_array_equal(cpu.binary("pow", x, 2.0), x * x)
    np.testing.assert_array_equal(cpu.binary("pow", x, 1), x)
    assert not np.shares_memory(cpu.binary("pow", x, 1), x)


def test_large_inplace_with_overlapping_operand_equals_numpy(monkeypatch):
    monkeypatch.setattr(cpu, "SPLIT_BYTES", cpu.pool.MIN_BYTES)
    x = _x(POOLED, np.float64)
    a, b = x.copy(), x.copy()
    cpu.inplace("add", a, a[::-1])    # overlapping operand: runs on one thread
    b += b[::-1].copy()
    np.testing.assert_array_equal(a, b)
    c = x.copy()
    cpu.inplace("mul", c, 2)
    np.testing.assert_array_equal(c, x * 2)


# ------------------------------------------------- vectorised float64 sin / cos kernel

def _max_ulp(got, ref):
    return float(np.max(np.abs(got - ref) / np.spacing(np.maximum(np.abs(ref), 1e-300))))


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_sincos_kernel_within_two_ulp_over_its_range(op):
    from eagerad.backend.cpu import kernels
    rng = np.random.default_rng(3)
    ref_fn = getattr(np, op)
    for x in (rng.uniform(-4, 4, 200_000), rng.uniform(-1e5, 1e5, 200_000),
              np.logspace(-12, 5, 50_000), -np.logspace(-12, 5, 50_000)):
        assert _max_ulp(kernels.unary_parallel(op, x), ref_fn(x)) <= 2.0
    k = np.arange(-5000, 5000)
    for x in (k * (np.pi / 2), np.nextafter(k * (np.pi / 2), np.inf), k * np.pi):
        got, ref = kernels.unary_parallel(op, x), ref_fn(x)
        # near the zeros the reference result itself is tiny; compare absolutely there
        np.testing.assert_allclose(got, ref, rtol=3e-16, atol=1e-20)


@pytest.mark.parametrize("op", ["sin", "cos"])
def test_sincos_kernel_edge_values(op):
    from eagerad.backend.cpu import kernels
    edge = np.array([0.0, -0.0, 5e-324, -5e-324, 1e-300, -1e-200, np.nan, np.inf, -np.inf,
                     kernels.SINCOS_LIMIT, np.nextafter(kernels.SINCOS_LIMIT, np.inf), -2e5,
                     1e22, -1e300, 1.7976931348623157e308])
    x = np.tile(edge, 1000)
    got = kernels.unary_parallel(op, x)
    with np.errstate(all="ignore"):
        ref = getattr(np, op)(x)
    assert _max_ulp(got[np.isfinite(ref)], ref[np.isfinite(ref)]) <= 1.0
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))   # sin(-0) = -0
    far = np.abs(x) > kernels.SINCOS_LIMIT    # beyond the reduction's range: numpy's values
    np.testing.assert_array_equal(got[far], ref[far])


def test_float32_tanh_kernel_accuracy_and_edge_values():
    from eagerad.backend.cpu import kernels
    rng = np.random.default_rng(4)
    tiny = np.logspace(-38, 1.2, 100_000, dtype=np.float32)
    for x in (rng.uniform(-12, 12, 300_000).astype(np.float32), tiny, -tiny):
        exact = np.tanh(x.astype(np.float64)).astype(np.float32)
        np.testing.assert_array_max_ulp(kernels.tanh_f32(x), exact, maxulp=2)
    edge = np.float32([0.0, -0.0, 1e-45, -1e-45, np.nan, np.inf, -np.inf, 9.0, 9.5, 10.0, 1e30,
                       -1e30, 0.17, 0.18, -0.35, 0.35])
    got = kernels.tanh_f32(np.tile(edge, 100))[:edge.size]
    ref = np.tanh(edge)
    np.testing.assert_array_equal(np.isnan(got), np.isnan(ref))
    np.testing.assert_array_equal(np.signbit(got), np.signbit(ref))     # tanh(-0) = -0
    np.testing.assert_array_max_ulp(got[~np.isnan(ref)], ref[~np.isnan(ref)], maxulp=2)


@pytest.mark.skipif(cpu.CORES < 2, reason="one core: nothing is split")
def test_split_takes_back_slices_no_worker_started():
    """With every worker busy (as when BLAS threads hold the other cores), the
    caller computes the queued slices itself instead of waiting."""
    import threading
    release = threading.Event()
    workers = cpu.threads._executor()
    blockers = [workers.submit(release.wait, 30) for _ in range(cpu.CORES - 1)]
    try:
        x = _x(POOLED, np.float64)
        out = np.empty_like(x)
        cpu._split(np.multiply, out, x, 2.0)
        np.testing.assert_array_equal(out, x * 2.0)
        assert not any(b.done() for b in blockers), "the slices did not wait for the workers"
    finally:
        release.set()


FUSED = {"sin": lambda x: x.sin(), "cos": lambda x: x.cos(), "pow_1": lambda x: x ** 1,
         "pow_2": lambda x: x ** 2, "pow_3": lambda x: x ** 3.0}


@pytest.mark.parametrize("weighted", [False, True])     # g a broadcast scalar / an array
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(FUSED))
def test_one_pass_derivatives_equal_the_rules(name, dtype, weighted, monkeypatch):
    """``cpu.fused_deriv`` (sin, cos, small powers) gives the differentiable rule's bits,
    also beyond the sin/cos kernel's range, where numpy takes over."""
    calls = []
    real = cpu.fused_deriv
    monkeypatch.setattr(cpu, "fused_deriv", lambda *a: calls.append(a[0]) or real(*a))
    x_np = _x(BIG, dtype, low=-3.0, high=3.0)
    x_np[::1000] = np.linspace(-3e5, 3e5, x_np[::1000].size)
    w = eagerad.tensor(np.linspace(-2, 2, BIG).astype(dtype)) if weighted else 1.0

    def grad(create_graph):
        x = eagerad.tensor(x_np, requires_grad=True)
        (g,) = autograd.grad((FUSED[name](x) * w).sum(), x, create_graph=create_graph)
        return g.detach().numpy()
    fast = grad(False)
    ran = list(calls)
    slow = grad(True)       # the recorded rule: one derivative op, the same kernel
    assert fast.dtype == dtype
    np.testing.assert_array_equal(fast, slow)
    # the composed formula by the backend's own elementwise calls
    g = np.asarray(w.numpy() if weighted else np.ones_like(x_np))
    if name == "sin":
        ref = g * cpu.unary("cos", x_np)
    elif name == "cos":
        ref = -g * cpu.unary("sin", x_np)
    else:
        n = int(name[-1])
        ref = (g * dtype(n)) * (x_np * x_np if n == 3 else x_np if n == 2 else 1)
    np.testing.assert_array_equal(fast, ref)
    if name.startswith("pow") or dtype == np.float64:
        assert ran, "the one-pass kernel did not run"


def test_one_pass_derivatives_closed_forms():
    x_np = _x(BIG, np.float64, low=-3.0, high=3.0)
    x = eagerad.tensor(x_np, requires_grad=True)
    (g,) = autograd.grad((x.sin() * x ** 2).sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), np.cos(x_np) * x_np ** 2
                               + 2 * x_np * np.sin(x_np), rtol=1e-13, atol=1e-13)
    (h,) = autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), -np.sin(x_np) * x_np ** 2 + 4 * x_np * np.cos(x_np)
                               + 2 * np.sin(x_np), rtol=1e-12, atol=1e-12)
    (g,) = autograd.grad((x.cos() * 3.0).sum(), x)
    np.testing.assert_allclose(g.numpy(), -3 * np.sin(x_np), rtol=1e-14, atol=1e-15)


def test_one_pass_derivative_declines_what_it_cannot_match():
    x = np.linspace(-1, 1, BIG)
    assert cpu.fused_deriv("sin", np.ones(5), np.zeros(5)) is None          # small
    assert cpu.fused_deriv("sin", np.ones(BIG, np.float32), x.astype(np.float32)) is None
    assert cpu.fused_deriv("pow", np.ones(BIG), x, 2.5) is None
    assert cpu.fused_deriv("pow", np.ones(BIG), x, True) is None
    assert cpu.fused_deriv("sin", np.ones(2 * BIG)[::2], x) is None          # strided g
    np.testing.assert_array_equal(cpu.fused_deriv("pow", np.ones(BIG), x, 3), 3 * (x * x))
