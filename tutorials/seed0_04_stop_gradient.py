"""Seed 000, "Stop Gradient": out2 = stop_gradient(out2) removes out2's share of the gradient.

The seed shows both results (with and without ``stop_gradient``); this script prints both,
the second with ``NetWithoutStop``, the seed's net with that line deleted.  The seed rounds
4.51 to 4.5 (and 9.02 to 9.0); eagerad prints the exact float32 values.
Source: shared/seeds/000_*.txt.  Apart from the import lines, the code is the seed's.
"""
import numpy as np
import eagerad.mindspore.nn as nn
import eagerad.mindspore.ops as ops
from eagerad.mindspore import Tensor
from eagerad.mindspore import ParameterTuple, Parameter
from eagerad.mindspore import dtype as mstype
from eagerad.mindspore.ops import stop_gradient


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()

    def construct(self, x, y):
        out1 = self.matmul(x, y)
        out2 = self.matmul(x, y)
        out2 = stop_gradient(out2)
        out = out1 + out2
        return out


class NetWithoutStop(Net):
    def construct(self, x, y):
        out1 = self.matmul(x, y)
        out2 = self.matmul(x, y)
        out = out1 + out2
        return out


class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.grad_op = ops.GradOperation()

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net)
        return gradient_function(x, y)


x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)
output = GradNetWrtX(Net())(x, y)
print(output)

# "If we delete `out2 = stop_gradient(out2)`, the result is:"
output = GradNetWrtX(NetWithoutStop())(x, y)
print(output)
