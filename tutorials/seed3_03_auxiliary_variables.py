"""Seed 003, "Returning Auxiliary Variables": has_aux=True differentiates only the loss
and hands the logits back untouched.  The data are random; the printed shapes are not.

Source: shared/seeds/003_*.txt (its code lost its indentation there; restored here).
Only the import lines differ from the seed.
"""
import numpy as np
from eagerad.mindspore import ops, Tensor
import eagerad.mindspore.nn as nn
import eagerad.mindspore as ms

net = nn.Dense(10, 1)
loss_fn = nn.MSELoss()


def forward(inputs, labels):
    logits = net(inputs)
    loss = loss_fn(logits, labels)
    return loss, logits


inputs = Tensor(np.random.randn(16, 10).astype(np.float32))
labels = Tensor(np.random.randn(16, 1).astype(np.float32))
weights = net.trainable_params()
# Aux value does not contribute to the gradient.
grad_fn = ms.grad(forward, grad_position=0, weights=None, has_aux=True)
inputs_gradient, (aux_logits,) = grad_fn(inputs, labels)
print(len(inputs_gradient), aux_logits.shape)
