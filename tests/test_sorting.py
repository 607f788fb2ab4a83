"""sort, argsort, msort, topk, kthvalue: values and indices against numpy and PyTorch's
conventions (stable ties, NaN as the largest value), the two spellings of ``sort``,
and gradients routed to the selected entries."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import grad, gradcheck, gradgradcheck


def _t(values, requires_grad=True):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


A = np.random.default_rng(0).normal(size=(3, 4, 5))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_sort_and_argsort_match_numpy(axis):
    x = _t(A, False)
    np.testing.assert_array_equal(ops.sort(x, axis).numpy(), np.sort(A, axis))
    np.testing.assert_array_equal(ops.argsort(x, axis).numpy(), np.argsort(A, axis, kind="stable"))
    np.testing.assert_array_equal(ops.sort(x, axis, descending=True).numpy(),
                                  np.flip(np.sort(A, axis), axis if axis is not None else 0))


def test_two_spellings_ties_nan_and_scalars():
    x = eagerad.tensor([2.0, np.nan, 1.0, 2.0])
    values, indices = x.sort()                                # PyTorch: (values, indices)
    assert indices.tolist() == [2, 0, 3, 1]                   # stable ties, NaN last
    assert x.sort(descending=True).indices.tolist() == [1, 0, 3, 2]   # NaN first, ties in order
    assert isinstance(ops.sort(x), eagerad.Tensor)           # numpy: the values
    assert x.argsort(dim=0, descending=True).tolist() == [1, 0, 3, 2]
    assert ops.msort(eagerad.tensor([[2.0, 0.0], [1.0, 5.0]])).tolist() == [[1.0, 0.0], [2.0, 5.0]]
    s = eagerad.tensor(3.0).sort()
    assert s.values.shape == () and s.indices.item() == 0
    ints = eagerad.tensor([3, 1, 2], dtype=eagerad.int32)
    assert ops.sort(ints, descending=True).tolist() == [3, 2, 1]


def test_sort_gradient_is_the_inverse_permutation():
    x = _t([3.0, 1.0, 2.0])
    w = _t([10.0, 20.0, 30.0], False)
    g, = grad((ops.sort(x) * w).sum(), x)
    assert g.tolist() == [30.0, 10.0, 20.0]
    m = _t(A[0])
    assert gradcheck(lambda a: a.sort(dim=0, descending=True).values, m)
    assert gradgradcheck(lambda a: ops.sort(a, 1), m)


def test_topk_and_kthvalue():
    x = _t([[1.0, 4.0, 2.0, 3.0], [0.5, -1.0, 7.0, 2.0]])
    values, indices = ops.topk(x, 2)
    assert values.tolist() == [[4.0, 3.0], [7.0, 2.0]] and indices.tolist() == [[1, 3], [2, 3]]
    low = x.topk(1, dim=0, largest=False)
    assert low.values.tolist() == [[0.5, -1.0, 2.0, 2.0]] and low.indices.tolist() == [[1, 1, 0, 1]]
    g, = grad(values.sum(), x)
    assert g.tolist() == [[0.0, 1.0, 0.0, 1.0], [0.0, 0.0, 1.0, 1.0]]
    assert gradgradcheck(lambda a: ops.topk(a, 3, largest=False).values, x)
    assert ops.TopK()(x, 1).values.tolist() == [[4.0], [7.0]]
    assert ops.topk(x, 0).values.shape == (2, 0)
    kth = x.kthvalue(2, dim=1, keepdim=True)
    assert kth.values.tolist() == [[2.0], [0.5]] and kth.indices.tolist() == [[2], [0]]
    assert grad(ops.kthvalue(x, 3).values.sum(), x)[0].tolist() == [[0, 0, 0, 1], [0, 0, 0, 1]]
    with pytest.raises(ValueError, match="out of range"):
        ops.topk(x, 5)
    with pytest.raises(ValueError, match="out of range"):
        ops.kthvalue(x, 0)
    with pytest.raises(TypeError, match="integer"):
        ops.topk(x, 1.5)
