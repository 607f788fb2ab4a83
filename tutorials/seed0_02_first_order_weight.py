"""Seed 000, "First-order Derivative of the Weight": gradient of sum(z * x @ y) w.r.t. z.

get_by_list=True with a ParameterTuple returns one gradient per weight, as a tuple.
Source: shared/seeds/000_*.txt.  Only the import lines differ from the seed.
"""
import numpy as np
import eagerad.mindspore.nn as nn
import eagerad.mindspore.ops as ops
from eagerad.mindspore import Tensor
from eagerad.mindspore import ParameterTuple, Parameter
from eagerad.mindspore import dtype as mstype


class Net(nn.Cell):
    def __init__(self):
        super(Net, self).__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([1.0], np.float32)), name='z')

    def construct(self, x, y):
        x = x * self.z
        out = self.matmul(x, y)
        return out


class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net
        self.params = ParameterTuple(net.trainable_params())
        self.grad_op = ops.GradOperation(get_by_list=True)

    def construct(self, x, y):
        gradient_function = self.grad_op(self.net, self.params)
        return gradient_function(x, y)


x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=mstype.float32)
y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=mstype.float32)

output = GradNetWrtX(Net())(x, y)
print(output)
