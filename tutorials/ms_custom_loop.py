"""A custom MindSpore training loop with eagerad's MindSpore face: a train-step Cell of
our own around ``value_and_grad``, gradient clipping and an optimizer with a learning-rate
schedule, then ``Model.eval`` with metrics and a hand-driven ``Accuracy`` metric.

Written as MindSpore programs are (only the import lines name ``eagerad.mindspore``):

* data: three Gaussian classes in 8 dimensions (numpy, fixed seed) through
  ``NumpySlicesDataset`` -> ``map`` (a Python standardising function, ``TypeCast`` on the
  labels) -> ``batch``;
* network: ``SequentialCell(Dense, BatchNorm1d, ReLU, Dense)`` -- BatchNorm keeps its moving
  statistics while training and uses them in evaluation;
* ``TrainStep(nn.Cell)``: ``value_and_grad`` of the loss over the optimizer's parameters,
  ``ops.clip_by_global_norm``, ``nn.Adam`` (with ``weight_decay``) on
  ``nn.ExponentialDecayLR``, ``ops.depend(loss, optimizer(grads))``;
* evaluation: ``Model(net, loss_fn, metrics={'accuracy', 'loss'}).eval`` and
  ``nn.Accuracy`` updated batch by batch.

``tests/test_mindspore_programs.py`` runs it from the same initial weights here and under
real MindSpore (``tests/data/mindspore/record_programs.py``, import lines pointed at
``mindspore``); the per-step losses and the metrics agree to float32 round-off.

Run: ``PYTHONPATH=. python tutorials/ms_custom_loop.py``
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import nn, ops
from eagerad.mindspore.dataset import NumpySlicesDataset, transforms
from eagerad.mindspore.train import Model

FEATURES, CLASSES = 8, 3
MEAN, SCALE = 0.5, 2.0


def blobs(count, seed):
    """``count`` points of three Gaussian classes (float32 features, int64 labels)."""
    centres = np.random.default_rng(7).normal(size=(CLASSES, FEATURES)) * 1.5
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, CLASSES, count)
    points = centres[labels] + rng.normal(size=(count, FEATURES))
    return (SCALE * points + MEAN).astype(np.float32), labels


def standardise(x):
    """Undo the data's known offset and scale (a per-row Python map)."""
    return ((x - MEAN) / SCALE).astype(np.float32)


def create_dataset(count, seed, batch_size=32, shuffle=False):
    points, labels = blobs(count, seed)
    dataset = NumpySlicesDataset({"x": points, "y": labels}, shuffle=False)
    dataset = dataset.map(standardise, "x")
    dataset = dataset.map(transforms.TypeCast(mindspore.int32), "y")
    if shuffle:
        dataset = dataset.shuffle(buffer_size=count)
    return dataset.batch(batch_size, drop_remainder=True)


def make_network(hidden=16):
    return nn.SequentialCell(
        nn.Dense(FEATURES, hidden, has_bias=False),   # BatchNorm's beta is the bias
        nn.BatchNorm1d(hidden),
        nn.ReLU(),
        nn.Dense(hidden, CLASSES),
    )


class TrainStep(nn.Cell):
    """One optimisation step: loss and gradients, clipped to global norm ``clip``."""

    def __init__(self, network, loss_fn, optimizer, clip=1.0):
        super().__init__()
        self.network, self.loss_fn, self.optimizer, self.clip = network, loss_fn, optimizer, clip
        self.grad_fn = mindspore.value_and_grad(self.forward, None, optimizer.parameters)

    def forward(self, x, y):
        return self.loss_fn(self.network(x), y)

    def construct(self, x, y):
        loss, grads = self.grad_fn(x, y)
        grads = ops.clip_by_global_norm(grads, self.clip)
        return ops.depend(loss, self.optimizer(grads))


def run(net=None, epochs=3, train_count=256, test_count=128, shuffle=False):
    """Train and evaluate: ``(per-step losses, metrics)``; ``net`` defaults to a fresh
    ``make_network()``."""
    net = make_network() if net is None else net
    loss_fn = nn.CrossEntropyLoss()
    schedule = nn.ExponentialDecayLR(learning_rate=0.05, decay_rate=0.9, decay_steps=4)
    optimizer = nn.Adam(net.trainable_params(), learning_rate=schedule, weight_decay=1e-4)
    train_step = TrainStep(net, loss_fn, optimizer)
    train_set = create_dataset(train_count, seed=1, shuffle=shuffle)
    test_set = create_dataset(test_count, seed=2)

    losses = []
    for epoch in range(epochs):
        net.set_train()
        for x, y in train_set.create_tuple_iterator():
            losses.append(float(train_step(x, y).asnumpy()))
        print(f"epoch {epoch + 1}: last loss {losses[-1]:.6f}")

    metrics = Model(net, loss_fn, metrics={"accuracy", "loss"}).eval(test_set)
    print("Model.eval:", metrics)

    net.set_train(False)
    accuracy = nn.Accuracy()
    accuracy.clear()
    for x, y in test_set.create_tuple_iterator():
        accuracy.update(net(x), y)
    metrics["accuracy by hand"] = accuracy.eval()
    metrics["moving_mean[:3]"] = [float(v) for v in net[1].moving_mean.asnumpy()[:3]]
    print("nn.Accuracy:", metrics["accuracy by hand"])
    print("BatchNorm moving_mean[:3]:", np.round(metrics["moving_mean[:3]"], 5))
    return losses, metrics


if __name__ == "__main__":
    mindspore.set_seed(0)
    run(shuffle=True)
