"""Train a small classifier on two interleaving half-moons, PyTorch style.

The same problem as ``classifier_mindspore.py``, written as a PyTorch user would:
``import eagerad as torch``, an ``nn.Module`` with ``forward``, ``torch.optim.Adam``,
and the ``zero_grad() / loss.backward() / step()`` loop.

Run from the repository root: PYTHONPATH=. python tutorials/classifier_pytorch.py
"""
import sys
import time

import numpy as np

import eagerad as torch
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


class Classifier(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.layers = nn.Sequential(nn.Linear(2, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU(),
                                    nn.Linear(hidden, 2))

    def forward(self, x):
        return self.layers(x)


def accuracy(model, x, y):
    model.eval()
    with torch.no_grad():
        predicted = model(torch.tensor(x)).numpy().argmax(axis=1)
    model.train()
    return float((predicted == y).mean())


def main(epochs=20, batch_size=32):
    start = time.perf_counter()
    x_train, y_train = two_moons(1000, noise=0.1, seed=0)
    x_test, y_test = two_moons(500, noise=0.1, seed=1)

    torch.set_seed(0)  # torch.manual_seed(0) in PyTorch
    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    model.train()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for i in range(0, len(x_train), batch_size):
            data = torch.tensor(x_train[i:i + batch_size])
            target = torch.tensor(y_train[i:i + batch_size])
            optimizer.zero_grad()
            loss = criterion(model(data), target)
            loss.backward()
            optimizer.step()
            total += loss.item() * len(data)
        done = 20 * epoch // epochs
        print(f"epoch {epoch:2d}/{epochs} [{'#' * done}{'.' * (20 - done)}] "
              f"loss {total / len(x_train):.4f}  train acc {accuracy(model, x_train, y_train):6.1%}")

    test_acc = accuracy(model, x_test, y_test)
    print(f"test accuracy: {test_acc:.1%}  ({time.perf_counter() - start:.1f} s)")
    return test_acc


if __name__ == "__main__":
    sys.exit(0 if main() >= 0.95 else 1)
