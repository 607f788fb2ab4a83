"""``ops.ones``/``zeros``/``full``/``eye``/``arange``/``linspace`` and the ``*_like`` forms
under MindSpore's argument order (``ops.ones(shape, dtype)``) and PyTorch's
(``ones(*size, dtype=)``)."""
import numpy as np
import pytest

import eagerad
from eagerad import dtype as mstype
from eagerad import ops


def test_mindspore_order_shape_then_dtype():
    x = ops.ones((2, 3), mstype.float32)
    assert x.shape == (2, 3) and x.dtype == mstype.float32 and x.numpy().sum() == 6
    z = ops.zeros((2,), mstype.int32)
    assert z.dtype == mstype.int32 and z.tolist() == [0, 0]
    assert ops.ones(3, "float64").dtype == np.float64
    assert ops.ones(eagerad.tensor([2, 1])).shape == (2, 1)          # a shape tensor


def test_pytorch_order_sizes_and_keywords():
    assert ops.ones(2, 3).shape == (2, 3) and ops.ones(2, 3).dtype == mstype.float32
    x = ops.zeros(4, dtype=eagerad.float64, requires_grad=True)
    assert x.requires_grad and x.dtype == np.float64
    assert ops.ones([]).shape == ()


def test_full_eye_arange_linspace_and_like():
    assert ops.full((2, 2), 7).tolist() == [[7, 7], [7, 7]] and ops.full(2, 7).dtype == np.int64
    assert ops.full((1,), 0.5, mstype.float64).dtype == np.float64
    np.testing.assert_array_equal(ops.eye(2, 3, mstype.int32).numpy(), np.eye(2, 3, dtype=np.int32))
    assert ops.arange(5).tolist() == [0, 1, 2, 3, 4]
    assert ops.arange(1, 2, 0.25).tolist() == [1.0, 1.25, 1.5, 1.75]
    assert ops.arange(3, dtype=mstype.float64).dtype == np.float64
    np.testing.assert_allclose(ops.linspace(eagerad.tensor(1.0), eagerad.tensor(2.0), 3).numpy(),
                               [1.0, 1.5, 2.0])
    base = eagerad.tensor([[1, 2]], dtype=mstype.int32)
    assert ops.ones_like(base).tolist() == [[1, 1]] and ops.ones_like(base).dtype == mstype.int32
    assert ops.zeros_like(base, dtype=mstype.float32).dtype == mstype.float32
    assert ops.full_like(base, 4).tolist() == [[4, 4]]


def test_bad_shapes_and_dtypes_are_type_errors():
    with pytest.raises(TypeError, match="ones: shape must be ints"):
        ops.ones((2,), "no-such-dtype")
    with pytest.raises(TypeError, match="zeros: dtype given twice"):
        ops.zeros((2,), mstype.float32, dtype=mstype.float64)
    with pytest.raises(TypeError, match="shape must be ints"):
        ops.ones(2.5)


def test_random_creation_names():
    from eagerad import ops
    eagerad.set_seed(3)
    a = ops.randn(2, 3)
    eagerad.set_seed(3)
    np.testing.assert_array_equal(a.numpy(), eagerad.randn(2, 3).numpy())   # the global generator
    assert a.dtype == eagerad.float32 and ops.rand((4,), eagerad.float64).dtype == eagerad.float64
    # MindSpore's seed=: its own generator, numpy's numbers for that seed
    np.testing.assert_allclose(ops.randn(3, seed=7).numpy(),
                               np.random.default_rng(7).standard_normal(3), rtol=1e-6)
    np.testing.assert_allclose(ops.rand(2, 2, seed=7).numpy(),
                               np.random.default_rng(7).random((2, 2)), rtol=1e-6)
    u = ops.rand(2000).numpy()
    assert u.min() >= 0 and u.max() < 1
    like = ops.randn_like(eagerad.zeros(3, 2, dtype=eagerad.float64))
    assert like.shape == (3, 2) and like.dtype == eagerad.float64
    assert ops.rand_like(eagerad.ones(5)).shape == (5,)
