"""conv1d/conv2d/conv_transpose2d, pooling and resizing: values against direct loops,
gradients (to second order, float64) against finite differences, PyTorch's edge rules."""
import numpy as np
import pytest

import eagerad
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import OPS
from eagerad.ops import convolution as C

RNG = np.random.default_rng(7)


def t64(*shape, grad=True):
    return eagerad.tensor(RNG.normal(size=shape), dtype=eagerad.float64, requires_grad=grad)


def ref_conv(x, w, b, s, p, d, g):
    """Cross-correlation by explicit loops over output cells; p = (top, bottom, left, right)."""
    n, _, h, wd = x.shape
    o, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), p[:2], p[2:]))
    oh = (h + p[0] + p[1] - d[0] * (kh - 1) - 1) // s[0] + 1
    ow = (wd + p[2] + p[3] - d[1] * (kw - 1) - 1) // s[1] + 1
    out = np.zeros((n, o, oh, ow))
    for oc in range(o):
        gi = oc // (o // g)
        for i in range(oh):
            for j in range(ow):
                patch = xp[:, gi * cg:(gi + 1) * cg, i * s[0]:i * s[0] + d[0] * (kh - 1) + 1:d[0],
                           j * s[1]:j * s[1] + d[1] * (kw - 1) + 1:d[1]]
                out[:, oc, i, j] = (patch * w[oc]).sum(axis=(1, 2, 3))
    return out + (0 if b is None else b[None, :, None, None])


def ref_conv_transpose(x, w, s, p, op, d, g):
    """Transposed convolution by scattering each input pixel times the kernel."""
    n, c, h, wd = x.shape
    _, og, kh, kw = w.shape
    big = np.zeros((n, og * g, (h - 1) * s[0] + d[0] * (kh - 1) + 1 + op[0],
                    (wd - 1) * s[1] + d[1] * (kw - 1) + 1 + op[1]))
    cg = c // g
    for ci in range(c):
        gi = ci // cg
        for i in range(h):
            for j in range(wd):
                for a in range(kh):
                    for bb in range(kw):
                        big[:, gi * og:(gi + 1) * og, i * s[0] + a * d[0], j * s[1] + bb * d[1]] += \
                            x[:, ci, i, j][:, None] * w[ci, :, a, bb][None, :]
    return big[:, :, p[0]:big.shape[2] - p[0], p[1]:big.shape[3] - p[1]]


@pytest.mark.parametrize("stride,padding,dilation,groups,pads", [
    (1, 0, 1, 1, (0, 0, 0, 0)), ((2, 1), (1, 2), (1, 2), 2, (1, 1, 2, 2)),
    (2, "same", 1, 1, None), (1, (0, 1, 2, 0), 1, 2, (0, 1, 2, 0)), (1, "valid", 2, 1, (0,) * 4)])
def test_conv2d_matches_direct_loops(stride, padding, dilation, groups, pads):
    x, w, b = RNG.normal(size=(2, 4, 7, 6)), RNG.normal(size=(6, 4 // groups, 3, 2)), RNG.normal(size=6)
    s, d = C._ints(stride, 2, "s"), C._ints(dilation, 2, "d")
    if pads is None:     # 'same' with stride 2: output ceil(size / 2), extra pixel at the end
        pads = C._same_pads((7, 6), (3, 2), s, d)
        assert pads == (1, 1, 0, 0)
    got = C.conv2d(eagerad.tensor(x), eagerad.tensor(w), eagerad.tensor(b), stride, padding,
                   dilation, groups)
    np.testing.assert_allclose(got.numpy(), ref_conv(x, w, b, s, pads, d, groups), atol=1e-12)


def test_conv2d_same_keeps_size_and_float32_is_float32():
    out = C.conv2d(eagerad.ones(1, 2, 5, 4), eagerad.ones(3, 2, 4, 3), padding="same")
    assert out.shape == (1, 3, 5, 4) and out.dtype == eagerad.float32


@pytest.mark.parametrize("stride,padding,output_padding,dilation,groups", [
    (1, 0, 0, 1, 1), (2, 1, 1, 1, 1), ((2, 3), (0, 1), (1, 2), 1, 2), (1, 1, 0, 2, 1)])
def test_conv_transpose2d_matches_scatter_loops(stride, padding, output_padding, dilation, groups):
    x, w, b = RNG.normal(size=(2, 4, 3, 4)), RNG.normal(size=(4, 3, 3, 2)), RNG.normal(size=3 * groups)
    got = C.conv_transpose2d(eagerad.tensor(x), eagerad.tensor(w), eagerad.tensor(b), stride,
                             padding, output_padding, groups, dilation)
    s, p, op, d = (C._ints(v, 2, "v") for v in (stride, padding, output_padding, dilation))
    want = ref_conv_transpose(x, w, s, p, op, d, groups) + b[None, :, None, None]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)


def test_conv_transpose2d_is_the_input_gradient_of_conv2d():
    x, w = t64(2, 4, 9, 8), t64(6, 2, 3, 3, grad=False)
    y = C.conv2d(x, w, stride=2, padding=1, groups=2)
    g = eagerad.tensor(RNG.normal(size=y.shape), dtype=eagerad.float64)
    gx, = eagerad.autograd.grad(y, x, g)
    back = C.conv_transpose2d(g, w, stride=2, padding=1, output_padding=(0, 1), groups=2)
    np.testing.assert_allclose(back.numpy(), gx.numpy(), atol=1e-12)


def test_conv1d_matches_conv2d_with_unit_height():
    x, w = RNG.normal(size=(2, 3, 9)), RNG.normal(size=(4, 3, 3))
    got = C.conv1d(eagerad.tensor(x), eagerad.tensor(w), stride=2, padding=(1, 0), dilation=2)
    want = ref_conv(x[:, :, None], w[:, :, None], None, (1, 2), (0, 0, 1, 0), (1, 2), 1)[:, :, 0]
    np.testing.assert_allclose(got.numpy(), want, atol=1e-12)
    assert C.conv1d_ms(eagerad.ones(1, 1, 5), eagerad.ones(1, 1, 3), pad_mode="same").shape == (1, 1, 5)


@pytest.mark.parametrize("fn", [
    lambda x, w, b: C.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
    lambda x, w, b: C.conv2d(x, w, b, padding="same", groups=2),
    lambda x, w, b: C.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2),
])
def test_conv_gradients_to_second_order(fn):
    x, w, b = t64(2, 4, 5, 4), t64(4, 2, 3, 2), t64(4)
    assert gradcheck(fn, (x, w, b))
    assert gradgradcheck(fn, (x, w, b))


def test_conv_double_backward_gradient_penalty():
    """WGAN-GP's term: d/dw of |d conv(x, w) / dx|^2 against central differences."""
    x, w = t64(1, 1, 4, 4), t64(2, 1, 2, 2)

    def penalty(w):
        gx, = eagerad.autograd.grad(C.conv2d(x, w).tanh().sum(), x, create_graph=True)
        return (gx * gx).sum()
    assert gradcheck(penalty, (w,))


def ref_pool(x, k, s, p, reduce, fill):
    n, c, h, w = x.shape
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)), constant_values=fill)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    return np.array([[[[reduce(xp[a, b, i * s:i * s + k, j * s:j * s + k]) for j in range(ow)]
                       for i in range(oh)] for b in range(c)] for a in range(n)])


def test_max_pool2d_values_indices_and_first_tie_gradient():
    x = RNG.normal(size=(2, 3, 7, 6))
    out, idx = C.max_pool2d(eagerad.tensor(x), 3, 2, 1, return_indices=True)
    np.testing.assert_array_equal(out.numpy(), ref_pool(x, 3, 2, 1, np.max, -np.inf))
    np.testing.assert_array_equal(np.take_along_axis(x.reshape(2, 3, -1), idx.numpy().reshape(2, 3, -1),
                                                     2).reshape(out.shape), out.numpy())
    ties = eagerad.tensor(np.ones((1, 1, 4, 4)), requires_grad=True)
    C.max_pool2d(ties, 2).sum().backward()     # every window ties: the first cell wins
    np.testing.assert_array_equal(ties.grad.numpy()[0, 0], [[1, 0, 1, 0], [0, 0, 0, 0]] * 2)


def test_max_pool_ceil_mode_dilation_and_1d():
    x = RNG.normal(size=(1, 2, 5, 5))
    out = C.max_pool2d(eagerad.tensor(x), 2, 2, ceil_mode=True)
    assert out.shape == (1, 2, 3, 3)
    assert out.numpy()[0, 0, 2, 2] == x[0, 0, 4, 4]
    dil = C.max_pool2d(eagerad.tensor(x), 2, 1, dilation=2)
    np.testing.assert_array_equal(dil.numpy()[0, 1, 0, 0], x[0, 1, ::2, ::2][:2, :2].max())
    y = RNG.normal(size=(2, 3, 8))
    np.testing.assert_array_equal(C.max_pool1d(eagerad.tensor(y), 2).numpy(),
                                  y.reshape(2, 3, 4, 2).max(-1))


def test_avg_pool_counts_padding_as_pytorch():
    x = RNG.normal(size=(2, 3, 6, 5))
    with_pad = C.avg_pool2d(eagerad.tensor(x), 3, 2, 1)
    np.testing.assert_allclose(with_pad.numpy(), ref_pool(x, 3, 2, 1, np.sum, 0.0) / 9, atol=1e-12)
    ones = C.avg_pool2d(eagerad.ones(1, 1, 4, 4), 3, 2, 1, count_include_pad=False)
    np.testing.assert_allclose(ones.numpy(), 1.0)        # only real cells averaged
    # ceil_mode: the extra last window is clipped to the padded image (PyTorch: divisor 3*2)
    last = C.avg_pool2d(eagerad.ones(1, 1, 6, 6), 3, 2, 1, ceil_mode=True)
    assert last.shape == (1, 1, 4, 4)
    np.testing.assert_allclose(last.numpy()[0, 0, 0], [4 / 9, 6 / 9, 6 / 9, 2 / 6], rtol=1e-6)
    np.testing.assert_allclose(C.avg_pool2d(eagerad.ones(1, 1, 4, 4), 2, divisor_override=3).numpy(),
                               4 / 3)
    np.testing.assert_allclose(C.avg_pool1d(eagerad.tensor([[[1.0, 2.0, 4.0]]]), 2, 1).numpy(),
                               [[[1.5, 3.0]]])


def test_adaptive_avg_pool2d_uses_pytorch_bins():
    x = RNG.normal(size=(2, 3, 5, 7))
    out = C.adaptive_avg_pool2d(eagerad.tensor(x), (3, 2)).numpy()
    for i, (lo, hi) in enumerate([(0, 2), (1, 4), (3, 5)]):
        for j, (a, b) in enumerate([(0, 4), (3, 7)]):
            np.testing.assert_allclose(out[:, :, i, j], x[:, :, lo:hi, a:b].mean(axis=(2, 3)))
    assert C.adaptive_avg_pool2d(eagerad.ones(3, 4, 4), (None, 1)).shape == (3, 4, 1)


def test_interpolate_nearest_and_bilinear_known_values():
    x = eagerad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]])
    near = C.interpolate(x, scale_factor=2)
    np.testing.assert_array_equal(near.numpy()[0, 0], [[1, 1, 2, 2]] * 2 + [[3, 3, 4, 4]] * 2)
    corners = C.interpolate(x, size=(3, 3), mode="bilinear", align_corners=True)
    np.testing.assert_allclose(corners.numpy()[0, 0], [[1, 1.5, 2], [2, 2.5, 3], [3, 3.5, 4]])
    half = C.interpolate(x, size=(4, 4), mode="bilinear", align_corners=False)
    # PyTorch: source (dst + 0.5) / 2 - 0.5 clamped at 0 -> rows 1, 1.5, 2.5, 3 on the left edge
    np.testing.assert_allclose(half.numpy()[0, 0, :, 0], [1, 1.5, 2.5, 3])
    np.testing.assert_array_equal(C.interpolate(eagerad.tensor([[[1.0, 2.0, 3.0]]]), size=2).numpy(),
                                  [[[1, 2]]])


@pytest.mark.parametrize("fn", [
    lambda x: C.max_pool2d(x, 2, 1, 1) * 1.0,
    lambda x: C.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda x: C.adaptive_avg_pool2d(x, (2, 3)),
    lambda x: C.interpolate(x, scale_factor=(1.5, 2), mode="bilinear"),
    lambda x: C.interpolate(x, size=(5, 2)),
])
def test_pool_and_resize_gradients_to_second_order(fn):
    x = t64(2, 2, 4, 5)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


def test_unfold_and_fold_batching_rules_match_a_loop():
    stacked = eagerad.tensor(RNG.normal(size=(3, 2, 2, 5, 4)))
    kw = dict(kernel=(3, 2), stride=(2, 1), dilation=(1, 2), pads=(1, 0, 0, 1))
    out, bdim = OPS["unfold"].batch((stacked.transpose(1, 0, 2, 3, 4),), (1,), fill=0.0, **kw)
    loop = np.stack([OPS["unfold"](stacked[i], fill=0.0, **kw).numpy() for i in range(3)])
    assert bdim == 0
    np.testing.assert_array_equal(out.numpy(), loop)
    cols = eagerad.tensor(RNG.normal(size=(3,) + loop.shape[1:]))
    out, bdim = OPS["fold"].batch((cols,), (0,), size=(5, 4), **kw)
    loop = np.stack([OPS["fold"](cols[i], size=(5, 4), **kw).numpy() for i in range(3)])
    np.testing.assert_array_equal(out.numpy(), loop)


@pytest.mark.parametrize("call,match", [
    (lambda: C.conv2d(eagerad.ones(1, 3, 4, 4), eagerad.ones(2, 2, 3, 3)), "input channels"),
    (lambda: C.conv2d(eagerad.ones(4, 4), eagerad.ones(2, 3, 3, 3)), "4 dimensions"),
    (lambda: C.conv1d(eagerad.ones(3, 4), eagerad.ones(2, 3)), "weight must have 3"),
    (lambda: C.conv2d(eagerad.ones(1, 4, 4, 4), eagerad.ones(3, 2, 3, 3), groups=2), "groups"),
    (lambda: C.conv2d(eagerad.ones(1, 1, 2, 2), eagerad.ones(1, 1, 3, 3)), "smaller than"),
    (lambda: C.conv2d(eagerad.ones(1, 1, 4, 4), eagerad.ones(1, 1, 3, 3), padding="full"), "padding"),
    (lambda: C.conv2d_ms(eagerad.ones(1, 1, 4, 4), eagerad.ones(1, 1, 3, 3), padding=1), "pad_mode"),
    (lambda: C.max_pool2d(eagerad.ones(1, 1, 4, 4), 2, padding=2), "half the kernel"),
    (lambda: C.interpolate(eagerad.ones(1, 1, 4, 4), size=2, scale_factor=2), "exactly one"),
    (lambda: C.interpolate(eagerad.ones(1, 1, 4, 4), size=2, mode="bicubic"), "mode"),
])
def test_bad_arguments_are_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_unbatched_input_as_pytorch():
    # PyTorch's conv1d/conv2d take (C, L) / (C, H, W): the batched result's one sample
    rng = np.random.default_rng(5)
    x = eagerad.tensor(rng.standard_normal((2, 5, 6)))
    w = eagerad.tensor(rng.standard_normal((3, 2, 3, 3)))
    np.testing.assert_allclose(C.conv2d(x, w, padding=1).numpy(),
                               C.conv2d(x.reshape(1, 2, 5, 6), w, padding=1).numpy()[0])
    x1, w1 = x[:, 0], w[:, :, 0]
    np.testing.assert_allclose(C.conv1d(x1, w1, stride=2).numpy(),
                               C.conv1d(x1.reshape(1, 2, 6), w1, stride=2).numpy()[0])
