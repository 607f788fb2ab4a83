"""Attention's fast paths: the float32 softmax kernel, scaled_dot_product_attention as one
op (values and gradients against PyTorch, gradcheck to second order in float64)."""
import numpy as np
import pytest

try:
    import torch
except ImportError:        # the README's test command installs no PyTorch
    torch = None

import eagerad
import eagerad.nn.functional as F
import eagerad.torch
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.backend.cpu import attention_kernels as K
from eagerad.backend.cpu import fused

RNG = np.random.default_rng(11)
needs_torch = pytest.mark.skipif(torch is None, reason="PyTorch is the oracle here")


def _ulps(got, exact):
    spacing = np.spacing(np.abs(exact).astype(np.float32)).astype(np.float64)
    return np.max(np.abs(got.astype(np.float64) - exact) / spacing)


def _numpy_softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_exp32_is_within_an_ulp_over_the_float32_range():
    a = np.concatenate([np.linspace(-87.0, 0.0, 400001), -RNG.exponential(3.0, 20000)])
    a = a.astype(np.float32)
    out = np.empty_like(a)
    K.softmax_rows(a.reshape(-1, 1), out.reshape(-1, 1))        # one-entry rows: exp(0) = 1
    assert np.all(out == 1.0)
    exact = np.exp(a.astype(np.float64))
    # exp(a) itself, through a row [0, a]: softmax is (1, e) / (1 + e); recover e
    rows = np.stack([np.zeros_like(a), a], 1)
    got = np.empty_like(rows)
    K.softmax_rows(rows, got)
    np.testing.assert_allclose(got[:, 1].astype(np.float64) / got[:, 0], exact, rtol=4e-7, atol=0)


def test_float32_softmax_kernel_is_within_a_few_ulps_and_keeps_numpys_special_values():
    x = (RNG.standard_normal((40, 4, 9, 33)) * 6).astype(np.float32)
    x[..., ::3] = np.where(RNG.uniform(size=x[..., ::3].shape) < 0.3, -np.inf, x[..., ::3])
    got = fused.softmax_inplace(x, 3)
    # exact softmax of the float32 shifts x - max (which both kernel and numpy round)
    shifted = (x - x.max(-1, keepdims=True)).astype(np.float64)
    exact = np.exp(shifted) / np.exp(shifted).sum(-1, keepdims=True)
    assert _ulps(got, exact) <= 3.0
    assert _ulps(_numpy_softmax(x), exact) >= 1.0        # (numpy's passes: no closer)
    special = np.array([[np.nan, 1, 2], [-np.inf] * 3, [np.inf, 0, 1], [0, -np.inf, 0],
                        [-200.0, 0.0, -95.0]], np.float32)
    with np.errstate(invalid="ignore"):
        reference = _numpy_softmax(special)
    np.testing.assert_array_equal(fused.softmax_inplace(special, 1), reference)
    # a strided or float64 array keeps numpy's passes (bit for bit)
    x64 = x.astype(np.float64)
    np.testing.assert_array_equal(fused.softmax_inplace(x64, 3), _numpy_softmax(x64))
@needs_torch
def test_float32_softmax_gradient_matches_torch():
    x = (RNG.standard_normal((3, 5, 70)) * 3).astype(np.float32)
    g = RNG.standard_normal(x.shape).astype(np.float32)
    xe = eagerad.tensor(x, requires_grad=True)
    xt = torch.tensor(x, requires_grad=True)
    ye, yt = F.softmax(xe, dim=-1), torch.softmax(xt, dim=-1)
    np.testing.assert_allclose(ye.numpy(), yt.detach().numpy(), rtol=2e-6, atol=1e-7)
    ye.backward(eagerad.tensor(g))
    yt.backward(torch.tensor(g))
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=2e-7)
    # the parallel twins give the kernel's numbers
    big = (RNG.standard_normal((1200, 64)) * 4).astype(np.float32)
    serial, parallel = np.empty_like(big), np.empty_like(big)
    K.softmax_rows(big, serial)
    K.softmax_rows_parallel(big, parallel)
    np.testing.assert_array_equal(serial, parallel)
    gb = RNG.standard_normal(big.shape).astype(np.float32)
    K.softmax_rows_backward(gb, serial, big)
    K.softmax_rows_backward_parallel(gb, serial, parallel)
    np.testing.assert_array_equal(big, parallel)


MASKS = {
    "none": lambda L, S: None,
    "bool": lambda L, S: np.tril(np.ones((L, S), bool)) | (RNG.uniform(size=(L, S)) < 0.3),
    "float": lambda L, S: RNG.standard_normal((L, S)),
}


@needs_torch
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal"])
def test_attention_op_matches_torch_in_value_and_gradient(dtype, kind):
    shape_q, shape_k, shape_v = (2, 3, 6, 8), (2, 3, 7, 8), (2, 3, 7, 5)
    q, k, v = (RNG.standard_normal(s).astype(dtype) for s in (shape_q, shape_k, shape_v))
    mask = MASKS.get(kind, MASKS["none"])(6, 7)
    if kind == "float":
        mask = mask.astype(dtype)
    te = [eagerad.tensor(a, requires_grad=True) for a in (q, k, v)]
    tt = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    kw = {"is_causal": kind == "causal", "scale": 0.4}
    ye = F.scaled_dot_product_attention(*te, attn_mask=None if mask is None else eagerad.tensor(mask), **kw)
    yt = torch.nn.functional.scaled_dot_product_attention(
        *tt, attn_mask=None if mask is None else torch.tensor(mask), **kw)
    assert ye.grad_fn.name == "ScaledDotProductAttentionBackward"     # one node
    tol = {"rtol": 2e-5, "atol": 2e-6} if dtype == "float32" else {"rtol": 1e-10, "atol": 1e-12}
    np.testing.assert_allclose(ye.numpy(), yt.detach().numpy(), **tol)
    g = RNG.standard_normal(ye.shape).astype(dtype)
    ge = eagerad.autograd.grad(ye, te, eagerad.tensor(g))
    gt = torch.autograd.grad(yt, tt, torch.tensor(g))
    for a, b in zip(ge, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), **tol)


@pytest.mark.parametrize("kind", ["none", "bool", "float", "causal"])
def test_attention_op_gradcheck_to_second_order(kind):
    q, k, v = (eagerad.tensor(RNG.standard_normal(s), requires_grad=True)
               for s in ((2, 3, 4), (2, 5, 4), (2, 5, 2)))
    if kind == "causal":
        q = eagerad.tensor(RNG.standard_normal((2, 5, 4)), requires_grad=True)
    mask = MASKS.get(kind, MASKS["none"])(q.shape[1], 5)
    mask = None if mask is None else eagerad.tensor(mask)

    def fn(q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask, is_causal=kind == "causal")
    assert fn(q, k, v).grad_fn.name == "ScaledDotProductAttentionBackward"
    assert gradcheck(fn, (q, k, v))
    assert gradgradcheck(fn, (q, k, v))


def test_attention_composition_paths_and_bad_input():
    q = eagerad.tensor(RNG.standard_normal((2, 3, 4)), requires_grad=True)
    k = eagerad.tensor(RNG.standard_normal((1, 5, 4)))          # batch dims differ: composed
    v = eagerad.tensor(RNG.standard_normal((1, 5, 2)))
    y = F.scaled_dot_product_attention(q, k, v)
    assert y.grad_fn.name == "MatmulBackward"
    s = q.numpy() @ k.numpy().transpose(0, 2, 1) / 2.0
    np.testing.assert_allclose(y.numpy(), _numpy_softmax(s) @ v.numpy(), atol=1e-12)
    eagerad.manual_seed(0)
    with_dropout = F.scaled_dot_product_attention(q, q, q, dropout_p=0.5)
    assert with_dropout.shape == (2, 3, 4)
    with pytest.raises(ValueError, match="not both"):
        F.scaled_dot_product_attention(q, q, q, attn_mask=eagerad.ones(3, 3), is_causal=True)
    with pytest.raises(ValueError, match=r"\(\.\.\., L, E\)"):
        F.scaled_dot_product_attention(q, k[..., :3], v)


def test_attention_op_backward_of_the_hand_written_attention_is_the_same():
    """nanoGPT's hand-written attention (masked_fill + softmax) and the op agree."""
    q, k, v = (RNG.standard_normal((2, 2, 6, 4)).astype(np.float32) for _ in range(3))
    tensors = [eagerad.tensor(a, requires_grad=True) for a in (q, k, v)]
    hand = [eagerad.tensor(a, requires_grad=True) for a in (q, k, v)]
    y = F.scaled_dot_product_attention(*tensors, is_causal=True)
    att = (hand[0] @ hand[1].swapaxes(-2, -1)) * 0.5
    att = att.masked_fill(eagerad.tensor(np.triu(np.ones((6, 6), bool), 1)), float("-inf"))
    z = F.softmax(att, dim=-1) @ hand[2]
    np.testing.assert_allclose(y.numpy(), z.numpy(), rtol=1e-6, atol=1e-7)
    y.sum().backward()
    z.sum().backward()
    for a, b in zip(tensors, hand):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_multihead_attention_without_weights_runs_the_attention_op_with_the_same_numbers():
    mha = eagerad.nn.MultiheadAttention(8, 2, batch_first=True)
    x = eagerad.tensor(RNG.standard_normal((3, 5, 8)).astype(np.float32), requires_grad=True)
    pad = eagerad.tensor(np.array([[False] * 5, [False] * 4 + [True], [False] * 3 + [True] * 2]))
    fast, none = mha(x, x, x, key_padding_mask=pad, need_weights=False, is_causal=True)
    slow, weights = mha(x, x, x, key_padding_mask=pad, need_weights=True, is_causal=True)
    assert none is None and weights.shape == (3, 5, 5)
    np.testing.assert_allclose(fast.numpy(), slow.numpy(), rtol=1e-5, atol=1e-6)
    g_fast = eagerad.autograd.grad(fast.sum(), x)[0]
    g_slow = eagerad.autograd.grad(slow.sum(), x)[0]
    np.testing.assert_allclose(g_fast.numpy(), g_slow.numpy(), rtol=1e-4, atol=1e-5)


def test_split_is_one_node_whose_gradient_joins_the_pieces():
    x = eagerad.tensor(RNG.standard_normal((4, 9)), requires_grad=True)
    a, b, c = x.split(3, dim=1)
    assert a.grad_fn is b.grad_fn and a.grad_fn.name == "Split3Backward"
    assert a._version is x._version                     # views of x
    (a * 2 + c * 3).sum().backward()                    # b gets no gradient: zeros there
    np.testing.assert_array_equal(x.grad.numpy(), np.repeat([[2.0] * 3 + [0.0] * 3 + [3.0] * 3], 4, 0))
    pieces = lambda t: sum((p * (i + 1)).sin().sum() for i, p in enumerate(t.chunk(3, 1)))
    assert gradcheck(pieces, (x,)) and gradgradcheck(pieces, (x,))
    rows = lambda t: sum((r * r * (i + 1)).sum() for i, r in enumerate(t.unbind(0)))
    assert gradcheck(rows, (x,)) and gradgradcheck(rows, (x,))
    # forward mode and vmap through the op
    from eagerad.autograd import forward_ad
    t = RNG.standard_normal((4, 9))
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(x.detach(), eagerad.tensor(t))
        tangent = forward_ad.unpack_dual(dual.split([2, 7], dim=1)[1]).tangent
    np.testing.assert_array_equal(tangent.numpy(), t[:, 2:])
    got = eagerad.vmap(lambda r: r.split([4, 5])[1] * 2)(x)
    np.testing.assert_array_equal(got.numpy(), x.numpy()[:, 4:] * 2)


def test_split_pieces_see_in_place_changes_as_views_do():
    w = eagerad.tensor(np.arange(12.0), requires_grad=True)
    x = w * 1
    a, b = x.split(6)
    b.mul_(2)                                            # through a piece: x changes
    np.testing.assert_array_equal(x.detach().numpy()[6:], np.arange(6.0, 12.0) * 2)
    (x * x).sum().backward()
    np.testing.assert_array_equal(w.grad.numpy(), np.r_[2 * np.arange(6.0), 8 * np.arange(6.0, 12.0)])
    w.grad = None
    x = w * 1
    a, b = x.split(6)
    y = a * a                                            # saves a
    x.add_(1)                                            # a is a view of x: a's value moved
    with pytest.raises(RuntimeError, match="inplace"):
        y.sum().backward()
    x = w * 1
    a, b = x.split(6)
    y = (a * 3).sum()                                    # the split node saves nothing
    x.add_(1)
    y.backward()
    np.testing.assert_array_equal(w.grad.numpy(), [3.0] * 6 + [0.0] * 6)


def test_linear_with_bias_is_one_node_with_the_linear_numbers():
    x = eagerad.tensor(RNG.standard_normal((2, 5, 3)), requires_grad=True)
    w = eagerad.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    b = eagerad.tensor(RNG.standard_normal(4), requires_grad=True)
    y = F.linear(x, w, b)
    assert y.grad_fn.name == "LinearBiasBackward"
    np.testing.assert_allclose(y.numpy(), x.numpy() @ w.numpy().T + b.numpy(), rtol=1e-12)
    fn = lambda x, w, b: (F.linear(x, w, b) ** 2).sum()
    assert gradcheck(fn, (x, w, b)) and gradgradcheck(fn, (x, w, b))
@needs_torch
def test_embedding_gradient_adds_rows_as_torch():
    w = RNG.standard_normal((7, 3)).astype(np.float32)
    idx = RNG.integers(0, 7, (4, 6))
    g = RNG.standard_normal((4, 6, 3)).astype(np.float32)
    we, wt = eagerad.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    F.embedding(eagerad.tensor(idx), we).backward(eagerad.tensor(g))
    torch.nn.functional.embedding(torch.tensor(idx), wt).backward(torch.tensor(g))
    np.testing.assert_allclose(we.grad.numpy(), wt.grad.numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name,kw", [
    ("AdamW", {"weight_decay": 0.1, "maximize": True, "foreach": True}),
    ("AdamW", {"weight_decay": 0.1, "amsgrad": True, "fused": True, "capturable": False}),
    ("Adam", {"weight_decay": 0.05, "maximize": True, "foreach": False}),
    ("SGD", {"momentum": 0.9, "nesterov": True, "weight_decay": 0.01, "maximize": True,
             "foreach": True}),
])
@needs_torch
def test_optimizers_take_torchs_switches_and_give_its_numbers(name, kw):
    w0 = RNG.standard_normal((3, 4)).astype(np.float32)
    grads = [RNG.standard_normal((3, 4)).astype(np.float32) for _ in range(4)]
    we, wt = eagerad.nn.Parameter(eagerad.tensor(w0)), torch.nn.Parameter(torch.tensor(w0))
    oe = getattr(eagerad.torch.optim, name)([we], lr=0.05, **kw)
    ot = getattr(torch.optim, name)([wt], lr=0.05, **kw)
    for g in grads:
        we.grad, wt.grad = eagerad.tensor(g), torch.tensor(g)
        oe.step()
        ot.step()
    np.testing.assert_allclose(we.detach().numpy(), wt.detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(NotImplementedError, match="differentiable"):
        getattr(eagerad.torch.optim, name)([we], lr=0.05, differentiable=True)
@needs_torch
def test_attention_nodes_sharing_operands_and_gradient_keep_their_own_masks():
    q, k, v = (RNG.standard_normal((2, 5, 4)) for _ in range(3))
    grads = []
    for fw in (eagerad, torch):
        te = [fw.tensor(a, requires_grad=True) for a in (q, k, v)]
        sdpa = F.scaled_dot_product_attention if fw is eagerad else \
            torch.nn.functional.scaled_dot_product_attention
        y = sdpa(te[0], te[1], te[2].detach(), is_causal=True) \
            + sdpa(te[0].detach(), te[1].detach(), te[2])
        y.sum().backward()
        grads.append([t.grad.numpy() for t in te])
    for a, b in zip(*grads):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)
