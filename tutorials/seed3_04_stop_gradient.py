"""Seed 003, "Stopping Gradient Computation": with stop_gradient on out2 only out1 = x * y
contributes (dx = y = 5); without it both do (dx = 10).

The seed's second net comments the line out; here it is NetWithoutStop.
Source: shared/seeds/003_*.txt (its code lost its indentation there; restored here).
Only the import lines differ from the seed.
"""
import numpy as np
from eagerad.mindspore import ops, Tensor
import eagerad.mindspore.nn as nn
import eagerad.mindspore as ms

x = Tensor([3.0], dtype=ms.float32)
y = Tensor([5.0], dtype=ms.float32)


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()

    def construct(self, x, y):
        out1 = x * y
        out2 = x * y
        out2 = ops.stop_gradient(out2)  # Stop computing the gradient of the out2 operator.
        out = out1 + out2
        return out


net = Net()
grad_fn = ms.grad(net)
output = grad_fn(x, y)
print(output)


class NetWithoutStop(nn.Cell):
    def __init__(self):
        super(NetWithoutStop, self).__init__()

    def construct(self, x, y):
        out1 = x * y
        out2 = x * y
        # out2 = stop_gradient(out2)
        out = out1 + out2
        return out


net = NetWithoutStop()
grad_fn = ms.grad(net)
output = grad_fn(x, y)
print(output)
