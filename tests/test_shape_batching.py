"""Batching rules of the shape, indexing and in-place ops, each checked directly against a
Python loop of the op over the batch (issue 13's contract, for vmap)."""
import numpy as np
import pytest

import eagerad
from eagerad.device import as_device
from eagerad.ops import OPS

N = 3       # batch size


def _rand(rng, shape):
    return eagerad.Tensor(rng.standard_normal(shape))


def _check(name, args, bdims, **kw):
    """``OPS[name].batch`` against the op applied to each batch element in turn."""
    out, out_bdim = OPS[name].batch(args, bdims, **kw)
    got = out.numpy()
    assert got.shape[out_bdim] == N
    for b in range(N):
        sliced = [a if d is None else eagerad.Tensor(np.take(a.numpy(), b, axis=d))
                  for a, d in zip(args, bdims)]
        expected = OPS[name](*sliced, **kw).numpy()
        np.testing.assert_array_equal(np.take(got, b, axis=out_bdim), expected,
                                      err_msg=f"{name} batch element {b}")


def _batched(rng, shape, bdim):
    """A tensor of element ``shape`` with a batch axis of size N at ``bdim``."""
    full = list(shape)
    full.insert(bdim, N)
    return _rand(rng, tuple(full))


@pytest.mark.parametrize("bdim", [0, 1, 2])
def test_reshape_rule(bdim):
    rng = np.random.default_rng(0)
    _check("reshape", [_batched(rng, (2, 3), bdim)], [bdim], shape=(3, 1, 2))


@pytest.mark.parametrize("bdim", [0, 2])
def test_transpose_rule(bdim):
    rng = np.random.default_rng(1)
    _check("transpose", [_batched(rng, (2, 3, 4), bdim)], [bdim], axes=(2, 0, 1))


@pytest.mark.parametrize("bdim, shape, target", [(0, (3,), (2, 3)), (1, (2, 1), (4, 2, 5)),
                                                  (0, (), (2, 2))])
def test_broadcast_to_rule(bdim, shape, target):
    rng = np.random.default_rng(2)
    _check("broadcast_to", [_batched(rng, shape, bdim)], [bdim], shape=target)


INDEXES = [
    (1,), (slice(0, 2), 1), (Ellipsis, 0), (None, slice(None)), (1, Ellipsis),
    (np.array([2, 0, 0]),),
    (slice(None), np.array([1, 0])),
    (np.array([0, 2]), slice(None), np.array([1, 0])),             # non-adjacent: moved first
    (np.array([0, 1]), np.array([1, 0])),
    (1, slice(None), np.array([2, 0, 1])),                         # int among arrays
    (np.array([[True, False, True], [False, True, True], [True, True, False]]),),
    (slice(None), slice(0, 2), np.array([True, False, True, True])),
]


@pytest.mark.parametrize("bdim", [0, 1])
@pytest.mark.parametrize("index", INDEXES, ids=[str(i) for i in range(len(INDEXES))])
def test_getitem_rule(index, bdim):
    rng = np.random.default_rng(3)
    _check("getitem", [_batched(rng, (3, 3, 4), bdim)], [bdim], index=index)


@pytest.mark.parametrize("index, region", [((np.array([0, 2, 2]),), (3, 2, 4)),
                                           ((slice(None), 1), (3, 4)),
                                           ((np.array([0, 1]), slice(None), np.array([1, 3])), (2, 2))])
def test_index_add_rule(index, region):
    rng = np.random.default_rng(4)
    _check("index_add", [_batched(rng, region, 1 if len(region) > 1 else 0)],
           [1 if len(region) > 1 else 0], shape=(3, 2, 4), dtype=np.dtype(np.float64), index=index)


def test_concat_rule_mixes_batched_and_unbatched():
    rng = np.random.default_rng(5)
    a, b, c = _batched(rng, (2, 3), 1), _rand(rng, (2, 1)), _batched(rng, (2, 2), 0)
    _check("concat", [a, b, c], [1, None, 0], axis=1)
    _check("concat", [_batched(rng, (1, 3), 2), _rand(rng, (2, 3))], [2, None], axis=0)


@pytest.mark.parametrize("name, kw", [("alias", {}), ("clone", {}),
                                      ("astype", {"dtype": np.dtype(np.float32)}),
                                      ("to", {"device": as_device("cpu")}),
                                      ("fill", {"value": 2.5})])
def test_elementwise_style_rules(name, kw):
    rng = np.random.default_rng(6)
    _check(name, [_batched(rng, (2, 3), 1)], [1], **kw)


@pytest.mark.parametrize("xshape, index, vshape", [
    ((3, 4), (1,), (4,)), ((3, 4), (slice(None), 0), ()),
    ((3, 2, 4), (np.array([0, 2]), slice(None), np.array([1, 1])), (2,)),     # non-adjacent
    ((3, 4), (slice(None), np.array([3, 0])), (3, 2))])
@pytest.mark.parametrize("x_batched, v_batched", [(True, True), (True, False), (False, True)])
def test_setitem_rule(xshape, index, vshape, x_batched, v_batched):
    rng = np.random.default_rng(7)
    x = _batched(rng, xshape, 1) if x_batched else _rand(rng, xshape)
    v = _batched(rng, vshape, 0) if v_batched else _rand(rng, vshape)
    _check("setitem", [x, v], [1 if x_batched else None, 0 if v_batched else None], index=index)
