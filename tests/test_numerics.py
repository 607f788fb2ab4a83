"""Precision, float16, edge subgradients and masked logits (issue 12): closed forms and
PyTorch's documented conventions (derivatives.yaml), in float64 unless float16 is the point."""
import math

import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.backend import cpu


def _t(values, dtype=np.float64, requires_grad=False):
    return eagerad.tensor(np.array(values, dtype=dtype), requires_grad=requires_grad)


# ------------------------------------------------ Python scalars at full precision


def test_scalar_base_of_pow_is_not_rounded_through_float32():
    x = _t([0.3, 1.2, -2.0], requires_grad=True)
    y = 1.7 ** x
    y.sum().backward()
    want = 1.7 ** x.numpy() * math.log(1.7)
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=4e-16)


@pytest.mark.parametrize("scalar_first", [False, True])
def test_where_keeps_a_python_scalar_at_the_tensor_precision(scalar_first):
    c = eagerad.tensor([True, False])
    x = _t([1.0, 2.0])
    out = ops.where(~c, 0.1, x) if scalar_first else ops.where(c, x, 0.1)
    assert out.dtype == np.float64 and out.numpy()[1] == 0.1


def test_reflected_scalars_in_float64_are_exact():
    x = _t([0.1, 3.0])
    np.testing.assert_array_equal((2.5 - x).numpy(), 2.5 - x.numpy())
    np.testing.assert_array_equal((0.3 / x).numpy(), 0.3 / x.numpy())


# ------------------------------------------------------------------- float16


def test_float16_arithmetic_with_a_large_scalar_computes_in_float32():
    x = _t([1.0, 3.0], np.float16)
    out = x / 100000
    assert out.dtype == np.float16
    np.testing.assert_array_equal(out.numpy(), np.array([1e-5, 3e-5], np.float32).astype(np.float16))
    want = (x.numpy().astype(np.float32) * np.float32(0.1)).astype(np.float16)   # rounded once
    np.testing.assert_array_equal((x * 0.1).numpy(), want)


def test_float16_sums_and_products_accumulate_in_float32():
    assert eagerad.ones(60000, dtype=eagerad.float16).sum().item() == 60000.0   # float16 stalls at 2048
    assert np.isinf(eagerad.ones(70000, dtype=eagerad.float16).sum().item())     # the result overflows once
    mean = cpu.reduce("mean", np.ones(100000, np.float16), None, False)
    assert mean.dtype == np.float16 and mean == 1.0
    a = eagerad.ones(1, 4096, dtype=eagerad.float16)
    assert (a @ a.T).item() == 4096.0


def test_float16_softmax_over_many_entries_sums_to_one():
    x = eagerad.tensor(np.random.default_rng(0).normal(size=70000).astype(np.float16))
    s = ops.softmax(x)
    assert s.dtype == np.float16
    assert abs(s.astype("float32").sum().item() - 1.0) < 0.02
    ls = ops.log_softmax(x).astype("float64").numpy()
    x64 = x.numpy().astype(np.float64)
    want = x64 - (np.log(np.exp(x64 - x64.max()).sum()) + x64.max())
    np.testing.assert_allclose(ls, want, atol=0.02)


def test_clip_by_global_norm_keeps_float16_gradients():
    grads = [_t(np.full(1000, 300.0), np.float16), _t(np.full(10, 0.5), np.float16)]
    norm = math.sqrt(1000 * 300.0 ** 2 + 10 * 0.25)
    out = ops.clip_by_global_norm(grads, 1.0)
    assert all(o.dtype == np.float16 for o in out)
    np.testing.assert_allclose(out[0].numpy().astype(float), 300.0 / norm, rtol=1e-3)
    np.testing.assert_allclose(out[1].numpy().astype(float), 0.5 / norm, rtol=1e-3)


def test_logsumexp_of_uint8_does_not_overflow():
    out = ops.logsumexp(eagerad.tensor(np.full(300, 200, np.uint8)))
    assert out.dtype.kind == "f"
    assert out.item() == pytest.approx(200 + math.log(300), rel=1e-6)


# --------------------------------------------------------------- subgradients


def test_pow_gradient_at_zero_base_and_zero_exponent_is_zero_to_second_order():
    b = _t([0.0, 0.0, 2.0], requires_grad=True)
    e = _t([0.0, 2.5, 0.0], requires_grad=True)
    gb, ge = eagerad.autograd.grad((b ** e).sum(), [b, e], create_graph=True)
    np.testing.assert_array_equal(gb.numpy(), [0.0, 0.0, 0.0])     # torch: where(e == 0, 0, ...)
    np.testing.assert_array_equal(ge.numpy(), [0.0, 0.0, math.log(2.0)])  # torch: 0 where b == 0, e >= 0
    hb, he = eagerad.autograd.grad((gb + ge).sum(), [b, e])
    # d/db (e b^(e-1) + b^e log b) and d/de of it, with torch's masks at b = 0
    np.testing.assert_allclose(hb.numpy(), [0.0, 0.0, 0.5], rtol=1e-15)
    np.testing.assert_allclose(he.numpy(), [0.0, 0.0, math.log(2.0) ** 2 + 0.5], rtol=1e-15)


def test_pow_of_a_negative_python_base_is_nan_as_in_torch():
    e = _t([2.0, 0.5], requires_grad=True)
    out = (-2.0) ** e
    out.sum().backward()
    assert out.numpy()[0] == 4.0 and np.isnan(out.numpy()[1])
    assert np.isnan(e.grad.numpy()).all()       # log(-2) is NaN, as torch's pow_backward_exponent


def test_clamp_at_the_boundary_passes_the_gradient_as_torch():
    x = _t([-1.0, -0.5, 1.0, 2.0], requires_grad=True)
    ops.clip_by_value(x, -1.0, 1.0).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.0, 1.0, 1.0, 0.0])   # lo <= x <= hi


def test_maximum_and_minimum_share_ties_equally():
    x, y = _t([1.0, 2.0], requires_grad=True), _t([1.0, 3.0], requires_grad=True)
    (ops.maximum(x, y) + 2 * ops.minimum(x, y)).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [1.5, 2.0])
    np.testing.assert_array_equal(y.grad.numpy(), [1.5, 1.0])


# ------------------------------------------------------------ masked logits

_LOGITS = np.array([[1.0, -np.inf, 0.5, -0.2], [0.2, 0.1, -np.inf, -np.inf]])
_KEEP = [[0, 2, 3], [0, 1]]


def _softmax_rows(z):
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


@pytest.mark.parametrize("labels", [np.array([0, 1]),
                                    np.array([[0.7, 0.0, 0.2, 0.1], [0.5, 0.5, 0.0, 0.0]])])
def test_cross_entropy_with_masked_logits_is_finite_with_exact_gradient(labels):
    x = _t(_LOGITS, requires_grad=True)
    target = np.eye(4)[labels] if labels.ndim == 1 else labels
    loss = ops.cross_entropy(x, eagerad.tensor(labels))
    with np.errstate(divide="ignore"):
        logp = np.log(_softmax_rows(_LOGITS))
    want = -np.mean([sum(target[i, j] * logp[i, j] for j in keep) for i, keep in enumerate(_KEEP)])
    assert loss.item() == pytest.approx(want, rel=1e-14)
    g, = eagerad.autograd.grad(loss, [x], create_graph=True)
    np.testing.assert_allclose(g.numpy(), (_softmax_rows(_LOGITS) * target.sum(-1, keepdims=True)
                                           - target) / 2, atol=1e-15)
    h, = eagerad.autograd.grad((g * g).sum(), [x])
    # the masked classes drop out: the same numbers as the problem without them
    for i, keep in enumerate(_KEEP):
        xi = _t(_LOGITS[i, keep][None], requires_grad=True)
        li = ops.cross_entropy(xi, eagerad.tensor(target[i, keep][None])) / 2
        gi, = eagerad.autograd.grad(li, [xi], create_graph=True)
        hi, = eagerad.autograd.grad((gi * gi).sum(), [xi])
        np.testing.assert_allclose(h.numpy()[i, keep], hi.numpy()[0], rtol=1e-12, atol=1e-15)
        assert (h.numpy()[i, [j for j in range(4) if j not in keep]] == 0).all()


def test_nn_cross_entropy_loss_with_masked_logits():
    loss = eagerad.nn.CrossEntropyLoss()(_t(_LOGITS), eagerad.tensor([0, 1]))
    assert np.isfinite(loss.item())


def test_softmax_and_log_softmax_rows_with_masked_entries():
    x = _t(_LOGITS, requires_grad=True)
    np.testing.assert_allclose(ops.softmax(x).numpy(), _softmax_rows(_LOGITS), rtol=1e-15)
    ls = ops.log_softmax(x)
    assert (ls.numpy()[np.isinf(_LOGITS)] == -np.inf).all()
    w = _t([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.5, 2.0, 1.0]])
    (ls * ops.where(ops.isfinite(ls), w, 0.0)).sum().backward()
    assert np.isfinite(x.grad.numpy()).all()


# ---------------------------------------------------------------- namespace


def test_ops_clip_is_the_function_not_a_submodule():
    assert callable(ops.clip) and ops.clip is ops.clip_by_value
    np.testing.assert_array_equal(ops.clip(_t([-2.0, 0.5, 3.0]), -1.0, 1.0).numpy(), [-1.0, 0.5, 1.0])


def test_functional_cross_entropy_options_with_masked_logits():
    F = eagerad.nn.functional
    x = _t(_LOGITS, requires_grad=True)
    probs = _t([[0.5, 0.5, 0.0, 0.0], [0.0, 1.0, 0.0, 0.0]])
    probs = probs * ops.isfinite(_t(_LOGITS))       # no mass on the masked classes
    for loss in (F.cross_entropy(x, eagerad.tensor([0, 1]), weight=_t([1.0, 2.0, 3.0, 4.0])),
                 F.cross_entropy(x, probs), F.cross_entropy(x, eagerad.tensor([0, -100]))):
        (g,) = eagerad.autograd.grad(loss, x)
        assert np.isfinite(loss.item()) and np.isfinite(g.numpy()).all()


def test_sigmoid_keeps_relative_precision_on_the_negative_tail():
    xs = np.array([-30.0, -20.0, -10.0, -1.0, 0.0, 1.0, 10.0, 30.0])
    exact = 1 / (1 + np.exp(-xs))
    for dtype, rtol in ((eagerad.float32, 3e-7), (eagerad.float64, 1e-15)):
        got = ops.sigmoid(eagerad.tensor(xs, dtype=dtype)).numpy()
        np.testing.assert_allclose(got, exact, rtol=rtol)
    assert ops.sigmoid(eagerad.tensor([0.0])).item() == 0.5


def test_float16_mean_accumulates_in_float32():
    assert ops.mean(eagerad.ones(100000, dtype=eagerad.float16)).item() == 1.0
    x = eagerad.tensor(np.full((3, 50000), 2.0, np.float16), requires_grad=True)
    m = x.mean(axis=1)
    assert m.dtype == eagerad.float16 and m.tolist() == [2.0, 2.0, 2.0]
    m.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.float16(1 / 50000), rtol=1e-3)


def test_cross_entropy_class_axis_is_one_as_mindspore_and_torch():
    rng = np.random.default_rng(4)
    z = rng.normal(size=(2, 3, 4))                       # (N, C, d)
    labels = rng.integers(0, 3, size=(2, 4))
    probs = rng.dirichlet(np.ones(3), size=(2, 4)).transpose(0, 2, 1)   # sums to 1 over axis 1
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    picked = np.take_along_axis(logp, labels[:, None, :], axis=1)[:, 0, :]
    x = eagerad.tensor(z, dtype=eagerad.float64)
    np.testing.assert_allclose(ops.cross_entropy(x, eagerad.tensor(labels)).item(),
                               -picked.mean(), rtol=1e-12)
    np.testing.assert_allclose(ops.cross_entropy(x, eagerad.tensor(probs)).item(),
                               -(probs * logp).sum(axis=1).mean(), rtol=1e-12)
    F = eagerad.nn.functional
    np.testing.assert_allclose(F.cross_entropy(x, eagerad.tensor(labels)).item(),
                               -picked.mean(), rtol=1e-12)
