"""Cumulative ops (cumsum, cumprod, cummax/cummin, logcumsumexp, diff): values against
numpy, gradients against closed forms and finite differences (to third order for
cumprod with zeros), and the batching rules of every op of the reductions family."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.autograd import grad, gradcheck, gradgradcheck
from eagerad.ops import OPS


def _t(values, requires_grad=True):
    return eagerad.tensor(np.asarray(values, dtype=np.float64), requires_grad=requires_grad)


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_cumsum_cumprod_match_numpy(axis):
    a = np.random.default_rng(0).uniform(0.5, 1.5, (3, 4))
    x = _t(a, False)
    np.testing.assert_allclose(ops.cumsum(x, axis).numpy(), np.cumsum(a, axis), rtol=1e-12)
    np.testing.assert_allclose(ops.cumprod(x, axis).numpy(), np.cumprod(a, axis), rtol=1e-12)
    with np.errstate(all="ignore"):
        expect = np.logaddexp.accumulate(a.reshape(-1) if axis is None else a, axis=axis or 0)
    np.testing.assert_allclose(ops.logcumsumexp(x, axis).numpy(), expect, rtol=1e-12)


def test_cumulative_spellings_and_dtypes():
    x = eagerad.tensor([[1, 2], [3, 4]], dtype=eagerad.int32)
    assert x.cumsum(dim=0).tolist() == [[1, 2], [4, 6]]
    assert ops.cumsum(x).tolist() == [1, 3, 6, 10]               # numpy: None flattens
    assert ops.cumprod(x, 1, dtype=eagerad.float64).dtype == np.float64
    assert ops.cumsum(eagerad.tensor([True, True, False])).tolist() == [1, 2, 2]
    assert ops.cumsum(eagerad.tensor(5.0), 0).shape == ()
    assert ops.CumSum()(x, 1).tolist() == [[1, 3], [3, 7]]
    with pytest.raises(TypeError, match="axis or dim"):
        ops.cumsum(x, 0, dim=1)


def test_cumprod_gradient_with_zeros_is_exact():
    # d/dx_i sum_j prod_{k<=j} x_k at x = (2, 0, 3): (1 + x1 + x1 x2, x0 + x0 x2, x0 x1)
    x = _t([2.0, 0.0, 3.0])
    g, = grad(ops.cumprod(x).sum(), x)
    np.testing.assert_array_equal(g.numpy(), [1.0, 8.0, 0.0])
    for values in ([2.0, 0.0, 3.0, 0.5], [0.0, 0.0, 1.5, 2.0], [0.7, -1.2, 0.0]):
        x = _t(values)
        assert gradcheck(ops.cumprod, x) and gradgradcheck(ops.cumprod, x)
        w = _t([0.3, -1.1, 0.8, 1.7][:len(values)], False)

        def first(a):
            return grad((ops.cumprod(a) * w).sum(), a, create_graph=True)[0]
        assert gradgradcheck(first, x)              # third derivatives
    x = _t([[1.5, 0.0], [0.0, 2.0]])
    assert gradgradcheck(lambda a: ops.cumprod(a, 0), x)


def test_logcumsumexp_is_stable_with_a_finite_gradient():
    x = _t([1000.0, 1000.0])
    out = ops.logcumsumexp(x)
    np.testing.assert_allclose(out.numpy(), [1000.0, 1000.0 + np.log(2.0)])
    g, = grad(out.sum(), x)
    np.testing.assert_allclose(g.numpy(), [1.5, 0.5])
    x = _t([-np.inf, 0.0, np.log(3.0)])     # a masked entry: gradient 0 there, not nan
    g, = grad(ops.logcumsumexp(x).sum(), x)
    np.testing.assert_allclose(g.numpy(), [0.0, 1.0 + 1.0 / 4.0, 3.0 / 4.0])
    x = _t([[-700.0, 3.0, 700.0], [0.5, 0.1, -0.2]])
    assert gradcheck(lambda a: ops.logcumsumexp(a, 1), x)
    assert gradgradcheck(lambda a: ops.logcumsumexp(a, 0), x)


def test_cummax_cummin_values_indices_and_gradient_routing():
    x = _t([1.0, 3.0, 2.0, 3.0, 0.5])
    values, indices = ops.cummax(x, 0)
    assert values.tolist() == [1.0, 3.0, 3.0, 3.0, 3.0]
    assert indices.tolist() == [0, 1, 1, 3, 3]                 # ties take the later index
    g, = grad(values.sum(), x)
    assert g.tolist() == [1.0, 2.0, 0.0, 2.0, 0.0]
    low = x.cummin(dim=0)
    assert low.values.tolist() == [1.0, 1.0, 1.0, 1.0, 0.5] and low.indices.tolist() == [0, 0, 0, 0, 4]
    nan = ops.cummax(eagerad.tensor([1.0, np.nan, 5.0, np.nan]), 0)
    assert nan.indices.tolist() == [0, 1, 1, 3]
    assert np.isnan(nan.values.numpy()[1:]).all()
    m = _t(np.random.default_rng(1).normal(size=(3, 4)))
    assert gradgradcheck(lambda a: ops.cummax(a, 1).values, m)
    assert gradgradcheck(lambda a: ops.cummin(a, 0).values, m)
    with pytest.raises(TypeError, match="required"):
        ops.cummax(m)


def test_diff_matches_numpy_and_differentiates():
    a = np.random.default_rng(2).normal(size=(3, 5))
    x = _t(a)
    np.testing.assert_allclose(ops.diff(x).numpy(), np.diff(a))
    np.testing.assert_allclose(ops.diff(x, 2, axis=0).numpy(), np.diff(a, 2, axis=0))
    np.testing.assert_allclose(ops.diff(x, 1, 1, prepend=0.0, append=a[:, :1]).numpy(),
                               np.diff(a, 1, 1, prepend=0.0, append=a[:, :1]))
    assert x.diff(n=7).shape == (3, 0)
    assert ops.diff(eagerad.tensor([True, False, False])).tolist() == [True, False]
    assert gradgradcheck(lambda t: ops.diff(t, 2), x)
    with pytest.raises(ValueError, match="at least one dimension"):
        ops.diff(eagerad.tensor(1.0))


# The batching rules of the reductions family's ops: the rule on a stacked input
# against a Python loop of the op.
BATCH_CASES = [
    ("cumsum", dict(axis=1, reverse=False)), ("cumsum", dict(axis=0, reverse=True)),
    ("cumprod", dict(axis=1, reverse=True)), ("logcumsumexp", dict(axis=0, reverse=False)),
    ("cummax_indices", dict(axis=1)), ("cummin_indices", dict(axis=0)),
    ("argsort", dict(axis=1, descending=True)), ("prod", dict(axes=(0, 1), keepdims=False)),
    ("var", dict(axes=(1,), keepdims=True, ddof=1)), ("std", dict(axes=(0,), keepdims=False, ddof=0)),
]


@pytest.mark.parametrize("name,kw", BATCH_CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(BATCH_CASES)])
@pytest.mark.parametrize("bdim", [0, 1, 2])
def test_batching_rule_matches_a_loop(name, kw, bdim):
    op = OPS[name]
    xs = np.random.default_rng(3).uniform(0.5, 1.5, (4, 2, 3))
    stacked = eagerad.tensor(np.moveaxis(xs, 0, bdim))
    out, out_bdim = op.batch((stacked,), (bdim,), **kw)
    expect = np.stack([op(eagerad.tensor(x), **kw).numpy() for x in xs])
    np.testing.assert_allclose(np.moveaxis(out.numpy(), out_bdim, 0), expect, rtol=1e-12)


@pytest.mark.parametrize("bdims", [(0, None), (None, 1), (1, 0)])
def test_batching_rules_of_two_operand_and_parameterised_ops(bdims):
    rng = np.random.default_rng(4)
    a, b = rng.normal(size=(3, 2, 4)), rng.normal(size=(3, 2, 4))
    args = [eagerad.tensor(np.moveaxis(v, 0, d)) if d is not None else eagerad.tensor(v[0])
            for v, d in zip((a, b), bdims)]
    out, out_bdim = OPS["linear_scan"].batch(args, bdims, axis=1, reverse=False)
    expect = np.stack([OPS["linear_scan"](
        eagerad.tensor(a[i] if bdims[0] is not None else a[0]),
        eagerad.tensor(b[i] if bdims[1] is not None else b[0]), axis=1, reverse=False).numpy()
        for i in range(3)])
    np.testing.assert_allclose(np.moveaxis(out.numpy(), out_bdim, 0), expect, rtol=1e-12)
    out, out_bdim = OPS["pnorm"].batch((eagerad.tensor(np.moveaxis(a, 0, 2)), 3.0), (2, None),
                                             axes=(0,), keepdims=False)
    np.testing.assert_allclose(np.moveaxis(out.numpy(), out_bdim, 0),
                               np.sum(np.abs(a) ** 3, axis=1) ** (1 / 3), rtol=1e-12)


def test_every_op_of_the_family_declares_a_batching_rule():
    family = {"cumsum", "cumprod", "linear_scan", "logcumsumexp", "cummax_indices",
              "cummin_indices", "argsort", "prod", "var", "std", "pnorm"}
    assert family <= set(OPS)
    assert not [name for name in family if OPS[name].batch is None]


def test_transforms_see_the_family():
    x = eagerad.tensor([2.0, 0.0, 3.0], dtype=eagerad.float64)
    np.testing.assert_array_equal(eagerad.hessian(ops.prod)(x).numpy(),
                                  [[0, 3, 0], [3, 0, 2], [0, 2, 0]])
    np.testing.assert_array_equal(eagerad.jacfwd(ops.sort)(x).numpy(),
                                  [[0, 1, 0], [1, 0, 0], [0, 0, 1]])


def test_half_precision_and_bool_inputs():
    x = eagerad.tensor([2.0, 0.5, 3.0], dtype=eagerad.float16, requires_grad=True)
    ops.cumprod(x).sum().backward()            # the rule's linear scan runs in float32
    assert x.grad.dtype == np.float16 and x.grad.tolist() == [3.0, 8.0, 1.0]
    np.testing.assert_allclose(ops.logcumsumexp(x).numpy(),
                               np.logaddexp.accumulate(np.float32([2.0, 0.5, 3.0])), rtol=1e-3)
    b = eagerad.tensor([True, False, True])
    assert ops.cummax(b, 0).indices.tolist() == [0, 0, 2]
    assert ops.cumsum(b).tolist() == [1, 1, 2] and ops.prod(b).item() == 0
