"""Tensor methods of the torch face added by the API sweep (issue 20), against PyTorch."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")

X = np.array([[1.0, -2.0, 3.0], [0.5, 2.0, -1.0]])


@pytest.mark.parametrize("name", ["greater", "less", "greater_equal", "less_equal",
                                  "not_equal"])
def test_long_comparison_names(name):
    assert getattr(torch.tensor(X), name)(1.0).tolist() == getattr(pt.tensor(X), name)(1.0).tolist()


def test_equal_and_queries():
    a = torch.tensor(X)
    assert a.equal(torch.tensor(X)) and not a.equal(torch.tensor(X) + 1)
    assert not a.equal(torch.tensor(X[:1]))
    for dtype, ptd in ((torch.float32, pt.float32), (torch.int64, pt.int64),
                       (torch.uint8, pt.uint8), (torch.bool, pt.bool)):
        ours, theirs = torch.zeros(2, dtype=dtype), pt.zeros(2, dtype=ptd)
        assert ours.is_floating_point() == theirs.is_floating_point()
        assert ours.is_signed() == theirs.is_signed()
    assert a.is_cpu and a.get_device() == -1 and not a.is_sparse and not a.is_inference()
    assert a.is_same_size(torch.zeros(2, 3)) and not a.is_same_size(torch.zeros(3, 2))
    x = torch.zeros(5)
    assert x[2:].data_ptr() - x.data_ptr() == 2 * x.element_size()
    with pytest.raises(RuntimeError, match="ambiguous"):
        torch.ones(2).is_nonzero()


@pytest.mark.parametrize("shape,wrap", [((3, 3), False), ((5, 2), False), ((7, 3), True),
                                        ((2, 4), False), ((3, 3, 3), False)])
def test_fill_diagonal(shape, wrap):
    ours = torch.zeros(*shape).fill_diagonal_(2.0, wrap)
    theirs = pt.zeros(*shape).fill_diagonal_(2.0, wrap)
    assert ours.tolist() == theirs.tolist()


def test_fill_diagonal_gradient_and_errors():
    x = torch.tensor(np.ones((2, 2)), requires_grad=True)
    y = x * 3
    y.fill_diagonal_(0.0)
    y.sum().backward()
    assert x.grad.tolist() == [[0.0, 3.0], [3.0, 0.0]]
    with pytest.raises(RuntimeError, match="equal"):
        torch.zeros(2, 3, 4).fill_diagonal_(1.0)


@pytest.mark.parametrize("name,args", [("squeeze_", ()), ("squeeze_", (1,)),
                                       ("unsqueeze_", (0,)), ("t_", ()),
                                       ("transpose_", (0, 2)), ("swapaxes_", (1, 2)),
                                       ("swapdims_", (0, 1)), ("resize_", (3, 1)),
                                       ("resize_", ((2, 3),))])
def test_shape_changing_in_place(name, args):
    data = np.arange(6.0).reshape(2, 1, 3) if name != "t_" else np.arange(6.0).reshape(2, 3)
    ours, theirs = torch.tensor(data), pt.tensor(data)
    out = getattr(ours, name)(*args)
    getattr(theirs, name)(*args)
    assert out is ours and tuple(ours.shape) == tuple(theirs.shape)
    assert ours.tolist() == theirs.tolist()


def test_resize_grows_and_resize_as():
    x = torch.arange(3.0).resize_(2, 2)
    assert x.shape == (2, 2) and x.reshape(-1)[:3].tolist() == [0.0, 1.0, 2.0]
    y = torch.arange(6.0).resize_as_(torch.zeros(3, 2))
    assert y.tolist() == pt.arange(6.0).resize_as_(pt.zeros(3, 2)).tolist()


def test_shape_change_of_tensor_needing_grad_is_refused():
    x = torch.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="requires grad"):
        x.t_()
    with torch.no_grad():
        x.t_()
    assert x.shape == (3, 2)


def test_apply_and_map():
    ours = torch.tensor(X).apply_(lambda v: v * v + 1)
    theirs = pt.tensor(X).apply_(lambda v: v * v + 1)
    assert ours.tolist() == theirs.tolist()
    other = np.array([10.0, 20.0, 30.0])
    ours = torch.tensor(X).map_(torch.tensor(other), lambda a, b: a - b)
    theirs = pt.tensor(X).map_(pt.tensor(other), lambda a, b: a - b)
    assert ours.tolist() == theirs.tolist()
    with pytest.raises(RuntimeError, match="callable"):
        torch.ones(2, requires_grad=True).apply_(abs)


def test_renorm_in_place_and_unique_consecutive_method():
    ours = torch.tensor(X).renorm_(2, 0, 1.5)
    theirs = pt.tensor(X).renorm_(2, 0, 1.5)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    v, c = torch.tensor([3, 3, 1, 3]).unique_consecutive(return_counts=True)
    assert v.tolist() == [3, 1, 3] and c.tolist() == [2, 1, 1]


def test_post_accumulate_grad_hook():
    w = torch.tensor([1.0, 2.0], requires_grad=True)
    calls = []

    def hook(p):
        calls.append(p.grad.tolist())
        with torch.no_grad():
            p -= 0.5 * p.grad       # an optimizer step right after accumulation
    h = w.register_post_accumulate_grad_hook(hook)
    (w * w).sum().backward()
    assert calls == [[2.0, 4.0]] and w.tolist() == [0.0, 0.0]
    h.remove()
    (w * 3).sum().backward()
    assert len(calls) == 1
    with pytest.raises(RuntimeError, match="non-leaf"):
        (w * 2).register_post_accumulate_grad_hook(hook)


def test_as_subclass_keeps_values_and_history():
    class Mine(type(torch.ones(1))):
        pass
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).as_subclass(Mine)
    assert type(y) is Mine and y.tolist() == [2.0, 4.0]
    y.sum().backward()
    assert x.grad.tolist() == [2.0, 2.0]
