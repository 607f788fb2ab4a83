"""Train a small classifier on two interleaving half-moons, MindSpore style.

The data set is generated with numpy (``moons.py``: fixed seed, no download).  Training uses
MindSpore's functional recipe: ``value_and_grad`` over the optimizer's parameters,
then ``optimizer(grads)``.  At the end the trained weights go through a checkpoint
into a fresh network, which must classify exactly as the original.

Run from the repository root: PYTHONPATH=. python tutorials/classifier_mindspore.py
"""
import os
import sys
import tempfile
import time

import eagerad.mindspore as ms
from eagerad.mindspore import nn
from moons import batches, progress, train_and_test_sets


class Classifier(nn.Cell):
    def __init__(self, hidden=32):
        super().__init__()
        self.body = nn.SequentialCell(nn.Dense(2, hidden, activation="relu"),
                                      nn.Dense(hidden, hidden, activation="relu"),
                                      nn.Dense(hidden, 2))

    def construct(self, x):
        return self.body(x)


def accuracy(net, x, y):
    net.set_train(False)
    predicted = net(ms.Tensor(x)).asnumpy().argmax(axis=1)
    net.set_train(True)
    return float((predicted == y).mean())


def main(epochs=20, batch_size=32):
    start = time.perf_counter()
    (x_train, y_train), (x_test, y_test) = train_and_test_sets()

    ms.set_seed(0)
    net = Classifier()
    loss_fn = nn.CrossEntropyLoss()
    optimizer = nn.Adam(net.trainable_params(), learning_rate=0.01)

    def forward_fn(data, label):
        logits = net(data)
        return loss_fn(logits, label), logits

    grad_fn = ms.value_and_grad(forward_fn, None, optimizer.parameters, has_aux=True)

    def train_step(data, label):
        (loss, _), grads = grad_fn(data, label)
        optimizer(grads)
        return loss

    net.set_train()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for data, label in batches(x_train, y_train, batch_size):
            total += float(train_step(ms.Tensor(data), ms.Tensor(label)).asnumpy()) * len(data)
        print(progress(epoch, epochs, total / len(x_train), accuracy(net, x_train, y_train)))

    test_acc = accuracy(net, x_test, y_test)
    print(f"test accuracy: {test_acc:.1%}  ({time.perf_counter() - start:.1f} s)")

    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "moons.ckpt")
        ms.save_checkpoint(net, path)
        restored = Classifier()
        ms.load_param_into_net(restored, ms.load_checkpoint(path))
    same = accuracy(restored, x_test, y_test) == test_acc
    print(f"checkpoint round trip: restored network gives the same accuracy: {same}")
    return test_acc


if __name__ == "__main__":
    sys.exit(0 if main() >= 0.95 else 1)
