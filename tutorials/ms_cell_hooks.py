"""Cell hooks, MindSpore style: watch a layer's inputs, outputs and gradients without editing it.

``register_forward_pre_hook(fn)`` sees a Cell's inputs before ``construct`` runs,
``register_forward_hook(fn)`` its inputs and output after, and
``register_backward_hook(fn)`` the gradients with respect to its inputs and output during
backward; each returns a handle whose ``remove()`` detaches it.  For a ``Dense`` layer
followed by ``ReLU`` the recorded values are checked against the closed form of the
gradient ``W^T (relu'(z) * g)``.  Run: ``python tutorials/ms_cell_hooks.py``.
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import nn, ops
from checks import report

rng = np.random.default_rng(3)
dense = nn.Dense(4, 3)
relu = nn.ReLU()
x = mindspore.Tensor(rng.normal(size=(2, 4)).astype(np.float32))
record = {}


def pre_hook(cell, inputs):
    record["pre"] = inputs[0].asnumpy()


def forward_hook(cell, inputs, output):
    record["out"] = output.asnumpy()


def backward_hook(cell, grad_input, grad_output):
    record["grad_in"] = grad_input[0].asnumpy()
    record["grad_out"] = grad_output[0].asnumpy()


handles = [dense.register_forward_pre_hook(pre_hook), dense.register_forward_hook(forward_hook),
           relu.register_backward_hook(backward_hook)]


def net(x):
    return relu(dense(x)).sum()


gx = mindspore.grad(net)(x)
z = x.asnumpy() @ dense.weight.asnumpy().T + dense.bias.asnumpy()
report("forward pre-hook saw the input", record["pre"], x.asnumpy(), 0)
report("forward hook saw the output W x + b", record["out"], z, 1e-6)
report("backward hook: gradient of ReLU's output is ones", record["grad_out"], np.ones_like(z), 0)
report("backward hook: gradient of ReLU's input is relu'(z)", record["grad_in"], (z > 0) * 1.0, 0)
report("gradient of the input W^T relu'(z)", gx, ((z > 0) * 1.0) @ dense.weight.asnumpy(), 1e-6)

for h in handles:
    h.remove()
record.clear()
mindspore.grad(net)(x)
print("after remove() the hooks record nothing:", record == {})
if record:
    raise SystemExit("hooks still ran after remove()")
