"""prod, var, std, count_nonzero, nansum, nanmean, median, quantile: values against
numpy, both spellings (numpy's and PyTorch's), and gradients against closed forms
(prod at zeros, to second order; std at zero deviation) and finite differences."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import grad, gradcheck, gradgradcheck


def _t(values, requires_grad=True):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


def _hessian(fn, x):
    g, = grad(fn(x), x, create_graph=True)
    return np.stack([grad(g[i], x, retain_graph=True, allow_unused=True)[0].numpy() for i in range(x.shape[0])])


A = np.random.default_rng(0).normal(size=(3, 4, 2))


@pytest.mark.parametrize("axis", [None, 0, (0, 2), -1])
def test_prod_var_std_count_match_numpy(axis):
    x = _t(A, False)
    np.testing.assert_allclose(ops.prod(x, axis).numpy(), np.prod(A, axis), rtol=1e-12)
    for ddof in (0, 1):
        np.testing.assert_allclose(ops.var(x, axis, ddof).numpy(), np.var(A, axis, ddof=ddof),
                                   rtol=1e-12)
        np.testing.assert_allclose(ops.std(x, axis, ddof, keepdims=True).numpy(),
                                   np.std(A, axis, ddof=ddof, keepdims=True), rtol=1e-12)
    np.testing.assert_array_equal(ops.count_nonzero(x > 0, axis).numpy(),
                                  np.count_nonzero(A > 0, axis))


def test_torch_and_numpy_spellings_of_the_correction():
    import eagerad.mindspore as ms
    import eagerad.torch as torch
    m = ms.Tensor(np.array([1.0, 2.0, 3.0, 4.0]))
    assert m.var().item() == pytest.approx(1.25) and m.var(0).item() == pytest.approx(1.25)  # MindSpore
    t = torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)
    x = eagerad.tensor([1.0, 2.0, 3.0, 4.0], dtype=eagerad.float64)
    unbiased = 5.0 / 3.0
    for value in (t.var(), t.var(0), t.var(dim=0), t.var(0, True), torch.var(t, True),
                  ops.var(x, ddof=1), x.var(correction=1), x.var(unbiased=True),
                  x.var(dim=0, keepdim=True, correction=1)[0]):
        assert value.item() == pytest.approx(unbiased)
    with pytest.raises(TypeError, match="eagerad.torch.*eagerad.mindspore"):
        x.var()         # the engine's own tensor: PyTorch and MindSpore disagree here
    assert x.std(dim=0, correction=0).item() == pytest.approx(np.sqrt(1.25))
    assert x.var(correction=2).item() == pytest.approx(2.5)
    assert x.prod(dim=0, keepdim=True).tolist() == [24.0]
    assert ops.ReduceProd()(x).item() == 24.0
    assert ops.prod(eagerad.tensor([[1, 2], [3, 4]]), 1).tolist() == [2, 12]
    with pytest.raises(TypeError, match="one of ddof"):
        x.var(ddof=1, correction=1)
    with pytest.raises(TypeError, match="integer"):
        x.var(ddof=0.5)


def test_prod_gradient_at_zeros_to_second_order():
    x = _t([2.0, 0.0, 3.0])
    g, = grad(ops.prod(x), x)
    assert g.tolist() == [0.0, 6.0, 0.0]       # one zero: the product of the others there
    np.testing.assert_array_equal(_hessian(ops.prod, x), [[0, 3, 0], [3, 0, 2], [0, 2, 0]])
    x = _t([0.0, 0.0, 3.0])
    g, = grad(ops.prod(x), x)
    assert g.tolist() == [0.0, 0.0, 0.0]       # two zeros: no gradient, but a curvature
    np.testing.assert_array_equal(_hessian(ops.prod, x), [[0, 3, 0], [3, 0, 0], [0, 0, 0]])
    m = _t([[2.0, 0.0, 3.0], [0.0, 0.0, 1.0], [1.5, -2.0, 0.5]])
    for axis in (None, 0, 1):
        assert gradcheck(lambda a: ops.prod(a, axis), m)
        assert gradgradcheck(lambda a: ops.prod(a, axis, keepdims=True), m)


def test_var_std_gradients():
    x = _t(np.random.default_rng(1).normal(size=(3, 4)))
    assert gradgradcheck(lambda a: ops.var(a, 1, ddof=1), x)
    assert gradgradcheck(lambda a: a.std(dim=0, keepdim=True, correction=1), x)
    # d var / dx = 2 (x - mean) / (n - ddof)
    g, = grad(ops.var(x, ddof=1), x)
    a = x.numpy()
    np.testing.assert_allclose(g.numpy(), 2 * (a - a.mean()) / (a.size - 1), rtol=1e-12)


def test_std_gradient_is_zero_where_the_deviation_is_zero():
    x = _t([[2.0, 2.0, 2.0], [1.0, 2.0, 3.0]])
    s = ops.std(x, 1, ddof=0)
    g, = grad(s.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.numpy()[0], [0.0, 0.0, 0.0])
    np.testing.assert_allclose(g.numpy()[1], np.array([-1.0, 0.0, 1.0]) / (3 * np.sqrt(2 / 3)))
    second, = grad((g * g).sum(), x)
    assert np.isfinite(second.numpy()).all()


def test_nan_aware_sums():
    x = _t([1.0, np.nan, 2.0])
    assert ops.nansum(x).item() == 3.0 and x.nanmean().item() == 1.5
    assert grad(ops.nansum(x), x)[0].tolist() == [1.0, 0.0, 1.0]
    assert grad(ops.nanmean(x), x)[0].tolist() == [0.5, 0.0, 0.5]
    assert ops.nansum(eagerad.tensor([[1, 2]]), 1).tolist() == [3]


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "nearest", "midpoint"])
@pytest.mark.parametrize("q", [0.3, [0.0, 0.5, 0.9, 1.0]])
def test_quantile_and_median_match_numpy(method, q):
    x = _t(A, False)
    for axis in (None, 1, -1):
        for keepdims in (False, True):
            np.testing.assert_allclose(
                ops.quantile(x, q, axis, keepdims, method).numpy(),
                np.quantile(A, q, axis=axis, keepdims=keepdims, method=method), rtol=1e-12)
    np.testing.assert_allclose(ops.median(x, 1).numpy(), np.median(A, 1), rtol=1e-12)
    np.testing.assert_allclose(x.quantile(eagerad.tensor(q, dtype=eagerad.float64), dim=0, interpolation=method).numpy(),
                               np.quantile(A, q, axis=0, method=method), rtol=1e-12)


def test_median_spellings_and_gradients():
    x = _t([4.0, 1.0, 3.0, 2.0])
    assert ops.median(x).item() == 2.5                      # numpy: mean of the middle two
    assert grad(ops.median(x), x)[0].tolist() == [0.0, 0.0, 0.5, 0.5]
    assert x.median().item() == 2.0                         # PyTorch: the lower middle entry
    assert grad(x.median(), x)[0].tolist() == [0.0, 0.0, 0.0, 1.0]
    m = _t([[4.0, 1.0, 3.0], [0.0, 5.0, 6.0]])
    values, indices = m.median(1)
    assert values.tolist() == [3.0, 5.0] and indices.tolist() == [2, 1]
    assert m.median(dim=0, keepdim=True).values.shape == (1, 3)
    assert gradgradcheck(lambda a: ops.quantile(a, [0.25, 0.6], 1), m)
    with pytest.raises(ValueError, match="q must be"):
        ops.quantile(m, 1.5)
    with pytest.raises(ValueError, match="no entries"):
        ops.quantile(eagerad.zeros(0), 0.5)
