"""Gradient hooks, MindSpore style: look at (or change) a gradient in the middle of backward.

``ops.HookBackward(hook_fn)`` is the identity in the forward pass; in the backward pass
``hook_fn`` receives the gradient flowing through that point as a 1-tuple and may return
a replacement.  ``Tensor.register_hook(fn)`` does the same for one tensor and returns a
handle whose ``remove()`` takes the hook away.  For ``f = sum(sin(x * y))`` every seen or
changed gradient is checked against the chain rule.  Run: ``python tutorials/ms_hooks.py``.
"""
import numpy as np

import eagerad.mindspore as mindspore
from eagerad.mindspore import ops
from checks import report

xn = np.array([0.5, -1.0, 2.0])
yn = np.array([1.5, 0.2, -0.3])
x, y = mindspore.Tensor(xn), mindspore.Tensor(yn)
seen = []


def show(grad):
    seen.append(grad[0].asnumpy())       # observe only: returning None keeps the gradient


def f(x, y):
    z = ops.HookBackward(show)(x * y)
    return ops.sin(z).sum()


dx = mindspore.grad(f)(x, y)
report("HookBackward saw d f / d z = cos(x y)", seen[0], np.cos(xn * yn), 1e-15)
report("gradient w.r.t. x is unchanged: y cos(x y)", dx, yn * np.cos(xn * yn), 1e-15)


def double(grad):
    return (grad[0] * 2,)                # replace: the gradient doubles from here on


def f_doubled(x, y):
    return ops.sin(ops.HookBackward(double)(x * y)).sum()


report("a hook that doubles the gradient", mindspore.grad(f_doubled)(x, y), 2 * yn * np.cos(xn * yn),
       1e-15)

# Tensor.register_hook: the same on a tensor, PyTorch-style arguments (the gradient itself).
xp = mindspore.Parameter(mindspore.Tensor(xn), name="x")
z = xp * y
handle = z.register_hook(lambda g: g * 0.0 + 1.0)    # pretend df/dz is all ones
ops.sin(z).sum().backward(retain_graph=True)     # keep z's graph for a second pass
report("register_hook replacing df/dz by ones gives x.grad = y", xp.grad, yn, 0)
handle.remove()
xp.grad = None
ops.sin(z).sum().backward()
report("after handle.remove() the gradient is y cos(x y) again", xp.grad, yn * np.cos(xn * yn), 1e-15)
