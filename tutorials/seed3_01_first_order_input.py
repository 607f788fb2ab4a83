"""Seed 003, "First-order Derivation / Computing the First-order Derivative for Input":
d(x * x * y * z)/dx = 2xyz = 30 and d/dy = x * x * z = 9 at x = 3, y = 5, z = 1.

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
grad_fn = ms.grad(net, grad_position=(0, 1))
gradients = grad_fn(x, y)
print(gradients)
