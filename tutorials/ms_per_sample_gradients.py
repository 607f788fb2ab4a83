"""Per-sample gradients, MindSpore style: ``vmap`` over ``grad`` instead of a Python loop.

A linear model ``pred = x @ w + b`` with the squared error per sample.  ``grad`` gives the
gradient of one sample's loss; ``vmap(..., in_axes=(None, None, 0, 0))`` runs it for every
sample at once, sharing the parameters.  The result is compared with a loop of ``grad``
calls, with the closed form ``2 (pred - y) x`` and ``2 (pred - y)``, and its mean with the
gradient of the batch's mean loss.  Run: ``python tutorials/ms_per_sample_gradients.py``.
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import ops
from checks import report

rng = np.random.default_rng(2)
N, D = 8, 5
xs = mindspore.Tensor(rng.normal(size=(N, D)))
ys = mindspore.Tensor(rng.normal(size=N))
w = mindspore.Tensor(rng.normal(size=D))
b = mindspore.Tensor(np.array(0.3))


def sample_loss(w, b, x, y):
    pred = ops.tensordot(x, w, 1) + b
    return (pred - y) ** 2


grad_one = mindspore.grad(sample_loss, grad_position=(0, 1))
gw, gb = mindspore.vmap(grad_one, in_axes=(None, None, 0, 0))(w, b, xs, ys)
print("per-sample gradient shapes:", gw.shape, gb.shape)

loop = [grad_one(w, b, xs[i], ys[i]) for i in range(N)]
report("vmap against a Python loop (w)", gw, ops.stack([g[0] for g in loop]), 1e-14)
report("vmap against a Python loop (b)", gb, ops.stack([g[1] for g in loop]), 1e-14)

r = xs.asnumpy() @ w.asnumpy() + 0.3 - ys.asnumpy()
report("closed form 2 (pred - y) x", gw, 2 * r[:, None] * xs.asnumpy(), 1e-13)
report("closed form 2 (pred - y)", gb, 2 * r, 1e-13)


def mean_loss(w, b, xs, ys):
    return ((ops.matmul(xs, w) + b - ys) ** 2).mean()


mw, mb = mindspore.grad(mean_loss, grad_position=(0, 1))(w, b, xs, ys)
report("mean of per-sample gradients is the batch gradient (w)", gw.mean(0), mw, 1e-14)
report("mean of per-sample gradients is the batch gradient (b)", gb.mean(), mb, 1e-14)

# Per-sample gradient norms, e.g. for clipping each sample as in differentially private SGD.
norms = ops.sqrt((gw ** 2).sum(1) + gb ** 2)
report("per-sample gradient norms", norms, np.abs(2 * r) * np.sqrt((xs.asnumpy() ** 2).sum(1) + 1),
       1e-13)
