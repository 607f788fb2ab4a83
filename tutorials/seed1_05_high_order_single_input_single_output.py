"""Seed 001, "Single-input Single-output High-order Derivative": d2 sin(x)/dx2 = -sin(x).

A GradOperation of a Cell that itself calls GradOperation: nesting is higher order.
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
        self.sin = ops.Sin()

    def construct(self, x):
        out = self.sin(x)
        return out


class Grad(nn.Cell):
    def __init__(self, network):
        super(Grad, self).__init__()
        self.grad = ops.GradOperation()
        self.network = network

    def construct(self, x):
        gout = self.grad(self.network)(x)
        return gout


class GradSec(nn.Cell):
    def __init__(self, network):
        super(GradSec, self).__init__()
        self.grad = ops.GradOperation()
        self.network = network

    def construct(self, x):
        gout = self.grad(self.network)(x)
        return gout


net = Net()
firstgrad = Grad(net)  # first order
secondgrad = GradSec(firstgrad)  # second order
x_train = Tensor(np.array([1.0], dtype=np.float32))
output = secondgrad(x_train)
print(output)
