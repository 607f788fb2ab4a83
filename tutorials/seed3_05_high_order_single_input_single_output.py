"""Seed 003, "Single-input Single-output High-order Derivative": grad(grad(sin)) = -sin,
which is about 0 at 3.1415926 (printed rounded to 2 decimals, hence -0.).

Source: shared/seeds/003_*.txt (its code lost its indentation there; restored here).
Only the import lines differ from the seed.
"""
import numpy as np
import eagerad.mindspore.nn as nn
import eagerad.mindspore.ops as ops
import eagerad.mindspore as ms


class Net(nn.Cell):
    """Feedforward network model"""
    def __init__(self):
        super(Net, self).__init__()
        self.sin = ops.Sin()

    def construct(self, x):
        out = self.sin(x)
        return out


x_train = ms.Tensor(np.array([3.1415926]), dtype=ms.float32)
net = Net()
firstgrad = ms.grad(net)
secondgrad = ms.grad(firstgrad)
output = secondgrad(x_train)
# Print the result.
result = np.around(output.asnumpy(), decimals=2)
print(result)
