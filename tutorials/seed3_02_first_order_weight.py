"""Seed 003, "Computing the Derivative for Weight": d(x * x * y * z)/dz = x * x * y = 45.

Source: shared/seeds/003_*.txt (its code lost its indentation there; restored here).
Only the import lines differ from the seed.
"""
import numpy as np
from eagerad.mindspore import ops, Tensor
import eagerad.mindspore.nn as nn
import eagerad.mindspore as ms
# Define the inputs x and y.
x = Tensor([3.0], dtype=ms.float32)
y = Tensor([5.0], dtype=ms.float32)


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.z = ms.Parameter(ms.Tensor(np.array([1.0], np.float32)), name='z')

    def construct(self, x, y):
        out = x * x * y * self.z
        return out


net = Net()
params = ms.ParameterTuple(net.trainable_params())
output = ms.grad(net, grad_position=None, weights=params)(x, y)
print(output)
