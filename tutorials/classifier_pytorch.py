"""Train a small classifier on two interleaving half-moons, PyTorch style.

The same problem as ``classifier_mindspore.py``, written as a PyTorch user would:
``import eagerad.torch as torch``, an ``nn.Module`` with ``forward``, ``torch.optim.Adam``,
and the ``zero_grad() / loss.backward() / step()`` loop.

Run from the repository root: PYTHONPATH=. python tutorials/classifier_pytorch.py
"""
import sys
import time

import eagerad.torch as torch
from eagerad.torch import nn
from moons import batches, progress, train_and_test_sets


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
    (x_train, y_train), (x_test, y_test) = train_and_test_sets()

    torch.manual_seed(0)
    model = Classifier()
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

    model.train()
    for epoch in range(1, epochs + 1):
        total = 0.0
        for data, target in batches(x_train, y_train, batch_size):
            optimizer.zero_grad()
            loss = criterion(model(torch.tensor(data)), torch.tensor(target))
            loss.backward()
            optimizer.step()
            total += loss.item() * len(data)
        print(progress(epoch, epochs, total / len(x_train), accuracy(model, x_train, y_train)))

    test_acc = accuracy(model, x_test, y_test)
    print(f"test accuracy: {test_acc:.1%}  ({time.perf_counter() - start:.1f} s)")
    return test_acc


if __name__ == "__main__":
    sys.exit(0 if main() >= 0.95 else 1)
