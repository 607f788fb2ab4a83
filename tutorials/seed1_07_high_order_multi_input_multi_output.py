"""Seed 001, "Multiple-Input Multiple-Output High-Order Derivative": the four second
derivatives of x**2 * y, picked out of the first-order pair (dx, dy) with a tuple of sens.

dxdx = 2y = 10, dxdy = 2x = 8, dydx = 2x = 8, dydy = 0 at x = 4, y = 5.
eagerad runs GRAPH_MODE eagerly (said once); without a usable GPU, device_target="GPU"
warns once and runs on the CPU.
Source: shared/seeds/001_*.txt (a single line there; indentation restored).
Only the import lines differ from the seed.
"""
import numpy as np
import eagerad.mindspore.context as context
import eagerad.mindspore.nn as nn
import eagerad.mindspore.ops as ops
from eagerad.mindspore import Tensor

context.set_context(mode=context.GRAPH_MODE, device_target="GPU")


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.mul = ops.Mul()

    def construct(self, x, y):
        x_square = self.mul(x, x)
        x_square_y = self.mul(x_square, y)
        return x_square_y


class Grad(nn.Cell):
    def __init__(self, network):
        super(Grad, self).__init__()
        self.grad = ops.GradOperation(get_all=True, sens_param=False)
        self.network = network

    def construct(self, x, y):
        gout = self.grad(self.network)(x, y)  # return dx, dy
        return gout


class GradSec(nn.Cell):
    def __init__(self, network):
        super(GradSec, self).__init__()
        self.grad = ops.GradOperation(get_all=True, sens_param=True)
        self.network = network
        self.sens1 = Tensor(np.array([1]).astype('float32'))
        self.sens2 = Tensor(np.array([0]).astype('float32'))

    def construct(self, x, y):
        dxdx, dxdy = self.grad(self.network)(x, y, (self.sens1, self.sens2))
        dydx, dydy = self.grad(self.network)(x, y, (self.sens2, self.sens1))
        return dxdx, dxdy, dydx, dydy


net = Net()
firstgrad = Grad(net)  # first order
secondgrad = GradSec(firstgrad)  # second order
x_train = Tensor(np.array([4], dtype=np.float32))
y_train = Tensor(np.array([5], dtype=np.float32))
dxdx, dxdy, dydx, dydy = secondgrad(x_train, y_train)
print(dxdx, dxdy, dydx, dydy)
