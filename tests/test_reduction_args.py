"""Reductions: PyTorch's dim=/keepdim= aliases, dtype= for sum/mean, no integer overflow."""
import numpy as np
import pytest

import eagerad as E


def test_logsumexp_of_small_ints_is_computed_in_float():
    x = E.tensor([200, 250, 3], dtype=E.uint8)
    expected = np.log(np.exp(np.array([200.0, 250.0, 3.0])).sum())
    assert E.ops.logsumexp(x).item() == pytest.approx(expected, rel=1e-6)
    assert E.ops.logsumexp(E.tensor([100, 100], dtype=E.int8)).item() == \
        pytest.approx(100 + np.log(2), rel=1e-6)


def test_sum_and_mean_take_dtype():
    x = E.tensor([200, 100], dtype=E.uint8)
    s = E.ops.sum(x, dtype=E.int32)
    assert s.item() == 300 and s.dtype == np.int32
    m = E.ops.mean(E.tensor([1.0, 2.0], dtype=E.float32), dtype=E.float64)
    assert m.dtype == np.float64 and m.item() == 1.5


def test_dim_and_keepdim_aliases():
    a = np.arange(6.0).reshape(2, 3)
    x = E.tensor(a)
    np.testing.assert_allclose(x.sum(dim=1, keepdim=True).numpy(), a.sum(1, keepdims=True))
    np.testing.assert_allclose(E.ops.mean(x, dim=0).numpy(), a.mean(0))
    np.testing.assert_allclose(E.ops.max(x, dim=1).numpy(), a.max(1))
    np.testing.assert_allclose(E.ops.logsumexp(x, dim=1, keepdim=True).numpy(),
                               np.log(np.exp(a).sum(1, keepdims=True)), rtol=1e-6)
    assert E.ops.argmax(x, dim=1).tolist() == [2, 2]
    with pytest.raises(TypeError, match="dim"):
        E.ops.sum(x, axis=0, dim=1)
