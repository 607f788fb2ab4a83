"""The lean dispatch paths (fused negative log-likelihood, array-level matmul,
softmax and sum rules and broadcast undoing, creation-order engine walk, in-place SGD)
give the numbers of the plain paths they replace.

- ``cross_entropy`` with class indices is one op (``cross_entropy_index``, one Numba
  pass each way); its forward and first-order gradients equal the composed formula
  to float rounding (float64 sums inside), and its rules stay differentiable (second
  order against the composed formula; the per-op gradcheck cases also cover the op).
- Gradients computed on arrays (no graph recorded) equal the differentiable
  rules (run under ``create_graph=True``) bit for bit.
"""
import numpy as np
import pytest

import eagerad
from eagerad import autograd, nn, ops
from eagerad.ops.reduction import sum as _sum


def _composed(logits, target, reduction, axis=-1):
    """The cross-entropy formula as separate ops (what ``cross_entropy`` recorded before)."""
    loss = -_sum(target * ops.log_softmax(logits, axis), axis=axis)
    return {"mean": loss.mean, "sum": loss.sum, "none": lambda: loss}[reduction]()


def _logits(shape, dtype, seed=0, scale=3.0):
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_sparse_cross_entropy_equals_the_composed_formula_to_rounding(dtype, reduction):
    z = _logits((64, 10), dtype)
    labels = np.random.default_rng(1).integers(0, 10, 64)
    x1 = eagerad.tensor(z, requires_grad=True)
    x2 = eagerad.tensor(z, requires_grad=True)
    fused = ops.cross_entropy(x1, eagerad.tensor(labels), reduction=reduction)
    plain = _composed(x2, ops.one_hot(eagerad.tensor(labels), 10, dtype), reduction)
    seed = np.linspace(0.5, 1.5, fused.size).reshape(fused.shape).astype(dtype)
    fused.backward(eagerad.tensor(seed))
    plain.backward(eagerad.tensor(seed))
    assert fused.dtype == dtype and fused.grad_fn.name == "CrossEntropyIndexBackward"
    tol = 1e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(fused.numpy(), plain.numpy(), rtol=tol, atol=tol)
    np.testing.assert_allclose(x1.grad.numpy(), x2.grad.numpy(), rtol=tol, atol=tol * 0.1)


@pytest.mark.parametrize("axis", [0, 1])
def test_probability_targets_get_gradients_equal_to_the_composed_formula(axis):
    z = _logits((4, 5), np.float32)
    p = np.random.default_rng(2).dirichlet(np.ones(5 if axis == 1 else 4), 5 if axis == 0 else 4)
    p = (p.T if axis == 0 else p).astype(np.float32)
    grads = []
    for fn in (lambda x, t: ops.cross_entropy(x, t, axis=axis),
               lambda x, t: _composed(x, t, "mean", axis)):
        x = eagerad.tensor(z, requires_grad=True)
        t = eagerad.tensor(p, requires_grad=True)
        loss = fn(x, t)
        loss.backward()
        grads.append((loss.numpy(), x.grad.numpy(), t.grad.numpy()))
    for a, b in zip(*grads):
        np.testing.assert_array_equal(a, b)


def test_cross_entropy_gradient_closed_form_and_second_order():
    """d/dz mean CE = (softmax(z) - onehot) / n; the Hessian-vector product through the
    fused rule equals the composed formula's (float64, to rounding)."""
    z = _logits((3, 4), np.float64, seed=3, scale=1.0)
    labels = np.array([0, 3, 1])
    x = eagerad.tensor(z, requires_grad=True)
    (g,) = autograd.grad(ops.cross_entropy(x, labels), x, create_graph=True)
    e = np.exp(z - z.max(1, keepdims=True))
    soft = e / e.sum(1, keepdims=True)
    np.testing.assert_allclose(g.numpy(), (soft - np.eye(4)[labels]) / 3, rtol=1e-12)
    v = eagerad.tensor(np.random.default_rng(4).standard_normal((3, 4)))
    (hv,) = autograd.grad((g * v).sum(), x)
    x2 = eagerad.tensor(z, requires_grad=True)
    (g2,) = autograd.grad(_composed(x2, ops.one_hot(eagerad.tensor(labels), 4, np.float64), "mean"),
                          x2, create_graph=True)
    (hv2,) = autograd.grad((g2 * v).sum(), x2)
    np.testing.assert_allclose(hv.numpy(), hv2.numpy(), rtol=1e-12, atol=1e-15)
    # closed form: H v = (s * v - s * sum(s * v)) / n per row
    sv = soft * v.numpy()
    np.testing.assert_allclose(hv.numpy(), (sv - soft * sv.sum(1, keepdims=True)) / 3, rtol=1e-10)


def test_cross_entropy_is_finite_for_logits_of_plus_minus_1000():
    x = eagerad.tensor([[1000.0, -1000.0, 0.0], [-1000.0, 1000.0, 1000.0]], requires_grad=True)
    loss = ops.cross_entropy(x, [0, 2])
    loss.backward()
    # float32 holds 1000 + log(2) to 6e-5, the old composed formula's accuracy too
    np.testing.assert_allclose(loss.item(), np.log(2) / 2, atol=1e-4)
    np.testing.assert_allclose(x.grad.numpy(), [[0, 0, 0], [0, 0.25, -0.25]], atol=1e-4)
    assert np.isfinite(x.grad.numpy()).all()


def test_cross_entropy_records_one_node():
    """Class indices: the log-softmax, the pick and the mean as one op; probabilities:
    log_softmax, then one negative log-likelihood op."""
    x = eagerad.tensor(_logits((2, 3), np.float32), requires_grad=True)
    loss = ops.cross_entropy(x, [1, 2])
    assert loss.grad_fn.name == "CrossEntropyIndexBackward" and loss.grad_fn.next[0][0] is x
    loss = ops.cross_entropy(x, ops.one_hot(eagerad.tensor([1, 2]), 3))
    assert loss.grad_fn.name == "NllLossBackward"
    inner = loss.grad_fn.next[0][0]
    assert inner.name == "LogSoftmaxBackward" and inner.next[0][0] is x


@pytest.mark.parametrize("op", ["softmax", "log_softmax"])
def test_softmax_array_rules_equal_the_differentiable_rules(op):
    z = _logits((5, 7), np.float32, seed=7)
    v = eagerad.tensor(np.linspace(-2, 3, 35).reshape(5, 7).astype(np.float32))
    grads = []
    for create_graph in (False, True):
        x = eagerad.tensor(z, requires_grad=True)
        (g,) = autograd.grad((getattr(ops, op)(x, axis=0) * v).sum(), x, create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_array_equal(*grads)


def test_one_hot_values_shapes_and_range_errors():
    assert ops.one_hot(eagerad.tensor([2, 0]), 3).tolist() == [[0, 0, 1], [1, 0, 0]]
    assert ops.one_hot(eagerad.tensor([[1], [0]]), 2).shape == (2, 1, 2)
    assert ops.one_hot(eagerad.tensor(np.zeros(0, np.int64)), 4).shape == (0, 4)
    assert ops.one_hot([1], 2, eagerad.float64).dtype == np.float64
    for bad in ([3], [-1]):
        with pytest.raises(ValueError, match=r"labels must lie in \[0, 3\)"):
            ops.one_hot(bad, 3)


def _mlp_grads(create_graph, loss_fn):
    rng = np.random.default_rng(5)
    xb = eagerad.tensor(rng.standard_normal((8, 6)).astype(np.float32), requires_grad=True)
    params = [eagerad.tensor((rng.standard_normal(s) * 0.5).astype(np.float32), requires_grad=True)
              for s in ((6, 5), (5,), (5, 3), (1, 3))]
    w1, b1, w2, b2 = params
    loss = loss_fn((xb @ w1 + b1).relu() @ w2 + b2, rng.integers(0, 3, 8))
    return [g.detach().numpy() for g in autograd.grad(loss, [xb] + params, create_graph=create_graph)]


@pytest.mark.parametrize("loss_fn, rtol", [
    (lambda z, labels: (z * eagerad.tensor(np.linspace(-1, 1, z.size).reshape(z.shape),
                                           dtype=z.dtype)).sum(), 0.0),
    (ops.cross_entropy, 2e-6)], ids=["weighted_sum", "cross_entropy"])
def test_array_level_gradients_equal_the_differentiable_rules(loss_fn, rtol):
    """``create_graph=True`` runs every rule as recorded eagerad ops; without it the
    matmul products, the bias sums and the cross-entropy rule run on arrays (bit for bit,
    but for cross-entropy's one-pass kernel: float32 rounding of its float64 sums)."""
    for fast, plain in zip(_mlp_grads(False, loss_fn), _mlp_grads(True, loss_fn)):
        np.testing.assert_allclose(fast, plain, rtol=rtol, atol=rtol * np.abs(plain).max())


def test_engine_walks_a_node_after_every_path_into_it():
    """Creation order reversed: ``a`` (made first) gets the gradient of three paths, one of
    them through a node recorded after ``b``, before it runs."""
    x = eagerad.tensor([0.5, 2.0], requires_grad=True)
    a = x.sin()
    b = a * 3.0
    c = a.exp() + b
    d = (c * a).sum()
    d.backward()
    xs, s, e = x.numpy(), np.sin(x.numpy()), np.exp(np.sin(x.numpy()))
    # d = sum((e^s + 3 s) s): dd/ds = e^s s + e^s + 6 s; times cos(x)
    np.testing.assert_allclose(x.grad.numpy(), (e * s + e + 6 * s) * np.cos(xs), rtol=1e-6)


def test_sgd_writes_in_place_with_the_out_of_place_numbers():
    rng = np.random.default_rng(6)
    w0, g0 = rng.standard_normal(5).astype(np.float32), rng.standard_normal(5).astype(np.float32)
    for momentum in (0.0, 0.9):
        w = eagerad.Parameter(eagerad.tensor(w0.copy()), name="w")
        view = w.detach()
        opt = nn.SGD([w], learning_rate=0.1, momentum=momentum)
        for step in range(2):
            version = w.version
            opt((eagerad.tensor(g0),))
            assert w.version == version + 1
        buf = g0 * np.float32(0.9) + g0 * np.float32(1.0) if momentum else g0
        expect = (w0 - g0 * np.float32(0.1)) - buf * np.float32(0.1)
        np.testing.assert_array_equal(w.numpy(), expect)
        np.testing.assert_array_equal(view.numpy(), expect)   # same buffer


@pytest.mark.parametrize("axis,keepdims", [(None, False), (1, False), (0, True), ((), False)])
def test_sum_array_rule_equals_the_differentiable_rule(axis, keepdims):
    z = _logits((3, 4), np.float64, seed=8)
    grads = []
    for create_graph in (False, True):
        x = eagerad.tensor(z, requires_grad=True)
        s = ops.sum(x.sin(), axis=axis, keepdims=keepdims)
        w = eagerad.tensor(np.linspace(1, 2, s.size).reshape(s.shape))
        (g,) = autograd.grad((s * w).sum(), x, create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_array_equal(*grads)


def test_inplace_update_without_graph_matches_the_checked_path_and_keeps_errors():
    rng = np.random.default_rng(3)
    p0 = rng.standard_normal((5, 4)).astype(np.float32)
    g0 = rng.standard_normal((5, 4)).astype(np.float32)
    p = eagerad.tensor(p0.copy(), requires_grad=True)
    version = p._version[0]
    with eagerad.no_grad():
        p.sub_(0.01 * eagerad.tensor(g0))
        p.mul_(0.5)
    np.testing.assert_array_equal(p.numpy(), (p0 - np.float32(0.01) * g0) * np.float32(0.5))
    assert p._version[0] == version + 2 and p.grad_fn is None
    with eagerad.no_grad():
        with pytest.raises(ValueError, match="cannot be broadcast"):
            p.add_(eagerad.ones(3))
        with pytest.raises(TypeError, match="cannot be stored"):
            eagerad.tensor([1, 2]).div_(eagerad.tensor([1, 2]))
        with pytest.raises(RuntimeError, match="read-only"):
            eagerad.ones(3).broadcast_to((2, 3)).add_(eagerad.ones(2, 3))
        b = eagerad.tensor([1.0, 2.0])
        b.add_(eagerad.tensor([[1.0, 1.0]])[0])       # a view of another tensor's memory
        assert b.tolist() == [2.0, 3.0]


def test_matmul_hot_path_records_the_same_node_and_keeps_shape_errors():
    rng = np.random.default_rng(4)
    a = eagerad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = eagerad.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    y = a @ b
    assert y.grad_fn.name == "MatmulBackward"
    np.testing.assert_array_equal(y.numpy(), a.numpy() @ b.numpy())
    y.sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), np.ones((3, 2)) @ b.numpy().T)
    with pytest.raises(ValueError, match="not aligned"):
        a @ a
    assert (a @ eagerad.tensor(np.ones((4, 2), np.float32))).dtype == eagerad.float64
