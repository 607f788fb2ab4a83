"""Seed 003, "Multiple-Input Multiple-Output High-Order Derivative": second derivatives of
the summed outputs sin x - cos y + cos x - sin y: -sin x - cos x (about 1) for x and
sin y + cos y (about -1) for y, at 3.1415926.

Source: shared/seeds/003_*.txt (its code lost its indentation there; restored here).
Only the import lines differ from the seed.
"""
import numpy as np
from eagerad.mindspore import ops, Tensor
import eagerad.mindspore.nn as nn
import eagerad.mindspore as ms


class Net(nn.Cell):
    """Feedforward network model"""
    def __init__(self):
        super(Net, self).__init__()
        self.sin = ops.Sin()
        self.cos = ops.Cos()

    def construct(self, x, y):
        out1 = self.sin(x) - self.cos(y)
        out2 = self.cos(x) - self.sin(y)
        return out1, out2


x_train = Tensor(np.array([3.1415926]), dtype=ms.float32)
y_train = Tensor(np.array([3.1415926]), dtype=ms.float32)
net = Net()
firstgrad = ms.grad(net, grad_position=(0, 1))
secondgrad = ms.grad(firstgrad, grad_position=(0, 1))
output = secondgrad(x_train, y_train)
# Print the result.
print(np.around(output[0].asnumpy(), decimals=2))
print(np.around(output[1].asnumpy(), decimals=2))
