"""The LSTM's speed paths (issue 23): the scan's output is its hidden states with the gates
kept behind them, the final cell state a second op reading them.  Both ops' first-order
array rules equal the op-by-op recurrence's gradients, second order and forward mode work,
and nn.LSTM matches PyTorch in the layouts the fused path handles (reverse direction,
batch_first, several layers, dropout off in eval mode, float32).  The fused Elman RNN and
GRU scans likewise: their array rules equal the op-by-op gradients, the layers PyTorch's."""
import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.autograd import forward_ad, grad, gradcheck, gradgradcheck
from eagerad.backend.cpu import recurrent_scan
from eagerad.ops import recurrent


def _args(rng, steps=4, n=2, size=3, requires_grad=True):
    shapes = ((steps, n, 4 * size), (n, size), (n, size), (4 * size, size), (4 * size,))
    return [eagerad.tensor(rng.standard_normal(s) * 0.8, requires_grad=requires_grad)
            for s in shapes]


@pytest.mark.parametrize("reverse", [False, True])
def test_gradcheck_of_every_output(reverse):
    def outputs(*a):
        out, (h, c) = recurrent.lstm_scan(*a, reverse=reverse)
        return out, h, c
    assert gradcheck(outputs, _args(np.random.default_rng(0), steps=3, n=2, size=2))
    if not reverse:          # (the ops' own cases gradgradcheck the reversed scan)
        assert gradgradcheck(lambda *a: outputs(*a)[::2],
                             _args(np.random.default_rng(0), steps=2, n=1, size=1))


@pytest.mark.parametrize("reverse", [False, True])
@pytest.mark.parametrize("which", ["hidden", "cell", "both"])
def test_fast_rules_equal_the_op_by_op_gradients(reverse, which):
    rng = np.random.default_rng(1)
    args = _args(rng)
    out, (h, c) = recurrent.lstm_scan(*args, reverse=reverse)
    rows = recurrent.scan_by_ops(*args, reverse=reverse)
    size = h.shape[-1]
    last = 0 if reverse else -1
    w_out = eagerad.tensor(rng.standard_normal(out.shape))
    w_c = eagerad.tensor(rng.standard_normal(c.shape))
    fused = {"hidden": (out * w_out).sum(), "cell": (c * w_c).sum(),
             "both": (out * w_out).sum() + (c * w_c).sum()}[which]
    ref_out, ref_c = rows[..., :size], rows[last, :, size:2 * size]
    ref = {"hidden": (ref_out * w_out).sum(), "cell": (ref_c * w_c).sum(),
           "both": (ref_out * w_out).sum() + (ref_c * w_c).sum()}[which]
    for a, b in zip(grad(fused, args), grad(ref, args)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-13)


def test_graph_of_the_backward_equals_the_fast_backward():
    args = _args(np.random.default_rng(2))
    out, (h, c) = recurrent.lstm_scan(*args)
    loss = (out ** 2).sum() + (c * h).sum()
    fast = grad(loss, args, retain_graph=True)
    recorded = grad(loss, args, create_graph=True)
    assert all(g.requires_grad for g in recorded)
    for a, b in zip(fast, recorded):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-12, atol=1e-13)


def test_cell_state_without_the_saved_gates_is_recomputed():
    rng = np.random.default_rng(3)
    arrays = [a.numpy() for a in _args(rng, requires_grad=False)]
    hs = recurrent_scan.scan(*arrays)
    np.testing.assert_array_equal(recurrent_scan.last_cell(hs.copy(), *arrays),
                                  recurrent_scan.last_cell(hs, *arrays))
    assert recurrent_scan.saved_state(hs.copy()) is None
    g = rng.standard_normal(hs.shape)
    for a, b in zip(recurrent_scan.scan_backward(g, None, hs.copy(), *arrays),
                    recurrent_scan.scan_backward(g, None, hs, *arrays)):
        np.testing.assert_array_equal(a, b)


def test_forward_mode_matches_finite_differences():
    rng = np.random.default_rng(4)
    args = _args(rng, requires_grad=False)
    tangents = [eagerad.tensor(rng.standard_normal(a.shape)) for a in args]
    with forward_ad.dual_level():
        duals = [forward_ad.make_dual(a, t) for a, t in zip(args, tangents)]
        out, (h, c) = recurrent.lstm_scan(*duals, reverse=True)
        jo, jc = (forward_ad.unpack_dual(x).tangent.numpy() for x in (out, c))
    eps = 1e-6

    def at(sign):
        moved = [eagerad.tensor(a.numpy() + sign * eps * t.numpy()) for a, t in zip(args, tangents)]
        out, (_, c) = recurrent.lstm_scan(*moved, reverse=True)
        return out.numpy(), c.numpy()
    (op, cp), (om, cm) = at(1), at(-1)
    np.testing.assert_allclose(jo, (op - om) / (2 * eps), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(jc, (cp - cm) / (2 * eps), rtol=1e-6, atol=1e-8)


def test_output_hooks_and_version_checks_still_fire():
    args = _args(np.random.default_rng(5))
    out, (h, c) = recurrent.lstm_scan(*args)
    seen = []
    out.register_hook(lambda g: seen.append(g.shape))
    (out.sum() + c.sum()).backward()
    assert seen == [out.shape]
    out, _ = recurrent.lstm_scan(*args)
    loss = out.sum()
    with eagerad.no_grad():
        out.add_(1.0)
    with pytest.raises(RuntimeError):
        loss.backward()


torch = pytest.importorskip("torch")


def _pair(kw, dtype):
    m = nn.LSTM(**kw, dtype=getattr(eagerad, dtype))
    t = torch.nn.LSTM(**kw, dtype=getattr(torch, dtype))
    for name, p in m.named_parameters():
        getattr(t, name).data = torch.tensor(p.numpy())
    return m, t


@pytest.mark.parametrize("kw,dtype,tol", [
    (dict(input_size=5, hidden_size=6, num_layers=3, batch_first=True, bidirectional=True,
          dropout=0.5), "float64", 1e-10),
    (dict(input_size=8, hidden_size=16, num_layers=2, batch_first=True), "float32", 2e-4),
    (dict(input_size=4, hidden_size=3, num_layers=1, bias=False), "float32", 2e-4)])
def test_lstm_matches_torch(kw, dtype, tol):
    m, t = _pair(kw, dtype)
    m.eval()
    t.eval()                 # dropout between layers is off in eval mode, as in PyTorch
    rng = np.random.default_rng(6)
    x = rng.standard_normal((3, 7, kw["input_size"])).astype(dtype)
    xe, xt = eagerad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    oe, (he, ce) = m(xe)
    ot, (ht, ct) = t(xt)
    w = rng.standard_normal(oe.shape).astype(dtype)
    ((oe * eagerad.tensor(w)).sum() + (he * ce).sum()).backward()
    ((ot * torch.tensor(w)).sum() + (ht * ct).sum()).backward()
    for a, b in ((oe, ot), (he, ht), (ce, ct), (xe.grad, xt.grad)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    for name, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), getattr(t, name).grad.numpy(),
                                   rtol=tol, atol=tol)


def test_dropout_between_layers_in_training_drops():
    m = nn.LSTM(3, 4, num_layers=2, dropout=0.5)
    x = eagerad.ones(5, 2, 3)
    m.eval()
    ref = m(x)[0].numpy()
    m.train()
    assert not np.allclose(m(x)[0].numpy(), ref)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
@pytest.mark.parametrize("reverse", [False, True])
def test_rnn_scan_fast_rule_equals_the_op_by_op_gradients(nonlinearity, reverse):
    rng = np.random.default_rng(7)
    args = [eagerad.tensor(rng.standard_normal(s) * 0.8, requires_grad=True)
            for s in ((4, 2, 3), (2, 3), (3, 3), (3,))]
    out, h = recurrent.rnn_scan(*args, nonlinearity, reverse)
    ref = recurrent.rnn_by_ops(*args, nonlinearity == "relu", reverse)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-13, atol=1e-15)
    np.testing.assert_array_equal(h.numpy(), out.numpy()[0 if reverse else -1])
    w = eagerad.tensor(rng.standard_normal(out.shape))
    for a, b in zip(grad((out * w).sum() + (h ** 2).sum(), args),
                    grad((ref * w).sum() + (ref[0 if reverse else -1] ** 2).sum(), args)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("nonlinearity", ["tanh", "relu"])
def test_rnn_matches_torch(nonlinearity):
    kw = dict(input_size=3, hidden_size=4, num_layers=2, nonlinearity=nonlinearity,
              bidirectional=True, batch_first=True)
    m = nn.RNN(**kw, dtype=eagerad.float64)
    t = torch.nn.RNN(**kw, dtype=torch.float64)
    for name, p in m.named_parameters():
        getattr(t, name).data = torch.tensor(p.numpy())
    x = np.random.default_rng(8).standard_normal((2, 5, 3))
    xe, xt = eagerad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (oe, he), (ot, ht) = m(xe), t(xt)
    ((oe ** 2).sum() + (he ** 3).sum()).backward()
    ((ot ** 2).sum() + (ht ** 3).sum()).backward()
    for a, b in ((oe, ot), (he, ht), (xe.grad, xt.grad)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    for name, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), getattr(t, name).grad.numpy(),
                                   rtol=1e-10, atol=1e-12)


def test_rnn_second_order_through_the_layer():
    m = nn.RNN(2, 2, nonlinearity="tanh", dtype=eagerad.float64)
    x = eagerad.tensor(np.random.default_rng(9).standard_normal((3, 1, 2)), requires_grad=True)
    assert gradgradcheck(lambda a: m(a)[0], (x,))


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_scan_fast_rule_equals_the_op_by_op_gradients(reverse):
    rng = np.random.default_rng(10)
    args = [eagerad.tensor(rng.standard_normal(s) * 0.8, requires_grad=True)
            for s in ((4, 2, 9), (2, 3), (9, 3), (9,))]
    out, h = recurrent.gru_scan(*args, reverse)
    ref = recurrent.gru_by_ops(*args, reverse)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-13, atol=1e-15)
    w = eagerad.tensor(rng.standard_normal(out.shape))
    for a, b in zip(grad((out * w).sum() + (h ** 2).sum(), args),
                    grad((ref * w).sum() + (ref[0 if reverse else -1] ** 2).sum(), args)):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-13)
    hs = recurrent_scan.gru_scan(*(a.numpy() for a in args), reverse)
    g = rng.standard_normal(hs.shape)       # without the saved gates: recomputed, same numbers
    for a, b in zip(recurrent_scan.gru_scan_backward(g, hs.copy(), *(a.numpy() for a in args), reverse),
                    recurrent_scan.gru_scan_backward(g, hs, *(a.numpy() for a in args), reverse)):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 2e-5)])
def test_gru_matches_torch(dtype, tol):
    kw = dict(input_size=3, hidden_size=4, num_layers=2, bidirectional=True, batch_first=True)
    m = nn.GRU(**kw, dtype=getattr(eagerad, dtype))
    t = torch.nn.GRU(**kw, dtype=getattr(torch, dtype))
    for name, p in m.named_parameters():
        getattr(t, name).data = torch.tensor(p.numpy())
    x = np.random.default_rng(11).standard_normal((2, 5, 3)).astype(dtype)
    xe, xt = eagerad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (oe, he), (ot, ht) = m(xe), t(xt)
    ((oe ** 2).sum() + (he ** 3).sum()).backward()
    ((ot ** 2).sum() + (ht ** 3).sum()).backward()
    for a, b in ((oe, ot), (he, ht), (xe.grad, xt.grad)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)
    for name, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), getattr(t, name).grad.numpy(),
                                   rtol=tol, atol=tol)


def test_gru_second_order_through_the_layer():
    m = nn.GRU(2, 2, dtype=eagerad.float64)
    x = eagerad.tensor(np.random.default_rng(12).standard_normal((3, 1, 2)), requires_grad=True)
    assert gradgradcheck(lambda a: m(a)[0], (x,))
