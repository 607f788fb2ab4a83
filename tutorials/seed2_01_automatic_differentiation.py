"""Seed 002, "Automatic Differentiation": the side-by-side table, PyTorch left, MindSpore right.

Both snippets print nothing in the seed; after the marker line this script prints what
they computed (``y.backward(x)`` accumulates x's value into the leaf's grad through
y = 2 * leaf - 1, i.e. 2 * 2 = 4; ``ms.grad`` of x * y w.r.t. x is y).
Source: shared/seeds/002_*.txt.  Only the import lines differ from the seed.
"""
# Note: The feedback of PyTorch is cumulative,
# and after updating, the optimizer needs to be cleared.

import eagerad.torch as torch
from eagerad.torch.autograd import Variable

x = Variable(torch.ones(2, 2), requires_grad=True)
leaf = x
x = x * 2
y = x - 1
y.backward(x)

# ms.grad: forward graph as input, backward graph as output.
import eagerad.mindspore as ms
from eagerad.mindspore import nn


class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super(GradNetWrtX, self).__init__()
        self.net = net

    def construct(self, x, y):
        gradient_function = ms.grad(self.net)
        return gradient_function(x, y)


print("--- beyond the seed ---")
print("leaf.grad", leaf.grad)
print("GradNetWrtX(x * y)", GradNetWrtX(lambda x, y: x * y)(ms.Tensor([3.0]), ms.Tensor([5.0])))
