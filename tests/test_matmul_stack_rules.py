"""matmul's array-level (first-order) rules on stacks of matrices: attention's
``q @ k^T`` and a layer over a sequence take them, with the numbers of the recorded
(differentiable) rules, and broadcast batches still go through the recorded rules."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops

SHAPES = [((2, 3, 4, 5), (2, 3, 5, 6)), ((3, 4, 5), (5, 2)), ((4, 5), (5, 6)),
          ((2, 1, 4, 5), (3, 5, 6)), ((5,), (2, 5, 3))]


def _unbroadcast(x, shape):
    """Sum ``x`` over the axes numpy broadcast to reach its shape from ``shape``."""
    x = x.sum(axis=tuple(range(x.ndim - len(shape))))
    return x.sum(axis=tuple(i for i, n in enumerate(shape) if n == 1 and x.shape[i] != 1),
                 keepdims=True)


def _grads(a_np, b_np, g_np, create_graph):
    a = eagerad.tensor(a_np, requires_grad=True)
    b = eagerad.tensor(b_np, requires_grad=True)
    return autograd.grad(a @ b, (a, b), eagerad.tensor(g_np), create_graph=create_graph)


@pytest.mark.parametrize("sa,sb", SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_first_order_rules_equal_recorded_rules_and_closed_form(sa, sb, dtype, monkeypatch):
    rng = np.random.default_rng(7)
    a, b = rng.standard_normal(sa).astype(dtype), rng.standard_normal(sb).astype(dtype)
    g = rng.standard_normal((a @ b).shape).astype(dtype)
    op = ops.registry.OPS["matmul"]
    used = []

    def spy(i, rule):
        def run(*args):
            out = rule(*args)
            if out is not None:
                used.append(i)
            return out
        return run
    monkeypatch.setattr(op, "fast", tuple(spy(i, f) for i, f in enumerate(op.fast)))
    fast = _grads(a, b, g, create_graph=False)
    slow = _grads(a, b, g, create_graph=True)
    for f, s in zip(fast, slow):
        np.testing.assert_array_equal(f.numpy(), s.numpy())
    a2 = a.reshape(1, -1) if a.ndim == 1 else a
    g2 = np.expand_dims(g, -2) if a.ndim == 1 else g
    ga = _unbroadcast(g2 @ np.swapaxes(b, -1, -2), a2.shape).reshape(a.shape)
    gb = _unbroadcast(np.swapaxes(a2, -1, -2) @ g2, b.shape)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(fast[0].numpy(), ga, rtol=tol, atol=tol)
    np.testing.assert_allclose(fast[1].numpy(), gb, rtol=tol, atol=tol)
    assert (0 in used) == (a.ndim >= 2 and (b.ndim == 2 or sa[:-2] == sb[:-2]))
    assert (1 in used) == (a.ndim >= 2 and sa[:-2] == sb[:-2])
