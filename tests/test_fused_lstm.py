"""The fused LSTM scan (``ops.recurrent.lstm_scan``, issue 23): nn.LSTM through it gives
PyTorch's values and gradients (float64, rtol 1e-10), both backends of its backward agree,
second order works through the op-by-op rules, and the row-wise ``index_add`` behind an
embedding's gradient adds as ``np.add.at`` does, to the bit."""
import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.backend import cpu
from eagerad.backend.cpu import fused, recurrent_scan
from eagerad.ops import recurrent

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("bidirectional,bias,batch_first", [(False, True, True),
                                                           (True, False, False)])
def test_lstm_matches_torch_values_and_gradients(bidirectional, bias, batch_first):
    m = nn.LSTM(3, 4, num_layers=2, bias=bias, batch_first=batch_first,
                bidirectional=bidirectional, dtype=eagerad.float64)
    t = torch.nn.LSTM(3, 4, num_layers=2, bias=bias, batch_first=batch_first,
                      bidirectional=bidirectional, dtype=torch.float64)
    for name, p in m.named_parameters():
        getattr(t, name).data = torch.tensor(p.numpy())
    rng = np.random.default_rng(0)
    x = rng.standard_normal((5, 2, 3))
    h0 = rng.standard_normal((4 if bidirectional else 2, 5 if batch_first else 2, 4))
    xe = eagerad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    oe, (he, ce) = m(xe, (eagerad.tensor(h0), eagerad.tensor(h0 * 0.5)))
    ot, (ht, ct) = t(xt, (torch.tensor(h0), torch.tensor(h0 * 0.5)))
    for a, b in ((oe, ot), (he, ht), (ce, ct)):
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    ((oe ** 2).sum() + (he * ce).sum()).backward()
    ((ot ** 2).sum() + (ht * ct).sum()).backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)
    for name, p in m.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), getattr(t, name).grad.numpy(),
                                   rtol=1e-10, atol=1e-12)


def _node_names(out):
    names, seen, todo = [], set(), [out.grad_fn]
    while todo:
        node = todo.pop()
        if id(node) in seen:
            continue
        seen.add(id(node))
        names.append(node.name)
        todo.extend(e[0] for e in node.next if e is not None and hasattr(e[0], "next"))
    return names


def test_lstm_layer_records_one_scan_node_per_layer():
    out, _ = nn.LSTM(3, 4, num_layers=2)(eagerad.ones(6, 2, 3))
    names = _node_names(out)
    assert names.count("LstmScanBackward") == 2 and len(names) < 30, names


def test_second_order_through_the_layer():
    m = nn.LSTM(2, 2, num_layers=1, dtype=eagerad.float64)
    x = eagerad.tensor(np.random.default_rng(3).standard_normal((3, 1, 2)), requires_grad=True)
    assert gradcheck(lambda a: m(a)[0], (x,))
    assert gradgradcheck(lambda a: m(a)[0], (x,))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("reverse", [False, True])
def test_numba_backward_equals_numpy_backward(dtype, reverse, monkeypatch):
    rng = np.random.default_rng(4)
    n, size, steps = 3, 5, 4
    args = [rng.standard_normal(s).astype(dtype) for s in
            ((steps, n, 4 * size), (n, size), (n, size), (4 * size, size), (4 * size,))]
    out = fused.lstm_scan(*args, reverse)
    g = rng.standard_normal(out.shape).astype(dtype)
    g_c = rng.standard_normal((n, size)).astype(dtype)
    fast = fused.lstm_scan_backward(g, g_c, out, *args, reverse)
    monkeypatch.setattr(recurrent_scan, "_kernels", lambda *a: None)
    slow = fused.lstm_scan_backward(g, g_c, out, *args, reverse)
    for a, b in zip(fast, slow):
        np.testing.assert_allclose(a, b, rtol=1e-5 if dtype == "float32" else 1e-12, atol=1e-6)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_numba_forward_equals_numpy_forward(dtype, monkeypatch):
    """float64: the Numba gate arithmetic is numpy's to the bit; float32: one kernel with
    vectorised exp/tanh (1-2 ulp) per step, as close to the float64 scan as numpy's passes."""
    rng = np.random.default_rng(7)
    args = [(3 * rng.standard_normal(s)).astype(dtype) for s in
            ((5, 3, 16), (3, 4), (3, 4), (16, 4), (16,))]
    args[0][0, 0, :4] = -200.0                    # exp(-z) overflows: sigmoid 0
    fast = fused.lstm_scan(*args).copy()
    fast_state = recurrent_scan.saved_state(fused.lstm_scan(*args)).copy()
    assert (fast_state[0, :4] <= 1e-80).all()      # the first row's input gate: 0 in float32
    exact = recurrent_scan.saved_state(fused.lstm_scan(*[a.astype(np.float64) for a in args]))
    monkeypatch.setattr(recurrent_scan, "_kernels", lambda *a: None)
    slow = fused.lstm_scan(*args)
    slow_state = recurrent_scan.saved_state(slow)
    if dtype == "float64":
        np.testing.assert_array_equal(slow, fast)
        np.testing.assert_array_equal(slow_state, fast_state)
        return
    np.testing.assert_allclose(fast, slow, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(fast_state, slow_state, rtol=1e-5, atol=1e-6)
    err_fast, err_slow = np.abs(fast_state - exact).max(), np.abs(slow_state - exact).max()
    assert err_fast <= 2 * err_slow + 1e-7, (err_fast, err_slow)


def test_scan_equals_the_op_by_op_recurrence():
    rng = np.random.default_rng(5)
    args = [eagerad.tensor(rng.standard_normal(s)) for s in ((4, 2, 8), (2, 2), (2, 2), (8, 2), (8,))]
    for reverse in (False, True):
        out, (h, c) = recurrent.lstm_scan(*args, reverse=reverse)
        rows = recurrent.scan_by_ops(*args, reverse=reverse).numpy()
        last = 0 if reverse else -1
        np.testing.assert_allclose(out.numpy(), rows[..., :2], rtol=1e-13)
        np.testing.assert_allclose(h.numpy(), rows[last, :, :2], rtol=1e-13)
        np.testing.assert_allclose(c.numpy(), rows[last, :, 2:4], rtol=1e-13)


def test_bad_shapes_name_the_arguments():
    with pytest.raises(ValueError, match="w_hh"):
        recurrent.lstm_scan(eagerad.zeros(2, 1, 8), eagerad.zeros(1, 2), eagerad.zeros(1, 2),
                            eagerad.zeros(8, 3), eagerad.zeros(8))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_row_index_add_equals_add_at_bitwise(dtype):
    rng = np.random.default_rng(6)
    idx = rng.integers(-16, 16, (8, 40))
    values = rng.standard_normal((8, 40, 7)).astype(dtype)
    expected = np.zeros((16, 7), dtype)
    np.add.at(expected, (idx,), values)
    np.testing.assert_array_equal(cpu.index_add((16, 7), dtype, (idx,), values), expected)
    with pytest.raises(IndexError):
        cpu.index_add((4, 2), dtype, (np.array([0, 5]),), np.ones((2, 2), dtype))
