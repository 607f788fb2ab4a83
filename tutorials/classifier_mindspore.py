"""Train a small classifier on two interleaving half-moons, MindSpore style.

The data set is generated here with numpy (fixed seed, no download).  Training uses
MindSpore's functional recipe: ``value_and_grad`` over the optimizer's parameters,
then ``optimizer(grads)``.  At the end the trained weights go through a checkpoint
into a fresh network, which must classify exactly as the original.

Run from the repository root: PYTHONPATH=. python tutorials/classifier_mindspore.py
"""
import os
import sys
import tempfile
import time

import numpy as np

import eagerad as ms
from eagerad import nn


def two_moons(n, noise, seed):
    """``n`` points on two interleaving half circles plus Gaussian noise, labels 0/1."""
    rng = np.random.default_rng(seed)
    half = n // 2
    t = rng.uniform(0, np.pi, n)
    upper = np.stack([np.cos(t[:half]), np.sin(t[:half])], axis=1)
    lower = np.stack([1 - np.cos(t[half:]), 0.5 - np.sin(t[half:])], axis=1)
    x = np.concatenate([upper, lower]) + rng.normal(0, noise, (n, 2))
    y = np.concatenate([np.zeros(half), np.ones(n - half)]).astype(np.int64)
    order = rng.permutation(n)
    return x[order].astype(np.float32), y[order]


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


def progress(epoch, epochs, loss, acc, width=20):
    done = width * epoch // epochs
    return f"epoch {epoch:2d}/{epochs} [{'#' * done}{'.' * (width - done)}] loss {loss:.4f}  " \
           f"train acc {acc:6.1%}"


def main(epochs=20, batch_size=32):
    start = time.perf_counter()
    x_train, y_train = two_moons(1000, noise=0.1, seed=0)
    x_test, y_test = two_moons(500, noise=0.1, seed=1)

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
        for i in range(0, len(x_train), batch_size):
            data = ms.Tensor(x_train[i:i + batch_size])
            label = ms.Tensor(y_train[i:i + batch_size])
            total += float(train_step(data, label).asnumpy()) * len(data)
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
