"""Automatic differentiation, MindSpore style: ``grad`` and ``value_and_grad`` on functions and Cells.

A logistic layer ``z = x @ w + b`` with ``loss = BCE-with-logits(z, y)``: the gradients with
respect to ``w`` and ``b`` (``grad_position=(2, 3)``) are checked against the closed form
``(sigmoid(z) - y) / n``; ``has_aux=True`` returns ``z`` beside the loss without
differentiating it, ``ops.stop_gradient`` cuts a path; finally the same model as an
``nn.Cell`` is differentiated with respect to its ``trainable_params()`` and trained.
Run: ``python tutorials/ms_autograd.py``.
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import nn, ops
from checks import report

rng = np.random.default_rng(0)
x = mindspore.Tensor(np.ones(5), mindspore.float64)
y = mindspore.Tensor(np.array([0.0, 1.0, 0.0]), mindspore.float64)
w = mindspore.Parameter(mindspore.Tensor(rng.normal(size=(5, 3))), name="w")
b = mindspore.Parameter(mindspore.Tensor(rng.normal(size=3)), name="b")


def function(x, y, w, b):
    z = ops.matmul(x, w) + b
    return ops.binary_cross_entropy_with_logits(z, y), z


def loss_only(x, y, w, b):
    return function(x, y, w, b)[0]


zn = x.asnumpy() @ w.asnumpy() + b.asnumpy()
dz = (1 / (1 + np.exp(-zn)) - y.asnumpy()) / 3
gw, gb = mindspore.grad(loss_only, (2, 3))(x, y, w, b)
report("grad w.r.t. w is outer(x, dL/dz)", gw, np.outer(x.asnumpy(), dz), 1e-14)
report("grad w.r.t. b is dL/dz", gb, dz, 1e-14)

# Two outputs without has_aux: both are differentiated (their gradients add up).
gw2, gb2 = mindspore.grad(function, (2, 3))(x, y, w, b)
report("grad of (loss, z) adds dz/db = 1 to every entry", gb2, dz + 1, 1e-14)

# has_aux=True: only the first output is differentiated, z comes back as an auxiliary value.
(gw3, gb3), (z,) = mindspore.grad(function, (2, 3), has_aux=True)(x, y, w, b)
report("has_aux: gradient of the loss only", gb3, dz, 1e-14)
report("has_aux: z is returned unchanged", z, zn, 1e-14)


# stop_gradient: the second output no longer contributes, as with has_aux.
def function_stopped(x, y, w, b):
    loss, z = function(x, y, w, b)
    return loss, ops.stop_gradient(z)


report("stop_gradient on z", mindspore.grad(function_stopped, (2, 3))(x, y, w, b)[1], dz, 1e-14)


# The same model as a Cell, differentiated with respect to its parameters.
class Network(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = mindspore.Parameter(mindspore.Tensor(w.asnumpy()), name="w")
        self.b = mindspore.Parameter(mindspore.Tensor(b.asnumpy()), name="b")

    def construct(self, x):
        return ops.matmul(x, self.w) + self.b


model = Network()


def forward_fn(x, y):
    return ops.binary_cross_entropy_with_logits(model(x), y)


grad_fn = mindspore.value_and_grad(forward_fn, None, weights=model.trainable_params())
loss, (gw4, gb4) = grad_fn(x, y)
print("loss", loss.asnumpy())
report("Cell: value_and_grad w.r.t. trainable_params (w)", gw4, np.outer(x.asnumpy(), dz), 1e-14)
report("Cell: value_and_grad w.r.t. trainable_params (b)", gb4, dz, 1e-14)

optimizer = nn.SGD(model.trainable_params(), learning_rate=1.0)
for step in range(100):
    loss, grads = grad_fn(x, y)
    optimizer(grads)
print("loss after 100 SGD steps", loss.asnumpy())
z_fit = x.asnumpy() @ model.w.asnumpy() + model.b.asnumpy()
report("after training, sigmoid(z) approaches y", 1 / (1 + np.exp(-z_fit)), y.asnumpy(), 0.05)
