"""The lean per-op paths (eagerad/ops/lean.py) give the general path's numbers bit for bit,
and every feature the general path has still works where they are taken or left."""
import subprocess
import sys

import numpy as np
import pytest

import eagerad
from eagerad.backend import cpu as B
from eagerad.ops.registry import OPS, apply
from eagerad.ops import lean

UNARY = ["sin", "cos", "exp", "tanh", "sigmoid", "relu", "neg", "abs", "square", "log",
         "sqrt", "reciprocal", "tan", "atan", "expm1", "log1p"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "pow"]


def lean_call(name, *args):
    op = OPS[name]
    return op.apply1(*args) if len(args) == 1 else op.apply2(*args)


def general_call(name, *args):
    return apply(OPS[name], args, {})


def _positive(rng, shape, dtype):
    return (rng.uniform(0.5, 2.0, shape) * rng.choice((-1, 1), shape)).astype(dtype)


def _run(call, name, arrays, number, retain=False):
    """Forward and backward of ``name`` on fresh leaves of ``arrays`` (and ``number``)
    through ``call``; returns the output and the leaves' gradients as numpy arrays."""
    leaves = [eagerad.tensor(a, requires_grad=True) for a in arrays]
    args = list(leaves) + ([number] if number is not None else [])
    if name in ("log", "sqrt", "log1p") or name == "pow" and len(leaves) == 2:
        args[0] = call("abs", args[0])
    out = call(name, *args)
    out = call("mul", out, 1.5)         # one more lean node on the path
    (out * out).sum().backward(retain_graph=retain)
    return out.numpy(), [leaf.grad.numpy() for leaf in leaves]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", UNARY)
def test_unary_lean_equals_general(name, dtype):
    rng = np.random.default_rng(0)
    for shape in [(5,), (), (2, 3)]:
        x = _positive(rng, shape, dtype)
        out_l, grads_l = _run(lean_call, name, [x], None)
        out_g, grads_g = _run(general_call, name, [x], None)
        assert out_l.dtype == out_g.dtype == dtype
        np.testing.assert_array_equal(out_l, out_g)
        for a, b in zip(grads_l, grads_g):
            assert a.dtype == b.dtype == dtype
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("name", BINARY)
def test_binary_lean_equals_general(name):
    rng = np.random.default_rng(1)
    shapes = [((4,), (4,)), ((2, 3), (3,)), ((2, 1), (1, 3)), ((), (2, 2))]
    for dtype in (np.float32, np.float64):
        for sx, sy in shapes:
            arrays = [_positive(rng, sx, dtype), _positive(rng, sy, dtype)]
            out_l, grads_l = _run(lean_call, name, arrays, None)
            out_g, grads_g = _run(general_call, name, arrays, None)
            np.testing.assert_array_equal(out_l, out_g)
            for a, b, like in zip(grads_l, grads_g, arrays):
                assert a.shape == like.shape and a.dtype == like.dtype
                np.testing.assert_array_equal(a, b)
        for number in (2.5, 3, 0, 2):
            arrays = [_positive(rng, (3,), dtype)]
            out_l, grads_l = _run(lean_call, name, arrays, number)
            out_g, grads_g = _run(general_call, name, arrays, number)
            np.testing.assert_array_equal(out_l, out_g)
            np.testing.assert_array_equal(grads_l[0], grads_g[0])


def test_chain_matches_closed_form_and_torch():
    """W1's chain: gradients equal to the hand-derived chain rule in float64."""
    x0 = np.linspace(-1.0, 1.0, 7)
    x = eagerad.tensor(x0, requires_grad=True)
    y = x
    for _ in range(5):
        y = eagerad.tanh(eagerad.sin(y) * 1.01 + 0.1)
    y.sum().backward()
    v, saved = x0, []
    for _ in range(5):
        t = np.tanh(np.sin(v) * 1.01 + 0.1)
        saved.append((v, t))
        v = t
    g = np.ones_like(v)
    for v_in, t in reversed(saved):
        g = g * (1 - t * t) * 1.01 * np.cos(v_in)
    np.testing.assert_allclose(x.grad.numpy(), g, rtol=1e-12)
    assert y.grad_fn.lean is not None       # the lean path was the one taken


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_kernels_match_backend_calls():
    """The functions the appliers call directly give the backend's own results, bit for
    bit and dtype for dtype, on every declared kernel."""
    rng = np.random.default_rng(2)
    for op in OPS.values():
        kernel = lean.small_kernel(op)
        if kernel is None:
            continue
        fn, limit = kernel
        kind, name = op.kernel
        for dtype in (np.float32, np.float64):
            for shape in ((6,), ()):
                x = np.asarray(rng.uniform(0.2, 0.9, shape), dtype)
                args = (x,) if kind == "unary" else (x, 0.5)
                try:
                    want = getattr(B, kind)(name, *args)
                except TypeError:          # (bitwise ops on floats): the same refusal
                    with pytest.raises(TypeError):
                        fn(*args)
                    continue
                got = np.asarray(fn(*args))
                assert type(want) is np.ndarray and got.dtype == want.dtype, (name, dtype)
                np.testing.assert_array_equal(got, want)
        assert limit <= B._POOL_ITEMS


def test_large_half_complex_and_int_take_the_backend():
    big = np.linspace(0.1, 1.0, B._POOL_ITEMS + 3)
    out_l, grads_l = _run(lean_call, "sin", [big], None)
    out_g, grads_g = _run(general_call, "sin", [big], None)
    np.testing.assert_array_equal(out_l, out_g)
    np.testing.assert_array_equal(grads_l[0], grads_g[0])
    np.testing.assert_allclose(grads_l[0], 2 * 1.5 ** 2 * np.sin(big) * np.cos(big), rtol=1e-12)
    h = eagerad.tensor(np.float16([0.5, 1.0]))
    np.testing.assert_array_equal(eagerad.exp(h).numpy(), B.unary("exp", np.float16([0.5, 1.0])))
    z = eagerad.tensor(np.array([1 + 2j, 0.5 - 1j]), requires_grad=True)
    w = (z * 2.0).sin()
    w.abs().sum().backward()
    zz = np.array([1 + 2j, 0.5 - 1j])
    expect = np.conj(2 * np.cos(2 * zz)) * np.sin(2 * zz) / np.abs(np.sin(2 * zz))
    np.testing.assert_allclose(z.grad.numpy(), expect, rtol=1e-12)
    i = eagerad.tensor(np.array([1, 2, 3]))
    assert (i * 2).dtype == np.int64 and (i * 2).tolist() == [2, 4, 6]


def test_non_singleton_cpu_device():
    x = eagerad.tensor(np.float32([0.5, 1.0]), requires_grad=True, device=eagerad.device("cpu"))
    y = eagerad.sin(x) * 2.0
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.float32(2.0) * np.cos(np.float32([0.5, 1.0])))


def test_create_graph_goes_through_the_rules():
    x = eagerad.tensor([0.3, 1.2], dtype="float64", requires_grad=True)
    y = eagerad.tanh(eagerad.sin(x) * 2.0)
    (g,) = eagerad.autograd.grad(y.sum(), x, create_graph=True)
    (h,) = eagerad.autograd.grad(g.sum(), x)
    v = x.numpy()
    t = np.tanh(2 * np.sin(v))
    np.testing.assert_allclose(g.numpy(), (1 - t * t) * 2 * np.cos(v), rtol=1e-12)
    # d/dx [(1 - t^2) 2 cos x] = -2 t t' 2 cos x - (1 - t^2) 2 sin x, t' = (1 - t^2) 2 cos x
    tp = (1 - t * t) * 2 * np.cos(v)
    np.testing.assert_allclose(h.numpy(), -2 * t * tp * 2 * np.cos(v) - (1 - t * t) * 2 * np.sin(v),
                               rtol=1e-12)


def test_hooks_and_retain_grad_fire():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    mid = eagerad.sin(x) * 3.0
    mid.retain_grad()
    seen = []
    mid.register_hook(lambda g: seen.append(g.tolist()) or g * 10)
    out = eagerad.tanh(mid)
    out.sum().backward()
    t = np.tanh(3 * np.sin(np.float32([1.0, 2.0])))
    np.testing.assert_allclose(seen[0], 1 - t * t, rtol=1e-6)
    # the retained gradient is the hooked one, as in PyTorch (retain_grad runs last)
    np.testing.assert_allclose(mid.grad.numpy(), 10 * (1 - t * t), rtol=1e-6)
    np.testing.assert_allclose(x.grad.numpy(),
                               10 * (1 - t * t) * 3 * np.cos(np.float32([1.0, 2.0])), rtol=1e-6)


def test_leaf_hook_and_grad_inputs():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 2)
    y = (eagerad.exp(x) + 1.0).sum()
    (g,) = eagerad.autograd.grad(y, x)
    np.testing.assert_allclose(g.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


def test_inplace_change_of_a_saved_input_raises():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    a = x * 1.0
    y = eagerad.sin(a)             # saves a
    assert y.grad_fn.lean is not None
    with eagerad.no_grad():
        a.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_inplace_change_of_a_saved_output_raises():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    y = eagerad.tanh(x)            # saves its output
    with eagerad.no_grad():
        y.mul_(2.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_second_backward_needs_retain_graph():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    y = eagerad.sin(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.cos(np.float32([1.0, 2.0])), rtol=1e-6)
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()


def test_anomaly_mode_still_reports():
    x = eagerad.tensor([0.0], requires_grad=True)
    with eagerad.autograd.detect_anomaly():
        y = eagerad.sqrt(x) * 0.0
        with pytest.raises(RuntimeError, match="nan|NaN"):
            y.sum().backward()


def test_forward_ad_and_vmap_take_the_general_path():
    x = eagerad.tensor([0.5, 1.0], dtype="float64")
    out, tangent = eagerad.jvp(lambda v: eagerad.sin(v) * 2.0, (x,),
                               (eagerad.ones(2, dtype="float64"),))
    np.testing.assert_allclose(tangent.numpy(), 2 * np.cos([0.5, 1.0]), rtol=1e-12)
    batched = eagerad.vmap(lambda v: eagerad.tanh(v) * 3.0)(
        eagerad.tensor([[0.1, 0.2], [0.3, 0.4]]))
    np.testing.assert_allclose(batched.numpy(), 3 * np.tanh(np.float32([[0.1, 0.2], [0.3, 0.4]])),
                               rtol=1e-6)


def test_a_declining_rule_falls_back():
    """pow's array rule declines an exponent of 0: the engine takes the op's rule instead."""
    x = eagerad.tensor([1.5, 2.0], requires_grad=True)
    (x ** 0 * 2.0 + eagerad.exp(x)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(np.float32([1.5, 2.0])), rtol=1e-6)


def test_mixed_dtypes_fall_back_to_general_numbers():
    x = eagerad.tensor(np.float32([1.0, 2.0]), requires_grad=True)
    y = eagerad.tensor(np.float64([3.0, 4.0]), requires_grad=True)
    (x * y).sum().backward()
    assert x.grad.dtype == np.float32 and y.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad.numpy(), np.float32([3.0, 4.0]))
    np.testing.assert_array_equal(y.grad.numpy(), np.float64([1.0, 2.0]))


def test_import_makes_no_fast_path():
    code = ("import eagerad; from eagerad.ops.registry import OPS; "
            "print(sum('apply1' in op.__dict__ or 'array_backward' in op.__dict__ "
            "for op in OPS.values()))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["0"]
