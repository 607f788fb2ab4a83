"""Programs in the style of the d2l book's PyTorch library (chapters 3 and 6): linear
regression from scratch (a shuffled index iterator, ``param.data.sub_``,
``param.grad.data.zero_()``), softmax regression from scratch (``y_hat[range(n), y]``,
an ``Accumulator``, ``accuracy`` with ``.type(y.dtype)``), its concise twin
(``nn.Sequential(nn.Flatten(), nn.Linear)``, ``apply`` of an initialiser,
``CrossEntropyLoss``, ``optim.SGD``) and LeNet with sigmoids and average pooling.
Written once for any ``torch`` module and run on synthetic data.

Run: ``python tutorials/torch_d2l.py`` (compares with PyTorch if installed)
"""
import random

import numpy as np

from torch_same_weights import copy_weights, real_torch


class Accumulator:
    """Sums over ``n`` variables."""

    def __init__(self, n):
        self.data = [0.0] * n

    def add(self, *args):
        self.data = [a + float(b) for a, b in zip(self.data, args)]

    def __getitem__(self, idx):
        return self.data[idx]


def images(count, seed, size=28):
    """(images (count, 1, size, size), labels): a bright bar whose row is the label."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, 10, count)
    x = rng.normal(0, 0.2, (count, 1, size, size)).astype(np.float32)
    for img, label in zip(x, labels):
        img[0, 2 * label + 4, :] += 1.5
    return x, labels.astype(np.int64)


def linear_regression_scratch(torch, seed=0, epochs=3, batch_size=10, lr=0.03):
    """Chapter 3.2: the per-epoch training losses."""
    rng = np.random.default_rng(seed)
    true_w, true_b = torch.tensor([2.0, -3.4]), 4.2
    X = torch.tensor(rng.normal(0, 1, (100, 2)).astype(np.float32))
    y = (torch.matmul(X, true_w) + true_b + torch.tensor(rng.normal(0, 0.01, 100).astype(np.float32)))
    y = y.reshape((-1, 1))

    def data_iter(batch_size, features, labels):
        indices = list(range(len(features)))
        random.shuffle(indices)
        for i in range(0, len(features), batch_size):
            batch_indices = torch.tensor(indices[i: min(i + batch_size, len(features))])
            yield features[batch_indices], labels[batch_indices]

    def linreg(X, w, b):
        return torch.matmul(X, w) + b

    def squared_loss(y_hat, y):
        return (y_hat - y.reshape(y_hat.shape)) ** 2 / 2

    def sgd(params, lr, batch_size):
        with torch.no_grad():
            for param in params:
                param.data.sub_(lr * param.grad / batch_size)
                param.grad.data.zero_()

    w = torch.tensor(rng.normal(0, 0.01, (2, 1)).astype(np.float32), requires_grad=True)
    b = torch.zeros(1, requires_grad=True)
    random.seed(seed)
    losses = []
    for _ in range(epochs):
        for Xb, yb in data_iter(batch_size, X, y):
            squared_loss(linreg(Xb, w, b), yb).sum().backward()
            sgd([w, b], lr, batch_size)
        with torch.no_grad():
            losses.append(float(squared_loss(linreg(X, w, b), y).mean()))
    return losses


def accuracy(y_hat, y):
    if len(y_hat.shape) > 1 and y_hat.shape[1] > 1:
        y_hat = y_hat.argmax(axis=1)
    cmp = y_hat.type(y.dtype) == y
    return float(cmp.type(y.dtype).sum())


def train_epoch_ch3(torch, net, train_iter, loss, updater):
    """One epoch; (mean loss, accuracy) as d2l's ``train_epoch_ch3``."""
    if isinstance(net, torch.nn.Module):
        net.train()
    metric = Accumulator(3)
    for X, y in train_iter:
        y_hat = net(X)
        l = loss(y_hat, y)  # noqa: E741
        if isinstance(updater, torch.optim.Optimizer):
            updater.zero_grad()
            l.mean().backward()
            updater.step()
        else:
            l.sum().backward()
            updater(X.shape[0])
        metric.add(float(l.sum()), accuracy(y_hat, y), y.numel())
    return metric[0] / metric[2], metric[1] / metric[2]


def loader(torch, count, seed, batch_size=16):
    x, labels = images(count, seed)
    dataset = torch.utils.data.TensorDataset(torch.tensor(x), torch.tensor(labels))
    return torch.utils.data.DataLoader(dataset, batch_size, shuffle=False)


def softmax_scratch(torch, W0, epochs=2, lr=0.1):
    """Chapter 3.6: (loss, accuracy) per epoch."""
    W = torch.tensor(W0, requires_grad=True)
    b = torch.zeros(10, requires_grad=True)

    def softmax(X):
        X_exp = torch.exp(X)
        return X_exp / X_exp.sum(1, keepdim=True)

    def net(X):
        return softmax(torch.matmul(X.reshape((-1, W.shape[0])), W) + b)

    def cross_entropy(y_hat, y):
        return -torch.log(y_hat[range(len(y_hat)), y])

    def updater(batch_size):
        with torch.no_grad():
            for param in (W, b):
                param -= lr * param.grad / batch_size
                param.grad.zero_()
    return [train_epoch_ch3(torch, net, loader(torch, 48, 0), cross_entropy, updater)
            for _ in range(epochs)]


def softmax_concise(torch, reference=None, epochs=2):
    """Chapter 3.7: the same model from ``nn`` layers and ``optim.SGD``."""
    net = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(784, 10))

    def init_weights(m):
        if type(m) == torch.nn.Linear:
            torch.nn.init.normal_(m.weight, std=0.01)
    net.apply(init_weights)
    if reference is not None:
        copy_weights(reference, net, torch)
    loss = torch.nn.CrossEntropyLoss(reduction="none")
    trainer = torch.optim.SGD(net.parameters(), lr=0.1)
    return [train_epoch_ch3(torch, net, loader(torch, 48, 0), loss, trainer)
            for _ in range(epochs)]


def lenet(torch):
    nn = torch.nn
    return nn.Sequential(
        nn.Conv2d(1, 6, kernel_size=5, padding=2), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Conv2d(6, 16, kernel_size=5), nn.Sigmoid(),
        nn.AvgPool2d(kernel_size=2, stride=2),
        nn.Flatten(),
        nn.Linear(16 * 5 * 5, 120), nn.Sigmoid(),
        nn.Linear(120, 84), nn.Sigmoid(),
        nn.Linear(84, 10))


def train_lenet(torch, reference=None, epochs=2, lr=0.9):
    """Chapter 6.6's ``train_ch6`` loop (Xavier initialisation, SGD): per-batch losses."""
    net = lenet(torch)

    def init_weights(m):
        if type(m) == torch.nn.Linear or type(m) == torch.nn.Conv2d:
            torch.nn.init.xavier_uniform_(m.weight)
    net.apply(init_weights)
    if reference is not None:
        copy_weights(reference, net, torch)
    optimizer = torch.optim.SGD(net.parameters(), lr=lr)
    loss = torch.nn.CrossEntropyLoss()
    losses = []
    for _ in range(epochs):
        net.train()
        for X, y in loader(torch, 32, 1):
            optimizer.zero_grad()
            l = loss(net(X), y)  # noqa: E741
            l.backward()
            optimizer.step()
            losses.append(l.item())
    return losses


def run_all(torch, references=(None, None)):
    """Every program's numbers, in one dict."""
    W0 = np.random.default_rng(5).normal(0, 0.01, (784, 10)).astype(np.float32)
    return {"linear regression": linear_regression_scratch(torch),
            "softmax scratch": [v for pair in softmax_scratch(torch, W0) for v in pair],
            "softmax concise": [v for pair in softmax_concise(torch, references[0]) for v in pair],
            "lenet": train_lenet(torch, references[1])}


if __name__ == "__main__":
    import eagerad.torch as etorch
    pt = real_torch()
    refs = (None, None)
    if pt is not None:
        pt.manual_seed(0)
        refs = (pt.nn.Sequential(pt.nn.Flatten(), pt.nn.Linear(784, 10)), lenet(pt))
    frameworks = [("eagerad", etorch)] + ([("PyTorch", pt)] if pt is not None else [])
    for name, fw in frameworks:
        for program, values in run_all(fw, refs).items():
            print(f"{name:8s} {program:18s}", [f"{v:.5f}" for v in values])
