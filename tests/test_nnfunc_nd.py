"""N-D convolutions, poolings, unpooling, resizing, grid sampling, negative padding and
PyTorch's native_* norms (eagerad/ops/{convolution_nd,pooling_nd,unpool,resize,
grid_sample,negative_pad,alpha_dropout}.py): closed forms and finite differences to the
second order in float64, and PyTorch's values and gradients where torch is installed.
"""
import numpy as np
import pytest

import eagerad
import eagerad.torch as etorch
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import convolution_nd as C
from eagerad.ops import grid_sample as G
from eagerad.ops import pooling_nd as P
from eagerad.ops import resize as R
from eagerad.ops import unpool as U
from eagerad.ops.negative_pad import pad

F = etorch.nn.functional
RNG = np.random.default_rng(20)


def _t(shape, grad=True, scale=1.0):
    return eagerad.tensor(RNG.standard_normal(shape) * scale, dtype=eagerad.float64,
                          requires_grad=grad)


def _distinct(shape):
    """float64 values without ties (maxima are unique, so finite differences are clean)."""
    values = RNG.permutation(int(np.prod(shape))).reshape(shape) / 7.0
    return eagerad.tensor(values, dtype=eagerad.float64, requires_grad=True)


# ----------------------------------------------------------------------- closed forms

def test_transposed_convolution_is_the_adjoint_of_convolution_in_3d():
    """<conv3d(x, w), y> == <x, conv_transpose3d(y, w)> for every stride/padding/dilation
    and groups (the transposed convolution is the convolution's input-gradient)."""
    x, w = _t((2, 4, 5, 6, 7), False), _t((6, 2, 2, 3, 2), False)
    kw = dict(stride=(2, 1, 3), padding=(1, 0, 1), dilation=(1, 2, 1), groups=2)
    y = C.conv3d(x, w, **kw)
    v = _t(y.shape, False)
    extra = tuple(n - o for n, o in zip(x.shape[2:], C.conv_transpose3d(v, w, **kw).shape[2:]))
    back = C.conv_transpose3d(v, w, output_padding=extra, **kw)
    assert back.shape == x.shape
    np.testing.assert_allclose((y * v).sum().item(), (x * back).sum().item(), rtol=1e-12)


def test_conv3d_of_ones_counts_the_window_cells():
    out = C.conv3d(eagerad.ones(1, 1, 3, 3, 3), eagerad.ones(1, 1, 2, 2, 2), padding=1)
    assert out.shape == (1, 1, 4, 4, 4)
    assert out[0, 0, 0, 0, 0].item() == 1.0 and out[0, 0, 1, 1, 1].item() == 8.0
    assert out[0, 0, 0, 1, 2].item() == 4.0


def test_pools_of_an_arange():
    x = eagerad.arange(64.0).reshape(1, 1, 4, 4, 4)
    out, idx = P.max_pool3d(x, 2, return_indices=True)
    assert out.reshape(-1).tolist() == [21.0, 23.0, 29.0, 31.0, 53.0, 55.0, 61.0, 63.0]
    assert idx.reshape(-1).tolist() == [21, 23, 29, 31, 53, 55, 61, 63]
    assert P.avg_pool3d(x, 4).item() == 31.5
    assert P.adaptive_avg_pool3d(x, 1).item() == 31.5
    assert P.adaptive_max_pool1d(eagerad.tensor([[3.0, 1.0, 2.0, 5.0, 4.0]]), 2).tolist() == \
        [[3.0, 5.0]]


def test_max_unpool_inverts_max_pool_and_reads_every_gradient():
    x = _distinct((1, 2, 6, 5))
    out, idx = F.max_pool2d(x, 3, 2, 1, return_indices=True)
    up = U.max_unpool2d(out, idx, 3, 2, 1, output_size=x.shape)
    kept = up.detach().numpy() != 0
    np.testing.assert_array_equal(up.detach().numpy()[kept], x.detach().numpy()[kept])
    # a repeated index keeps one value; each input's gradient reads the output's gradient
    src = eagerad.tensor([[[2.0, 2.0, 7.0]]], requires_grad=True)
    dup = eagerad.tensor([[[1, 1, 2]]])
    up = U.max_unpool1d(src, dup, 2, stride=1)
    assert up.tolist() == [[[0.0, 2.0, 7.0, 0.0]]]
    (up * eagerad.tensor([[[1.0, 10.0, 100.0, 1000.0]]])).sum().backward()
    assert src.grad.tolist() == [[[10.0, 10.0, 100.0]]]


def test_interpolate_reproduces_linear_functions():
    """Linear, trilinear and bicubic resizing with align_corners reproduce an affine ramp."""
    ramp = eagerad.arange(5.0, dtype=eagerad.float64)
    out = R.interpolate(ramp.reshape(1, 1, 5), size=9, mode="linear", align_corners=True)
    np.testing.assert_allclose(out.reshape(-1).numpy(), np.linspace(0, 4, 9), atol=1e-12)
    cube = (ramp.reshape(5, 1, 1) + 2 * ramp.reshape(1, 5, 1) - ramp.reshape(1, 1, 5))
    out = R.interpolate(cube.reshape(1, 1, 5, 5, 5), size=(3, 9, 5), mode="trilinear",
                        align_corners=True)
    d, h, w = np.meshgrid(np.linspace(0, 4, 3), np.linspace(0, 4, 9), np.linspace(0, 4, 5),
                          indexing="ij")
    np.testing.assert_allclose(out.reshape(3, 9, 5).numpy(), d + 2 * h - w, atol=1e-12)
    plane = ramp.reshape(5, 1) * 0 + ramp.reshape(1, 5)
    out = R.interpolate(plane.reshape(1, 1, 5, 5), size=(5, 9), mode="bicubic", align_corners=True)
    np.testing.assert_allclose(out.reshape(5, 9).numpy()[:, 2:-2],
                               np.tile(np.linspace(0, 4, 9), (5, 1))[:, 2:-2], atol=1e-12)
    assert R.interpolate(eagerad.tensor([[[1.0, 2.0]]]), scale_factor=2, mode="area").tolist() \
        == [[[1.0, 1.0, 2.0, 2.0]]]


def test_grid_sample_at_the_pixel_centres_reads_the_pixels():
    x = _t((1, 2, 3, 4, 5), False)
    zs, ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), np.linspace(-1, 1, 5),
                             indexing="ij")
    grid = eagerad.tensor(np.stack([xs, ys, zs], -1)[None])
    for mode in ("bilinear", "nearest"):
        out = G.grid_sample(x, grid, mode=mode, align_corners=True)
        np.testing.assert_allclose(out.numpy(), x.numpy(), atol=1e-12)


def test_negative_padding_crops():
    x = eagerad.arange(4.0).reshape(1, 1, 4)
    assert pad(x, (-1, 2)).tolist() == [[[1.0, 2.0, 3.0, 0.0, 0.0]]]
    assert pad(x, (-1, 2), mode="replicate").tolist() == [[[1.0, 2.0, 3.0, 3.0, 3.0]]]
    assert pad(x, (5, -4), mode="replicate").tolist() == [[[0.0] * 5]]


def test_native_norm_statistics():
    x = eagerad.tensor([[1.0, 3.0], [5.0, 11.0]], dtype=eagerad.float64)
    out, mean, invstd = etorch.native_batch_norm(x, None, None, None, None, True, 0.1, 0.0)
    assert mean.tolist() == [3.0, 7.0] and invstd.tolist() == [0.5, 0.25]
    assert out.tolist() == [[-1.0, -1.0], [1.0, 1.0]]
    out, mean, rstd = etorch.native_layer_norm(x, (2,), None, None, 0.0)
    assert mean.tolist() == [[2.0], [8.0]] and rstd.tolist() == [[1.0], [1 / 3]]
    out, mean, rstd = etorch.native_group_norm(x.reshape(1, 2, 2), None, None, 1, 2, 2, 1, 0.0)
    assert mean.tolist() == [[5.0]] and out.shape == (1, 2, 2)


def test_feature_alpha_dropout_keeps_whole_channels():
    x = eagerad.ones(4, 6, 3)
    assert F.feature_alpha_dropout(x, 0.5, training=False) is x
    y = F.feature_alpha_dropout(x, 0.5, training=True).numpy()
    assert np.all(y == y[:, :, :1])                           # one mask per (sample, channel)
    assert len(np.unique(np.round(y, 6))) == 2


# ----------------------------------------------------------------------- finite differences

@pytest.mark.parametrize("name, fn, shapes", [
    ("conv3d", lambda x, w: C.conv3d(x, w, stride=(1, 2, 1), padding=1, dilation=(1, 1, 2)),
     [(1, 1, 2, 3, 3), (1, 1, 2, 2, 2)]),
    ("conv_transpose3d", lambda x, w: C.conv_transpose3d(x, w, stride=2, padding=(0, 1, 0),
                                                          output_padding=1, groups=2),
     [(1, 2, 1, 2, 1), (2, 1, 1, 2, 2)]),
    ("conv_transpose1d", lambda x, w: C.conv_transpose1d(x, w, stride=3, padding=1, dilation=2,
                                                          output_padding=2),
     [(2, 3), (2, 2, 3)]),
    ("interpolate bicubic", lambda x: R.interpolate(x, scale_factor=1.6, mode="bicubic"),
     [(1, 2, 3, 4)]),
    ("grid_sample", lambda x, g: G.grid_sample(x, g, padding_mode="reflection"),
     [(1, 1, 2, 2, 2), (1, 1, 1, 2, 3)]),
    ("grid_sample bicubic", lambda x, g: G.grid_sample(x, g, mode="bicubic", padding_mode="border",
                                                        align_corners=True),
     [(1, 1, 3, 3), (1, 1, 2, 2)]),
])
def test_gradients_to_second_order(name, fn, shapes):
    inputs = tuple(_t(s, scale=0.45) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("fn, shape", [
    (lambda x: P.max_pool3d(x, 2, 1, 1, ceil_mode=True), (1, 1, 2, 3, 2)),
    (lambda x: P.avg_pool3d(x, (2, 3, 2), 2, 1, ceil_mode=True, count_include_pad=False),
     (1, 1, 3, 4, 3)),
    (lambda x: P.adaptive_max_pool3d(x, (2, 3, 2)), (1, 2, 3, 4, 4)),
    (lambda x: P.fractional_max_pool2d(x, 2, output_size=2,
                                       _random_samples=eagerad.tensor([[[0.3, 0.7]] * 3])),
     (1, 3, 4, 4)),
    (lambda x: U.max_unpool3d(x, eagerad.tensor(np.arange(12).reshape(1, 1, 3, 2, 2) * 2), 2,
                              output_size=(6, 3, 4)), (1, 1, 3, 2, 2)),
    (lambda x: pad(x, (-1, 2, 1, -2), mode="replicate"), (1, 3, 4, 4)),
])
def test_pool_gradients_to_second_order(fn, shape):
    x = _distinct(shape)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# ----------------------------------------------------------------------- bad input

def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="conv3d: input of shape .* do not fit groups=1"):
        C.conv3d(eagerad.ones(1, 3, 4, 4, 4), eagerad.ones(1, 2, 1, 1, 1))
    with pytest.raises(ValueError, match="max_pool3d: input must be"):
        P.max_pool3d(eagerad.ones(4, 4), 2)
    with pytest.raises(ValueError, match="max_unpool2d: indices must lie in"):
        U.max_unpool2d(eagerad.ones(1, 1, 1, 1), eagerad.tensor([[[[9]]]]), 2)
    with pytest.raises(ValueError, match="mode='trilinear' needs 3 spatial axes"):
        R.interpolate(eagerad.ones(1, 1, 4, 4), size=2, mode="trilinear")
    with pytest.raises(ValueError, match="grid_sample: mode='bicubic'"):
        G.grid_sample(eagerad.ones(1, 1, 2, 2, 2), eagerad.zeros(1, 1, 1, 1, 3), mode="bicubic")
    with pytest.raises(ValueError, match="negative padding"):
        pad(eagerad.ones(2, 3), (-1, 1), mode="reflect")


# ----------------------------------------------------------------------- PyTorch

try:
    import torch
    import torch.nn.functional as TF
except ImportError:                                    # pragma: no cover - CI without torch
    torch = None

needs_torch = pytest.mark.skipif(torch is None, reason="torch is not installed")


def _against_torch(efn, tfn, arrays, int_arrays=()):
    """Values and the gradient of every float input (random cotangent) against PyTorch."""
    e_in = [etorch.tensor(a).requires_grad_(True) for a in arrays] + \
        [etorch.tensor(a) for a in int_arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays] + \
        [torch.tensor(a) for a in int_arrays]
    e_out, t_out = efn(*e_in), tfn(*t_in)
    e_out = e_out if isinstance(e_out, tuple) else (e_out,)
    t_out = t_out if isinstance(t_out, tuple) else (t_out,)
    for e, t in zip(e_out, t_out):
        np.testing.assert_allclose(e.detach().numpy(), t.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
    v = RNG.standard_normal(tuple(t_out[0].shape))
    t_g = torch.autograd.grad(t_out[0], t_in[:len(arrays)], torch.tensor(v), allow_unused=True)
    e_g = etorch.autograd.grad(e_out[0], e_in[:len(arrays)], etorch.tensor(v), allow_unused=True)
    for e, t, x in zip(e_g, t_g, arrays):
        t = np.zeros(x.shape) if t is None else t.numpy()
        e = np.zeros(x.shape) if e is None else e.numpy()
        np.testing.assert_allclose(e, t, rtol=1e-10, atol=1e-12)


@needs_torch
@pytest.mark.filterwarnings("ignore:.*upsample.* is deprecated")
@pytest.mark.parametrize("name, args, kwargs", [
    ("conv3d", [(2, 4, 4, 5, 4), (6, 2, 3, 2, 2), (6,)], dict(stride=(2, 1, 1), padding=(1, 0, 2),
                                                             groups=2)),
    ("conv3d", [(2, 4, 4, 5), (3, 2, 3, 2, 2)], dict(padding="same", dilation=(1, 2, 1))),
    ("conv_transpose3d", [(2, 2, 3, 3, 3), (2, 2, 2, 3, 2), (4,)],
     dict(stride=(3, 2, 1), padding=(1, 0, 1), output_padding=(2, 1, 0), groups=2,
          dilation=(1, 1, 2))),
    ("conv_transpose2d", [(2, 4, 4), (2, 2, 4, 5), (4,)],
     dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2, dilation=4)),
    ("conv_transpose1d", [(1, 3, 4), (3, 2, 3)], dict(stride=2, padding=1, output_padding=1)),
    ("max_pool3d", [(1, 2, 3, 6, 5)], dict(kernel_size=3, stride=2, ceil_mode=True,
                                           dilation=(1, 2, 1), return_indices=True)),
    ("avg_pool3d", [(1, 2, 5, 5, 5)], dict(kernel_size=(2, 3, 4), stride=(1, 2, 2),
                                           padding=(0, 1, 2), ceil_mode=True,
                                           count_include_pad=False)),
    ("avg_pool2d", [(2, 3, 9, 9)], dict(kernel_size=3, stride=1, padding=(1,), ceil_mode=True)),
    ("adaptive_avg_pool1d", [(3, 8, 8)], dict(output_size=5)),
    ("adaptive_max_pool2d", [(4, 5, 7)], dict(output_size=(3, 4), return_indices=True)),
    ("adaptive_max_pool3d", [(1, 2, 5, 4, 6)], dict(output_size=(3, 3, 4), return_indices=True)),
    ("interpolate", [(2, 3, 4, 3, 5)], dict(scale_factor=1.7, mode="nearest-exact")),
    ("interpolate", [(2, 3, 4, 5)], dict(scale_factor=0.6, mode="bicubic",
                                         recompute_scale_factor=True)),
    ("interpolate", [(2, 3, 7)], dict(size=3, mode="area")),
    ("interpolate", [(2, 3, 4, 3, 5)], dict(size=(5, 4, 6), mode="trilinear")),
    ("upsample_nearest", [(2, 3, 4)], dict(scale_factor=1.7)),
    ("upsample_bilinear", [(2, 3, 4, 4)], dict(scale_factor=0.6)),
    ("pad", [(5, 6, 4, 4)], dict(pad=(5, -4, -4, 3), mode="replicate")),
])
def test_matches_torch(name, args, kwargs):
    arrays = [RNG.standard_normal(s) for s in args]
    _against_torch(lambda *a: getattr(F, name)(*a, **kwargs),
                   lambda *a: getattr(TF, name)(*a, **kwargs), arrays)


@needs_torch
@pytest.mark.parametrize("dims", [2, 3])
def test_fractional_max_pool_matches_torch_given_its_samples(dims):
    x = RNG.standard_normal((2, 3, 9, 8, 7)[:dims + 2])
    samples = RNG.random((2, 3, dims))
    kw = dict(kernel_size=(3, 2, 2)[:dims], output_size=(4, 3, 5)[:dims], return_indices=True)
    name = f"fractional_max_pool{dims}d"
    _against_torch(lambda a, s: getattr(F, name)(a, _random_samples=s, **kw),
                   lambda a, s: getattr(TF, name)(a, _random_samples=s, **kw), [x], [samples])


@needs_torch
@pytest.mark.parametrize("dims", [1, 2, 3])
def test_max_unpool_matches_torch(dims):
    x = torch.tensor(RNG.standard_normal((1, 2, 5, 6, 5)[:dims + 2]))
    pooled, idx = getattr(TF, f"max_pool{dims}d")(x, 3, 2, 1, return_indices=True)
    name = f"max_unpool{dims}d"
    kw = dict(kernel_size=3, stride=2, padding=1, output_size=x.shape)
    _against_torch(lambda a, i: getattr(F, name)(a, i, **kw),
                   lambda a, i: getattr(TF, name)(a, i, **kw), [pooled.numpy()], [idx.numpy()])


@needs_torch
@pytest.mark.parametrize("mode, padding", [("bilinear", 2), ("nearest", 1), ("bicubic", 2),
                                           ("bicubic", 0)])
@pytest.mark.parametrize("align", [False, True])
def test_grid_sampler_matches_torch(mode, padding, align):
    dims = 2 if mode == "bicubic" else 3
    x = RNG.standard_normal((2, 2, 4, 5, 3)[:dims + 2])
    g = RNG.uniform(-1.3, 1.3, (2, 3, 2, 2)[:dims + 1] + (dims,))
    code = ("bilinear", "nearest", "bicubic").index(mode)
    name = f"grid_sampler_{dims}d"
    _against_torch(lambda a, b: getattr(etorch, name)(a, b, code, padding, align),
                   lambda a, b: getattr(torch, name)(a, b, code, padding, align), [x, g])


@needs_torch
def test_native_norms_match_torch():
    x = RNG.standard_normal((3, 4, 5))
    w, b = RNG.standard_normal(4), RNG.standard_normal(4)
    _against_torch(lambda a, c, d: etorch.native_group_norm(a, c, d, 3, 4, 5, 2, 0.5),
                   lambda a, c, d: torch.native_group_norm(a, c, d, 3, 4, 5, 2, 0.5), [x, w, b])
    _against_torch(lambda a: etorch.native_layer_norm(a, (4, 5), None, None, 1e-5),
                   lambda a: torch.native_layer_norm(a, (4, 5), None, None, 1e-5), [x])
    _against_torch(lambda a, c, d: etorch.native_batch_norm(a, c, d, None, None, True, 0.1, 0.3),
                   lambda a, c, d: torch.native_batch_norm(a, c, d, None, None, True, 0.1, 0.3),
                   [x, w, b])


@needs_torch
def test_upsample_layer_matches_torch():
    x = RNG.standard_normal((1, 2, 3, 4, 2))
    kw = dict(scale_factor=1.5, mode="trilinear", recompute_scale_factor=True)
    _against_torch(etorch.nn.Upsample(**kw), torch.nn.Upsample(**kw), [x])
