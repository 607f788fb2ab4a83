"""Jacobians and Hessians with ``eagerad.torch.func`` (torch.func's names), PyTorch style.

For a layer ``y = tanh(W x + b)`` the Jacobian with respect to ``x`` is
``diag(1 - y^2) W``.  It is computed row by row (``vjp``), by reverse mode (``jacrev``),
by forward mode (``jacfwd``), with respect to several arguments (``argnums``), for a batch
(``vmap`` of ``jacrev``) and as a Hessian (``hessian``, forward over reverse), each
checked against the closed form; a Hessian-vector product via ``jvp`` of ``grad`` is
checked against the full Hessian.  Run: ``python tutorials/torch_jacobians_hessians.py``.
"""
import numpy as np

import eagerad.torch as torch
from eagerad.torch.func import grad, hessian, jacfwd, jacrev, jvp, vjp, vmap
from checks import report

rng = np.random.default_rng(0)
D_IN, D_OUT = 4, 3
W = torch.tensor(rng.normal(size=(D_OUT, D_IN)))
b = torch.tensor(rng.normal(size=D_OUT))
x = torch.tensor(rng.normal(size=D_IN))


def layer(W, b, x):
    return torch.tanh(W @ x + b)


y = layer(W, b, x).numpy()
closed = (1 - y ** 2)[:, None] * W.numpy()             # dy/dx

# Row by row: one vjp per output unit.
out, pull = vjp(lambda x: layer(W, b, x), x)
rows = [pull(torch.tensor(np.eye(D_OUT)[i]))[0] for i in range(D_OUT)]
report("vjp row by row", torch.stack(rows), closed, 1e-14)
report("jacrev", jacrev(layer, argnums=2)(W, b, x), closed, 1e-14)
report("jacfwd", jacfwd(layer, argnums=2)(W, b, x), closed, 1e-14)

# Several arguments: dy/dW[i, j, k] = (1 - y_i^2) delta_ij x_k and dy/db = diag(1 - y^2).
dW, db = jacrev(layer, argnums=(0, 1))(W, b, x)
want_dW = (1 - y ** 2)[:, None, None] * np.eye(D_OUT)[:, :, None] * x.numpy()[None, None, :]
report("jacrev argnums=(0, 1): d/dW", dW, want_dW, 1e-14)
report("jacrev argnums=(0, 1): d/db", db, np.diag(1 - y ** 2), 1e-14)

# A batch of inputs: vmap over x only (in_dims None for W and b).
xs = torch.tensor(rng.normal(size=(5, D_IN)))
batched = vmap(jacrev(layer, argnums=2), in_dims=(None, None, 0))(W, b, xs)
ys = np.tanh(xs.numpy() @ W.numpy().T + b.numpy())
report("vmap(jacrev) over a batch", batched, (1 - ys ** 2)[:, :, None] * W.numpy()[None], 1e-14)

# Hessian of the scalar f(x) = x[0] * sum(sin(x)): diagonal and mixed second derivatives.
def f(x):
    return torch.sin(x).sum() * x[0]


x0 = x.numpy()
H = np.diag(-np.sin(x0) * x0[0])
H[0, :] += np.cos(x0)
H[:, 0] += np.cos(x0)
report("hessian (forward over reverse)", hessian(f)(x), H, 1e-14)
report("jacfwd(jacrev) equals jacrev(jacrev)", jacfwd(jacrev(f))(x), jacrev(jacrev(f))(x), 1e-14)

# Hessian-vector product without forming H: the jvp of grad(f) in direction v.
v = torch.tensor(rng.normal(size=D_IN))
_, hvp = jvp(grad(f), (x,), (v,))
report("hessian-vector product via jvp(grad)", hvp, H @ v.numpy(), 1e-14)
