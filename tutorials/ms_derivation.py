"""Derivatives of every kind, MindSpore style: inputs, weights, scaled outputs, higher orders.

``f(x, y) = x^2 y + sin(x y)`` and a Cell ``out = w * x^3 + b``:

- ``grad(f)`` / ``grad(f, grad_position=(0, 1))``: partial derivatives of inputs;
- ``grad(net, None, weights)``: derivatives of the Cell's Parameters;
- ``ops.GradOperation(get_all=True, sens_param=True)``: a weighted output (``sens``);
- ``grad(grad(...))``: second and third derivatives; mixed partials are equal.

Every number is checked against its closed form.  Run: ``python tutorials/ms_derivation.py``.
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import nn, ops
from checks import report

xn = np.array([0.3, -1.2, 2.0])
yn = np.array([1.5, 0.4, -0.7])
x = mindspore.Tensor(xn)
y = mindspore.Tensor(yn)


def f(x, y):
    return (x ** 2 * y + ops.sin(x * y)).sum()


report("df/dx", mindspore.grad(f)(x, y), 2 * xn * yn + yn * np.cos(xn * yn), 1e-14)
dx, dy = mindspore.grad(f, grad_position=(0, 1))(x, y)
report("df/dy", dy, xn ** 2 + xn * np.cos(xn * yn), 1e-14)
report("df/dx with grad_position=(0, 1)", dx, 2 * xn * yn + yn * np.cos(xn * yn), 1e-14)

# sens: the gradient of sum(sens * g(x, y)) for a vector-valued g.
def g(x, y):
    return x ** 2 * y + ops.sin(x * y)


sens = mindspore.Tensor(np.array([1.0, -2.0, 0.5]))
sdx, sdy = ops.GradOperation(get_all=True, sens_param=True)(g)(x, y, sens)
report("GradOperation sens_param: d/dx", sdx, sens.asnumpy() * (2 * xn * yn + yn * np.cos(xn * yn)),
       1e-14)
report("GradOperation sens_param: d/dy", sdy, sens.asnumpy() * (xn ** 2 + xn * np.cos(xn * yn)),
       1e-14)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.w = mindspore.Parameter(mindspore.Tensor(np.array([0.5, 2.0, -1.0])), name="w")
        self.b = mindspore.Parameter(mindspore.Tensor(np.array([0.1, 0.1, 0.1])), name="b")

    def construct(self, x):
        return self.w * x ** 3 + self.b


net = Net()
gw, gb = mindspore.grad(net, None, net.trainable_params())(x)
report("d out / d w (summed over outputs) is x^3", gw, xn ** 3, 1e-14)
report("d out / d b is 1", gb, np.ones(3), 0)
gx, (gw2, gb2) = mindspore.grad(net, 0, net.trainable_params())(x)   # input and weights
report("d out / d x is 3 w x^2", gx, 3 * net.w.asnumpy() * xn ** 2, 1e-14)
report("the weights' part is the same as before", gw2, gw, 0)

# Higher orders: nest grad.  d^2/dx^2 sin(x) = -sin(x), d^3 = -cos(x).
d1 = mindspore.grad(ops.sin)
d2 = mindspore.grad(d1)
d3 = mindspore.grad(d2)
report("second derivative of sin", d2(x), -np.sin(xn), 1e-14)
report("third derivative of sin", d3(x), -np.cos(xn), 1e-14)

# Mixed partials of f: d/dy (df/dx) equals d/dx (df/dy) (here for f summed, elementwise).
dxy = mindspore.grad(lambda x, y: mindspore.grad(f, 0)(x, y).sum(), 1)(x, y)
dyx = mindspore.grad(lambda x, y: mindspore.grad(f, 1)(x, y).sum(), 0)(x, y)
closed = 2 * xn + np.cos(xn * yn) - xn * yn * np.sin(xn * yn)
report("d2f/dxdy", dxy, closed, 1e-14)
report("d2f/dydx", dyx, closed, 1e-14)
