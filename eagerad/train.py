"""MindSpore's high-level training API: ``Model(net, loss_fn, optimizer, metrics)`` with
``train(epoch, dataset, callbacks)``, ``eval(dataset)`` and ``predict``, and the callbacks
``LossMonitor`` / ``TimeMonitor`` that print progress.

A dataset is anything that yields ``(data, label)`` batches: eagerad's MindSpore-style
pipelines (``eagerad.dataset.NumpySlicesDataset(...).batch(n)``), a ``DataLoader``, or a list.

>>> import numpy as np, eagerad
>>> from eagerad import nn
>>> from eagerad.dataset import NumpySlicesDataset
>>> x = np.linspace(-1, 1, 32, dtype=np.float32).reshape(-1, 1)
>>> ds = NumpySlicesDataset((x, 3 * x), shuffle=False).batch(8)
>>> net = nn.Dense(1, 1)
>>> model = Model(net, nn.MSELoss(), nn.SGD(net.trainable_params(), learning_rate=0.5),
...               metrics={"mae"})
>>> model.train(30, ds)
>>> model.eval(ds)["mae"] < 1e-2
True
"""
import math
import sys
import time

from .autograd import no_grad
from .nn.cell import Cell
from .nn.wrappers import TrainOneStepCell, WithLossCell
from .tensor import Tensor

__all__ = ["Model", "Callback", "LossMonitor", "TimeMonitor", "RunContext", "ModelCheckpoint",
           "CheckpointConfig", "Metric", "Accuracy", "Loss", "MAE", "MSE"]


class _CallbackParams(dict):
    """``run_context.original_args()``: a dict whose keys read as attributes too
    (MindSpore's callbacks write ``cb_params.cur_step_num``).

    >>> _CallbackParams(cur_step_num=3).cur_step_num
    3
    """

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"the callback parameters have no {name!r}; they have "
                                 f"{sorted(self)}") from None

    def __setattr__(self, name, value):
        self[name] = value


class RunContext:
    """What callbacks see: ``original_args()`` holds ``cur_epoch_num``, ``cur_step_num``
    (over all epochs), ``epoch_num``, ``batch_num``, ``net_outputs`` (the last loss),
    ``network``, ``train_network`` and ``optimizer`` (as keys and as attributes);
    ``request_stop()`` ends training after the current step."""

    def __init__(self, params):
        self._params = params if isinstance(params, _CallbackParams) else _CallbackParams(params)
        self.stopped = False

    def original_args(self):
        return self._params

    def request_stop(self):
        self.stopped = True


class Callback:
    """Base of training callbacks (MindSpore's ``Callback``): override any of
    ``on_train_begin/end``, ``on_train_epoch_begin/end``, ``on_train_step_begin/end``
    (or their older names ``begin``/``end``, ``epoch_begin``/``epoch_end``,
    ``step_begin``/``step_end``, which the new ones call, as in MindSpore 2.x), each called
    with a ``RunContext``; ``on_eval_*`` hooks run during ``Model.eval``.

    >>> seen = []
    >>> class Steps(Callback):
    ...     def step_end(self, run_context):
    ...         seen.append(run_context.original_args().cur_step_num)
    >>> Steps().on_train_step_end(RunContext({"cur_step_num": 4})); seen
    [4]
    """

    def begin(self, run_context):
        pass

    def end(self, run_context):
        pass

    def epoch_begin(self, run_context):
        pass

    def epoch_end(self, run_context):
        pass

    def step_begin(self, run_context):
        pass

    def step_end(self, run_context):
        pass

    def on_train_begin(self, run_context):
        self.begin(run_context)

    def on_train_end(self, run_context):
        self.end(run_context)

    def on_train_epoch_begin(self, run_context):
        self.epoch_begin(run_context)

    def on_train_epoch_end(self, run_context):
        self.epoch_end(run_context)

    def on_train_step_begin(self, run_context):
        self.step_begin(run_context)

    def on_train_step_end(self, run_context):
        self.step_end(run_context)

    def on_eval_begin(self, run_context):
        pass

    def on_eval_end(self, run_context):
        pass

    def on_eval_step_begin(self, run_context):
        pass

    def on_eval_step_end(self, run_context):
        pass


class LossMonitor(Callback):
    """Print ``epoch: E step: S, loss is L`` every ``per_print_times`` steps (MindSpore's
    format); a nan or inf loss stops training with a ValueError naming the step.

    >>> import io
    >>> out = io.StringIO(); m = LossMonitor(1, file=out)
    >>> m.on_train_step_end(RunContext({"cur_epoch_num": 1, "cur_step_num": 2, "batch_num": 4,
    ...                                 "net_outputs": eagerad.tensor(0.5)}))
    >>> out.getvalue()
    'epoch: 1 step: 2, loss is 0.5\\n'
    """

    def __init__(self, per_print_times=1, file=None):
        if not isinstance(per_print_times, int) or per_print_times < 0:
            raise ValueError(f"per_print_times must be a non-negative int, got {per_print_times!r}")
        self.per_print_times, self.file = per_print_times, file

    def on_train_step_end(self, run_context):
        args = run_context.original_args()
        loss = float(args["net_outputs"].item() if isinstance(args["net_outputs"], Tensor)
                     else args["net_outputs"])
        step_in_epoch = (args["cur_step_num"] - 1) % args["batch_num"] + 1
        if not math.isfinite(loss):
            raise ValueError(f"epoch: {args['cur_epoch_num']} step: {step_in_epoch}: the loss is "
                             f"{loss}; training stopped")
        if self.per_print_times and args["cur_step_num"] % self.per_print_times == 0:
            print(f"epoch: {args['cur_epoch_num']} step: {step_in_epoch}, loss is {loss}",
                  file=self.file or sys.stdout)


class TimeMonitor(Callback):
    """Print each epoch's time and the mean time per step (MindSpore's ``TimeMonitor``).

    >>> import io
    >>> out = io.StringIO(); m = TimeMonitor(file=out); ctx = RunContext({"batch_num": 2})
    >>> m.on_train_epoch_begin(ctx); m.on_train_epoch_end(ctx); out.getvalue().startswith('epoch time:')
    True
    """

    def __init__(self, data_size=None, file=None):
        self.data_size, self.file, self._start = data_size, file, None

    def on_train_epoch_begin(self, run_context):
        self._start = time.perf_counter()

    def on_train_epoch_end(self, run_context):
        ms = (time.perf_counter() - self._start) * 1e3
        steps = self.data_size or run_context.original_args()["batch_num"] or 1
        print(f"epoch time: {ms:.3f} ms, per step time: {ms / steps:.3f} ms",
              file=self.file or sys.stdout)


def _batches(dataset):
    """(data, label) pairs of one pass over ``dataset``."""
    source = dataset.create_tuple_iterator() if hasattr(dataset, "create_tuple_iterator") \
        else dataset
    for batch in source:
        if not isinstance(batch, (tuple, list)) or len(batch) < 2:
            raise TypeError("Model: each batch of the dataset must be (data, label), got "
                            f"{type(batch).__name__}")
        yield batch[0], batch[1]


class CheckpointConfig:
    """When ``ModelCheckpoint`` saves: every ``save_checkpoint_steps`` steps (or every
    ``save_checkpoint_seconds``), keeping the newest ``keep_checkpoint_max`` files.

    >>> CheckpointConfig(save_checkpoint_steps=10).keep_checkpoint_max
    5
    """

    def __init__(self, save_checkpoint_steps=1, save_checkpoint_seconds=0, keep_checkpoint_max=5,
                 keep_checkpoint_per_n_minutes=0, integrated_save=True, async_save=False,
                 saved_network=None, append_info=None, **ignored):
        for name, value in (("save_checkpoint_steps", save_checkpoint_steps),
                            ("save_checkpoint_seconds", save_checkpoint_seconds),
                            ("keep_checkpoint_max", keep_checkpoint_max)):
            if value is not None and (not isinstance(value, int) or isinstance(value, bool)
                                      or value < 0):
                raise ValueError(f"CheckpointConfig: {name} must be a non-negative int, "
                                 f"got {value!r}")
        if not save_checkpoint_steps and not save_checkpoint_seconds:
            raise ValueError("CheckpointConfig: save_checkpoint_steps and save_checkpoint_seconds "
                             "are both 0; nothing would be saved")
        self.save_checkpoint_steps = save_checkpoint_steps
        self.save_checkpoint_seconds = save_checkpoint_seconds
        self.keep_checkpoint_max = keep_checkpoint_max
        self.saved_network = saved_network


class ModelCheckpoint(Callback):
    """Save the trained network's parameters during training (MindSpore's
    ``ModelCheckpoint``): files ``{prefix}-{epoch}_{step in epoch}.ckpt`` in MindSpore's
    checkpoint format under ``directory`` (default: the working directory), when
    ``config`` says and once more at the end of training; the oldest beyond
    ``keep_checkpoint_max`` are removed.  It stores the network's parameters (MindSpore also
    stores the optimizer's state).

    >>> ModelCheckpoint(prefix="lenet", directory="/tmp").latest_ckpt_file_name is None
    True
    """

    def __init__(self, prefix="CKP", directory=None, config=None):
        if not isinstance(prefix, str) or not prefix or "/" in prefix:
            raise ValueError(f"ModelCheckpoint: prefix must be a non-empty file-name prefix, "
                             f"got {prefix!r}")
        if config is not None and not isinstance(config, CheckpointConfig):
            raise TypeError(f"ModelCheckpoint: config must be a CheckpointConfig, got "
                            f"{type(config).__name__}")
        self.prefix, self.directory = prefix, directory or "."
        self.config = config or CheckpointConfig()
        self.latest_ckpt_file_name, self._saved, self._last_step, self._last_time = None, [], 0, None

    def on_train_begin(self, run_context):
        import os
        os.makedirs(self.directory, exist_ok=True)
        self._last_time = time.monotonic()

    def _save(self, params):
        import os
        from .serialization import save_checkpoint
        step_in_epoch = (params["cur_step_num"] - 1) % (params["batch_num"] or 1) + 1
        path = os.path.join(self.directory,
                            f"{self.prefix}-{params['cur_epoch_num']}_{step_in_epoch}.ckpt")
        save_checkpoint(self.config.saved_network or params["network"], path, format="ckpt")
        self.latest_ckpt_file_name, self._last_step = path, params["cur_step_num"]
        self._last_time = time.monotonic()
        if path in self._saved:
            self._saved.remove(path)
        self._saved.append(path)
        while self.config.keep_checkpoint_max and len(self._saved) > self.config.keep_checkpoint_max:
            old = self._saved.pop(0)
            if os.path.exists(old):
                os.remove(old)

    def on_train_step_end(self, run_context):
        params, config = run_context.original_args(), self.config
        by_steps = config.save_checkpoint_steps and \
            params["cur_step_num"] - self._last_step >= config.save_checkpoint_steps
        by_time = config.save_checkpoint_seconds and \
            time.monotonic() - self._last_time >= config.save_checkpoint_seconds
        if by_steps or by_time:
            self._save(params)

    def on_train_end(self, run_context):
        params = run_context.original_args()
        if params["cur_step_num"] and params["cur_step_num"] != self._last_step:
            self._save(params)


# ------------------------------------------------------------------ metrics

def _as_numpy(value):
    import numpy as np
    return value.numpy() if isinstance(value, Tensor) else np.asarray(value)


class Metric:
    """An evaluation metric (MindSpore's ``Metric``): ``clear()``, ``update(*inputs)`` per
    batch, ``eval()`` for the result over every batch since ``clear``."""

    def __init__(self):
        self.clear()

    def clear(self):
        raise NotImplementedError

    def update(self, *inputs):
        raise NotImplementedError

    def eval(self):
        raise NotImplementedError

    def _needs_updates(self, count):
        if not count:
            raise RuntimeError(f"{type(self).__name__}.eval: no update since clear()")


class Accuracy(Metric):
    """The fraction of samples whose predicted class (argmax over axis 1 of
    ``y_pred``) equals the label (a class index, or the argmax of a one-hot row).

    >>> m = Accuracy(); m.update(Tensor([[0.1, 0.9], [0.8, 0.2]]), Tensor([1, 1])); m.eval()
    0.5
    """

    def __init__(self, eval_type="classification"):
        if eval_type != "classification":
            raise NotImplementedError(f"Accuracy: eval_type {eval_type!r}; only 'classification'")
        super().__init__()

    def clear(self):
        self._correct, self._total = 0, 0

    def update(self, y_pred, y):
        pred, label = _as_numpy(y_pred), _as_numpy(y)
        if pred.ndim != 2:
            raise ValueError(f"Accuracy.update: y_pred must be (N, C) scores, got shape {pred.shape}")
        if label.ndim == 2:
            label = label.argmax(axis=1)
        if label.shape != pred.shape[:1]:
            raise ValueError(f"Accuracy.update: y has shape {label.shape} for y_pred of shape "
                             f"{pred.shape}")
        self._correct += int((pred.argmax(axis=1) == label).sum())
        self._total += len(label)

    def eval(self):
        self._needs_updates(self._total)
        return self._correct / self._total


class Loss(Metric):
    """The mean over batches of each batch's (mean) loss, as MindSpore's ``Loss`` metric.

    >>> m = Loss(); m.update(Tensor(1.0)); m.update(Tensor([2.0, 4.0])); m.eval()
    2.0
    """

    def clear(self):
        self._sum, self._count = 0.0, 0

    def update(self, loss):
        self._sum += float(_as_numpy(loss).mean())
        self._count += 1

    def eval(self):
        self._needs_updates(self._count)
        return self._sum / self._count


class MAE(Metric):
    """Sum of absolute errors divided by the number of samples (MindSpore's ``MAE``).

    >>> m = MAE(); m.update(Tensor([1.0, 2.0]), Tensor([2.0, 2.0])); m.eval()
    0.5
    """

    def clear(self):
        self._sum, self._count = 0.0, 0

    def _error(self, diff):
        return abs(diff)

    def update(self, y_pred, y):
        pred = _as_numpy(y_pred)
        label = _as_numpy(y)
        if label.size != pred.size:
            raise ValueError(f"{type(self).__name__}.update: y has shape {label.shape} for "
                             f"y_pred of shape {pred.shape}")
        self._sum += float(self._error(label.reshape(pred.shape) - pred).sum())
        self._count += pred.shape[0] if pred.ndim else 1

    def eval(self):
        self._needs_updates(self._count)
        return self._sum / self._count


class MSE(MAE):
    """Sum of squared errors divided by the number of samples (MindSpore's ``MSE``).

    >>> m = MSE(); m.update(Tensor([1.0, 2.0]), Tensor([3.0, 2.0])); m.eval()
    2.0
    """

    def _error(self, diff):
        return diff * diff


_METRIC_NAMES = {"accuracy": Accuracy, "acc": Accuracy, "loss": Loss, "mae": MAE, "mse": MSE}


def _metrics(metrics):
    """``{name: Metric}`` from a set/list of names or a dict of name -> Metric."""
    if not metrics:
        return {}
    if isinstance(metrics, dict):
        for name, metric in metrics.items():
            if not isinstance(metric, Metric):
                raise TypeError(f"Model: metrics[{name!r}] must be a Metric (e.g. Accuracy()), "
                                f"got {type(metric).__name__}")
        return dict(metrics)
    if isinstance(metrics, str) or not hasattr(metrics, "__iter__"):
        raise TypeError(f"Model: metrics must be a set of names or a dict of Metrics, got "
                        f"{metrics!r}")
    unknown = sorted(set(metrics) - set(_METRIC_NAMES))
    if unknown:
        raise ValueError(f"Model: unknown metrics {unknown}; known: {sorted(_METRIC_NAMES)}")
    return {name: _METRIC_NAMES[name]() for name in sorted(metrics)}


class Model:
    """MindSpore's ``Model``: ``train`` runs ``TrainOneStepCell(WithLossCell(net, loss_fn),
    optimizer)`` over the dataset for ``epoch`` epochs, ``eval`` reports ``metrics`` (a set
    of names -- 'accuracy', 'loss', 'mae', 'mse' -- or a dict of name -> ``Metric``) in
    inference mode, ``predict`` calls the network.

    >>> net = eagerad.nn.Dense(2, 2)
    >>> Model(net).predict(eagerad.ones(1, 2)).shape
    (1, 2)
    """

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, **ignored):
        if not isinstance(network, Cell) and not callable(network):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        self.network, self.loss_fn, self.optimizer = network, loss_fn, optimizer
        self._metric_fns = _metrics(metrics)
        self.metrics = set(self._metric_fns)
        self._step = None

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False,
              sink_size=-1, initial_epoch=0):
        """Train for ``epoch`` epochs (``dataset_sink_mode`` is accepted and ignored).
        Callbacks see ``run_context.original_args()``: ``cur_epoch_num``, ``cur_step_num``,
        ``batch_num``, ``epoch_num``, ``net_outputs`` (the step's loss), ``network``,
        ``train_network``, ``optimizer``, ``loss_fn``, ``train_dataset``."""
        if self.loss_fn is None or self.optimizer is None:
            raise ValueError("Model.train needs loss_fn and optimizer: Model(net, loss_fn, optimizer)")
        if self._step is None:
            self._step = TrainOneStepCell(WithLossCell(self.network, self.loss_fn), self.optimizer)
        callbacks = _callback_list(callbacks)
        batch_num = len(train_dataset) if hasattr(train_dataset, "__len__") else None
        params = _CallbackParams(epoch_num=epoch, batch_num=batch_num, cur_step_num=0,
                                 cur_epoch_num=initial_epoch, net_outputs=None,
                                 network=self.network, train_network=self._step,
                                 optimizer=self.optimizer, loss_fn=self.loss_fn,
                                 train_dataset=train_dataset, mode="train")
        ctx = RunContext(params)
        self.network.set_train(True)
        for cb in callbacks:
            cb.on_train_begin(ctx)
        for e in range(initial_epoch, epoch):
            params["cur_epoch_num"] = e + 1
            for cb in callbacks:
                cb.on_train_epoch_begin(ctx)
            for count, (data, label) in enumerate(_batches(train_dataset), 1):
                params["cur_step_num"] += 1
                params["batch_num"] = batch_num or count
                for cb in callbacks:
                    cb.on_train_step_begin(ctx)
                params["net_outputs"] = self._step(data, label)
                for cb in callbacks:
                    cb.on_train_step_end(ctx)
                if ctx.stopped:
                    break
            for cb in callbacks:
                cb.on_train_epoch_end(ctx)
            if ctx.stopped:
                break
        for cb in callbacks:
            cb.on_train_end(ctx)

    def eval(self, valid_dataset, callbacks=None, dataset_sink_mode=False):
        """``{metric name: value}`` over the whole dataset, in inference mode.  As in
        MindSpore, the 'loss' metric averages the batches' losses; the others take the
        network's output and the label of every batch."""
        if not self._metric_fns:
            raise ValueError("Model.eval needs metrics: Model(net, loss_fn, metrics={'accuracy'})")
        if "loss" in self._metric_fns and self.loss_fn is None:
            raise ValueError("Model.eval: the 'loss' metric needs Model(net, loss_fn, ...)")
        callbacks = _callback_list(callbacks)
        params = _CallbackParams(cur_step_num=0, network=self.network, mode="eval",
                                 valid_dataset=valid_dataset, net_outputs=None)
        ctx = RunContext(params)
        for metric in self._metric_fns.values():
            metric.clear()
        was_training = getattr(self.network, "training", False)
        self.network.set_train(False)
        for cb in callbacks:
            cb.on_eval_begin(ctx)
        with no_grad():
            for data, label in _batches(valid_dataset):
                params["cur_step_num"] += 1
                for cb in callbacks:
                    cb.on_eval_step_begin(ctx)
                out = self.network(data)
                loss = self.loss_fn(out, label) if self.loss_fn is not None else None
                params["net_outputs"] = (loss, out, label)
                for metric in self._metric_fns.values():
                    if isinstance(metric, Loss):
                        metric.update(loss)
                    else:
                        metric.update(out, label)
                for cb in callbacks:
                    cb.on_eval_step_end(ctx)
        self.network.set_train(was_training)
        result = {name: metric.eval() for name, metric in self._metric_fns.items()}
        params["metrics"] = result
        for cb in callbacks:
            cb.on_eval_end(ctx)
        return result

    def predict(self, *inputs):
        """The network's output for ``inputs``, in inference mode, without a graph."""
        self.network.set_train(False)
        with no_grad():
            return self.network(*inputs)


def _callback_list(callbacks):
    """A list of callbacks from None, one callback or a list/tuple."""
    callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else \
        [callbacks] if callbacks is not None else []
    for cb in callbacks:
        if not isinstance(cb, Callback):
            raise TypeError(f"Model: every callback must be a Callback, got {type(cb).__name__}")
    return callbacks
