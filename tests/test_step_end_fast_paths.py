"""The pieces that end every training step, on their fast paths (issue 23): cross-entropy
over class indices as one op (``ops/class_cross_entropy.py``), the embedding op, gradient
clipping on bare arrays and ``Module.parameters()``.  Values and gradients against float64
closed forms and PyTorch (where installed); second order, forward mode and the kept
exponentials against the same references."""
import numpy as np
import pytest

import eagerad
import eagerad.nn.functional as F
from eagerad import autograd, nn, ops


def _reference(x, t, w, ignore, smoothing, reduction):
    """Cross-entropy of float64 scores (N, C) and its gradient for an output gradient of 1
    (per row for 'none'), from the definition."""
    x = x.astype(np.float64)
    n, c = x.shape
    w = np.ones(c) if w is None else w.astype(np.float64)
    valid = t != ignore
    safe = np.where(valid, t, 0)
    lse = np.log(np.exp(x - x.max(1, keepdims=True)).sum(1)) + x.max(1)
    logp = x - lse[:, None]
    w_t = np.where(valid, w[safe], 0.0)
    nll = -w_t * logp[np.arange(n), safe]
    smooth = -(logp * w).sum(1) * valid
    rows = (1 - smoothing) * nll + smoothing / c * smooth
    soft = np.exp(logp)
    hot = np.eye(c)[safe]
    grad = ((1 - smoothing) * w_t[:, None] * (soft - hot)
            + smoothing / c * valid[:, None] * (w.sum() * soft - w))
    if reduction == "none":
        return rows, grad
    if reduction == "sum":
        return rows.sum(), grad
    return rows.sum() / w_t.sum(), grad / w_t.sum()


OPTIONS = [dict(), dict(reduction="sum"), dict(reduction="none"), dict(label_smoothing=0.2),
           dict(ignore_index=1), dict(weight=True), dict(weight=True, ignore_index=2,
                                                         label_smoothing=0.3, reduction="none"),
           dict(weight=True, ignore_index=0, label_smoothing=0.1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("options", OPTIONS)
def test_cross_entropy_values_and_gradients_follow_the_definition(dtype, options):
    rng = np.random.default_rng(0)
    z = (rng.standard_normal((7, 5)) * 3).astype(dtype)
    t = rng.integers(0, 5, 7)
    w = rng.uniform(0.2, 2.0, 5) if options.get("weight") else None
    kwargs = dict(options, weight=None if w is None else eagerad.tensor(w.astype(dtype)))
    x = eagerad.tensor(z, requires_grad=True)
    loss = F.cross_entropy(x, eagerad.tensor(t), **kwargs)
    assert loss.grad_fn.name == "CrossEntropyIndexBackward" and loss.dtype == dtype
    reduction = options.get("reduction", "mean")
    seed = np.linspace(0.5, 1.5, loss.size).reshape(loss.shape)
    loss.backward(eagerad.tensor(seed.astype(dtype)))
    value, grad = _reference(z, t, w, options.get("ignore_index", -100),
                             options.get("label_smoothing", 0.0), reduction)
    grad = grad * (seed[:, None] if reduction == "none" else seed)
    tol = 2e-6 if dtype == np.float32 else 1e-13
    np.testing.assert_allclose(loss.numpy(), value, rtol=tol, atol=tol)
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=tol, atol=tol)
    if "ignore_index" in options:
        assert not x.grad.numpy()[t == options["ignore_index"]].any()


def test_cross_entropy_matches_torch_on_k_dimensional_and_one_dimensional_scores():
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    for shape, tshape in [((3, 4, 2, 5), (3, 2, 5)), ((4,), ())]:
        z = rng.standard_normal(shape).astype(np.float32)
        t = rng.integers(0, 4, tshape)
        for reduction in ("mean", "none"):
            x, tx = eagerad.tensor(z, requires_grad=True), torch.tensor(z, requires_grad=True)
            a = F.cross_entropy(x, eagerad.tensor(t), reduction=reduction, label_smoothing=0.1)
            b = torch.nn.functional.cross_entropy(tx, torch.tensor(t), reduction=reduction,
                                                  label_smoothing=0.1)
            a.sum().backward()
            b.sum().backward()
            assert a.shape == tuple(b.shape)
            np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=2e-6, atol=1e-6)
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=2e-6, atol=1e-7)


def test_cross_entropy_second_order_and_forward_mode_follow_the_definition():
    """The Hessian-vector product through create_graph and the jvp equal the closed
    forms of the weighted, smoothed loss (float64)."""
    rng = np.random.default_rng(2)
    z = rng.standard_normal((4, 3))
    t = np.array([0, 2, -100, 1])
    w = np.array([0.5, 2.0, 1.0])
    v = rng.standard_normal((4, 3))

    def loss(x):
        return F.cross_entropy(x, eagerad.tensor(t), weight=eagerad.tensor(w),
                               label_smoothing=0.2)

    x = eagerad.tensor(z, requires_grad=True)
    (g,) = autograd.grad(loss(x), x, create_graph=True)
    (hv,) = autograd.grad((g * eagerad.tensor(v)).sum(), x)
    _, grad = _reference(z, t, w, -100, 0.2, "mean")
    np.testing.assert_allclose(g.numpy(), grad, rtol=1e-12, atol=1e-15)
    # d/dx of s * (A softmax - B) along v: s * A * (soft * v - soft * <soft, v>)
    soft = np.exp(z - z.max(1, keepdims=True))
    soft /= soft.sum(1, keepdims=True)
    valid = t != -100
    w_t = np.where(valid, w[np.where(valid, t, 0)], 0.0)
    a = 0.8 * w_t + 0.2 / 3 * w.sum() * valid
    expect = a[:, None] * (soft * v - soft * (soft * v).sum(1, keepdims=True)) / w_t.sum()
    np.testing.assert_allclose(hv.numpy(), expect, rtol=1e-12, atol=1e-15)
    _, tangent = eagerad.jvp(loss, (eagerad.tensor(z),), (eagerad.tensor(v),))
    np.testing.assert_allclose(tangent.item(), (grad * v).sum(), rtol=1e-12)


def test_cross_entropy_bad_targets_raise_and_kept_exponentials_belong_to_their_call():
    x = eagerad.tensor(np.zeros((2, 3), np.float32), requires_grad=True)
    with pytest.raises(ValueError, match=r"class indices must lie in \[0, 3\).*from 0 to 3"):
        F.cross_entropy(x, eagerad.tensor([0, 3]))
    with pytest.raises(ValueError, match=r"class indices must lie in \[0, 3\)"):
        ops.cross_entropy(x, eagerad.tensor([-100, 1]))     # no ignore_index there
    z = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    x = eagerad.tensor(z, requires_grad=True)
    first = F.cross_entropy(x, eagerad.tensor([0, 1, 2, 3, 0]))
    second = F.cross_entropy(x * 2.0, eagerad.tensor([3, 3, 1, 0, 2]), reduction="sum")
    (first + second).backward()
    g1 = _reference(z, np.array([0, 1, 2, 3, 0]), None, -100, 0.0, "mean")[1]
    g2 = _reference(2 * z, np.array([3, 3, 1, 0, 2]), None, -100, 0.0, "sum")[1]
    np.testing.assert_allclose(x.grad.numpy(), g1 + 2 * g2, rtol=2e-6, atol=1e-7)
    loss = F.cross_entropy(x, eagerad.tensor([0, 1, 2, 3, 0]))
    with eagerad.no_grad():
        x.add_(1.0)
    with pytest.raises(RuntimeError):
        loss.backward()                   # the scores changed after the forward


def test_embedding_gradient_adds_rows_and_checks_indices():
    rng = np.random.default_rng(4)
    w0 = rng.standard_normal((6, 3))
    idx = np.array([[0, 5, 5], [2, 0, 5]])
    w = eagerad.tensor(w0, requires_grad=True)
    out = F.embedding(eagerad.tensor(idx), w)
    assert out.grad_fn.name == "EmbeddingBackward"
    np.testing.assert_array_equal(out.numpy(), w0[idx])
    seed = rng.standard_normal(out.shape)
    (g,) = autograd.grad((out * eagerad.tensor(seed)).sum(), w, create_graph=True)
    expect = np.zeros_like(w0)
    np.add.at(expect, idx, seed)
    np.testing.assert_allclose(g.numpy(), expect, rtol=1e-15)
    (g2,) = autograd.grad((out * out).sum(), w, create_graph=True)      # 2 * rows added
    (gg,) = autograd.grad(g2.sum(), w)
    counts = np.bincount(idx.ravel(), minlength=6)[:, None]
    np.testing.assert_allclose(gg.numpy(), 2.0 * counts * np.ones((1, 3)), rtol=1e-15)
    with pytest.raises(ValueError, match=r"indices must lie in \[0, 6\), got values from -1"):
        F.embedding(eagerad.tensor([-1, 2]), w)


def test_clip_grad_norm_on_arrays_scales_in_place_and_bumps_versions():
    rng = np.random.default_rng(5)
    grads = [rng.standard_normal(s).astype(np.float32) for s in ((40, 30), (30,))]
    params = [eagerad.Parameter(eagerad.zeros(*g.shape)) for g in grads]
    for p, g in zip(params, grads):
        p.grad = eagerad.tensor(g.copy())
    versions = [p.grad.version for p in params]
    norm = nn.utils.clip_grad_norm_(params, 1.0)
    exact = np.sqrt(sum((g.astype(np.float64) ** 2).sum() for g in grads))
    assert norm.dtype == np.float32
    np.testing.assert_allclose(norm.item(), exact, rtol=1e-7)
    for p, g, v in zip(params, grads, versions):
        np.testing.assert_allclose(p.grad.numpy(), g * np.float32(1.0 / (exact + 1e-6)),
                                   rtol=1e-6)
        assert p.grad.version == v + 1
    params[0].grad = eagerad.tensor(np.full((40, 30), np.inf, np.float32))
    with pytest.raises(RuntimeError, match="total norm"):
        nn.utils.clip_grad_norm_(params[:1], 1.0, error_if_nonfinite=True)


def test_parameters_keep_the_order_of_named_parameters_with_shared_layers():
    shared = nn.Linear(2, 2)
    net = nn.SequentialCell(nn.Linear(3, 2), shared, nn.ReLU(), shared, nn.Linear(2, 1))
    names = [p for _, p in net.named_parameters()]
    assert list(net.parameters()) == names and len(names) == 6
    assert [id(p) for p in net.get_parameters(expand=False)] == []


def test_embedding_op_batching_rule_picks_each_samples_rows():
    """vmap over the op itself (as a jvp or a batched backward reaches it): batched
    indices, a batched table, or both."""
    from eagerad.ops.losses import _embedding
    rng = np.random.default_rng(6)
    tables = rng.standard_normal((3, 5, 2))
    picks = rng.integers(0, 5, (3, 4))
    w, idx = eagerad.tensor(tables), eagerad.tensor(picks)
    got = eagerad.vmap(lambda a: _embedding(a, eagerad.tensor(picks[0])))(w)
    np.testing.assert_array_equal(got.numpy(), tables[:, picks[0]])
    got = eagerad.vmap(lambda i: _embedding(eagerad.tensor(tables[0]), i))(idx)
    np.testing.assert_array_equal(got.numpy(), tables[0][picks])
    got = eagerad.vmap(_embedding)(w, idx)
    np.testing.assert_array_equal(got.numpy(), np.stack([tables[k][picks[k]] for k in range(3)]))
