"""The engine's lean paths give what the general paths give: ops called without keywords
(``Op.__call__`` -> the generated appliers of one to four operands), nodes run on their
array rules under ``create_graph`` when nothing they read has a graph, and the CPU's outer
products (``matmul`` with an inner dimension of 1)."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd
from eagerad.backend import cpu
from eagerad.ops.registry import OPS, apply


def _tensors(seed, *shapes, grad=True):
    rng = np.random.default_rng(seed)
    return [eagerad.tensor(rng.uniform(-1.0, 1.0, s), requires_grad=grad) for s in shapes]


@pytest.mark.parametrize("name, extra", [("minus2_product", ()), ("sin_derivative", (1,)),
                                         ("pow_derivative", (3, 2))])
def test_generated_appliers_record_what_apply_records(name, extra):
    op = OPS[name]
    a, b, c = _tensors(0, (2, 3), (2, 3), (3,))
    args = (a, b) + extra if extra else (a, b, c)
    lean, general = op(*args), apply(op, args, {})
    assert lean.grad_fn.name == general.grad_fn.name and lean.grad_fn.lean is not None
    assert [e is None for e in lean.grad_fn.next] == [e is None for e in general.grad_fn.next]
    assert [type(i) for i in lean.grad_fn.inputs] == [type(i) for i in general.grad_fn.inputs]
    np.testing.assert_array_equal(lean.numpy(), general.numpy())
    wrt = [t for t in args if isinstance(t, eagerad.Tensor)]
    found = []
    for out in (lean, general):       # first and second order through each node
        first = autograd.grad((out * out).sum(), wrt, create_graph=True)
        found.append(first + autograd.grad(sum(g.sum() for g in first), wrt))
    for g1, g2 in zip(*found):
        np.testing.assert_array_equal(g1.detach().numpy(), g2.detach().numpy())


def test_generated_applier_falls_back_for_other_operands():
    x, = _tensors(1, (3,))
    out = OPS["minus2_product"](x, np.float64(2.0), True)   # numpy scalar, bool: ``apply``
    np.testing.assert_array_equal(out.numpy(), x.detach().numpy() * 2.0 * 1.0 * -2)
    with pytest.raises(ValueError):
        OPS["minus2_product"](x, x, eagerad.ones(4, dtype="float64"))    # shapes disagree


def test_constant_nodes_under_create_graph_keep_every_order():
    """``(sin(x) * w).sum()`` with a constant ``w``: the sum's and the product's nodes run
    their array rules while the backward is recorded; derivatives to third order still
    match the closed forms, and a tensor hook on the gradient still fires."""
    x, = _tensors(2, (5,))
    w = eagerad.tensor(np.linspace(-1.0, 1.0, 5))
    seen = []
    y = x.sin()
    y.register_hook(lambda g: seen.append(g.detach().numpy().copy()))
    (g1,) = autograd.grad((y * w).sum(), x, create_graph=True)
    (g2,) = autograd.grad(g1.sum(), x, create_graph=True)
    (g3,) = autograd.grad(g2.sum(), x)
    xs, ws = x.detach().numpy(), w.numpy()
    np.testing.assert_allclose(g1.detach().numpy(), ws * np.cos(xs), rtol=1e-14)
    np.testing.assert_allclose(g2.detach().numpy(), -ws * np.sin(xs), rtol=1e-14)
    np.testing.assert_allclose(g3.numpy(), -ws * np.cos(xs), rtol=1e-14)
    np.testing.assert_array_equal(seen[0], ws)
    assert g1.requires_grad and g2.requires_grad


def test_constant_node_checks_versions():
    x, = _tensors(3, (4,))
    w = eagerad.tensor(np.ones(4))
    out = (x * w).sum()
    w.add_(1.0)              # w is saved by the product's node: the backward must refuse
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        autograd.grad(out, x, create_graph=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m, n", [(128, 64), (2, 64), (1, 1), (0, 3), (3, 0)])
def test_outer_products_equal_blas(dtype, m, n):
    rng = np.random.default_rng(m * 100 + n)
    a = (rng.standard_normal((m, 1)) * 1e3).astype(dtype)
    b = rng.standard_normal((1, n)).astype(dtype)
    bt = np.ascontiguousarray(rng.standard_normal((n, 1)).astype(dtype)).T   # a strided row
    for right in (b, bt):
        out = cpu.matmul(a, right)
        assert out.dtype == dtype and out.shape == (m, n)
        np.testing.assert_array_equal(out, np.matmul(a, right))


@pytest.mark.parametrize("name, kwargs", [("sum", dict(axes=(1,), keepdims=False)),
                                          ("mean", dict(axes=(0, 1), keepdims=True)),
                                          ("logsumexp", dict(axes=(0,), keepdims=False))])
def test_keyword_applier_records_what_apply_records(name, kwargs):
    op = OPS[name]
    x, = _tensors(4, (3, 4))
    lean, general = op(x, **kwargs), apply(op, (x,), dict(kwargs))
    assert lean.grad_fn.kwargs == general.grad_fn.kwargs == kwargs
    assert lean.grad_fn.lean is general.grad_fn.lean     # (one step per op and call shape)
    assert lean.grad_fn.name == general.grad_fn.name
    np.testing.assert_array_equal(lean.numpy(), general.numpy())
    found = []
    for out in (lean, general):
        (first,) = autograd.grad((out * out).sum(), x, create_graph=True)
        found.append((first, autograd.grad(first.sum(), x)[0]))
    for g1, g2 in zip(*found):
        np.testing.assert_array_equal(g1.detach().numpy(), g2.detach().numpy())
