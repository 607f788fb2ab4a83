"""The two-moons data set and the progress line shared by the classifier tutorials.

``classifier_mindspore.py`` and ``classifier_pytorch.py`` train on the same data and print
the same progress, so that the two styles can be compared line by line.

>>> x, y = two_moons(10, noise=0.1, seed=0)
>>> x.shape, x.dtype, y.tolist().count(1)
((10, 2), dtype('float32'), 5)
"""
import numpy as np


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


def train_and_test_sets():
    """1000 training points (seed 0) and 500 test points (seed 1), noise 0.1."""
    return two_moons(1000, noise=0.1, seed=0), two_moons(500, noise=0.1, seed=1)


def batches(x, y, size):
    """Consecutive ``(x, y)`` slices of ``size`` rows (the last one may be shorter).

    >>> [len(xb) for xb, yb in batches(np.zeros((5, 2)), np.zeros(5), 2)]
    [2, 2, 1]
    """
    for i in range(0, len(x), size):
        yield x[i:i + size], y[i:i + size]


def progress(epoch, epochs, loss, acc, width=20):
    """One line per epoch: a bar, the mean loss and the training accuracy.

    >>> progress(5, 20, 0.25, 0.9)
    'epoch  5/20 [#####...............] loss 0.2500  train acc  90.0%'
    """
    done = width * epoch // epochs
    return f"epoch {epoch:2d}/{epochs} [{'#' * done}{'.' * (width - done)}] loss {loss:.4f}  " \
           f"train acc {acc:6.1%}"
