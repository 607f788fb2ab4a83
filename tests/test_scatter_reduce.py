"""scatter_reduce / index_reduce (issue 20): values against a plain Python loop, gradients to
second order by finite differences, PyTorch's tie and zero conventions (against torch where
installed), the include_self=False case PyTorch gets wrong, batching and bad input."""
import itertools

import numpy as np
import pytest

import eagerad
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.vectorize import vmap

F64 = eagerad.float64
RNG = np.random.default_rng(20)
REDUCE = {"sum": sum, "prod": np.prod, "mean": np.mean, "amax": max, "amin": min}


def _loop(x, dim, idx, src, reduce, include_self):
    """The definition, entry by entry."""
    groups = {}
    for pos in itertools.product(*map(range, idx.shape)):
        target = list(pos)
        target[dim] = idx[pos]
        groups.setdefault(tuple(target), []).append(src[pos])
    out = x.copy()
    for target, values in groups.items():
        values = ([x[target]] if include_self else []) + values
        out[target] = REDUCE[reduce](values)
    return out


@pytest.mark.parametrize("reduce", list(REDUCE))
@pytest.mark.parametrize("include_self", [True, False])
def test_values_match_the_definition(reduce, include_self):
    x = RNG.integers(-3, 4, (4, 3)).astype(float)
    src = RNG.integers(-3, 4, (5, 3)).astype(float)
    for dim, idx in ((0, RNG.integers(0, 4, (5, 2))), (1, RNG.integers(0, 3, (4, 3)))):
        got = eagerad.tensor(x).scatter_reduce(dim, eagerad.tensor(idx), eagerad.tensor(src),
                                               reduce, include_self=include_self)
        np.testing.assert_allclose(got.numpy(), _loop(x, dim, idx, src, reduce, include_self))


def test_integer_mean_rounds_down_and_prod_of_ints():
    x = eagerad.tensor([7, 1, 2])
    idx, src = eagerad.tensor([0, 0]), eagerad.tensor([2, 4])
    assert x.scatter_reduce(0, idx, src, "mean").tolist() == [4, 1, 2]         # 13 // 3
    assert x.scatter_reduce(0, idx, src, "prod", include_self=False).tolist() == [8, 1, 2]
    assert x.scatter_reduce(0, idx, src, "amin", include_self=False).dtype == eagerad.int64


@pytest.mark.parametrize("reduce", list(REDUCE))
@pytest.mark.parametrize("include_self", [True, False])
def test_gradients_to_second_order(reduce, include_self):
    idx = eagerad.tensor([[0, 2], [2, 2], [1, 0]])
    x = eagerad.tensor(RNG.uniform(-1, 1, (3, 2)), dtype=F64, requires_grad=True)
    src = eagerad.tensor(RNG.uniform(0.5, 1.5, (3, 2)) * RNG.choice([-1, 1], (3, 2)), dtype=F64,
                         requires_grad=True)

    def fn(a, b):
        return a.scatter_reduce(0, idx, b, reduce, include_self=include_self)
    assert gradcheck(fn, (x, src))
    assert gradgradcheck(fn, (x, src))


def test_prod_gradient_is_exact_with_zeros():
    x = eagerad.tensor([2.0, 3.0], dtype=F64, requires_grad=True)
    src = eagerad.tensor([0.0, 5.0, 0.0, 0.0], dtype=F64, requires_grad=True)
    idx = eagerad.tensor([0, 0, 1, 1])
    out = x.scatter_reduce(0, idx, src, "prod")
    gx, gs = eagerad.autograd.grad(out.sum(), [x, src])
    assert out.tolist() == [0.0, 0.0]
    assert gx.tolist() == [0.0, 0.0]                 # both positions hold a zero factor
    assert gs.tolist() == [10.0, 0.0, 0.0, 0.0]      # the single zero: 2 * 5; two zeros: 0


def test_amax_ties_share_the_gradient_and_excluded_self_takes_no_share():
    x = eagerad.tensor([3.0, 5.0], dtype=F64, requires_grad=True)
    src = eagerad.tensor([3.0, 1.0, 3.0], dtype=F64, requires_grad=True)
    idx = eagerad.tensor([0, 0, 0])
    gx, gs = eagerad.autograd.grad(x.scatter_reduce(0, idx, src, "amax").sum(), [x, src])
    assert gx.tolist() == [1 / 3, 1.0] and gs.tolist() == [1 / 3, 0.0, 1 / 3]
    # x[0] is left out; it equals the result by chance but is not one of the maxima
    gx, gs = eagerad.autograd.grad(
        x.scatter_reduce(0, idx, src, "amax", include_self=False).sum(), [x, src])
    assert gx.tolist() == [0.0, 1.0] and gs.tolist() == [0.5, 0.0, 0.5]


def test_index_reduce_is_scatter_reduce_along_slices():
    x = RNG.normal(size=(3, 4))
    src = RNG.normal(size=(3, 5))
    idx = np.array([0, 3, 3, 1, 0])
    for reduce in ("prod", "mean", "amax", "amin"):
        for include_self in (True, False):
            got = eagerad.tensor(x).index_reduce(1, eagerad.tensor(idx), eagerad.tensor(src),
                                                 reduce, include_self=include_self)
            want = _loop(x, 1, np.broadcast_to(idx, (3, 5)), src, reduce, include_self)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_zero_dim_input_and_in_place_forms():
    x = eagerad.tensor(2.0)
    assert x.index_reduce(0, eagerad.tensor([0]), eagerad.tensor(3.0), "prod").item() == 6.0
    y = eagerad.zeros(3)
    y.scatter_reduce_(0, eagerad.tensor([1, 1]), eagerad.tensor([2.0, 5.0]), "amax")
    assert y.tolist() == [0.0, 5.0, 0.0]


def test_vmap_matches_the_loop():
    xs = eagerad.tensor(RNG.normal(size=(4, 3, 2)), dtype=F64)
    srcs = eagerad.tensor(RNG.normal(size=(4, 3, 2)), dtype=F64)
    idx = eagerad.tensor([[0, 2], [2, 2], [1, 0]])
    for reduce in REDUCE:
        out = vmap(lambda a, b: a.scatter_reduce(0, idx, b, reduce))(xs, srcs)
        loop = eagerad.stack([xs[i].scatter_reduce(0, idx, srcs[i], reduce) for i in range(4)])
        np.testing.assert_allclose(out.numpy(), loop.numpy(), rtol=1e-12)


def test_bad_input_is_named():
    x = eagerad.zeros(3)
    with pytest.raises(ValueError, match="reduce must be one of"):
        x.scatter_reduce(0, eagerad.tensor([0]), eagerad.ones(1), "max")
    with pytest.raises(ValueError, match="index_reduce: reduce"):
        x.index_reduce(0, eagerad.tensor([0]), eagerad.ones(1), "sum")
    with pytest.raises(IndexError, match="index holds 3"):
        x.scatter_reduce(0, eagerad.tensor([3]), eagerad.ones(1), "sum")
    with pytest.raises(ValueError, match="source has shape"):
        eagerad.zeros(3, 2).index_reduce(0, eagerad.tensor([0]), eagerad.ones(2, 2), "prod")


def test_ties_and_zeros_match_torch():
    torch = pytest.importorskip("torch")
    import eagerad.torch as et
    rng = np.random.default_rng(3)
    for trial in range(60):
        reduce = ("sum", "prod", "mean", "amax", "amin")[trial % 5]
        include_self = bool(trial // 5 % 2)
        x = rng.integers(-2, 3, (4, 3)).astype(float)        # small integers: ties and zeros
        src = rng.integers(-2, 3, (5, 3)).astype(float)
        idx = rng.integers(0, 4, (5, 3))
        v = rng.normal(size=(4, 3))
        results = []
        for lib in (torch, et):
            a = lib.tensor(x, dtype=lib.float64, requires_grad=True)
            b = lib.tensor(src, dtype=lib.float64, requires_grad=True)
            out = a.scatter_reduce(0, lib.tensor(idx), b, reduce, include_self=include_self)
            results.append([out.detach().numpy()] + [
                g.numpy() for g in lib.autograd.grad(out, [a, b], lib.tensor(v))])
        (t_out, t_gx, t_gs), (e_out, e_gx, e_gs) = results
        np.testing.assert_allclose(e_out, t_out)
        np.testing.assert_allclose(e_gx, t_gx, atol=1e-12)
        if reduce in ("amax", "amin") and not include_self:
            continue      # PyTorch lets an excluded x entry take a share (see the test above)
        np.testing.assert_allclose(e_gs, t_gs, atol=1e-12)
