"""Seed 002, "Gradient Cropping": clip a tuple of gradients by their global norm.

The seed's snippet prints nothing; after the marker line this script prints the weight
gradient of the seed's net before and after clipping (norm sqrt(4 + 16 + 36) = 7.48 > 1,
so the clipped gradient has norm 1).
Source: shared/seeds/002_*.txt.  Only the import lines differ from the seed.
"""
import eagerad.mindspore as ms
from eagerad.mindspore import nn


class Net(nn.Cell):
    def __init__(self, in_channel, out_channel):
        super(Net, self).__init__()
        self.fc = nn.Dense(in_channel, out_channel, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        loss = self.loss(logits, y)
        return loss, logits


net = Net(3, 1)
net.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))   # Set a fixed value for fully connected weight
x = ms.Tensor([[1, 2, 3]], ms.float32)
y = ms.Tensor(19, ms.float32)
grad, _ = ms.grad(net, grad_position=None, weights=net.trainable_params(), has_aux=True)(x, y)

from eagerad.mindspore import ops

clipped = ops.clip_by_global_norm(grad)

print("--- beyond the seed ---")
print("grad", grad)
print("clipped", clipped)
