"""Tensor methods PyTorch users type: t, contiguous, casts, new_*, copy_, sizes (issue 12)."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd


def test_t_transposes_matrices_and_refuses_more_dims():
    m = eagerad.Tensor([[1, 2, 3], [4, 5, 6]])
    assert m.t().tolist() == [[1, 4], [2, 5], [3, 6]]
    assert eagerad.Tensor([1, 2]).t().tolist() == [1, 2]
    with pytest.raises(ValueError, match="at most 2 dimensions.*\\(2, 2, 2\\)"):
        eagerad.zeros(2, 2, 2).t()
    x = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=eagerad.float64, requires_grad=True)
    assert autograd.gradcheck(lambda a: (a.t() * a).sum(), (x,))


def test_contiguous_and_is_contiguous():
    x = eagerad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    y = x.T
    assert x.is_contiguous() and not y.is_contiguous() and x.contiguous() is x
    c = y.contiguous()
    assert c.is_contiguous() and c.tolist() == y.tolist()
    c[0, 0] = 100.0                     # own buffer
    assert x.tolist()[0][0] == 0.0
    (y.contiguous() * eagerad.Tensor([[1.0, 2.0]] * 3, dtype=eagerad.float64)).sum().backward()
    assert x.grad.tolist() == [[1.0, 1.0, 1.0], [2.0, 2.0, 2.0]]


@pytest.mark.parametrize("method, dtype", [("long", "int64"), ("int", "int32"), ("float", "float32"),
                                           ("double", "float64"), ("half", "float16"),
                                           ("bool", "bool")])
def test_cast_methods(method, dtype):
    t = getattr(eagerad.Tensor([0.0, 2.75]), method)()
    assert str(t.dtype) == dtype and t.tolist() == np.array([0.0, 2.75]).astype(dtype).tolist()


def test_sizes():
    t = eagerad.zeros(2, 3, dtype=eagerad.float64)
    assert t.dim() == 2 and t.numel() == 6 and t.element_size() == 8 and t.nbytes == 48


def test_new_creators_follow_self_dtype_and_device():
    base = eagerad.Tensor([1], dtype=eagerad.int32)
    assert base.new_zeros(2, 3).dtype == eagerad.int32 and base.new_zeros((2, 3)).shape == (2, 3)
    assert base.new_ones(2).tolist() == [1, 1] and base.new_empty((4,)).shape == (4,)
    assert base.new_full((2,), 7).tolist() == [7, 7]
    n = base.new_tensor([1.9, 2.1])
    assert n.dtype == eagerad.int32 and n.tolist() == [1, 2]
    f = eagerad.zeros(1).new_zeros(2, dtype=eagerad.float64, requires_grad=True)
    assert f.dtype == eagerad.float64 and f.requires_grad
    a = np.array([1.0, 2.0], np.float32)
    c = eagerad.zeros(1).new_tensor(a)
    a[0] = 5.0
    assert c.tolist() == [1.0, 2.0]


def test_copy_is_in_place_and_recorded():
    src = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64, requires_grad=True)
    dst = eagerad.zeros(2, 2, dtype=eagerad.float64)
    out = dst.copy_(src * 3)
    assert out is dst and dst.tolist() == [[3.0, 6.0], [3.0, 6.0]] and dst.version == 1
    (dst * dst).sum().backward()        # d/dsrc sum over 2 rows of (3 src)^2 = 36 src
    assert src.grad.tolist() == [36.0, 72.0]
    i = eagerad.zeros(2, dtype=eagerad.int64).copy_(eagerad.Tensor([1.7, -2.0]))
    assert i.tolist() == [1, -2]
    with pytest.raises(ValueError, match="cannot be broadcast"):
        eagerad.zeros(2).copy_(eagerad.ones(3))
