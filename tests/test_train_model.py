"""MindSpore's Model API: training through a dataset pipeline with LossMonitor's printed
progress, eval metrics, early stop from a callback, and a clear error on a nan loss."""
import io

import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.dataset import NumpySlicesDataset
from eagerad.train import Callback, LossMonitor, Model


def _blobs(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    x = rng.normal(size=(n, 2)).astype(np.float32) + np.where(y[:, None] == 1, 2.0, -2.0)
    return x.astype(np.float32), y.astype(np.int64)


def test_model_trains_a_classifier_and_reports_progress():
    eagerad.set_seed(0)
    x, y = _blobs()
    ds = NumpySlicesDataset((x, y), ["x", "y"], shuffle=True).batch(50)
    net = nn.Dense(2, 2)
    model = Model(net, nn.CrossEntropyLoss(), nn.Adam(net.trainable_params(), learning_rate=0.1),
                  metrics={"accuracy", "loss"})
    out = io.StringIO()
    model.train(5, ds, callbacks=[LossMonitor(4, file=out)])
    lines = out.getvalue().splitlines()
    assert len(lines) == 5 and lines[0].startswith("epoch: 1 step: 4, loss is ")
    result = model.eval(NumpySlicesDataset((x, y), shuffle=False).batch(100))
    assert result["accuracy"] > 0.95 and result["loss"] < 0.3
    assert model.predict(eagerad.Tensor(x[:3])).shape == (3, 2)


def test_callback_can_stop_and_nan_loss_is_an_error():
    class StopAfterTwo(Callback):
        def on_train_step_end(self, run_context):
            if run_context.original_args()["cur_step_num"] == 2:
                run_context.request_stop()

    x, y = _blobs(40)
    ds = NumpySlicesDataset((x, y), shuffle=False).batch(10)
    net = nn.Dense(2, 2)
    steps = []

    class Count(Callback):
        def on_train_step_end(self, run_context):
            steps.append(run_context.original_args()["cur_step_num"])

    Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.1)).train(
        3, ds, callbacks=[Count(), StopAfterTwo()])
    assert steps == [1, 2]
    nan_loss = lambda out, label: (out * float("nan")).sum()
    with pytest.raises(ValueError, match="loss is nan"):
        Model(net, nan_loss, nn.SGD(net.trainable_params(), 0.1)).train(
            2, ds, callbacks=LossMonitor(file=io.StringIO()))
    with pytest.raises(ValueError, match="unknown metrics"):
        Model(net, metrics={"f1"})
