"""MindSpore's training API in eagerad.mindspore, by its documented rules: callbacks
(MindSpore 2.x's hooks and their older names, attribute-style ``cb_params``),
``ModelCheckpoint``/``CheckpointConfig``, ``Model`` metrics as ``Metric`` objects, and the
optimizers' MindSpore rules (``Adam``'s update, the beta/gamma weight-decay filter).
The MindSpore-recorded comparisons are in test_mindspore_programs.py."""
import os

import numpy as np
import pytest

import eagerad.mindspore as ms
from eagerad.mindspore import nn
from eagerad.mindspore.dataset import NumpySlicesDataset
from eagerad.mindspore.train import (MAE, MSE, Accuracy, Callback, CheckpointConfig, Loss, Model,
                                     ModelCheckpoint)


def _data(n=24, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 3)).astype(np.float32)
    y = (x[:, 0] > 0).astype(np.int32)
    return x, y


def _model(metrics=None):
    net = nn.Dense(3, 2)
    return net, Model(net, nn.CrossEntropyLoss(), nn.SGD(net.trainable_params(), 0.1), metrics=metrics)


def test_callbacks_old_and_new_hooks_with_attribute_params():
    seen = []

    class Old(Callback):
        def begin(self, run_context):
            seen.append(("begin", run_context.original_args().epoch_num))

        def step_end(self, run_context):
            p = run_context.original_args()
            seen.append(("step", p.cur_epoch_num, p.cur_step_num, p.batch_num))

        def epoch_end(self, run_context):
            seen.append(("epoch", run_context.original_args()["cur_epoch_num"]))

        def end(self, run_context):
            seen.append(("end",))

    x, y = _data(16)
    net, model = _model()
    model.train(2, NumpySlicesDataset((x, y), shuffle=False).batch(8), callbacks=[Old()])
    assert seen == [("begin", 2), ("step", 1, 1, 2), ("step", 1, 2, 2), ("epoch", 1),
                    ("step", 2, 3, 2), ("step", 2, 4, 2), ("epoch", 2), ("end",)]


def test_callback_params_name_the_network_and_the_loss():
    got = {}

    class Look(Callback):
        def on_train_step_end(self, run_context):
            p = run_context.original_args()
            got["net"], got["loss"] = p.network, float(p.net_outputs.asnumpy())

    x, y = _data(8)
    net, model = _model()
    logits = net(ms.Tensor(x))
    expected = float(nn.CrossEntropyLoss()(logits, ms.Tensor(y)).asnumpy())
    model.train(1, NumpySlicesDataset((x, y), shuffle=False).batch(8), callbacks=Look())
    assert got["net"] is net and got["loss"] == pytest.approx(expected, rel=1e-6)
    with pytest.raises(AttributeError, match="no 'nothing'"):
        ms.train.RunContext({}).original_args().nothing
    with pytest.raises(TypeError, match="Callback"):
        model.train(1, NumpySlicesDataset((x, y), shuffle=False).batch(8), callbacks=[print])


def test_model_checkpoint_names_keeps_and_reloads(tmp_path):
    x, y = _data(40)
    net, model = _model()
    ck = ModelCheckpoint("net", str(tmp_path), CheckpointConfig(save_checkpoint_steps=2,
                                                                 keep_checkpoint_max=2))
    model.train(2, NumpySlicesDataset((x, y), shuffle=False).batch(8), callbacks=[ck])
    # 5 steps per epoch: saves at steps 2, 4, 6, 8, 10 (epoch 2's 1, 3, 5); the newest two stay
    assert sorted(os.listdir(tmp_path)) == ["net-2_3.ckpt", "net-2_5.ckpt"]
    assert ck.latest_ckpt_file_name == os.path.join(str(tmp_path), "net-2_5.ckpt")
    fresh = nn.Dense(3, 2)
    assert ms.load_param_into_net(fresh, ms.load_checkpoint(ck.latest_ckpt_file_name))[0] == []
    for (name, a), (_, b) in zip(net.parameters_and_names(), fresh.parameters_and_names()):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy(), err_msg=name)


def test_model_checkpoint_saves_the_last_step_at_the_end(tmp_path):
    x, y = _data(24)
    _, model = _model()
    ck = ModelCheckpoint("last", str(tmp_path), CheckpointConfig(save_checkpoint_steps=2))
    model.train(1, NumpySlicesDataset((x, y), shuffle=False).batch(8), callbacks=[ck])
    assert sorted(os.listdir(tmp_path)) == ["last-1_2.ckpt", "last-1_3.ckpt"]


def test_checkpoint_config_and_model_checkpoint_errors():
    with pytest.raises(ValueError, match="both 0"):
        CheckpointConfig(save_checkpoint_steps=0)
    with pytest.raises(ValueError, match="keep_checkpoint_max"):
        CheckpointConfig(keep_checkpoint_max=-1)
    with pytest.raises(TypeError, match="CheckpointConfig"):
        ModelCheckpoint(config={"save_checkpoint_steps": 1})
    with pytest.raises(ValueError, match="prefix"):
        ModelCheckpoint(prefix="")


def test_metric_objects_closed_forms():
    acc = Accuracy()
    acc.update(ms.Tensor([[0.2, 0.8], [0.9, 0.1], [0.3, 0.7]]), ms.Tensor([1, 1, 0]))
    acc.update(np.array([[0.0, 1.0]]), np.array([[0.0, 1.0]]))          # one-hot labels
    assert acc.eval() == 2 / 4
    loss = Loss()                                   # the mean of the batches' means
    loss.update(ms.Tensor([1.0, 3.0, 5.0]))
    loss.update(ms.Tensor(8.0))
    assert loss.eval() == (3.0 + 8.0) / 2
    mae, mse = MAE(), MSE()                          # summed errors over the samples
    for m in (mae, mse):
        m.update(ms.Tensor([[1.0, 2.0], [0.0, 0.0]]), ms.Tensor([[0.0, 0.0], [1.0, 1.0]]))
    assert mae.eval() == (1 + 2 + 1 + 1) / 2 and mse.eval() == (1 + 4 + 1 + 1) / 2
    with pytest.raises(RuntimeError, match="no update"):
        Accuracy().eval()
    with pytest.raises(ValueError, match="y has shape"):
        Accuracy().update(np.zeros((3, 2)), np.zeros(4))


def test_model_eval_with_named_metric_objects():
    x, y = _data(20)
    net, model = _model(metrics={"Acc": Accuracy(), "Loss": Loss()})
    ds = NumpySlicesDataset((x, y), shuffle=False).batch(8)     # batches of 8, 8, 4
    result = model.eval(ds)
    logits = net(ms.Tensor(x)).asnumpy()
    batch_losses = [float(nn.CrossEntropyLoss()(ms.Tensor(logits[i:i + 8]), ms.Tensor(y[i:i + 8]))
                          .asnumpy()) for i in (0, 8, 16)]
    assert sorted(result) == ["Acc", "Loss"]
    assert result["Acc"] == float((logits.argmax(1) == y).mean())
    assert result["Loss"] == pytest.approx(np.mean(batch_losses), rel=1e-6)
    with pytest.raises(TypeError, match="must be a Metric"):
        Model(net, metrics={"Acc": "accuracy"})
    with pytest.raises(ValueError, match="needs metrics"):
        Model(net).eval(ds)


def _mindspore_adam(w, grads, lr, b1=0.9, b2=0.999, eps=1e-8, nesterov=False, wd=0.0):
    """MindSpore's documented Adam in float64: lr_t = lr sqrt(1 - b2^t) / (1 - b1^t),
    w -= lr_t m / (sqrt(v) + eps) (Nesterov: b1 m + (1 - b1) g for m)."""
    m = v = np.zeros_like(w)
    for t, g in enumerate(grads, 1):
        g = g + wd * w
        m, v = b1 * m + (1 - b1) * g, b2 * v + (1 - b2) * g * g
        lr_t = lr * np.sqrt(1 - b2 ** t) / (1 - b1 ** t)
        w = w - lr_t * (b1 * m + (1 - b1) * g if nesterov else m) / (np.sqrt(v) + eps)
    return w


@pytest.mark.parametrize("nesterov, wd", [(False, 0.0), (True, 0.0), (False, 0.01)])
def test_adam_is_mindspores_rule(nesterov, wd):
    grads = [np.array([1e-7, 2.0, -0.5]), np.array([3e-7, -1.0, 0.25]), np.array([0.0, 0.5, 4.0])]
    w = ms.Parameter(ms.Tensor(np.ones(3, np.float32)), name="w")
    opt = nn.Adam([w], learning_rate=0.1, use_nesterov=nesterov, weight_decay=wd)
    for g in grads:
        opt((ms.Tensor(g.astype(np.float32)),))
    expected = _mindspore_adam(np.ones(3), grads, 0.1, nesterov=nesterov, wd=wd)
    # float32 beta powers (as MindSpore keeps them) against float64 here
    np.testing.assert_allclose(w.asnumpy(), expected, rtol=1e-5)


def test_adam_eps_is_not_bias_corrected():
    """A gradient near eps: MindSpore's first step is lr_t g' / (sqrt(1 - b2) |g| + eps) with
    g' = (1 - b1) g; PyTorch's rule (eps on the corrected sqrt(v)) would step 0.091, not 0.024."""
    w = ms.Parameter(ms.Tensor([1.0]), name="w")
    nn.Adam([w], learning_rate=0.1)((ms.Tensor([1e-7]),))
    lr_t = 0.1 * np.sqrt(1 - 0.999) / (1 - 0.9)
    step = lr_t * 0.1e-7 / (np.sqrt(0.001) * 1e-7 + 1e-8)
    assert float(w.asnumpy()[0]) == pytest.approx(1 - step, rel=1e-6)
    assert abs(step - 0.024) < 1e-3


def test_weight_decay_skips_beta_and_gamma_unless_grouped():
    for cls, kw in ((nn.SGD, {}), (nn.Momentum, {"momentum": 0.9}), (nn.Adagrad, {}),
                    (nn.RMSProp, {})):
        gamma = ms.Parameter(ms.Tensor([1.0]), name="bn.gamma")
        beta = ms.Parameter(ms.Tensor([1.0]), name="bn.beta")
        w, w_ref = ms.Parameter(ms.Tensor([1.0]), name="w"), ms.Parameter(ms.Tensor([1.0]), name="w2")
        one = ms.Tensor([1.0])
        cls([gamma, beta, w], learning_rate=0.1, weight_decay=0.5, **kw)((one, one, one))
        cls([w_ref], learning_rate=0.1, **kw)((one,))
        assert gamma.asnumpy() == beta.asnumpy() == w_ref.asnumpy(), cls.__name__
        assert w.asnumpy() != w_ref.asnumpy(), cls.__name__
    gamma = ms.Parameter(ms.Tensor([1.0]), name="bn.gamma")       # a group's decay applies to all
    nn.SGD([{"params": [gamma], "weight_decay": 0.5}], learning_rate=0.1)((ms.Tensor([1.0]),))
    assert float(gamma.asnumpy()[0]) == pytest.approx(1 - 0.1 * 1.5)


def test_mindspore_import_spellings():
    import eagerad.mindspore.dataset.transforms as C
    import eagerad.mindspore.dataset.vision as CV
    from eagerad.mindspore.common.initializer import Normal, initializer
    from eagerad.mindspore.dataset.vision import Inter
    assert CV.Resize((4, 4), interpolation=Inter.LINEAR)(np.zeros((2, 2, 1), np.uint8)).shape == (4, 4, 1)
    assert C.TypeCast(ms.int32)(np.array([1.7])).dtype == np.int32
    assert nn.Accuracy is Accuracy
    w = initializer(Normal(0.5, mean=3.0), (4000,), ms.float32).asnumpy()
    assert abs(w.mean() - 3.0) < 0.05 and abs(w.std() - 0.5) < 0.05
    assert nn.Dense(2, 2, weight_init=Normal(0.0, mean=1.5)).weight.asnumpy().tolist() == [[1.5, 1.5]] * 2
