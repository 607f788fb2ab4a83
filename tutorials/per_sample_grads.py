"""Per-sample gradients with vmap(grad(...)): one gradient of the loss per example, for
every parameter of a small network, in one batched pass; checked against a Python loop.

The parameters are passed to the loss as an argument (``in_axes=None``: shared by every
sample), and a tiny functional-call helper runs the Cell with them in place of its own.
"""
import numpy as np

import eagerad.mindspore as ms
from eagerad.mindspore import grad, nn, ops, vmap


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 8)
        self.fc2 = nn.Dense(8, 1)

    def construct(self, x):
        return self.fc2(ops.tanh(self.fc1(x)))


def functional_call(cell, params, *args):
    """Run ``cell`` with the tensors ``params`` (by parameter name) in place of its own."""
    saved = []
    for name, value in params.items():
        *path, attr = name.split(".")
        owner = cell
        for part in path:
            owner = getattr(owner, part)
        saved.append((owner, attr, getattr(owner, attr)))
        object.__setattr__(owner, attr, value)
    try:
        return cell(*args)
    finally:
        for owner, attr, value in saved:
            object.__setattr__(owner, attr, value)


net = MLP()
names = [name for name, _ in net.parameters_and_names()]
params = tuple(p.astype(ms.float64) for _, p in net.parameters_and_names())


def loss(*args):
    *ps, x, y = args
    pred = functional_call(net, dict(zip(names, ps)), x.reshape((1, 4)))
    return ((pred.reshape(()) - y) ** 2)


rng = np.random.default_rng(0)
xs = ms.Tensor(rng.normal(size=(16, 4)), dtype=ms.float64)
ys = ms.Tensor(rng.normal(size=(16,)), dtype=ms.float64)
positions = tuple(range(len(params)))
in_axes = (None,) * len(params) + (0, 0)

batched = vmap(grad(loss, grad_position=positions), in_axes=in_axes)(*params, xs, ys)
worst = 0.0
for i in range(xs.shape[0]):
    one = grad(loss, grad_position=positions)(*params, xs[i], ys[i])
    for g_batch, g_one in zip(batched, one):
        worst = max(worst, float(np.abs(g_batch.numpy()[i] - g_one.numpy()).max()))
print("parameters:", ", ".join(f"{n} {tuple(p.shape)}" for n, p in zip(names, params)))
print("per-sample gradient shapes:", [tuple(g.shape) for g in batched])
print(f"max difference vs a Python loop over the {xs.shape[0]} samples: {worst:.3e}")
assert worst < 1e-12
