"""Views from basic indexing, in-place changes through views and of bases with live
views, checked against finite differences (issue 12)."""
import gc

import numpy as np
import pytest

import eagerad
from eagerad import autograd

F64 = eagerad.float64


def _x(*values):
    return eagerad.tensor(np.array(values, dtype=np.float64), requires_grad=True)


def test_integer_index_is_a_view_that_writes_through():
    x = eagerad.Tensor([1.0, 2.0, 3.0])
    v = x[0]
    v += 1
    assert x.tolist() == [2.0, 2.0, 3.0] and v.shape == ()
    m = eagerad.zeros(2, 3)
    e = m[1, 2]
    e.fill_(7.0)
    assert m.tolist() == [[0.0, 0.0, 0.0], [0.0, 0.0, 7.0]]
    i = eagerad.Tensor([0, 1, 2])
    x[eagerad.Tensor(1)].fill_(-1.0)            # a 0-d integer tensor selects like an int
    assert x.tolist() == [2.0, -1.0, 3.0] and i.tolist() == [0, 1, 2]


def test_parameter_element_fill_under_no_grad_changes_the_parameter():
    lin = eagerad.nn.Dense(2, 3)
    with eagerad.no_grad():
        lin.bias[0].fill_(5.0)
        lin.weight[1, 0].fill_(-2.0)
    assert lin.bias.tolist()[0] == 5.0 and lin.weight.tolist()[1][0] == -2.0


def test_advanced_and_boolean_index_copies_do_not_share_the_version_counter():
    x = _x(1.0, 2.0, 3.0)
    h = x * 1
    for index in ([2, 0], eagerad.Tensor([True, False, True])):
        c = h[index]
        y = (c * c).sum()                       # saves the copy
        with eagerad.no_grad():
            h.add_(100.0)                       # changes the source, not the copy
        x.grad = None
        y.backward()                            # no spurious in-place error
        assert x.grad.tolist() == [2.0, 0.0, 6.0]      # 2 * the values picked, [1, 3]
        h = x * 1


def test_basic_index_view_still_shares_the_version_counter():
    x = _x(1.0, 2.0)
    h = x * 1
    v = h[0]
    y = v * v
    with eagerad.no_grad():
        h.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()


@pytest.mark.parametrize("name, fn", [
    ("setitem from a sibling view", lambda x: _set(x * x, 0, lambda h: h[1] + 3)),
    ("column mul_", lambda x: _imul_col(x.reshape(3, 1) * x.reshape(1, 3))),
    ("view add_ then use base", lambda x: _add_view(x * 2)),
    ("base mul_ with a live view", lambda x: _mul_base(x * 2, x)),
    ("view of a view", lambda x: _nested(x.reshape(3, 1) * x, x)),
    ("transpose view", lambda x: _transposed(x.reshape(3, 1) * x)),
    ("constant base, grad value", lambda x: _into_constant(x)),
])
def test_inplace_through_views_matches_finite_differences(name, fn):
    x = eagerad.tensor([0.3, -0.7, 1.2], dtype=F64, requires_grad=True)
    assert autograd.gradcheck(lambda t: (fn(t) ** 2).sum(), (x,)), name
    assert autograd.gradgradcheck(lambda t: (fn(t) ** 2).sum(), (x,)), name


def _set(h, i, value):
    h[i] = value(h)
    return h


def _imul_col(h):
    h[:, 0] *= 2
    return h


def _add_view(h):
    v = h[1:]
    v.add_(h[0] + 3)               # (a nonlinear op of h[0] would save it: refused, as in torch)
    return h * v.sum()


def _mul_base(h, x):
    v = h[0]
    h.mul_(x.sum())
    return h + v                    # v re-derived from h's new history


def _nested(h, x):
    row = h[1]
    e = row[1:]
    e.mul_(x[0])
    return h.sum(axis=0) * row


def _transposed(h):
    t = h.T
    t[0] = t[2] + t[1]
    return h


def _into_constant(x):
    buf = eagerad.zeros(2, 3, dtype=F64)
    buf[1] = x.sin()
    row = buf[0]
    row.add_(x * x)
    return buf


def test_inplace_through_a_view_of_a_leaf_that_requires_grad_is_refused():
    a = eagerad.tensor([[1.0, 2.0]], requires_grad=True)
    with pytest.raises(RuntimeError, match="view of a leaf"):
        a[0].add_(1.0)
    assert a.tolist() == [[1.0, 2.0]]


def test_inplace_on_saved_non_leaf_does_not_scan_the_heap(monkeypatch):
    def refuse(*args):
        raise AssertionError("gc.get_referrers used")
    monkeypatch.setattr(gc, "get_referrers", refuse)
    x = _x(1.0, 2.0)
    h = x * 1
    y = (h * h).sum()               # h is saved
    d = h.detach()
    h.add_(1.0)                     # recorded, h aliased by d and saved by y's graph
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward()
    assert d.tolist() == [2.0, 3.0]
    h.sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_dead_views_are_forgotten():
    x = eagerad.zeros(4)
    for i in range(4):
        x[i].fill_(float(i))
    gc.collect()
    assert x.tolist() == [0.0, 1.0, 2.0, 3.0] and len(x._views) == 0


def test_reshape_that_copies_is_not_a_view():
    h = eagerad.zeros(3, 4)
    col = h[:, :2].reshape(6)                 # strided: numpy copies
    col.fill_(1.0)
    assert h.tolist() == [[0.0] * 4] * 3 and col.version == 1 and h.version == 0
    v = h[:, 0].reshape(3, 1)                 # strided but viewable: a view
    v.fill_(2.0)
    assert [row[0] for row in h.tolist()] == [2.0, 2.0, 2.0]
    x = _x(1.0, 2.0, 3.0, 4.0)
    m = (x * 1).reshape(2, 2)
    c = m.T.reshape(4)                        # a copy: in-place on it leaves m alone
    c.mul_(3.0)
    (m.sum() + c.sum()).backward()
    assert x.grad.tolist() == [4.0, 4.0, 4.0, 4.0] and m.tolist() == [[1.0, 2.0], [3.0, 4.0]]
