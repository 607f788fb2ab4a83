"""``eagerad.torch.masked`` (issue 20): each function against the same computation on the
kept entries alone, PyTorch's fill values for fully masked-out slices, zero gradients for
masked-out entries, second-order gradchecks, ``dtype=``, bad input, and torch.masked itself
where torch is installed (values, first- and second-order gradients)."""
import numpy as np
import pytest

import eagerad
import eagerad.torch as et
from eagerad.autograd import gradcheck, gradgradcheck

F64 = eagerad.float64
RNG = np.random.default_rng(22)
M = et.masked
A = RNG.normal(size=(4, 5))
MASK = RNG.random((4, 5)) > 0.4
MASK[2] = False                     # one fully masked-out row


def _kept(fn, fill, a=A, mask=MASK):
    """``fn`` applied row by row to the kept entries (``fill`` for an empty row)."""
    return np.array([fn(r[m]) if m.any() else fill for r, m in zip(a, mask)])


def _t(a=A):
    return et.tensor(a, dtype=F64)


REFERENCES = {
    "sum": (np.sum, 0.0), "prod": (np.prod, 1.0), "amax": (np.max, -np.inf),
    "amin": (np.min, np.inf), "mean": (np.mean, np.nan),
    "logsumexp": (lambda r: np.log(np.exp(r).sum()), -np.inf),
    "var": (lambda r: r.var(ddof=1) if r.size > 1 else np.nan, np.nan),
    "std": (lambda r: r.std(ddof=1) if r.size > 1 else np.nan, np.nan),
    "median": (lambda r: np.sort(r)[(r.size - 1) // 2], np.nan),
}


@pytest.mark.parametrize("name", sorted(REFERENCES))
def test_reductions_see_only_the_kept_entries(name):
    fn, fill = REFERENCES[name]
    got = getattr(M, name)(_t(), 1, mask=et.tensor(MASK))
    np.testing.assert_allclose(got.numpy(), _kept(fn, fill), rtol=1e-12)


def test_norm_and_the_whole_tensor():
    got = M.norm(_t(), 3.0, 1, mask=et.tensor(MASK))
    np.testing.assert_allclose(got.numpy(), _kept(lambda r: (np.abs(r) ** 3).sum() ** (1 / 3), 0.0))
    assert M.norm(_t(), float("-inf"), 1, mask=et.tensor(MASK)).tolist()[2] == np.inf
    assert M.sum(_t(), mask=et.tensor(MASK)).item() == pytest.approx(A[MASK].sum(), rel=1e-12)
    assert M.amax(_t(), (0, 1), keepdim=True).shape == (1, 1)
    assert M.mean(_t(), mask=et.tensor(MASK[0])).item() == pytest.approx(A[:, MASK[0]].mean(),
                                                                         rel=1e-12)


def test_normalizations_and_scans():
    mask = et.tensor(MASK)
    soft = M.softmax(_t(), 1, mask=mask).numpy()
    e = np.where(MASK, np.exp(A - A.max(1, keepdims=True)), 0.0)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(soft, e / e.sum(1, keepdims=True), rtol=1e-12)  # row 2: nan
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(M.log_softmax(_t(), 1, mask=mask).numpy()[0],
                                   np.log(soft[0]), rtol=1e-12)
    np.testing.assert_allclose(M.softmin(_t(), 1, mask=mask).numpy()[:2],
                               M.softmax(-_t(), 1, mask=mask).numpy()[:2], rtol=1e-12)
    np.testing.assert_allclose(M.cumsum(_t(), 1, mask=mask).numpy(),
                               np.cumsum(np.where(MASK, A, 0), 1), rtol=1e-12)
    np.testing.assert_allclose(M.cumprod(_t(), 1, mask=mask).numpy(),
                               np.cumprod(np.where(MASK, A, 1), 1), rtol=1e-12)
    norms = np.sqrt((np.where(MASK, A, 0) ** 2).sum(1, keepdims=True))
    np.testing.assert_allclose(M.normalize(_t(), 2.0, 1, mask=mask).numpy(),
                               np.where(MASK, A, 0) / np.maximum(norms, 1e-12), rtol=1e-12)
    out = M.logaddexp(_t(), _t(A[::-1]), input_mask=mask, other_mask=et.tensor(MASK[::-1]))
    a, b = np.where(MASK, A, -np.inf), np.where(MASK[::-1], A[::-1], -np.inf)
    np.testing.assert_allclose(out.numpy(), np.logaddexp(a, b), rtol=1e-12)


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "mean", "logsumexp", "var", "std",
                                  "median", "softmax", "log_softmax", "cumprod"])
def test_masked_out_entries_get_no_gradient(name):
    mask = MASK.copy()
    mask[2, 1] = True       # every row keeps an entry (a fully masked-out var row is nan)
    x = et.tensor(A, dtype=F64, requires_grad=True)
    out = getattr(M, name)(x, 1, mask=et.tensor(mask))
    keep = np.isfinite(out.detach().numpy())
    out.backward(et.tensor(keep.astype(float)))
    assert np.all(x.grad.numpy()[~mask] == 0)
    assert np.any(x.grad.numpy()[mask] != 0)


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "mean", "logsumexp", "var",
                                  "std", "median", "norm", "softmax", "log_softmax", "softmin",
                                  "cumsum", "cumprod", "normalize"])
def test_gradients_to_second_order(name):
    mask = et.tensor(MASK[:2])          # no fully masked-out row: finite everywhere
    x = et.tensor(RNG.uniform(0.5, 2.0, (2, 5)), dtype=F64, requires_grad=True)
    fn = getattr(M, name)
    call = {"norm": lambda t: fn(t, 2.0, 1, mask=mask),
            "normalize": lambda t: fn(t, 2.0, 1, mask=mask),
            "log_softmax": lambda t: et.where(mask, fn(t, 1, mask=mask), 0.0),   # -inf elsewhere
            }.get(name, lambda t: fn(t, 1, mask=mask))
    assert gradcheck(call, (x,)) and gradgradcheck(call, (x,))


def test_dtype_keyword_and_integer_inputs():
    i = et.tensor([[1, 2, 3], [4, 5, 6]], dtype=eagerad.int32)
    m = et.tensor([[True, False, True], [False, False, False]])
    assert M.sum(i, 1, mask=m).dtype == eagerad.int64 and M.sum(i, 1, mask=m).tolist() == [4, 0]
    assert M.prod(i, 1, mask=m).tolist() == [3, 1]
    assert M.amax(i, 1, mask=m).tolist() == [3, np.iinfo(np.int32).min]
    assert M.sum(_t(), 1, dtype=eagerad.float32).dtype == eagerad.float32
    assert M.var(i, 1, mask=m).dtype == eagerad.float32
    assert M.softmax(i.float(), 1, dtype=F64).dtype == F64
    with pytest.raises(ValueError, match="floating point"):
        M.mean(i, 1, mask=m)
    with pytest.raises(ValueError, match="fully masked-out"):
        M.median(i, 1, mask=m)
    assert M.median(i, 1, mask=m.logical_not()).tolist() == [2, 5]


def test_bad_input_is_named():
    with pytest.raises(IndexError, match="more than the input's"):
        M.sum(_t(), mask=et.ones(2, 4, 5, dtype=eagerad.bool_))
    with pytest.raises(ValueError, match="does not broadcast"):
        M.sum(_t(), mask=et.ones(3, dtype=eagerad.bool_))
    with pytest.raises(TypeError, match="dim must be an int"):
        M.softmax(_t(), (0, 1))
    with pytest.raises(IndexError, match="out of range"):
        M.amax(_t(), 2)
    with pytest.raises(TypeError, match="unbiased or correction"):
        M.var(_t(), unbiased=True, correction=0)


def test_zero_dim_and_empty_inputs():
    s = et.tensor(2.0, dtype=F64)
    assert M.sum(s, 0, keepdim=True, mask=et.tensor(False)).shape == ()
    assert M.sum(s, 0, keepdim=True, mask=et.tensor(False)).item() == 0.0
    assert M.softmax(s, 0).item() == 1.0
    assert M.softmax(et.zeros(3, 0), 1).shape == (3, 0)


def _torch_call(lib, name, x, y, mask):
    ns = lib.masked
    if name == "logaddexp":
        return ns.logaddexp(x, y, input_mask=mask, other_mask=mask.flip(0))
    if name in ("norm", "normalize"):
        return getattr(ns, name)(x, 2.0, 1, mask=mask)
    if name == "std":
        return ns.std(x, 1, mask=mask, correction=0)
    return getattr(ns, name)(x, 1, mask=mask)


@pytest.mark.parametrize("name", ["sum", "prod", "amax", "amin", "argmax", "mean", "median",
                                  "logsumexp", "logaddexp", "norm", "var", "std", "softmax",
                                  "log_softmax", "softmin", "cumsum", "cumprod", "normalize"])
def test_matches_torch_masked(name):
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(sum(map(ord, name)))
    a = rng.integers(-2, 3, (4, 5)).astype(float)          # ties and zeros
    b = rng.normal(size=(4, 5))
    mask = rng.random((4, 5)) > 0.5
    mask[1] = False
    v, w = rng.normal(size=(4, 5)), rng.normal(size=(4, 5))
    results = []
    for lib in (torch, et):
        x = lib.tensor(a, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(b, dtype=lib.float64, requires_grad=True)
        out = _torch_call(lib, name, x, y, lib.tensor(mask))
        row = [out.detach().numpy()]
        if out.requires_grad:
            vv = lib.tensor(v[:, :out.shape[-1]] if out.ndim == 2 else v[:, 0])
            g = lib.autograd.grad(out, [x, y], vv, create_graph=True, allow_unused=True)
            g = [lib.zeros_like(x) if t is None else t for t in g]
            row += [t.detach().numpy() for t in g]
            total = (g[0] * lib.tensor(w)).sum() + (g[1] * lib.tensor(w)).sum()
            if total.requires_grad and name != "logaddexp":
                # torch's own second derivative of masked logaddexp is nan where one side is
                # masked out (its formula multiplies 0 by inf); the exact value is 0
                g2 = lib.autograd.grad(total, [x, y], allow_unused=True)
                row += [np.zeros((4, 5)) if t is None else t.numpy() for t in g2]
        results.append(row)
    assert len(results[0]) == len(results[1])
    for t_val, e_val in zip(*results):
        np.testing.assert_allclose(e_val, t_val, rtol=1e-10, atol=1e-12, equal_nan=True)


def test_logaddexp_second_order_is_exact_where_one_side_is_masked_out():
    x = et.tensor([0.5, -1.0], dtype=F64, requires_grad=True)
    y = et.tensor([2.0, 3.0], dtype=F64, requires_grad=True)
    out = M.logaddexp(x, y, other_mask=et.tensor([False, True]))
    gx, gy = eagerad.autograd.grad(out.sum(), [x, y], create_graph=True)
    assert gx.tolist()[0] == 1.0 and gy.tolist()[0] == 0.0     # out[0] = x[0]
    (h,) = eagerad.autograd.grad(gx.sum(), [x])
    s = 1 / (1 + np.exp(-1.0 - 3.0))                          # sigmoid(x1 - y1)
    np.testing.assert_allclose(h.numpy(), [0.0, s * (1 - s)], rtol=1e-12)
