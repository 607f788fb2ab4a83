"""mode, nanmedian and nanquantile (issue 20): values against their definitions, PyTorch's
index and tie conventions (against torch where installed), gradients to second order, and
(with the masked and scatter reductions) CPU/CUDA parity on Numba's CUDA simulator."""
from collections import Counter

import numpy as np
import pytest

import eagerad
from eagerad.autograd import gradcheck, gradgradcheck
from simulator_run import run_on_simulator

F64 = eagerad.float64
RNG = np.random.default_rng(21)
NAN = float("nan")


def _x(a):
    return eagerad.tensor(np.asarray(a, dtype=float), dtype=F64, requires_grad=True)


# ------------------------------------------------------------------- mode

def test_mode_is_the_smallest_most_frequent_value_at_its_last_occurrence():
    a = RNG.integers(0, 4, (6, 7)).astype(float)
    values, indices = eagerad.tensor(a).mode(1)
    for row, v, i in zip(a, values.tolist(), indices.tolist()):
        counts = Counter(row.tolist())
        top = max(counts.values())
        assert v == min(k for k, c in counts.items() if c == top)
        assert i == max(j for j, e in enumerate(row) if e == v)


def test_mode_keepdim_other_dims_and_gradient_to_the_index():
    x = _x([[2.0, 1.0], [2.0, 3.0], [1.0, 3.0]])
    values, indices = x.mode(0, keepdim=True)
    assert values.tolist() == [[2.0, 3.0]] and indices.tolist() == [[1, 2]]
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 0.0], [1.0, 0.0], [0.0, 1.0]]
    assert eagerad.tensor(5.0).mode() == (5.0, 0)


def test_mode_matches_torch():
    torch = pytest.importorskip("torch")
    a = RNG.integers(-2, 3, (4, 5, 6)).astype(float)
    for dim in (0, 1, -1):
        mine = eagerad.tensor(a).mode(dim)
        theirs = torch.tensor(a).mode(dim)
        np.testing.assert_array_equal(mine.values.numpy(), theirs.values.numpy())
        np.testing.assert_array_equal(mine.indices.numpy(), theirs.indices.numpy())

# -------------------------------------------------------------- nanmedian


def test_nanmedian_skips_nan_along_a_dim():
    a = np.array([[NAN, 1.0, NAN, 3.0, 2.0, NAN], [2.0, 2.0, 1.0, 1.0, NAN, 2.0],
                  [NAN] * 6, [4.0, 3.0, 2.0, 1.0, 0.0, 5.0]])
    values, indices = eagerad.tensor(a).nanmedian(1)
    assert values.tolist()[:2] == [2.0, 2.0] and np.isnan(values.tolist()[2])
    assert values.tolist()[3] == 2.0
    assert indices.tolist() == [4, 0, 0, 2]      # stable: the first of the tied 2s; all-NaN: first


def test_nanmedian_over_all_entries_shares_the_gradient_among_ties():
    x = _x([3.0, NAN, 3.0, 1.0, 3.0])
    out = x.nanmedian()
    out.backward()
    assert out.item() == 3.0 and x.grad.tolist() == [1 / 3, 0.0, 1 / 3, 0.0, 1 / 3]
    x = _x([NAN, NAN])
    out = x.nanmedian()
    out.backward()
    assert np.isnan(out.item()) and x.grad.tolist() == [0.5, 0.5]


def test_nanmedian_matches_torch_values_indices_and_tie_gradients():
    torch = pytest.importorskip("torch")
    a = RNG.integers(-2, 3, (5, 6)).astype(float)
    a[RNG.random(a.shape) < 0.3] = NAN
    for lib in (torch, eagerad):
        t = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        t.nanmedian().backward()
        if lib is torch:
            want = t.grad.numpy()
        else:
            np.testing.assert_allclose(t.grad.numpy(), want)
    mine, theirs = eagerad.tensor(a).nanmedian(0), torch.tensor(a).nanmedian(0)
    np.testing.assert_array_equal(mine.values.numpy(), theirs.values.numpy())
    np.testing.assert_array_equal(mine.indices.numpy(), theirs.indices.numpy())


def test_nanmedian_and_mode_gradients_to_second_order():
    a = RNG.normal(size=(3, 5))
    a[0, 1] = a[2, 4] = NAN
    x = eagerad.tensor(a, dtype=F64, requires_grad=True)
    for fn in (lambda t: t.nanmedian(1).values, lambda t: t.nanmedian(),
               lambda t: t.mode(0).values):
        assert gradcheck(fn, (x,)) and gradgradcheck(fn, (x,))

# ------------------------------------------------------------- nanquantile


@pytest.mark.parametrize("method", ["linear", "lower", "higher", "midpoint"])
def test_nanquantile_matches_numpy(method):
    a = RNG.normal(size=(4, 7))
    a[RNG.random(a.shape) < 0.3] = NAN
    q = np.array([0.0, 0.25, 0.5, 0.9, 1.0])
    got = eagerad.tensor(a).nanquantile(eagerad.tensor(q), dim=1, interpolation=method)
    np.testing.assert_allclose(got.numpy(), np.nanquantile(a, q, axis=1, method=method),
                               rtol=1e-12)
    whole = eagerad.tensor(a).nanquantile(0.3, interpolation=method, keepdim=True)
    assert whole.shape == (1, 1)
    np.testing.assert_allclose(whole.item(), np.nanquantile(a, 0.3, method=method), rtol=1e-12)


def test_nanquantile_all_nan_shapes_and_bad_input():
    out = eagerad.tensor([[NAN, NAN], [1.0, 3.0]]).nanquantile(0.5, dim=1, keepdim=True)
    assert out.shape == (2, 1) and np.isnan(out.tolist()[0][0]) and out.tolist()[1] == [2.0]
    assert eagerad.tensor(2.0).nanquantile(0.5, dim=0).shape == ()
    with pytest.raises(ValueError, match=r"q must be .* in \[0, 1\]"):
        eagerad.tensor([1.0]).nanquantile(1.5)
    with pytest.raises(ValueError, match="interpolation must be one of"):
        eagerad.tensor([1.0]).nanquantile(0.5, interpolation="cubic")
    with pytest.raises(TypeError, match="floating point"):
        eagerad.tensor([1, 2]).nanquantile(0.5)


def test_nanquantile_gradients_in_input_and_q():
    a = RNG.normal(size=(3, 5))
    a[1, 2] = NAN
    x = eagerad.tensor(a, dtype=F64, requires_grad=True)
    q = eagerad.tensor([0.3, 0.55], dtype=F64, requires_grad=True)

    def fn(t, p):
        return t.nanquantile(p, dim=1)
    assert gradcheck(fn, (x, q)) and gradgradcheck(fn, (x, q))
    # d/dq of the linear interpolation is (above - below) * (count - 1)
    row = np.sort(a[0])
    (gq,) = eagerad.autograd.grad(x.nanquantile(q[0], dim=1)[0], [q])
    k = int(np.floor(0.3 * 4))
    assert gq.tolist()[0] == pytest.approx((row[k + 1] - row[k]) * 4, rel=1e-12)
    assert gq.tolist()[1] == 0.0


def test_nanquantile_nearest_matches_torch():
    torch = pytest.importorskip("torch")
    a = RNG.normal(size=(3, 5))       # q * (n - 1) = 0.5, 1.5: half to even
    q = [0.125, 0.375, 0.6]
    got = eagerad.tensor(a).nanquantile(eagerad.tensor(q), dim=1, interpolation="nearest")
    want = torch.tensor(a).nanquantile(torch.tensor(q, dtype=torch.float64), dim=1,
                                       interpolation="nearest")
    np.testing.assert_array_equal(got.numpy(), want.numpy())

# -------------------------------------------------------------- on CUDA


SIM_SCRIPT = r"""
import json, numpy as np, eagerad
from eagerad.ops import masked
W = np.random.default_rng(1)

def both(fn, *arrays):
    rows = []
    for dev in ("cpu", "cuda"):
        ts = [eagerad.tensor(a, device=dev, requires_grad=a.dtype.kind == "f")
              if isinstance(a, np.ndarray) else a for a in arrays]
        out = fn(*ts)
        outs = list(out) if isinstance(out, tuple) else [out]
        assert all(o.device.type == dev for o in outs)
        leaves = [t for t in ts if isinstance(t, eagerad.Tensor) and t.requires_grad]
        loss = sum((o * eagerad.tensor(np.random.default_rng(1).normal(size=o.shape), device=dev)).sum()
                   for o in outs if o.dtype.kind == "f")
        g = eagerad.autograd.grad(loss, leaves, create_graph=True)
        s = sum((a * a).sum() for a in g)
        g2 = eagerad.autograd.grad(s, leaves, allow_unused=True) if s.requires_grad else []
        rows.append([o.numpy() for o in outs] + [a.numpy() for a in g] +
                    [a.numpy() for a in g2 if a is not None])
    for a, b in zip(*rows):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10)

x = W.normal(size=(3, 4)); src = W.normal(size=(3, 4)); m = W.random((3, 4)) > 0.4
idx = np.array([[0, 2, 1, 0], [2, 2, 0, 1], [1, 0, 0, 2]])
for r in ("prod", "mean", "amax"):
    both(lambda a, b: a.scatter_reduce(0, eagerad.tensor(idx, device=a.device), b, r,
                                       include_self=False), x, src)
both(lambda a: a.mode(1), np.array([[1.0, 2.0, 2.0, 1.0], [3.0, 3.0, 0.0, 1.0]]))
both(lambda a: a.nanmedian(), np.array([1.0, np.nan, 2.0, 2.0]))
both(lambda a: a.nanquantile(0.3, dim=1), np.array([[1.0, np.nan, 2.0, 4.0]]))
for name in ("softmax", "var", "median", "amax"):
    both(lambda a: getattr(masked, name)(a, 1, mask=eagerad.tensor(m, device=a.device)), x)
print("SIM-OK " + json.dumps(True))
"""


def test_cpu_and_cuda_agree_on_the_simulator():
    assert run_on_simulator(SIM_SCRIPT, "SIM-OK") is True
