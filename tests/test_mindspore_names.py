"""MindSpore's names for issue 14's families: primitive classes configured by their
constructor (``ops.Cholesky(upper=True)(x)``) and functional spellings
(``ops.gather_d``, ``ops.tensor_dot``, ...), each checked against numpy."""
import numpy as np
import pytest

import eagerad
from eagerad import ops

RNG = np.random.default_rng(14)
X = RNG.standard_normal((3, 4))
T = eagerad.tensor(X, dtype=eagerad.float64)


def test_linear_algebra_classes():
    a = X[:, :3] @ X[:, :3].T + 3 * np.eye(3)
    A = eagerad.tensor(a, dtype=eagerad.float64)
    L = np.linalg.cholesky(a)
    np.testing.assert_allclose(ops.Cholesky()(A).numpy(), L, rtol=1e-12)
    np.testing.assert_allclose(ops.Cholesky(upper=True)(A).numpy(), L.T, rtol=1e-12)
    np.testing.assert_allclose(ops.MatrixInverse()(A).numpy(), np.linalg.inv(a), rtol=1e-10)
    np.testing.assert_allclose(ops.MatrixInverse(True)(A).numpy(), np.linalg.inv(a.T), rtol=1e-10)
    assert ops.MatrixDeterminant()(A).item() == pytest.approx(np.linalg.det(a), rel=1e-12)
    sign, logabs = ops.log_matrix_determinant(-A)
    assert (sign.item(), logabs.item()) == pytest.approx(np.linalg.slogdet(-a), rel=1e-12)
    assert ops.matrix_determinant(A).item() == pytest.approx(np.linalg.det(a), rel=1e-12)


def test_sorting_and_cumulative_classes_return_values_and_indices():
    values, indices = ops.Sort(axis=0, descending=True)(T)
    np.testing.assert_array_equal(indices.numpy(), np.argsort(-X, axis=0, kind="stable"))
    np.testing.assert_array_equal(values.numpy(), -np.sort(-X, axis=0))
    values, indices = ops.TopK()(T, 2)
    np.testing.assert_array_equal(values.numpy(), -np.sort(-X, axis=1)[:, :2])
    values, indices = ops.Cummax(1)(T)
    np.testing.assert_array_equal(values.numpy(), np.maximum.accumulate(X, axis=1))
    np.testing.assert_array_equal(ops.Cummin(axis=0)(T).values.numpy(),
                                  np.minimum.accumulate(X, axis=0))


def test_rearranging_and_indexing_names():
    np.testing.assert_array_equal(ops.Tril()(T).numpy(), np.tril(X))
    np.testing.assert_array_equal(ops.Triu(1)(T).numpy(), np.triu(X, 1))
    np.testing.assert_array_equal(ops.Roll(shift=1, axis=1)(T).numpy(), np.roll(X, 1, axis=1))
    np.testing.assert_array_equal(ops.Tile()(T, (2, 1)).numpy(), np.tile(X, (2, 1)))
    np.testing.assert_array_equal(ops.repeat_elements(T, 2).numpy(), np.repeat(X, 2, axis=0))
    idx = np.array([[0, 3], [1, 1], [2, 0]])
    for gather in (ops.gather_d, ops.GatherD()):
        np.testing.assert_array_equal(gather(T, 1, eagerad.tensor(idx)).numpy(),
                                      np.take_along_axis(X, idx, axis=1))
    assert ops.Trace()(T).item() == pytest.approx(np.trace(X))
    np.testing.assert_allclose(ops.tensor_dot(T, T, ((1,), (1,))).numpy(), X @ X.T, rtol=1e-12)


def test_activation_classes():
    p = eagerad.tensor([0.25, 0.0, 1.0], dtype=eagerad.float64)
    np.testing.assert_allclose(ops.Logit()(p).numpy(), [np.log(1 / 3), -np.inf, np.inf])
    clipped = np.clip([0.25, 0.0, 1.0], 0.1, 0.9)
    np.testing.assert_allclose(ops.Logit(eps=0.1)(p).numpy(), np.log(clipped / (1 - clipped)))
    np.testing.assert_allclose(ops.Elu(alpha=0.5)(T).numpy(), np.where(X > 0, X, 0.5 * np.expm1(X)))
    np.testing.assert_allclose(ops.CeLU(2.0)(T).numpy(),
                               np.maximum(X, 0) + np.minimum(0, 2.0 * np.expm1(X / 2.0)))


def test_classes_refuse_unknown_arguments_and_print_their_configuration():
    with pytest.raises(TypeError, match="upper"):
        ops.Cholesky(lower=True)
    assert repr(ops.Sort(descending=True)) == "Sort(axis=-1, descending=True)"
