"""Gather/scatter family, index_select/take, masks and the index queries: values against
numpy, gradients to second order by finite differences (third order against a closed
form), repeated indices, in-place forms, batching rules and bad input."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import OPS

F64 = eagerad.float64
RNG = np.random.default_rng(7)


def _x(*shape):
    return eagerad.tensor(RNG.uniform(-1, 1, shape), dtype=F64, requires_grad=True)


def _both_orders(fn, *inputs):
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)

# ------------------------------------------------------------------- values


def test_take_along_axis_matches_numpy_with_broadcasting_and_negative_indices():
    a = RNG.normal(size=(3, 4))
    for idx, axis in ((np.array([[0, 3, -1, 2]]), 1), (np.array([[2], [0], [-3]]), 1),
                      (np.array([[1, 1, 0, 2]]), 0), (np.zeros((3, 0), np.int64), 1)):
        got = ops.take_along_axis(eagerad.tensor(a), eagerad.tensor(idx), axis)
        np.testing.assert_array_equal(got.numpy(), np.take_along_axis(a, idx, axis))
    flat = ops.take_along_axis(eagerad.tensor(a), eagerad.tensor([5, 0]), None)
    np.testing.assert_array_equal(flat.numpy(), a.reshape(-1)[[5, 0]])


def test_gather_pytorch_reads_the_index_corner_and_mindspore_order_is_take():
    x = eagerad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    # torch.gather(x, 0, [[2, 0]]) = [[x[2,0], x[0,1]]]
    assert ops.gather(x, 0, eagerad.tensor([[2, 0]])).tolist() == [[7.0, 2.0]]
    assert x.gather(1, eagerad.tensor([[2], [1]])).tolist() == [[3.0], [5.0]]
    assert ops.gather(x, dim=1, index=eagerad.tensor([[0, 0]])).tolist() == [[1.0, 1.0]]
    assert ops.gather_elements(x, 1, eagerad.tensor([[2]])).tolist() == [[3.0]]
    # MindSpore ops.gather(input_params, input_indices, axis) is numpy's take
    np.testing.assert_array_equal(ops.gather(x, eagerad.tensor([2, 0]), 1).numpy(),
                                  np.take(x.numpy(), [2, 0], axis=1))


def test_take_and_index_select_match_numpy():
    a = RNG.normal(size=(2, 3, 4))
    x = eagerad.tensor(a)
    for idx, axis in (([[1, 0], [3, 3]], 2), ([2, -1, 0], 1), (1, 0), (np.zeros(0, int), 2),
                      ([[5, 23]], None)):
        np.testing.assert_array_equal(ops.take(x, idx, axis).numpy(), np.take(a, idx, axis))
    np.testing.assert_array_equal(x.index_select(1, eagerad.tensor([2, 2, 0])).numpy(),
                                  a[:, [2, 2, 0]])
    np.testing.assert_array_equal(ops.index_select(x, dim=2, index=[3]).numpy(), a[:, :, [3]])


def test_scatter_scatter_add_and_index_add_known_values():
    base = eagerad.zeros(3, 3)
    src = eagerad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    idx = eagerad.tensor([[0, 1, 2], [2, 0, 1]])
    # out[idx[i][j]][j] = src[i][j] (dim 0)
    assert ops.scatter(base, 0, idx, src).tolist() == [[1, 5, 0], [0, 2, 6], [4, 0, 3]]
    assert ops.scatter(base, 1, eagerad.tensor([[2]]), 9.0).tolist()[0] == [0, 0, 9]
    assert ops.scatter(base, 1, eagerad.tensor([[1]]), value=4.0).tolist()[0] == [0, 4, 0]
    dup = eagerad.tensor([[0, 0, 0], [0, 0, 0]])
    assert ops.scatter_add(base, 0, dup, src).tolist()[0] == [5.0, 7.0, 9.0]
    assert ops.scatter(base, 0, dup, src, reduce="add").tolist()[0] == [5.0, 7.0, 9.0]
    out = ops.index_add(eagerad.ones(2, 3), 1, eagerad.tensor([2, 2]), src[:, :2], alpha=2)
    assert out.tolist() == [[1, 1, 7], [1, 1, 19]]
    # MindSpore's order: index_add(x, indices, y, axis)
    assert ops.index_add(eagerad.zeros(3), eagerad.tensor([1]), eagerad.tensor([5.0]), 0).tolist() \
        == [0.0, 5.0, 0.0]


def test_put_along_axis_is_in_place_like_numpy_or_returns_a_copy():
    a = np.zeros((2, 3))
    idx = np.array([[2], [0]])
    np.put_along_axis(a, idx, 5.0, axis=1)
    t = eagerad.zeros(2, 3)
    assert ops.put_along_axis(t, eagerad.tensor(idx), 5.0, axis=1) is None
    np.testing.assert_array_equal(t.numpy(), a)
    fresh = eagerad.zeros(2, 3)
    out = ops.put_along_axis(fresh, eagerad.tensor(idx), eagerad.tensor([[1.0], [2.0]]), 1,
                             inplace=False)
    assert out.tolist() == [[0, 0, 1], [2, 0, 0]] and fresh.tolist() == [[0, 0, 0], [0, 0, 0]]


def test_masked_fill_and_masked_select():
    x = eagerad.tensor([[1.0, -2.0], [3.0, -4.0]])
    assert ops.masked_fill(x, x < 0, 0.0).tolist() == [[1.0, 0.0], [3.0, 0.0]]
    assert x.masked_fill(eagerad.tensor([True, False]), eagerad.tensor(9.0)).tolist() == \
        [[9.0, -2.0], [9.0, -4.0]]
    assert ops.masked_fill(eagerad.tensor([1, 2]), eagerad.tensor([False, True]), 7).dtype == \
        eagerad.int64
    assert x.masked_select(x > 0).tolist() == [1.0, 3.0]


def test_index_queries_match_numpy():
    a = np.array([[0, 3, 3], [1, 0, 2]])
    x = eagerad.tensor(a)
    np.testing.assert_array_equal(ops.nonzero(x).numpy(), np.argwhere(a))
    np.testing.assert_array_equal(x.argwhere().numpy(), np.argwhere(a))
    for got, want in zip(ops.nonzero(x, as_tuple=True), np.nonzero(a)):
        np.testing.assert_array_equal(got.numpy(), want)
    u, first, inv, counts = ops.unique(x, True, True, True)
    wu, wfirst, winv, wcounts = np.unique(a, True, True, True)
    for got, want in ((u, wu), (first, wfirst), (counts, wcounts)):
        np.testing.assert_array_equal(got.numpy(), want)
    np.testing.assert_array_equal(inv.numpy(), winv.reshape(a.shape))   # PyTorch's shape
    rows = ops.unique(eagerad.tensor([[1, 2], [1, 2], [0, 5]]), dim=0)
    assert rows.tolist() == [[0, 5], [1, 2]]
    s = np.array([1.0, 2.0, 2.0, 5.0])
    v = np.array([2.0, 0.0, 6.0])
    for side in ("left", "right"):
        np.testing.assert_array_equal(ops.searchsorted(eagerad.tensor(s), eagerad.tensor(v), side).numpy(),
                                      np.searchsorted(s, v, side))
    assert eagerad.tensor(s).searchsorted(eagerad.tensor(v), right=True).tolist() == [3, 0, 4]
    batched = ops.searchsorted(eagerad.tensor([[1.0, 3.0], [0.0, 10.0]]), eagerad.tensor([[2.0], [11.0]]))
    assert batched.tolist() == [[1], [2]]
    assert not ops.nonzero(eagerad.tensor([1.0], requires_grad=True)).requires_grad

# ---------------------------------------------------------------- gradients


def test_gather_family_gradchecks_to_second_order():
    x = _x(3, 4)
    idx = eagerad.tensor([[0, 2, 2, 1], [1, 1, 0, 0]])
    _both_orders(lambda a: ops.gather(a, 0, idx), x)
    _both_orders(lambda a: ops.take_along_axis(a, eagerad.tensor([[3], [3], [0]]), 1), x)
    _both_orders(lambda a: ops.take(a, [[1, 1], [0, 3]], axis=1), x)
    _both_orders(lambda a: ops.take(a, 4), x)                              # 0-d result
    _both_orders(lambda a: ops.index_select(a, 0, [2, 2, 0]), x)
    _both_orders(lambda a: ops.take(a, np.zeros(0, int), 1), x)           # size 0
    _both_orders(lambda a: ops.masked_select(a, a.detach() > 0), x)


def test_scatter_family_gradchecks_with_repeated_indices():
    x, src = _x(3, 3), _x(2, 3)
    dup = eagerad.tensor([[0, 2, 2], [0, 2, 1]])
    _both_orders(lambda a, s: ops.scatter_add(a, 0, dup, s), x, src)
    _both_orders(lambda a, s: ops.index_add(a, 1, eagerad.tensor([0, 0]), s.T, alpha=0.5), x, src)
    distinct = eagerad.tensor([[2, 0, 1]])
    _both_orders(lambda a, s: ops.scatter(a, 0, distinct, s), x, src)
    _both_orders(lambda a, v: ops.masked_fill(a, a.detach() > 0, v), x, _x())
    _both_orders(lambda a, v: ops.put_along_axis(a, eagerad.tensor([[1], [0], [1]]), v, 1,
                                                 inplace=False), x, _x(3, 1))


def test_repeated_indices_accumulate_and_overwritten_entries_get_no_gradient():
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    ops.take(x, [0, 0, 2, 0]).sum().backward()
    assert x.grad.tolist() == [3.0, 0.0, 1.0]
    src = eagerad.tensor([10.0, 20.0], requires_grad=True)
    base = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = eagerad.tensor([1.0, 2.0, 3.0])
    (ops.scatter_add(base, 0, eagerad.tensor([1, 1]), src) * w).sum().backward()
    assert base.grad.tolist() == [1.0, 2.0, 3.0] and src.grad.tolist() == [2.0, 2.0]
    base.grad = src.grad = None
    (ops.scatter(base, 0, eagerad.tensor([2, 0]), src) * w).sum().backward()
    assert base.grad.tolist() == [0.0, 2.0, 0.0] and src.grad.tolist() == [3.0, 1.0]
    y = eagerad.tensor([1.0, -1.0, 2.0], requires_grad=True)
    ops.masked_fill(y, y < 0, 5.0).sum().backward()
    assert y.grad.tolist() == [1.0, 0.0, 1.0]


def test_third_derivative_of_a_gather_is_the_closed_form():
    # d^3/dx_i^3 sum_j x[idx_j]^3 = 6 * count(i in idx)
    x = eagerad.tensor([0.3, -0.2, 0.7], dtype=F64, requires_grad=True)
    y = (ops.take(x, [0, 2, 2, 2]) ** 3).sum()
    g1, = eagerad.autograd.grad(y, x, create_graph=True)
    g2, = eagerad.autograd.grad(g1.sum(), x, create_graph=True)
    g3, = eagerad.autograd.grad(g2.sum(), x)
    assert g3.tolist() == [6.0, 0.0, 18.0]


def test_in_place_methods_record_their_history():
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    src = eagerad.tensor([7.0], requires_grad=True)
    y = x * 2
    y.scatter_(0, eagerad.tensor([1]), src)
    y.index_add_(0, eagerad.tensor([0, 0]), eagerad.tensor([1.0, 1.0]))
    y.masked_fill_(eagerad.tensor([False, False, True]), 0.0)
    assert y.tolist() == [4.0, 7.0, 0.0]
    (y * eagerad.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 0.0] and src.grad.tolist() == [10.0]
    z = eagerad.zeros(3)
    assert z.scatter_add_(0, eagerad.tensor([2, 2]), eagerad.ones(2)) is z
    assert z.tolist() == [0.0, 0.0, 2.0]
    with pytest.raises(RuntimeError, match="leaf"):
        x.scatter_(0, eagerad.tensor([0]), 1.0)

# ------------------------------------------------------------ batching rules


def _loop(fn, n):
    return np.stack([fn(i).numpy() for i in range(n)])


@pytest.mark.parametrize("bx,bi", [(0, 0), (None, 0), (0, None), (2, 1)])
def test_gather_batching_rule_matches_a_loop(bx, bi):
    xs = RNG.normal(size=(4, 3, 5))                   # batch of 4 inputs (3, 5)
    ids = RNG.integers(-5, 5, size=(4, 3, 2))         # batch of 4 indices (3, 2)
    x = eagerad.tensor(np.moveaxis(xs, 0, bx) if bx is not None else xs[0])
    idx = eagerad.tensor(np.moveaxis(ids, 0, bi) if bi is not None else ids[0])
    out, bdim = OPS["gather"].batch((x, idx), (bx, bi), axis=1, sizes=(3, 5))
    want = _loop(lambda i: ops.take_along_axis(eagerad.tensor(xs[i] if bx is not None else xs[0]),
                                               eagerad.tensor(ids[i] if bi is not None else ids[0]), 1), 4)
    np.testing.assert_array_equal(np.moveaxis(out.numpy(), bdim, 0), want)


@pytest.mark.parametrize("bv,bi", [(0, 0), (None, 0), (1, None)])
def test_scatter_add_and_scatter_batching_rules_match_a_loop(bv, bi):
    vs = RNG.normal(size=(3, 2, 4))
    ids = RNG.integers(0, 5, size=(3, 2, 4))
    v = eagerad.tensor(np.moveaxis(vs, 0, bv) if bv is not None else vs[0])
    idx = eagerad.tensor(np.moveaxis(ids, 0, bi) if bi is not None else ids[0])
    pick = lambda a, b, i: eagerad.tensor(a[i] if b is not None else a[0])   # noqa: E731
    out, bdim = OPS["scatter_add"].batch((v, idx), (bv, bi), shape=(2, 5), axis=1, sizes=(2, 4))
    want = _loop(lambda i: ops.scatter_add(eagerad.zeros(2, 5, dtype=F64), 1, pick(ids, bi, i),
                                           pick(vs, bv, i)), 3)
    np.testing.assert_allclose(np.moveaxis(out.numpy(), bdim, 0), want)
    distinct = np.stack([RNG.permutation(5)[:4] for _ in range(6)]).reshape(3, 2, 4)
    idx = eagerad.tensor(np.moveaxis(distinct, 0, bi) if bi is not None else distinct[0])
    base = eagerad.tensor(RNG.normal(size=(2, 5)))
    out, bdim = OPS["scatter"].batch((base, v, idx), (None, bv, bi), axis=1, sizes=(2, 4))
    want = _loop(lambda i: ops.scatter(base, 1, pick(distinct, bi, i), pick(vs, bv, i)), 3)
    np.testing.assert_array_equal(np.moveaxis(out.numpy(), bdim, 0), want)

# ------------------------------------------------------------------ errors


def test_out_of_range_indices_name_the_argument_the_index_and_the_shape():
    x = eagerad.zeros(2, 3)
    with pytest.raises(IndexError, match=r"gather: index holds 3, .*axis 1 of size 3.*\(2, 3\)"):
        ops.gather(x, 1, eagerad.tensor([[3]]))
    with pytest.raises(IndexError, match=r"take_along_axis: indices holds -4"):
        ops.take_along_axis(x, eagerad.tensor([[-4]]), 1)
    with pytest.raises(IndexError, match="index_select: index holds 2"):
        ops.index_select(x, 0, [2])
    with pytest.raises(IndexError, match="scatter_add: index holds 5"):
        ops.scatter_add(x, 1, eagerad.tensor([[5]]), eagerad.ones(1, 1))
    with pytest.raises(IndexError, match="index_add: index holds 9"):
        ops.index_add(x, 0, eagerad.tensor([9]), eagerad.ones(1, 3))


def test_wrong_index_dtypes_and_shapes_are_clear_errors():
    x = eagerad.zeros(2, 3)
    with pytest.raises(TypeError, match="gather: index must hold integers, got dtype float32"):
        ops.gather(x, 1, eagerad.tensor([[1.0]]))
    with pytest.raises(TypeError, match="take: indices must hold integers, got dtype bool"):
        ops.take(x, np.array([True]), 0)
    with pytest.raises(TypeError, match="masked_fill: mask must be a bool tensor"):
        ops.masked_fill(x, eagerad.zeros(2, 3), 1.0)
    with pytest.raises(ValueError, match="masked_fill: mask of shape"):
        ops.masked_fill(x, eagerad.tensor([True, False]), 1.0)
    with pytest.raises(ValueError, match="gather: index has 1 dimensions"):
        ops.gather(x, 1, eagerad.tensor([1]))
    with pytest.raises(ValueError, match="larger than the input"):
        ops.gather(x, 1, eagerad.tensor([[0], [0], [0]]))
    with pytest.raises(ValueError, match="index_add: source has shape"):
        ops.index_add(x, 0, eagerad.tensor([0]), eagerad.ones(3))
    with pytest.raises(ValueError, match="0-d"):
        ops.take_along_axis(eagerad.tensor(1.0), eagerad.tensor(0), 0)
    with pytest.raises(TypeError, match="scatter: give the axis once"):
        ops.scatter(x, 0, eagerad.tensor([[0]]), 1.0, axis=0)
