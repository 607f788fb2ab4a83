"""Seed 001, "Single-input Multi-output High-order Derivative": d2(x * x)/dx2 = 2.

eagerad runs GRAPH_MODE eagerly (said once); without a usable GPU, device_target="GPU"
warns once and runs on the CPU.
Source: shared/seeds/001_*.txt (a single line there; indentation restored).
Only the import lines differ from the seed.
"""
import eagerad.mindspore.context as context
import eagerad.mindspore.nn as nn
import eagerad.mindspore.ops as ops
from eagerad.mindspore import Tensor
from eagerad.mindspore import dtype as mstype

context.set_context(mode=context.GRAPH_MODE, device_target="GPU")


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.mul = ops.Mul()

    def construct(self, x):
        out = self.mul(x, x)
        return out


class Grad(nn.Cell):
    def __init__(self, network):
        super(Grad, self).__init__()
        self.grad = ops.GradOperation(sens_param=False)
        self.network = network

    def construct(self, x):
        gout = self.grad(self.network)(x)
        return gout


class GradSec(nn.Cell):
    def __init__(self, network):
        super(GradSec, self).__init__()
        self.grad = ops.GradOperation(sens_param=False)
        self.network = network

    def construct(self, x):
        gout = self.grad(self.network)(x)
        return gout


net = Net()
firstgrad = Grad(net)  # first order
secondgrad = GradSec(firstgrad)  # second order
x = Tensor([0.1, 0.2, 0.3], dtype=mstype.float32)
output = secondgrad(x)
print(output)
