"""Fit a cubic polynomial by gradient descent on a Linear layer, as pytorch/examples'
``regression`` does (smooth L1 loss, a manual ``param.data.add_`` update), written once
for any ``torch`` module: eagerad's face and, when installed, PyTorch from the same
initial weights, whose losses agree to float32 round-off.

Run: ``python tutorials/torch_regression.py``
"""
import numpy as np

from torch_same_weights import copy_weights, real_torch

DEGREE = 4


def make_features(torch, x):
    """Columns x, x^2, ..., x^DEGREE of a (N,) tensor."""
    x = x.unsqueeze(1)
    return torch.cat([x ** i for i in range(1, DEGREE + 1)], 1)


def batches(steps, size=32, seed=0):
    """Inputs and targets of ``y = w . features(x) + b`` (float32 numpy arrays)."""
    rng = np.random.default_rng(seed)
    w, b = rng.standard_normal(DEGREE) * 0.5, rng.standard_normal()
    for _ in range(steps):
        x = rng.standard_normal(size).astype(np.float32)
        feats = np.stack([x ** i for i in range(1, DEGREE + 1)], 1)
        yield x, (feats @ w + b).astype(np.float32)[:, None]


def train(torch, fc, steps=20, lr=0.01):
    """The losses of ``steps`` gradient-descent steps of ``fc``."""
    F = torch.nn.functional
    losses = []
    for x, y in batches(steps):
        loss = F.smooth_l1_loss(fc(make_features(torch, torch.tensor(x))), torch.tensor(y))
        fc.zero_grad()
        loss.backward()
        for param in fc.parameters():
            param.data.add_(-lr * param.grad)
        losses.append(loss.item())
    return losses


def run(torch, reference=None):
    """Train a fresh ``Linear(DEGREE, 1)`` (with ``reference``'s weights if given)."""
    fc = torch.nn.Linear(DEGREE, 1)
    if reference is not None:
        copy_weights(reference, fc, torch)
    return fc, train(torch, fc)


if __name__ == "__main__":
    import eagerad.torch as etorch
    pt = real_torch()
    if pt is None:
        print("eagerad losses:", run(etorch)[1])
    else:
        pt.manual_seed(0)
        reference = pt.nn.Linear(DEGREE, 1)
        mine = run(etorch, reference)[1]
        theirs = run(pt, reference)[1]
        print("eagerad:", [f"{v:.6f}" for v in mine])
        print("PyTorch:", [f"{v:.6f}" for v in theirs])
        print("largest relative difference:",
              max(abs(a - b) / abs(b) for a, b in zip(mine, theirs)))
