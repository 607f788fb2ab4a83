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

__all__ = ["Model", "Callback", "LossMonitor", "TimeMonitor", "RunContext"]


class RunContext:
    """What callbacks see: ``original_args()`` holds ``cur_epoch_num``, ``cur_step_num``
    (over all epochs), ``epoch_num``, ``batch_num`` and ``net_outputs`` (the last loss);
    ``request_stop()`` ends training after the current step."""

    def __init__(self, params):
        self._params, self.stopped = params, False

    def original_args(self):
        return self._params

    def request_stop(self):
        self.stopped = True


class Callback:
    """Base of training callbacks (MindSpore's ``Callback``): override any of
    ``on_train_begin/end``, ``on_train_epoch_begin/end``, ``on_train_step_begin/end``,
    each called with a ``RunContext``."""

    def on_train_begin(self, run_context):
        pass

    def on_train_end(self, run_context):
        pass

    def on_train_epoch_begin(self, run_context):
        pass

    def on_train_epoch_end(self, run_context):
        pass

    def on_train_step_begin(self, run_context):
        pass

    def on_train_step_end(self, run_context):
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
            print(f"epoch: {args['cur_epoch_num']} step: {step_in_epoch}, loss is {loss:.7g}",
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


class Model:
    """MindSpore's ``Model``: ``train`` runs ``TrainOneStepCell(WithLossCell(net, loss_fn),
    optimizer)`` over the dataset for ``epoch`` epochs, ``eval`` reports ``metrics``
    ('accuracy', 'loss', 'mae', 'mse') in inference mode, ``predict`` calls the network.

    >>> net = eagerad.nn.Dense(2, 2)
    >>> Model(net).predict(eagerad.ones(1, 2)).shape
    (1, 2)
    """

    _METRICS = ("accuracy", "loss", "mae", "mse")

    def __init__(self, network, loss_fn=None, optimizer=None, metrics=None, **ignored):
        if not isinstance(network, Cell) and not callable(network):
            raise TypeError(f"Model: network must be a Cell, got {type(network).__name__}")
        self.network, self.loss_fn, self.optimizer = network, loss_fn, optimizer
        self.metrics = set(metrics or ())
        unknown = self.metrics - set(self._METRICS)
        if unknown:
            raise ValueError(f"Model: unknown metrics {sorted(unknown)}; known: {self._METRICS}")
        self._step = None

    def train(self, epoch, train_dataset, callbacks=None, dataset_sink_mode=False,
              sink_size=-1, initial_epoch=0):
        """Train for ``epoch`` epochs (``dataset_sink_mode`` is accepted and ignored)."""
        if self.loss_fn is None or self.optimizer is None:
            raise ValueError("Model.train needs loss_fn and optimizer: Model(net, loss_fn, optimizer)")
        if self._step is None:
            self._step = TrainOneStepCell(WithLossCell(self.network, self.loss_fn), self.optimizer)
        callbacks = list(callbacks) if isinstance(callbacks, (list, tuple)) else \
            [callbacks] if callbacks is not None else []
        batch_num = len(train_dataset) if hasattr(train_dataset, "__len__") else None
        params = {"epoch_num": epoch, "batch_num": batch_num, "cur_step_num": 0,
                  "cur_epoch_num": initial_epoch, "net_outputs": None}
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
        """``{metric: value}`` over the whole dataset, in inference mode."""
        was_training = getattr(self.network, "training", False)
        self.network.set_train(False)
        totals = dict.fromkeys(self.metrics, 0.0)
        count = 0
        with no_grad():
            for data, label in _batches(valid_dataset):
                out, n = self.network(data), len(label)
                count += n
                if "loss" in totals:
                    totals["loss"] += float(self.loss_fn(out, label).item()) * n
                if "accuracy" in totals:
                    totals["accuracy"] += float((out.argmax(axis=-1) == label).sum().item())
                if "mae" in totals:
                    totals["mae"] += float((out - label).abs().mean().item()) * n
                if "mse" in totals:
                    totals["mse"] += float(((out - label) ** 2).mean().item()) * n
        self.network.set_train(was_training)
        return {k: v / max(count, 1) for k, v in totals.items()}

    def predict(self, *inputs):
        """The network's output for ``inputs``, in inference mode, without a graph."""
        self.network.set_train(False)
        with no_grad():
            return self.network(*inputs)
