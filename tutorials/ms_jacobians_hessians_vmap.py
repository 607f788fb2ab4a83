"""Jacobians and Hessians with ``jacrev``/``jacfwd``/``hessian`` and ``vmap``, MindSpore style.

A layer ``y = tanh(x @ W^T + b)`` has the Jacobian ``diag(1 - y^2) W`` with respect to
``x``.  It is computed with ``vjp`` (one row per cotangent), ``jacrev`` and ``jacfwd``
(``grad_position`` picks the argument), for a batch with ``vmap(jacrev(...))`` and,
equivalently, as the Jacobian of the batch-summed function; the Hessian of a scalar
function comes from ``hessian`` and from ``jacfwd(jacrev(...))``.  Each result is
compared with the closed form.  Run: ``python tutorials/ms_jacobians_hessians_vmap.py``.
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import ops
from checks import report

rng = np.random.default_rng(1)
D, N = 4, 6
W = mindspore.Tensor(rng.normal(size=(D, D)))
b = mindspore.Tensor(rng.normal(size=D))
x = mindspore.Tensor(rng.normal(size=D))


def predict(W, b, x):
    return ops.tanh(ops.matmul(x, W.T) + b)


yn = predict(W, b, x).asnumpy()
closed = (1 - yn ** 2)[:, None] * W.asnumpy()

out, vjp_fn = mindspore.vjp(lambda x: predict(W, b, x), x)
rows = [vjp_fn(mindspore.Tensor(np.eye(D)[i]))[0] for i in range(D)]
report("vjp, one row per unit cotangent", ops.stack(rows), closed, 1e-14)
report("jacrev(grad_position=2)", mindspore.jacrev(predict, grad_position=2)(W, b, x), closed, 1e-14)
report("jacfwd(grad_position=2)", mindspore.jacfwd(predict, grad_position=2)(W, b, x), closed, 1e-14)

# A batch: vmap maps over x only (in_axes None for W and b).
xs = mindspore.Tensor(rng.normal(size=(N, D)))
per_sample = mindspore.vmap(mindspore.jacrev(predict, grad_position=2), in_axes=(None, None, 0))(W, b, xs)
ys = np.tanh(xs.asnumpy() @ W.asnumpy().T + b.asnumpy())
want = (1 - ys ** 2)[:, :, None] * W.asnumpy()[None]
report("vmap(jacrev) for a batch", per_sample, want, 1e-14)

# Samples do not interact, so the Jacobian of the sum over the batch has the same blocks.
summed = mindspore.jacrev(lambda xs: predict(W, b, xs).sum(0))(xs)        # (D, N, D)
report("jacrev of the batch-summed function", summed.transpose(1, 0, 2), want, 1e-14)


# Hessian of a scalar function: g(x) = sum(tanh(x)^2) + x0 * x1.
def g(x):
    return (ops.tanh(x) ** 2).sum() + x[0] * x[1]


xn = x.asnumpy()
t = np.tanh(xn)
H = np.diag(2 * (1 - t ** 2) ** 2 - 4 * t ** 2 * (1 - t ** 2))
H[0, 1] += 1
H[1, 0] += 1
report("hessian", mindspore.hessian(g)(x), H, 1e-13)
report("jacfwd(jacrev)", mindspore.jacfwd(mindspore.jacrev(g))(x), H, 1e-13)
report("jacrev(jacrev)", mindspore.jacrev(mindspore.jacrev(g))(x), H, 1e-13)

# Batched Hessians: vmap(hessian) against the closed form per sample.
Hs = mindspore.vmap(mindspore.hessian(g))(xs)
ts = np.tanh(xs.asnumpy())
want_H = np.stack([np.diag(d) for d in 2 * (1 - ts ** 2) ** 2 - 4 * ts ** 2 * (1 - ts ** 2)])
want_H[:, 0, 1] += 1
want_H[:, 1, 0] += 1
report("vmap(hessian) for a batch", Hs, want_H, 1e-13)
