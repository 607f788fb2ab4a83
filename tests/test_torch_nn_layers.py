"""torch.nn layers of the PyTorch face against PyTorch itself: the same weights (PyTorch's
state dict loaded by name), float64 forward values and gradients of the inputs and of
every parameter (rtol 1e-10)."""
import numpy as np
import pytest

import eagerad.torch as et

torch = pytest.importorskip("torch")

RTOL = 1e-10


def _flat(out):
    """The tensors in a (nested) tuple output, in order, skipping None."""
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _flat(o)]
    return [] if out is None else [out]


def _load(tm, em):
    """PyTorch module ``tm``'s float64 state dict into ``em``, by name."""
    em.double()
    state = {k: et.tensor(v.detach().double().numpy()) for k, v in tm.state_dict().items()}
    assert sorted(state) == sorted(k for k, _ in em.state_dict().items())
    em.load_state_dict(state)


def check(tm, em, *arrays, load=True, **kwargs):
    """Forward ``arrays`` (float arrays get gradients) through both; compare outputs and
    the gradients of a random weighted sum of them."""
    tm = tm.double()
    if load:
        _load(tm, em)
    rng = np.random.default_rng(0)
    t_in = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    e_in = [et.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    t_out, e_out = _flat(tm(*t_in, **kwargs["t"] if "t" in kwargs else {})), \
        _flat(em(*e_in, **kwargs["e"] if "e" in kwargs else {}))
    assert len(t_out) == len(e_out)
    loss_t, loss_e = 0, 0
    for t, e in zip(t_out, e_out):
        assert tuple(t.shape) == tuple(e.shape)
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=RTOL, atol=1e-12)
        w = rng.standard_normal(tuple(t.shape))
        loss_t = loss_t + (t * torch.tensor(w)).sum()
        loss_e = loss_e + (e * et.tensor(w)).sum()
    loss_t.backward()
    loss_e.backward()
    for t, e in zip(t_in, e_in):
        if t.requires_grad:
            np.testing.assert_allclose(e.grad.numpy(), t.grad.numpy(), rtol=RTOL, atol=1e-12)
    e_params = dict(em.named_parameters())
    t_params = dict(tm.named_parameters())
    assert sorted(e_params) == sorted(t_params)
    for name, p in t_params.items():
        np.testing.assert_allclose(e_params[name].grad.numpy(), p.grad.numpy(), rtol=RTOL,
                                   atol=1e-12, err_msg=name)
    return e_out


def x(*shape, seed=1):
    return np.random.default_rng(seed).standard_normal(shape)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize("bias", [True, False])
def test_rnn_cell(nonlinearity, bias):
    check(torch.nn.RNNCell(3, 4, bias=bias, nonlinearity=nonlinearity),
          et.nn.RNNCell(3, 4, bias=bias, nonlinearity=nonlinearity), x(2, 3), x(2, 4, seed=2))


def test_cells_unbatched_and_default_state():
    check(torch.nn.GRUCell(3, 4), et.nn.GRUCell(3, 4), x(3))
    check(torch.nn.LSTMCell(3, 4), et.nn.LSTMCell(3, 4), x(2, 3))


def test_lstm_cell_with_state():
    tm, em = torch.nn.LSTMCell(3, 5).double(), et.nn.LSTMCell(3, 5)
    _load(tm, em)
    h, c = x(2, 5, seed=3), x(2, 5, seed=4)
    th, tc = tm(torch.tensor(x(2, 3)), (torch.tensor(h), torch.tensor(c)))
    eh, ec = em(et.tensor(x(2, 3)), (et.tensor(h), et.tensor(c)))
    np.testing.assert_allclose(eh.numpy(), th.detach().numpy(), rtol=RTOL)
    np.testing.assert_allclose(ec.numpy(), tc.detach().numpy(), rtol=RTOL)


@pytest.mark.parametrize("kw", [dict(), dict(nonlinearity="relu", num_layers=2),
                                dict(num_layers=2, bidirectional=True, batch_first=True),
                                dict(bias=False, bidirectional=True)])
def test_rnn(kw):
    shape = (2, 5, 3) if kw.get("batch_first") else (5, 2, 3)
    check(torch.nn.RNN(3, 4, **kw), et.nn.RNN(3, 4, **kw), x(*shape))
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    check(torch.nn.RNN(3, 4, **kw), et.nn.RNN(3, 4, **kw), x(*shape), x(layers, 2, 4, seed=5))


def test_rnn_unbatched_and_dropout_between_layers():
    check(torch.nn.RNN(3, 4, 2), et.nn.RNN(3, 4, 2), x(5, 3))
    m = et.nn.RNN(3, 4, num_layers=2, dropout=0.5)
    assert m.training
    a, b = m(et.tensor(x(5, 2, 3)))[0], m(et.tensor(x(5, 2, 3)))[0]
    assert not np.allclose(a.numpy(), b.numpy())        # dropout between layers is live
    m.eval()
    a, b = m(et.tensor(x(5, 2, 3)))[0], m(et.tensor(x(5, 2, 3)))[0]
    np.testing.assert_array_equal(a.numpy(), b.numpy())


def test_rnn_bad_nonlinearity():
    with pytest.raises(ValueError, match="nonlinearity"):
        et.nn.RNN(3, 4, nonlinearity="sigmoid")


LAYER_KW = [dict(), dict(norm_first=True, activation="gelu", batch_first=True),
            dict(activation=lambda t: t.tanh() * 2, bias=False)]    # any callable


@pytest.mark.parametrize("kw", LAYER_KW)
def test_transformer_encoder_layer(kw):
    args = (8, 2, 16)
    src = x(2, 5, 8) if kw.get("batch_first") else x(5, 2, 8)
    check(torch.nn.TransformerEncoderLayer(*args, dropout=0.0, **kw),
          et.nn.TransformerEncoderLayer(*args, dropout=0.0, **kw), src)


def test_transformer_encoder_layer_masks():
    args = (8, 2, 16)
    mask = np.triu(np.ones((5, 5), bool), 1)
    padding = np.zeros((2, 5), bool)
    padding[1, 3:] = True
    kwargs = dict(t=dict(src_mask=torch.tensor(mask), src_key_padding_mask=torch.tensor(padding)),
                  e=dict(src_mask=et.tensor(mask), src_key_padding_mask=et.tensor(padding)))
    check(torch.nn.TransformerEncoderLayer(*args, dropout=0.0),
          et.nn.TransformerEncoderLayer(*args, dropout=0.0), x(5, 2, 8), **kwargs)


@pytest.mark.parametrize("kw", LAYER_KW)
def test_transformer_decoder_layer(kw):
    args = (8, 2, 16)
    tgt, mem = (x(2, 4, 8), x(2, 6, 8, seed=2)) if kw.get("batch_first") else \
        (x(4, 2, 8), x(6, 2, 8, seed=2))
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    check(torch.nn.TransformerDecoderLayer(*args, dropout=0.0, **kw),
          et.nn.TransformerDecoderLayer(*args, dropout=0.0, **kw), tgt, mem,
          t=dict(tgt_mask=mask), e=dict(tgt_mask=et.nn.Transformer.generate_square_subsequent_mask(4)))


def test_square_subsequent_mask():
    np.testing.assert_array_equal(et.nn.Transformer.generate_square_subsequent_mask(5).numpy(),
                                  torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())


def test_encoder_and_decoder_stacks():
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    el = et.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0)
    check(torch.nn.TransformerEncoder(tl, 2, norm=torch.nn.LayerNorm(8), enable_nested_tensor=False),
          et.nn.TransformerEncoder(el, 2, norm=et.nn.LayerNorm(8)), x(5, 2, 8))
    tl = torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    el = et.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    check(torch.nn.TransformerDecoder(tl, 2), et.nn.TransformerDecoder(el, 2), x(3, 2, 8),
          x(5, 2, 8, seed=3))


def test_stack_layers_are_independent_copies():
    enc = et.nn.TransformerEncoder(et.nn.TransformerEncoderLayer(4, 2, 8), 2)
    assert enc.layers[0].linear1.weight is not enc.layers[1].linear1.weight


def test_transformer():
    kw = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=1,
              dim_feedforward=16, dropout=0.0, batch_first=True)
    mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    check(torch.nn.Transformer(**kw), et.nn.Transformer(**kw), x(2, 6, 8), x(2, 4, 8, seed=2),
          t=dict(tgt_mask=mask), e=dict(tgt_mask=et.nn.Transformer.generate_square_subsequent_mask(4)))


def test_transformer_xavier_init():
    m = et.nn.Transformer(8, 2, 1, 1, 16)
    w = m.encoder.layers[0].linear1.weight.numpy()
    bound = np.sqrt(6.0 / (8 + 16))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.8 * bound


def test_transformer_dropout_is_live_in_training():
    m = et.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    src = et.tensor(x(5, 2, 8))
    assert not np.allclose(m(src).numpy(), m(src).numpy())
    m.eval()
    np.testing.assert_array_equal(m(src).numpy(), m(src).numpy())


def test_lazy_linear():
    em = et.nn.LazyLinear(4)
    assert list(em.parameters()) == [] and em.has_uninitialized_params()
    em(et.tensor(x(2, 3)))
    assert em.in_features == 3 and isinstance(em, et.nn.Module)
    check(torch.nn.Linear(3, 4), em, x(2, 3))


def test_lazy_conv2d_keeps_mode_and_arguments():
    em = et.nn.LazyConv2d(4, 3, stride=2, padding=1, bias=False)
    em.eval()
    em(et.tensor(x(1, 2, 7, 7)))
    assert not em.training and em.weight.shape == (4, 2, 3, 3) and em.bias is None
    check(torch.nn.Conv2d(2, 4, 3, stride=2, padding=1, bias=False), em, x(1, 2, 7, 7))


@pytest.mark.parametrize("kw", [dict(scale_factor=2), dict(size=(5, 3), mode="bilinear"),
                                dict(scale_factor=2, mode="bilinear", align_corners=True)])
def test_upsample(kw):
    check(torch.nn.Upsample(**kw), et.nn.Upsample(**kw), x(1, 2, 3, 4))


def test_unflatten_and_pixel_shuffle():
    check(torch.nn.Unflatten(1, (2, 3)), et.nn.Unflatten(1, (2, 3)), x(4, 6, 2))
    check(torch.nn.PixelShuffle(2), et.nn.PixelShuffle(2), x(2, 8, 3, 5))
    check(torch.nn.PixelUnshuffle(2), et.nn.PixelUnshuffle(2), x(2, 2, 4, 6))
    with pytest.raises(ValueError, match="upscale_factor"):
        et.nn.PixelShuffle(2)(et.ones(1, 3, 2, 2))
    with pytest.raises(ValueError, match="cannot be split"):
        et.nn.Unflatten(1, (4, 2))(et.ones(2, 6))


def test_bilinear():
    check(torch.nn.Bilinear(3, 4, 5), et.nn.Bilinear(3, 4, 5), x(2, 3), x(2, 4, seed=2))
    check(torch.nn.Bilinear(3, 4, 5, bias=False), et.nn.Bilinear(3, 4, 5, bias=False),
          x(6, 3), x(6, 4, seed=2))


def test_nn_modules_import_paths():
    from eagerad.torch.nn.modules.linear import Linear
    from eagerad.torch.nn.modules.module import Module
    from eagerad.torch.nn.modules import activation, batchnorm, container, conv, dropout, loss, rnn, transformer
    assert Linear is et.nn.Linear and Module is et.nn.Module and rnn.GRUCell is et.nn.GRUCell
    assert transformer.Transformer is et.nn.Transformer and conv.Conv2d is et.nn.Conv2d
    assert (activation.ReLU, batchnorm.BatchNorm2d, container.Sequential, dropout.Dropout,
            loss.MSELoss) == (et.nn.ReLU, et.nn.BatchNorm2d, et.nn.Sequential, et.nn.Dropout,
                              et.nn.MSELoss)
    for sub, names in et.nn.modules._SUBMODULES.items():      # every name is PyTorch's path too
        torch_sub = __import__(f"torch.nn.modules.{sub}", fromlist=["_"])
        assert all(hasattr(torch_sub, n) for n in names.split()), sub


def test_data_parallel_runs_the_module():
    inner = et.nn.Linear(3, 2)
    net = et.nn.parallel.DataParallel(inner)
    x_ = et.tensor(x(4, 3))
    np.testing.assert_array_equal(net(x_).numpy(), inner(x_).numpy())
    assert list(net.state_dict()) == ["module.weight", "module.bias"]
    net(x_).sum().backward()
    np.testing.assert_allclose(inner.weight.grad.numpy(), np.tile(x(4, 3).sum(0), (2, 1)),
                               rtol=1e-6)


def test_onnx_export_says_it_is_missing():
    with pytest.raises(NotImplementedError, match="ONNX export is not supported by eagerad"):
        et.onnx.export(et.nn.Linear(2, 2), (et.ones(1, 2),), "model.onnx")


def test_transformer_decoder_layer_padding_masks():
    tgt_pad, mem_pad = np.zeros((2, 4), bool), np.zeros((2, 6), bool)
    tgt_pad[0, 3], mem_pad[1, 4:] = True, True
    mem_mask = np.zeros((4, 6))
    mem_mask[0, 1] = -np.inf
    tgt_pad, mem_pad = (np.where(m, -np.inf, 0.0) for m in (tgt_pad, mem_pad))  # float, as the masks
    kw = dict(tgt_key_padding_mask=tgt_pad, memory_key_padding_mask=mem_pad,
              memory_mask=mem_mask, tgt_is_causal=True)
    tk = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    tk["tgt_mask"] = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=torch.float64)
    ek = {k: et.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}
    check(torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
          et.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, batch_first=True),
          x(2, 4, 8), x(2, 6, 8, seed=2), t=tk, e=ek)


def test_transformer_refuses_mismatched_batches():
    with pytest.raises(ValueError, match="same batch size"):
        et.nn.Transformer(8, 2, 1, 1, 16)(et.ones(5, 2, 8), et.ones(4, 3, 8))
