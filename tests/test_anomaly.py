"""Anomaly mode: NaN/Inf in a backward rule raises at the node, with the user's line."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd

pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning")  # NaN/Inf are the point here


def test_off_by_default_and_nan_passes_silently():
    assert not autograd.is_anomaly_enabled()
    x = eagerad.tensor([0.0, 4.0], requires_grad=True)
    y = x.sqrt()
    assert y.grad_fn.trace is None                 # nothing recorded when off
    (y * 0).sum().backward()
    assert np.isnan(x.grad.numpy()[0]) and x.grad.numpy()[1] == 0.0


def test_detect_anomaly_names_node_and_user_line():
    x = eagerad.tensor([0.0, 4.0], requires_grad=True)
    with autograd.detect_anomaly():
        y = x.sqrt()  # the line anomaly mode must point at
        loss = (y * 0).sum()
        with pytest.raises(RuntimeError) as info:
            loss.backward()
    message = str(info.value)
    assert "SqrtBackward" in message and "nan/inf" in message
    assert "test_anomaly.py" in message and "the line anomaly mode must point at" in message
    assert "eagerad" + "/ops" not in message       # internal frames are left out
    assert not autograd.is_anomaly_enabled()


def test_inf_from_log_at_zero():
    x = eagerad.tensor([0.0, 1.0], requires_grad=True)
    with autograd.detect_anomaly():
        y = x.log().sum()
        with pytest.raises(RuntimeError, match="LogBackward"):
            y.backward()


def test_clean_backward_is_unchanged_in_anomaly_mode():
    x = eagerad.tensor([1.0, 4.0], dtype=eagerad.float64, requires_grad=True)
    with autograd.detect_anomaly():
        x.sqrt().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.25])


def test_set_detect_anomaly_call_and_context_and_decorator():
    autograd.set_detect_anomaly(True)
    try:
        assert autograd.is_anomaly_enabled()
        with autograd.set_detect_anomaly(False):
            assert not autograd.is_anomaly_enabled()
        assert autograd.is_anomaly_enabled()
    finally:
        autograd.set_detect_anomaly(False)

    @autograd.detect_anomaly()
    def step(x):
        assert autograd.is_anomaly_enabled()
        return (x.sqrt() * 0).sum().backward()

    with pytest.raises(RuntimeError, match="SqrtBackward"):
        step(eagerad.tensor([0.0], requires_grad=True))
    assert not autograd.is_anomaly_enabled()


def test_anomaly_in_second_order():
    x = eagerad.tensor([0.0], dtype=eagerad.float64, requires_grad=True)
    with autograd.detect_anomaly():
        (g,) = autograd.grad((x ** 2).sum(), x, create_graph=True)
        h = (g.abs() ** 0.5).sum()                 # d/dg sqrt|g| is infinite at 0
        with pytest.raises(RuntimeError, match="PowBackward"):
            h.backward()


def test_node_made_before_switching_on_says_so():
    x = eagerad.tensor([0.0], requires_grad=True)
    y = (x.sqrt() * 0).sum()
    with autograd.detect_anomaly():
        with pytest.raises(RuntimeError, match="before anomaly mode was switched on"):
            y.backward()
