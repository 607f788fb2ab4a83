"""Layers of nn/conv_layers.py and nn/losses_extra.py: both faces' defaults and
parameter names, running statistics, and recurrent/attention layers against numpy."""
import math
import warnings

import numpy as np
import pytest

import eagerad
import eagerad.torch.nn as TN
from eagerad.autograd import gradcheck
from eagerad.nn import conv_layers as CL
from eagerad.nn import losses_extra as LX
from eagerad.ops import convolution as C
from eagerad.ops import losses as L

RNG = np.random.default_rng(5)


def names(cell):
    return [n for n, _ in cell.parameters_and_names()]


def test_conv2d_faces_defaults():
    torch_face = TN.Conv2d(3, 8, 3)
    assert not torch_face.mindspore and torch_face.bias is not None
    assert torch_face(eagerad.ones(1, 3, 6, 6)).shape == (1, 8, 4, 4)
    bound = 1 / math.sqrt(27)
    assert np.abs(torch_face.weight.numpy()).max() <= bound and np.abs(torch_face.bias.numpy()).max() <= bound
    ms = CL.Conv2d(3, 8, 3, pad_mode="same")
    assert ms.mindspore and ms.bias is None and ms(eagerad.ones(1, 3, 6, 6)).shape == (1, 8, 6, 6)
    positional = CL.Conv2d(3, 8, 3, 1, "pad", 1, 1, 1, True)    # MindSpore's positional order
    assert positional.mindspore and positional.bias is not None
    assert positional(eagerad.ones(1, 3, 6, 6)).shape == (1, 8, 6, 6)
    with pytest.raises(TypeError, match="PyTorch's signature"):
        TN.Conv2d(3, 8, 3, groupz=2)
    with pytest.raises(TypeError, match="eagerad.torch.*eagerad.mindspore"):
        CL.Conv2d(3, 8, 3)          # the engine's own layer: the frameworks read this differently
    with pytest.raises(ValueError, match="NCHW"):
        CL.Conv2d(3, 8, 3, data_format="NHWC")


def test_conv_layers_compute_the_functional_ops():
    x = eagerad.tensor(RNG.normal(size=(2, 4, 7, 7)))
    layer = CL.Conv2d(4, 6, (3, 2), stride=2, padding=1, dilation=(1, 2), groups=2)
    want = C.conv2d(x, layer.weight, layer.bias, 2, 1, (1, 2), 2)
    np.testing.assert_allclose(layer(x).numpy(), want.numpy(), rtol=1e-6)
    one = TN.Conv1d(4, 2, 3, padding="same")
    assert one(eagerad.ones(2, 4, 9)).shape == (2, 2, 9)
    up = CL.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
    assert up.weight.shape == (4, 2, 3, 3) and up(x).shape == (2, 2, 14, 14)
    ms_up = CL.Conv2dTranspose(4, 2, 4, stride=2, pad_mode="same")
    assert ms_up(x).shape == (2, 2, 14, 14)
    assert CL.Conv2dTranspose(4, 2, 3, stride=2, pad_mode="valid")(x).shape == (2, 2, 15, 15)


def test_pool_layers_faces():
    x = eagerad.tensor(RNG.normal(size=(1, 2, 6, 6)))
    assert TN.MaxPool2d(2)(x).shape == (1, 2, 3, 3)                       # PyTorch: stride = kernel
    assert CL.MaxPool2d(kernel_size=2, pad_mode="valid")(x).shape == (1, 2, 5, 5)   # MindSpore: 1
    np.testing.assert_allclose(CL.AvgPool2d(3, 3)(x).numpy(), C.avg_pool2d(x, 3).numpy())
    assert CL.AvgPool2d(kernel_size=3, stride=3, pad_mode="pad", padding=1)(x).shape == (1, 2, 2, 2)
    assert CL.AdaptiveAvgPool2d((1, 1))(x).shape == (1, 2, 1, 1)
    with pytest.raises(ValueError, match="pad_mode"):
        CL.MaxPool2d(2, pad_mode="full")
    with pytest.raises(ValueError, match="needs pad_mode='pad'"):
        CL.AvgPool2d(2, pad_mode="same", padding=1)


def _same_pool_reference(x, k, s, reduce):
    """TensorFlow's (MindSpore's) 'SAME' pooling by loops: window i covers rows
    [i*s - top, i*s - top + k) clipped to the image, top = total // 2."""
    n = x.shape[-1]
    out_n = -(-n // s)
    top = max(0, (out_n - 1) * s + k - n) // 2
    out = np.empty(x.shape[:2] + (out_n, out_n))
    for i in range(out_n):
        for j in range(out_n):
            r0, c0 = i * s - top, j * s - top
            win = x[:, :, max(r0, 0):r0 + k, max(c0, 0):c0 + k]
            out[:, :, i, j] = reduce(win, axis=(2, 3))
    return out


@pytest.mark.parametrize("size,k,s", [(5, 2, 2), (6, 3, 1), (7, 3, 2), (4, 4, 3)])
def test_pool_layers_mindspore_same(size, k, s):
    x = eagerad.tensor(RNG.normal(size=(1, 2, size, size)))
    for layer, reduce in ((CL.MaxPool2d, np.max), (CL.AvgPool2d, np.mean)):
        out = layer(kernel_size=k, stride=s, pad_mode="same")(x)
        np.testing.assert_allclose(out.numpy(), _same_pool_reference(x.numpy(), k, s, reduce),
                                   rtol=1e-12)


def test_batch_norm_modes_and_running_statistics():
    bn = TN.BatchNorm2d(3)
    assert names(bn) == ["weight", "bias"]          # PyTorch: the running statistics are buffers
    assert list(bn.state_dict()) == ["weight", "bias", "running_mean", "running_var",
                                     "num_batches_tracked"]
    x = RNG.normal(size=(4, 3, 2, 2)) * 2 + 1
    y = bn(eagerad.tensor(x))
    np.testing.assert_allclose(y.numpy().mean(axis=(0, 2, 3)), 0, atol=1e-6)
    np.testing.assert_allclose(bn.running_mean.numpy(), 0.1 * x.mean(axis=(0, 2, 3)), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.numpy(), 0.9 + 0.1 * x.var(axis=(0, 2, 3), ddof=1),
                               rtol=1e-5)
    before = bn.running_mean.numpy().copy()
    bn.set_train(False)
    out = bn(eagerad.tensor(x))
    np.testing.assert_array_equal(bn.running_mean.numpy(), before)       # eval: no update
    np.testing.assert_allclose(out.numpy(), (x - before[:, None, None]) /
                               np.sqrt(bn.running_var.numpy()[:, None, None] + 1e-5), rtol=1e-5)


def test_batch_norm_mindspore_face_momentum_and_names():
    bn = CL.BatchNorm2d(2, momentum=0.8, use_batch_statistics=None)
    assert names(bn) == ["gamma", "beta", "moving_mean", "moving_variance"]
    x = RNG.normal(size=(3, 2, 2, 2))
    bn(eagerad.tensor(x))
    np.testing.assert_allclose(bn.moving_mean.numpy(), 0.2 * x.mean(axis=(0, 2, 3)), rtol=1e-5)
    frozen = CL.BatchNorm2d(2, use_batch_statistics=False)
    frozen(eagerad.tensor(x))                                            # running stats even in training
    np.testing.assert_array_equal(frozen.moving_mean.numpy(), [0, 0])
    with pytest.warns(UserWarning, match="PyTorch's meaning"):
        TN.BatchNorm1d(2, momentum=0.9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CL.BatchNorm1d(2, momentum=0.9, moving_mean_init="zeros")
    nostats = CL.BatchNorm1d(2, track_running_stats=False, affine=False)
    assert names(nostats) == [] and nostats.set_train(False)(eagerad.ones(3, 2)).shape == (3, 2)
    with pytest.raises(ValueError, match="num_features=2"):
        TN.BatchNorm1d(2)(eagerad.ones(3, 4))


def test_layer_group_norm_and_embedding_faces():
    x = eagerad.tensor(RNG.normal(size=(2, 3, 4)))
    ln = TN.LayerNorm((3, 4))
    np.testing.assert_allclose(ln(x).numpy().reshape(2, -1).std(axis=1), 1, rtol=1e-4)
    ms_ln = CL.LayerNorm((3, 4), begin_norm_axis=1, begin_params_axis=1, epsilon=1e-5)
    assert names(ms_ln) == ["gamma", "beta"]
    np.testing.assert_allclose(ms_ln(x).numpy(), ln(x).numpy(), atol=1e-5)
    with pytest.raises(ValueError, match="begin_norm_axis"):
        CL.LayerNorm((3, 4), begin_norm_axis=-1, begin_params_axis=-1)(x)
    assert names(CL.GroupNorm(1, 3)) == ["weight", "bias"]
    assert names(CL.GroupNorm(1, 3, gamma_init="ones")) == ["gamma", "beta"]
    emb = TN.Embedding(5, 3, padding_idx=-1)
    assert emb.padding_idx == 4 and emb(eagerad.tensor([4])).tolist() == [[0.0, 0.0, 0.0]]
    ms_emb = CL.Embedding(vocab_size=5, embedding_size=3)
    assert names(ms_emb) == ["embedding_table"] and ms_emb(eagerad.tensor([[1]])).shape == (1, 1, 3)


def sig(v):
    return 1 / (1 + np.exp(-v))


def test_lstm_matches_numpy_recurrence_and_gradchecks():
    lstm = CL.LSTM(3, 2, batch_first=True)
    x = RNG.normal(size=(2, 4, 3))
    out, (h, c) = lstm(eagerad.tensor(x))
    p = {n: t.numpy().astype(np.float64) for n, t in lstm.parameters_and_names()}
    hn, cn = np.zeros((2, 2)), np.zeros((2, 2))
    for t in range(4):
        z = x[:, t] @ p["weight_ih_l0"].T + p["bias_ih_l0"] + hn @ p["weight_hh_l0"].T + p["bias_hh_l0"]
        i, f, g, o = np.split(z, 4, axis=1)
        cn = sig(f) * cn + sig(i) * np.tanh(g)
        hn = sig(o) * np.tanh(cn)
        np.testing.assert_allclose(out.numpy()[:, t], hn, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(c.numpy()[0], cn, rtol=1e-5, atol=1e-6)
    small = CL.LSTM(2, 2, dtype=eagerad.float64)
    xs = eagerad.tensor(RNG.normal(size=(3, 1, 2)), requires_grad=True)
    assert gradcheck(lambda v: small(v)[0], (xs,))


def test_gru_matches_numpy_recurrence_and_stacks():
    gru = CL.GRU(3, 2)
    x = RNG.normal(size=(4, 2, 3))
    out, h = gru(eagerad.tensor(x))
    p = {n: t.numpy().astype(np.float64) for n, t in gru.parameters_and_names()}
    hn = np.zeros((2, 2))
    for t in range(4):
        gi = x[t] @ p["weight_ih_l0"].T + p["bias_ih_l0"]
        gh = hn @ p["weight_hh_l0"].T + p["bias_hh_l0"]
        r, z = sig(gi[:, :2] + gh[:, :2]), sig(gi[:, 2:4] + gh[:, 2:4])
        n = np.tanh(gi[:, 4:] + r * gh[:, 4:])
        hn = (1 - z) * n + z * hn
    np.testing.assert_allclose(h.numpy()[0], hn, rtol=1e-5, atol=1e-6)
    deep = CL.GRU(3, 2, num_layers=2, bidirectional=True, has_bias=False)
    assert "weight_hh_l1_reverse" in names(deep) and not any("bias" in n for n in names(deep))
    out, h = deep(eagerad.tensor(x))
    assert out.shape == (4, 2, 4) and h.shape == (4, 2, 2)
    np.testing.assert_allclose(out.numpy()[0, :, 2:], h.numpy()[3], rtol=1e-6)   # reverse ends at t=0


def test_multihead_attention_matches_numpy():
    mha = CL.MultiheadAttention(4, 2)
    q, kv = RNG.normal(size=(3, 1, 4)), RNG.normal(size=(5, 1, 4))
    pad = np.array([[False, False, True, False, False]])
    out, w = mha(eagerad.tensor(q), eagerad.tensor(kv), eagerad.tensor(kv),
                 key_padding_mask=eagerad.tensor(pad))
    W, b = mha.in_proj_weight.numpy(), mha.in_proj_bias.numpy()
    Q, K, V = q[:, 0] @ W[:4].T + b[:4], kv[:, 0] @ W[4:8].T + b[4:8], kv[:, 0] @ W[8:].T + b[8:]
    heads, weights = [], []
    for hd in range(2):
        s = Q[:, 2 * hd:2 * hd + 2] @ K[:, 2 * hd:2 * hd + 2].T / math.sqrt(2)
        s[:, 2] = -np.inf
        a = np.exp(s - s.max(1, keepdims=True))
        a /= a.sum(1, keepdims=True)
        weights.append(a)
        heads.append(a @ V[:, 2 * hd:2 * hd + 2])
    want = np.concatenate(heads, 1) @ mha.out_proj.weight.numpy().T + mha.out_proj.bias.numpy()
    np.testing.assert_allclose(out.numpy()[:, 0], want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(w.numpy()[0], np.mean(weights, 0), rtol=1e-5, atol=1e-6)


def test_loss_cells_orders_and_options():
    x, y = eagerad.tensor(RNG.normal(size=(4, 3))), eagerad.tensor([0, 2, 1, 2])
    w = eagerad.tensor([1.0, 2.0, 0.5])
    got = LX.CrossEntropyLoss(w, ignore_index=1, label_smoothing=0.2)(x, y)
    np.testing.assert_allclose(got.item(), L.cross_entropy_full(x, y, w, 1, "mean", 0.2).item())
    logits, t = eagerad.tensor(RNG.normal(size=(4, 3))), eagerad.tensor(RNG.uniform(size=(4, 3)))
    ms = LX.BCEWithLogitsLoss("sum", w)
    torch_face = LX.BCEWithLogitsLoss(w, "sum")
    assert ms.reduction == torch_face.reduction == "sum"
    np.testing.assert_allclose(ms(logits, t).item(), torch_face(logits, t).item())
    assert LX.SmoothL1Loss(0.5).reduction == "none" and TN.SmoothL1Loss().reduction == "mean"
    np.testing.assert_allclose(LX.NLLLoss(w)(x, y).item(), L.nll_loss(x, y, w).item())
    np.testing.assert_allclose(LX.HuberLoss(delta=0.3)(x, t).item(), L.huber_loss(x, t, delta=0.3).item())
    np.testing.assert_allclose(LX.KLDivLoss("batchmean")(x, t).item(), L.kl_div(x, t, "batchmean").item())
    np.testing.assert_allclose(LX.BCELoss()(t, t).item(), L.binary_cross_entropy(t, t).item())
    with pytest.raises(ValueError, match="reduction"):
        LX.KLDivLoss("avg")


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dims,padding", [(2, 1), (2, (2, 1)), (2, "same"), (1, 2), (1, "same")])
def test_conv_padding_modes_match_pytorch(mode, dims, padding):
    torch = pytest.importorskip("torch")
    shape = (2, 3, 6, 5) if dims == 2 else (2, 3, 7)
    x = RNG.normal(size=shape)
    layer = (CL.Conv2d if dims == 2 else CL.Conv1d)(3, 4, 3, padding=padding, padding_mode=mode,
                                                     dtype=eagerad.float64)
    ref = (torch.nn.Conv2d if dims == 2 else torch.nn.Conv1d)(3, 4, 3, padding=padding,
                                                               padding_mode=mode).double()
    with torch.no_grad():
        ref.weight.copy_(torch.tensor(layer.weight.numpy()))
        ref.bias.copy_(torch.tensor(layer.bias.numpy()))
    np.testing.assert_allclose(layer(eagerad.tensor(x)).numpy(),
                               ref(torch.tensor(x)).detach().numpy(), rtol=1e-10, atol=1e-12)


def test_conv_padding_mode_refused_where_pytorch_refuses():
    with pytest.raises(ValueError, match="padding_mode"):
        CL.Conv2d(1, 1, 3, padding_mode="mirror")
    with pytest.raises(ValueError, match="padding_mode"):
        CL.ConvTranspose2d(1, 1, 3, padding_mode="reflect")
