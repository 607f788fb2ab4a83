"""The torch-face names added by the API sweep (issue 20), checked against real PyTorch."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")


def close(ours, theirs, atol=1e-6):
    np.testing.assert_allclose(np.asarray(ours.detach()._data), theirs.detach().numpy(),
                               atol=atol, rtol=1e-5)


X = np.array([[1.0, -2.0, 3.0], [0.5, 2.0, -1.0]], dtype=np.float64)


@pytest.mark.parametrize("name", ["eq", "ne", "lt", "le", "gt", "ge"])
def test_comparisons(name):
    ours = getattr(torch, name)(torch.tensor(X), 1.0)
    theirs = getattr(pt, name)(pt.tensor(X), 1.0)
    assert ours.tolist() == theirs.tolist()


@pytest.mark.parametrize("name,args", [("relu_", ()), ("sigmoid_", ()), ("exp_", ()),
                                       ("clamp_", (-1.0, 1.0)), ("zero_", ()), ("fill_", (2.5,)),
                                       ("celu_", (0.5,)), ("selu_", ()),
                                       ("threshold_", (0.7, -3.0)), ("abs_", ())])
def test_inplace_functions_write_into_input(name, args):
    ours, theirs = torch.tensor(X), pt.tensor(X)
    out = getattr(torch, name)(ours, *args)
    getattr(pt, name)(theirs, *args)
    assert out is ours
    close(ours, theirs)


def test_inplace_function_is_recorded():
    x = torch.tensor(X, requires_grad=True)
    y = x * 1
    torch.sigmoid_(y)
    y.sum().backward()
    s = 1 / (1 + np.exp(-X))
    np.testing.assert_allclose(x.grad.numpy(), s * (1 - s), rtol=1e-6)


@pytest.mark.parametrize("name", ["dropout", "alpha_dropout", "feature_alpha_dropout",
                                  "feature_dropout"])
def test_dropout_train_argument(name):
    x = torch.tensor(np.ones((4, 3, 5)))
    assert getattr(torch, name)(x, 0.5, False) is x or getattr(torch, name)(x, 0.5, False).equal(x)
    torch.manual_seed(0)
    y = getattr(torch, name)(x, 0.5, True)
    assert not y.equal(x) and y.shape == x.shape


def test_feature_dropout_drops_whole_channels():
    torch.manual_seed(1)
    y = torch.feature_dropout(torch.ones(8, 6, 5), 0.5, True).numpy()
    per_channel = y.reshape(8, 6, 5)
    assert ((per_channel == per_channel[:, :, :1]).all())
    assert set(np.unique(y)) <= {0.0, 2.0}


@pytest.mark.parametrize("reduction", [0, 1, 2])
def test_integer_reduction_losses(reduction):
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    t = np.array([1.0, -1.0, 1.0, -1.0])
    T, P = torch.tensor, pt.tensor
    pairs = [
        (torch.kl_div(T(a), T(np.abs(b)), reduction), pt.kl_div(P(a), P(np.abs(b)), reduction)),
        (torch.cosine_embedding_loss(T(a), T(b), T(t), 0.1, reduction),
         pt.cosine_embedding_loss(P(a), P(b), P(t), 0.1, reduction)),
        (torch.hinge_embedding_loss(T(a), T(np.sign(b)), 0.5, reduction),
         pt.hinge_embedding_loss(P(a), P(np.sign(b)), 0.5, reduction)),
        (torch.margin_ranking_loss(T(a[:, 0]), T(b[:, 0]), T(t), 0.2, reduction),
         pt.margin_ranking_loss(P(a[:, 0]), P(b[:, 0]), P(t), 0.2, reduction)),
        (torch.triplet_margin_loss(T(a), T(b), T(a * 2), 1.0, 2.0, 1e-6, False, reduction),
         pt.triplet_margin_loss(P(a), P(b), P(a * 2), 1.0, 2.0, 1e-6, False, reduction)),
        (torch.binary_cross_entropy_with_logits(T(a), T((b > 0) * 1.0), None, None, reduction),
         pt.binary_cross_entropy_with_logits(P(a), P((b > 0) * 1.0), None, None, reduction)),
        (torch.poisson_nll_loss(T(a), T(np.abs(b)), True, True, 1e-8, reduction),
         pt.poisson_nll_loss(P(a), P(np.abs(b)), True, True, 1e-8, reduction)),
    ]
    for ours, theirs in pairs:
        close(ours, theirs)


def test_pools_batch_norm_rrelu():
    x = np.random.default_rng(1).normal(size=(2, 3, 8, 8))
    close(torch.max_pool2d(torch.tensor(x), 2), pt.max_pool2d(pt.tensor(x), 2))
    close(torch.max_pool1d(torch.tensor(x[:, :, 0]), 3, 2, 1),
          pt.max_pool1d(pt.tensor(x[:, :, 0]), 3, 2, 1))
    close(torch.max_pool3d(torch.tensor(x), 2), pt.max_pool3d(pt.tensor(x), 2))
    ov, oi = torch.adaptive_max_pool1d(torch.tensor(x[:, :, 0]), 3)
    tv, ti = pt.adaptive_max_pool1d(pt.tensor(x[:, :, 0]), 3)
    close(ov, tv)
    assert oi.tolist() == ti.tolist()
    w, b = np.arange(1.0, 4.0), np.array([0.1, -0.2, 0.3])
    close(torch.batch_norm(torch.tensor(x), torch.tensor(w), torch.tensor(b), None, None, True,
                           0.1, 1e-5, False),
          pt.batch_norm(pt.tensor(x), pt.tensor(w), pt.tensor(b), None, None, True, 0.1, 1e-5,
                        False))
    close(torch.rrelu(torch.tensor(x)), pt.rrelu(pt.tensor(x)))


def test_rnn_cells_match_torch():
    rng = np.random.default_rng(2)
    x, h, c = rng.normal(size=(2, 3)), rng.normal(size=(2, 4)), rng.normal(size=(2, 4))
    for name, gates in (("lstm_cell", 4), ("gru_cell", 3), ("rnn_tanh_cell", 1),
                        ("rnn_relu_cell", 1)):
        w_ih, w_hh = rng.normal(size=(4 * gates, 3)), rng.normal(size=(4 * gates, 4))
        b_ih, b_hh = rng.normal(size=4 * gates), rng.normal(size=4 * gates)
        ws = [w_ih, w_hh, b_ih, b_hh]
        state_o = (torch.tensor(h), torch.tensor(c)) if name == "lstm_cell" else torch.tensor(h)
        state_t = (pt.tensor(h), pt.tensor(c)) if name == "lstm_cell" else pt.tensor(h)
        ours = getattr(torch, name)(torch.tensor(x), state_o, *map(torch.tensor, ws))
        theirs = getattr(pt, name)(pt.tensor(x), state_t, *map(pt.tensor, ws))
        for o, t in zip(ours if isinstance(ours, tuple) else [ours],
                        theirs if isinstance(theirs, tuple) else [theirs]):
            close(o, t)


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
@pytest.mark.parametrize("periodic", [True, False])
def test_windows(name, n, periodic):
    ours = getattr(torch, name)(n, periodic, dtype=torch.float64)
    theirs = getattr(pt, name)(n, periodic, dtype=pt.float64)
    close(ours, theirs, atol=1e-12)


def test_window_parameters():
    close(torch.hamming_window(6, True, 0.6, 0.3), pt.hamming_window(6, True, 0.6, 0.3))
    close(torch.kaiser_window(7, False, beta=3.0), pt.kaiser_window(7, False, beta=3.0))


def test_creation_rules():
    with pytest.warns(UserWarning):
        close(torch.range(1, 2, 0.25), pt.range(1, 2, 0.25))
    assert torch.scalar_tensor(3).dtype == torch.float32
    assert torch.broadcast_shapes((2, 1), (1, 3), 3) == pt.broadcast_shapes((2, 1), (1, 3), 3)
    with pytest.raises(RuntimeError, match="broadcast"):
        torch.broadcast_shapes((2,), (3,))
    buf = bytearray(np.arange(4, dtype=np.int32).tobytes())
    assert torch.frombuffer(buf, dtype=torch.int32, offset=4).tolist() == \
        pt.frombuffer(bytearray(buf), dtype=pt.int32, offset=4).tolist()
    assert torch.empty_strided((2, 3), (3, 1)).shape == (2, 3)
    a = np.zeros(3, dtype=np.float32)
    shared = torch.asarray(a)
    a[0] = 7
    assert shared[0].item() == 7.0 and torch.asarray(a, copy=True)[0].item() == 7.0


def test_counting_helpers():
    idx = [0, 5, 7, 11]
    for o, t in zip(torch.unravel_index(torch.tensor(idx), (3, 4)),
                    pt.unravel_index(pt.tensor(idx), (3, 4))):
        assert o.tolist() == t.tolist()
    data = [[1, 1], [1, 1], [2, 3], [1, 1]]
    for dim in (None, 0, 1):
        ours = torch.unique_consecutive(torch.tensor(data), True, True, dim)
        theirs = pt.unique_consecutive(pt.tensor(data), True, True, dim)
        for o, t in zip(ours, theirs):
            assert o.tolist() == t.tolist()
    v = np.random.default_rng(3).normal(size=50)
    oh, oe = torch.histogram(torch.tensor(v), 7, weight=torch.tensor(np.abs(v)))
    th, te = pt.histogram(pt.tensor(v), 7, weight=pt.tensor(np.abs(v)))
    close(oh, th), close(oe, te)
    pts = np.random.default_rng(4).normal(size=(30, 2))
    oh, oe = torch.histogramdd(torch.tensor(pts), [3, 4], range=[-2.0, 2.0, -1.0, 1.0])
    th, te = pt.histogramdd(pt.tensor(pts), [3, 4], range=[-2.0, 2.0, -1.0, 1.0])
    close(oh, th)
    for o, t in zip(oe, te):
        close(o, t)


def test_queries_and_norms():
    x = torch.tensor(X)
    assert torch.is_signed(x) and not torch.is_signed(torch.ones(1, dtype=torch.uint8))
    assert torch.is_same_size(x, torch.zeros(2, 3))
    assert torch.get_device(x) == -1
    assert torch.typename(x) == pt.typename(pt.tensor(X))
    assert torch.typename(1.5) == pt.typename(1.5)
    close(torch.frobenius_norm(x), pt.linalg.matrix_norm(pt.tensor(X)))
    close(torch.nuclear_norm(x), pt.linalg.matrix_norm(pt.tensor(X), "nuc"))
    assert torch.matrix_rank(torch.tensor([[1.0, 2.0], [2.0, 4.0]])).item() == 1
    assert torch.binomial(torch.tensor([4.0, 9.0]), torch.tensor([1.0, 0.0])).tolist() == [4, 0]
    with pytest.raises(ValueError, match="prob"):
        torch.binomial(torch.tensor([1.0]), torch.tensor([1.5]))


def test_modes_and_control_flow():
    assert not torch.is_inference_mode_enabled()
    with torch.inference_mode():
        assert torch.is_inference_mode_enabled() and not torch.is_grad_enabled()
    with torch.inference_mode(False):
        assert not torch.is_inference_mode_enabled()

    @torch.inference_mode()
    def f():
        return torch.is_inference_mode_enabled()
    assert f() and not torch.is_inference_mode_enabled()
    torch.set_anomaly_enabled(True)
    try:
        assert torch.is_anomaly_enabled()
    finally:
        torch.set_anomaly_enabled(False)
    assert torch.cond(torch.tensor(False), lambda v: v + 1, lambda v: v - 1,
                      (torch.ones(1),)).item() == 0.0
    assert torch.while_loop(lambda i, s: i < 4, lambda i, s: (i + 1, s + i),
                            (torch.tensor(0), torch.tensor(0)))[1].item() == 6
