"""Normalisation and loss functions against numpy transcriptions of PyTorch's formulas,
gradients to second order in float64, and PyTorch's edge conventions."""
import numpy as np
import pytest

import eagerad
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import losses as L
from eagerad.ops import normalization as N

RNG = np.random.default_rng(11)


def t64(*shape, grad=True, low=None, high=None):
    data = RNG.normal(size=shape) if low is None else RNG.uniform(low, high, shape)
    return eagerad.tensor(data, dtype=eagerad.float64, requires_grad=grad)


# ------------------------------------------------------------------ normalisation

def test_batch_norm_training_uses_batch_stats_and_updates_running_stats():
    x = RNG.normal(size=(4, 3, 2, 2))
    w, b = RNG.normal(size=3), RNG.normal(size=3)
    rm, rv = eagerad.tensor(np.full(3, 0.5)), eagerad.tensor(np.full(3, 2.0))
    y = N.batch_norm(eagerad.tensor(x), rm, rv, eagerad.tensor(w), eagerad.tensor(b),
                     training=True, momentum=0.3, eps=1e-5)
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    want = (x - mean[:, None, None]) / np.sqrt(var[:, None, None] + 1e-5) * w[:, None, None] \
        + b[:, None, None]
    np.testing.assert_allclose(y.numpy(), want, atol=1e-12)
    np.testing.assert_allclose(rm.numpy(), 0.7 * 0.5 + 0.3 * mean)
    np.testing.assert_allclose(rv.numpy(), 0.7 * 2.0 + 0.3 * x.var(axis=(0, 2, 3), ddof=1))
    ev = N.batch_norm(eagerad.tensor(x), rm, rv, training=False)
    np.testing.assert_allclose(ev.numpy(), (x - rm.numpy()[:, None, None])
                               / np.sqrt(rv.numpy()[:, None, None] + 1e-5), atol=1e-12)


def test_layer_and_group_norm_values():
    x = RNG.normal(size=(2, 4, 3))
    w, b = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
    got = N.layer_norm(eagerad.tensor(x), (4, 3), eagerad.tensor(w), eagerad.tensor(b))
    m, v = x.mean(axis=(1, 2), keepdims=True), x.var(axis=(1, 2), keepdims=True)
    np.testing.assert_allclose(got.numpy(), (x - m) / np.sqrt(v + 1e-5) * w + b, atol=1e-12)
    g = N.group_norm(eagerad.tensor(x), 2, eagerad.tensor(w[:, 0]), eagerad.tensor(b[:, 0]))
    xg = x.reshape(2, 2, 6)
    ref = ((xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + 1e-5))
    np.testing.assert_allclose(g.numpy(), ref.reshape(x.shape) * w[:, :1] + b[:, :1], atol=1e-12)


@pytest.mark.parametrize("fn", [
    lambda x, w, b: N.batch_norm(x, None, None, w, b, training=True),
    lambda x, w, b: N.batch_norm(x, eagerad.zeros(3, dtype=eagerad.float64),
                                 eagerad.ones(3, dtype=eagerad.float64), w, b),
    lambda x, w, b: N.layer_norm(x.reshape(4, 3, 2), (2,), w[:2], b[:2]),
    lambda x, w, b: N.group_norm(x.reshape(2, 3, 4), 3, w, b),
])
def test_normalization_gradients_to_second_order(fn):
    x, w, b = t64(4, 3, 2), t64(3), t64(3)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_normalization_errors_name_the_problem():
    with pytest.raises(ValueError, match="more than one value per channel"):
        N.batch_norm(eagerad.ones(1, 3), None, None, training=True)
    with pytest.raises(ValueError, match="running_mean"):
        N.batch_norm(eagerad.ones(2, 3), None, None)
    with pytest.raises(ValueError, match="normalized_shape"):
        N.layer_norm(eagerad.ones(2, 3), (2,))
    with pytest.raises(ValueError, match="num_groups"):
        N.group_norm(eagerad.ones(2, 3, 4), 2)


# ------------------------------------------------------------------------ losses

def test_binary_cross_entropy_clamps_logs_at_minus_100():
    p, t, w = RNG.uniform(0.05, 0.95, 5), RNG.uniform(0, 1, 5), RNG.uniform(0.5, 2, 5)
    got = L.binary_cross_entropy(eagerad.tensor(p), eagerad.tensor(t), eagerad.tensor(w), "sum")
    np.testing.assert_allclose(got.item(), -(w * (t * np.log(p) + (1 - t) * np.log(1 - p))).sum())
    edge = L.binary_cross_entropy(eagerad.tensor([0.0, 1.0]), eagerad.tensor([1.0, 1.0]), reduction="none")
    assert edge.tolist() == [100.0, 0.0]
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        L.binary_cross_entropy(eagerad.tensor([1.5]), eagerad.tensor([1.0]))


def test_bce_with_logits_matches_formula_and_is_stable():
    x, t = RNG.normal(size=(3, 4)) * 3, RNG.uniform(0, 1, (3, 4))
    w, pw = RNG.uniform(0.5, 2, 4), RNG.uniform(0.5, 3, 4)
    got = L.binary_cross_entropy_with_logits(eagerad.tensor(x), eagerad.tensor(t), eagerad.tensor(w),
                                             "none", eagerad.tensor(pw))
    s = 1 / (1 + np.exp(-x))
    np.testing.assert_allclose(got.numpy(), -w * (pw * t * np.log(s) + (1 - t) * np.log(1 - s)),
                               rtol=1e-10)
    big = L.binary_cross_entropy_with_logits(eagerad.tensor([1000.0, -1000.0]),
                                             eagerad.tensor([0.0, 1.0]), reduction="none")
    assert big.tolist() == [1000.0, 1000.0]
    z = eagerad.tensor([0.0, 0.0], dtype=eagerad.float64, requires_grad=True)
    L.binary_cross_entropy_with_logits(z, eagerad.tensor([1.0, 0.0], dtype=eagerad.float64),
                                       reduction="sum").backward()
    assert z.grad.tolist() == [-0.5, 0.5]         # sigmoid(0) - t, exact at the kink of |x|
    ms = L.binary_cross_entropy_with_logits_ms(eagerad.tensor(x), eagerad.tensor(t), eagerad.tensor(w),
                                               eagerad.tensor(pw), "sum")
    np.testing.assert_allclose(ms.item(), got.numpy().sum())


def ref_ce(x, y, w, ignore, smoothing):
    """PyTorch's cross_entropy (class-index targets, mean) transcribed to numpy."""
    c = x.shape[1]
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    valid = y != ignore
    safe = np.where(valid, y, 0)
    w_t = w[safe] * valid
    nll = -(np.take_along_axis(logp, safe[:, None], 1)[:, 0] * w_t).sum() / w_t.sum()
    smooth = (-(logp * w).sum(1) * valid).sum() / w_t.sum()
    return (1 - smoothing) * nll + smoothing / c * smooth


def test_cross_entropy_weight_ignore_index_label_smoothing():
    x, y = RNG.normal(size=(6, 4)), np.array([0, 3, -100, 2, 1, 3])
    w = RNG.uniform(0.5, 2, 4)
    got = L.cross_entropy_full(eagerad.tensor(x), eagerad.tensor(y), eagerad.tensor(w),
                               label_smoothing=0.1)
    np.testing.assert_allclose(got.item(), ref_ce(x, y, w, -100, 0.1), rtol=1e-12)
    plain = L.cross_entropy_full(eagerad.tensor(x), eagerad.tensor(y), ignore_index=-100)
    np.testing.assert_allclose(plain.item(), ref_ce(x, y, np.ones(4), -100, 0.0), rtol=1e-12)
    nll = L.nll_loss(eagerad.tensor(x), eagerad.tensor(y), eagerad.tensor(w), reduction="sum")
    keep = y != -100
    np.testing.assert_allclose(nll.item(), -(x[keep, y[keep]] * w[y[keep]]).sum())


def test_cross_entropy_spatial_and_probability_targets():
    x = RNG.normal(size=(2, 3, 4))            # (N, C, d): class axis 1
    y = RNG.integers(0, 3, (2, 4))
    got = L.cross_entropy_full(eagerad.tensor(x), eagerad.tensor(y), reduction="none")
    logp = x - np.log(np.exp(x).sum(1, keepdims=True))
    np.testing.assert_allclose(got.numpy(), -np.take_along_axis(logp, y[:, None], 1)[:, 0])
    p = RNG.dirichlet(np.ones(3), size=(2, 4)).transpose(0, 2, 1)
    soft = L.cross_entropy_full(eagerad.tensor(x), eagerad.tensor(p), label_smoothing=0.3)
    np.testing.assert_allclose(soft.item(), -(logp * (0.7 * p + 0.1)).sum(1).mean())


@pytest.mark.parametrize("fn", [
    lambda x, t: L.cross_entropy_full(x, eagerad.tensor([2, 0, -1]), eagerad.tensor([1.0, 2.0, 0.5], dtype=eagerad.float64),
                                      ignore_index=-1, label_smoothing=0.2),
    lambda x, t: L.cross_entropy_full(x, t.softmax(axis=1), label_smoothing=0.1),
    lambda x, t: L.binary_cross_entropy_with_logits(x, t.sigmoid(), t[0].abs(), "mean", x[1].exp()),
    lambda x, t: L.binary_cross_entropy(x.sigmoid(), t.sigmoid()),
    lambda x, t: L.huber_loss(x, t, delta=0.7) + L.smooth_l1_loss(x, t, beta=0.5),
    lambda x, t: L.kl_div(x.log_softmax(axis=1), t.softmax(axis=1), "batchmean")
    + L.kl_div(x, t, log_target=True),
    lambda x, t: L.cosine_similarity(x, t),
    lambda x, t: L.scaled_dot_product_attention(x, t, x * t, is_causal=True),
    lambda x, t: L.scaled_dot_product_attention(x, t, t, attn_mask=eagerad.tensor(np.arange(9.0).reshape(3, 3) / 9)),
    lambda x, t: L.linear(x, t, t[0]),
])
def test_loss_gradients_to_second_order(fn):
    x, t = t64(3, 3), t64(3, 3)
    assert gradcheck(fn, (x, t))
    assert gradgradcheck(fn, (x, t))


def test_huber_smooth_l1_kl_cosine_values():
    d = np.array([-2.0, -0.3, 0.0, 0.4, 3.0])
    x, zero = eagerad.tensor(d), eagerad.zeros(5, dtype=eagerad.float64)
    np.testing.assert_allclose(L.huber_loss(x, zero, "none", 0.5).numpy(),
                               np.where(abs(d) < 0.5, 0.5 * d ** 2, 0.5 * (abs(d) - 0.25)))
    np.testing.assert_allclose(L.smooth_l1_loss(x, zero, "none", 0.5).numpy(),
                               np.where(abs(d) < 0.5, d ** 2, abs(d) - 0.25))
    assert L.smooth_l1_loss(x, zero, "sum", 0.0).item() == abs(d).sum()
    p, q = np.array([[0.2, 0.8, 0.0]]), np.array([[0.3, 0.3, 0.4]])
    kl = L.kl_div(eagerad.tensor(np.log(q)), eagerad.tensor(p), "sum").item()
    np.testing.assert_allclose(kl, 0.2 * np.log(0.2 / 0.3) + 0.8 * np.log(0.8 / 0.3))
    a, b = RNG.normal(size=(4, 3)), RNG.normal(size=(3,))
    cos = L.cosine_similarity(eagerad.tensor(a), eagerad.tensor(b), dim=-1).numpy()
    np.testing.assert_allclose(cos, a @ b / np.linalg.norm(a, axis=1) / np.linalg.norm(b))
    zero_vec = eagerad.zeros(1, 3, dtype=eagerad.float64, requires_grad=True)
    L.cosine_similarity(zero_vec, eagerad.tensor([[1.0, 2.0, 2.0]], dtype=eagerad.float64)).sum().backward()
    assert np.isfinite(zero_vec.grad.numpy()).all()


def test_attention_masks_and_values():
    q, k, v = RNG.normal(size=(2, 3, 4)), RNG.normal(size=(2, 5, 4)), RNG.normal(size=(2, 5, 2))
    mask = RNG.uniform(size=(3, 5)) > 0.3
    mask[:, 0] = True
    got = L.scaled_dot_product_attention(eagerad.tensor(q), eagerad.tensor(k), eagerad.tensor(v),
                                         attn_mask=eagerad.tensor(mask))
    s = np.where(mask, q @ k.transpose(0, 2, 1) / 2.0, -np.inf)
    a = np.exp(s - s.max(-1, keepdims=True))
    np.testing.assert_allclose(got.numpy(), a / a.sum(-1, keepdims=True) @ v, atol=1e-12)


def test_embedding_padding_idx_and_repeats():
    w = eagerad.tensor(RNG.normal(size=(4, 2)), requires_grad=True)
    idx = eagerad.tensor([[1, 1, 0], [3, 0, 2]])
    out = L.embedding(idx, w, padding_idx=0)
    np.testing.assert_array_equal(out.numpy(), w.numpy()[idx.numpy()])
    out.sum().backward()
    np.testing.assert_array_equal(w.grad.numpy()[:, 0], [0, 2, 1, 1])
    with pytest.raises(ValueError, match=r"\[0, 4\)"):
        L.embedding(eagerad.tensor([4]), w)


def test_dropout_and_linear():
    x = eagerad.ones(2000)
    y = L.dropout(x, 0.25).numpy()
    np.testing.assert_allclose(np.unique(y), [0.0, 1 / 0.75], rtol=1e-6)
    assert 0.2 < (y == 0).mean() < 0.3
    assert L.dropout(x, 0.25, training=False) is x
    w, b = RNG.normal(size=(3, 2)), RNG.normal(size=3)
    np.testing.assert_allclose(L.linear(eagerad.tensor(np.eye(2)), eagerad.tensor(w), eagerad.tensor(b)).numpy(),
                               w.T + b)
    assert L.one_hot_long(eagerad.tensor([1, 0])).dtype == eagerad.int64


def test_bce_with_logits_gradient_keeps_its_digits_in_float32():
    # d/dx = (1 - t) sigmoid(x) - pos_weight t sigmoid(-x): small values must not come from 1 - sigmoid
    x = eagerad.tensor([-10.0, -20.0, 15.0, 0.0], requires_grad=True)
    t = eagerad.tensor([0.0, 0.0, 1.0, 1.0])
    eagerad.nn.functional.binary_cross_entropy_with_logits(x, t, reduction="sum",
                                                           pos_weight=eagerad.tensor(2.0)).backward()
    xs, ts = np.array([-10.0, -20.0, 15.0, 0.0]), np.array([0.0, 0.0, 1.0, 1.0])
    sig = 1 / (1 + np.exp(-xs))
    expected = (1 - ts) * sig - 2.0 * ts * (1 / (1 + np.exp(xs)))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=2e-6)
