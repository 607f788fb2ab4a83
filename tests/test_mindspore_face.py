"""Regression tests for the MindSpore face's own semantics (issue 21's list): each number is a
closed form or MindSpore 2.10's recorded answer (tests/data/mindspore/answers.json)."""
import json
import os

import numpy as np
import pytest

import eagerad.mindspore as ms
from eagerad.mindspore import nn, ops

ANSWERS = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mindspore",
                                      "answers.json")))["cases"]


def T(values, dtype=np.float32):
    return ms.Tensor(np.array(values, dtype=dtype))


def grad_of(fn, *args):
    """Gradients of ``sum(fn(*args))`` for every argument."""
    return ms.grad(lambda *a: fn(*a).sum(), grad_position=tuple(range(len(args))))(*args)


def test_cross_without_dim_takes_the_first_axis_of_size_3():
    a = np.arange(6, dtype=np.float32).reshape(3, 2) + 1
    b = np.array([[2, 0], [1, 3], [0, 1]], dtype=np.float32)
    got = ops.cross(T(a), T(b)).numpy()
    np.testing.assert_allclose(got, np.cross(a, b, axis=0))       # axis 0, not the last
    with pytest.raises(ValueError, match="size 3"):
        ops.cross(T(np.ones((2, 2))), T(np.ones((2, 2))))
    x = T(a.T.copy())
    np.testing.assert_allclose(x.cross(T(b.T.copy())).numpy(), np.cross(a.T, b.T))


def test_sort_returns_values_and_int32_indices_and_differentiates_through_the_values():
    x = T([[8.0, 2.0, 1.0], [5.0, 9.0, 3.0]])
    values, indices = ops.sort(x)
    assert values.numpy().tolist() == [[1.0, 2.0, 8.0], [3.0, 5.0, 9.0]]
    assert indices.dtype == np.int32 and indices.numpy().tolist() == [[2, 1, 0], [2, 0, 1]]
    values, indices = ops.sort(x, 0, descending=True)
    assert values.numpy().tolist() == [[8.0, 9.0, 3.0], [5.0, 2.0, 1.0]]
    w = T([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    g = ms.grad(lambda t: (ops.sort(t)[0] * w).sum())(x)
    assert g.numpy().tolist() == [[3.0, 2.0, 1.0], [5.0, 6.0, 4.0]]   # w sent back by index
    assert x.sort()[1].dtype == np.int32 and ops.argsort(x).dtype == np.int32


def test_median_is_the_lower_median_with_its_index():
    # MindSpore 2.10's documented example (ops.median#1 in answers.json)
    x = T([[0.5, 0.1, 0.2, 0.9], [0.3, 0.8, 0.6, 0.4]])
    values, indices = ops.median(x, 1)
    want = ANSWERS["ops.median#1"]["out"]["seq"]
    np.testing.assert_allclose(values.numpy(), want[0]["v"], rtol=1e-6)
    assert indices.numpy().tolist() == want[1]["v"] and indices.dtype == np.int64
    g = grad_of(lambda t: ops.median(t, 1)[0], x)[0]
    assert g.numpy().tolist() == [[0, 0, 1, 0], [0, 0, 0, 1]]      # only the median element
    values, indices = ops.median(x, 1, keepdims=True)
    assert values.shape == (2, 1) and indices.shape == (2, 1)


def test_max_with_axis_sends_a_tied_gradient_to_the_returned_index():
    x = T([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]])
    values, indices = ops.max(x, 1)
    assert values.numpy().tolist() == [3.0, 2.0] and indices.numpy().tolist() == [1, 0]
    g = grad_of(lambda t: ops.max(t, 1)[0], x)[0]
    assert g.numpy().tolist() == [[0, 1, 0], [1, 0, 0]]            # not split 1/2 - 1/2


def test_isclose_of_opposite_infinities_is_false():
    a, b = T([np.inf, -np.inf, np.inf, np.nan]), T([np.inf, np.inf, -np.inf, np.nan])
    assert ops.isclose(a, b).numpy().tolist() == [True, False, False, False]
    assert ops.isclose(T([np.nan]), T([np.nan]), equal_nan=True).numpy().tolist() == [True]


def test_tensor_copy_is_differentiable():
    x = T([1.0, -2.0])
    g = ms.grad(lambda t: (t.copy() * T([3.0, 5.0])).sum())(x)
    assert g.numpy().tolist() == [3.0, 5.0]


def test_mean_of_integers_and_full_follow_mindspores_dtype_rules():
    out = ops.mean(T([[1, 2, 3], [4, 5, 7]], np.int32))
    assert out.dtype == np.int32 and int(out.numpy()) == 3             # 22 / 6 truncated
    out = ops.mean(T([[1, 2, 3], [4, 5, 7]], np.int64), 1)
    assert out.dtype == np.int64 and out.numpy().tolist() == [2, 5]
    assert ops.mean(T(np.ones((2, 3, 4))), (0, 2), keep_dims=True).shape == (1, 3, 1)
    assert T([[1, 2], [3, 4]], np.int32).mean().dtype == np.int32
    full = ops.full((2, 3), 1.2)                                       # MindSpore 2.10: int64
    assert full.dtype == np.int64 and full.numpy().tolist() == [[1, 1, 1]] * 2
    assert ops.full((2,), 1.2, dtype=ms.float64).numpy().tolist() == [1.2, 1.2]


@pytest.mark.parametrize("fn", [lambda t: ops.clip_by_value(t, -1.0, 1.0),
                                lambda t: ops.clamp(t, min=-1.0, max=1.0),
                                lambda t: ops.hardtanh(t),
                                lambda t: nn.Hardtanh()(t)])
def test_clip_and_hardtanh_split_the_gradient_at_the_kinks(fn):
    x = T([-2.0, -1.0, 0.0, 1.0, 2.0])
    assert fn(x).numpy().tolist() == [-1.0, -1.0, 0.0, 1.0, 1.0]
    assert grad_of(fn, x)[0].numpy().tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]


def test_clip_by_value_tensor_bounds_share_a_tie():
    x, lo, hi = T([-2.0, -1.0, 0.0, 1.0, 2.0]), T([-1.0] * 5), T([1.0] * 5)
    gx, glo, ghi = grad_of(ops.clip_by_value, x, lo, hi)
    assert gx.numpy().tolist() == [0.0, 0.5, 1.0, 0.5, 0.0]
    assert glo.numpy().tolist() == [1.0, 0.5, 0.0, 0.0, 0.0]
    assert ghi.numpy().tolist() == [0.0, 0.0, 0.0, 0.5, 1.0]


def test_relu6_gradient_is_one_on_the_half_open_interval():
    x = T([-1.0, 0.0, 3.0, 6.0, 7.0])
    assert grad_of(ops.relu6, x)[0].numpy().tolist() == [0.0, 0.0, 1.0, 1.0, 0.0]


def test_index_results_are_int32_as_mindspore():
    x = T([[3.0, 1.0], [0.5, 2.0]])
    assert ops.argmin(x).dtype == np.int32 and int(ops.argmin(x).numpy()) == 2
    assert ops.topk(x, 1)[1].dtype == np.int32
    assert ops.count_nonzero(x).dtype == np.int32


def test_rmsprop_follows_mindspores_update_rule():
    # mean square starts at 1 and the learning rate sits inside the momentum
    lr, decay, mom, eps = 0.01, 0.9, 0.5, 1e-10
    w0, grads = np.array([1.0, -2.0]), [np.array([0.5, 1.5]), np.array([-1.0, 0.25])]
    w = ms.Parameter(T(w0), name="w")
    opt = nn.RMSProp([w], learning_rate=lr, decay=decay, momentum=mom)
    ms_, m, want = np.ones(2), np.zeros(2), w0.copy()
    for g in grads:
        opt((T(g),))
        ms_ = decay * ms_ + (1 - decay) * g * g
        m = mom * m + lr * g / np.sqrt(ms_ + eps)
        want = want - m
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)


def test_adam_weight_decay_has_no_bias_correction():
    lr, b1, b2, eps, wd = 0.01, 0.9, 0.999, 1e-6, 0.1
    w0, g = np.array([1.0, -2.0]), np.array([0.5, 1.5])
    w = ms.Parameter(T(w0), name="w")
    nn.AdamWeightDecay([w], learning_rate=lr, weight_decay=wd)((T(g),))
    m, v = (1 - b1) * g, (1 - b2) * g * g
    want = w0 - lr * (m / (np.sqrt(v) + eps) + wd * w0)
    np.testing.assert_allclose(w.numpy(), want, rtol=1e-6)


def test_adagrad_accumulator_starts_at_one_tenth():
    w = ms.Parameter(T([1.0]), name="w")
    nn.Adagrad([w], learning_rate=0.1)((T([0.3]),))
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.1 * 0.3 / np.sqrt(0.1 + 0.09)], rtol=1e-6)


def test_printing_is_mindspores_for_every_path():
    x = T([1.0, 2.5, -3.0])
    assert repr(x) == ANSWERS["repr#2"]["out"]["py"]
    assert repr(x * 1) == ANSWERS["repr#2"]["out"]["py"]      # an op's result keeps the face
    m = T([[0.123456789, 10.5], [-3.0, 1e-05]])
    assert repr(m) == ANSWERS["repr#7"]["out"]["py"]
    assert repr(T([True, False], np.bool_)) == ANSWERS["repr#4"]["out"]["py"]
    assert repr(ops.ones((2,))) == "Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  1.00000000e+00])"
    assert repr(ms.Tensor(4.75)) == "Tensor(shape=[], dtype=Float32, value= 4.75)"


def test_mindspore_only_tensor_methods_stay_in_the_face():
    import eagerad
    x = ms.Tensor([[1.0, 2.0]])
    assert x.nelement() == 2 and x.ndimension() == 2 and x.strides == (8, 4)
    with pytest.raises(AttributeError, match="nelement"):
        eagerad.tensor([1.0]).nelement()


def test_batchnorm_lists_moving_statistics_first_and_embedding_trains_the_padding_row():
    assert [p.name for p in nn.BatchNorm2d(3).get_parameters()] == [
        "moving_mean", "moving_variance", "gamma", "beta"]
    emb = nn.Embedding(4, 2, padding_idx=0)
    ids = ms.Tensor(np.array([0, 1], np.int32))
    g = ms.grad(lambda: emb(ids).sum(), None, emb.trainable_params())()
    assert g[0].numpy()[0].tolist() == [1.0, 1.0]


def test_new_ops_match_closed_forms():
    x = T([-1.5, -0.25, 0.75, 2.5])
    np.testing.assert_allclose(ops.trunc(x).numpy(), np.trunc(x.numpy()))
    np.testing.assert_allclose(ops.frac(x).numpy(), x.numpy() - np.trunc(x.numpy()))
    np.testing.assert_allclose(ops.softshrink(x).numpy(), [-1.0, 0.0, 0.25, 2.0])
    np.testing.assert_allclose(ops.i0(x).numpy(), np.i0(x.numpy()), rtol=1e-6)
    a, b = T([[0.0, 0.0], [1.0, 1.0]]), T([[3.0, 4.0]])
    np.testing.assert_allclose(ops.cdist(a, b).numpy(), [[5.0], [np.sqrt(13.0)]], rtol=1e-6)
    base = T(np.zeros((3, 2)))
    out = ops.tensor_scatter_add(base, ms.Tensor(np.array([[0], [0], [2]])), T(np.ones((3, 2))))
    assert out.numpy().tolist() == [[2.0, 2.0], [0.0, 0.0], [1.0, 1.0]]
    g = grad_of(lambda u: ops.tensor_scatter_add(base, ms.Tensor(np.array([[0], [2]])), u),
                T(np.ones((2, 2))))[0]
    assert g.numpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    assert ops.trapz(T([1.0, 2.0, 3.0]), dx=0.5).numpy().tolist() == 2.0


def test_parameter_names_shapes_and_order_are_mindspores():
    assert [p.name for p in nn.GroupNorm(1, 2).get_parameters()] == ["gamma", "beta"]
    assert nn.Conv1d(2, 3, 3).weight.shape == (3, 2, 1, 3)
    names = [n for n, _ in nn.LSTM(3, 4, num_layers=2).parameters_and_names()]
    assert names[:2] == ["weight_ih_l0", "weight_ih_l1"] and names[-1] == "bias_hh_l1"


def test_conv1d_with_a_four_axis_weight_is_the_plain_convolution():
    conv = nn.Conv1d(1, 1, 3, pad_mode="valid", has_bias=False)
    conv.weight.set_data(T([[[[1.0, 2.0, 3.0]]]]))
    out = conv(T([[[1.0, 0.0, 2.0, 1.0]]]))
    assert out.numpy().ravel().tolist() == [1 * 1 + 0 * 2 + 2 * 3, 0 * 1 + 2 * 2 + 1 * 3]


def test_rprop_grows_and_shrinks_its_steps_with_the_gradient_sign():
    w = ms.Parameter(T([1.0]), name="w")
    opt = nn.Rprop([w], learning_rate=0.1)
    for g in (1.0, 1.0, -1.0):
        opt((T([g]),))
    # steps 0.1, then 0.12 (same sign), then the sign flips: the step shrinks and is skipped
    np.testing.assert_allclose(w.numpy(), [1.0 - 0.1 - 0.12], rtol=1e-6)


def test_unfold_and_fold_match_pytorch_with_padding_stride_and_dilation():
    torch = pytest.importorskip("torch")
    x = np.random.RandomState(0).randn(2, 3, 5, 6).astype(np.float32)
    kw = dict(kernel_size=(2, 3), dilation=(1, 2), padding=1, stride=(2, 1))
    cols = ops.unfold(T(x), **kw)
    want = torch.nn.functional.unfold(torch.tensor(x), **kw).numpy()
    np.testing.assert_allclose(cols.numpy(), want, rtol=1e-6)
    back = ops.fold(cols, (5, 6), **kw)
    np.testing.assert_allclose(back.numpy(), torch.nn.functional.fold(
        torch.tensor(want), (5, 6), **kw).numpy(), rtol=1e-5)
    g = grad_of(lambda t: ops.unfold(t, **kw), T(x))[0]        # how many windows see each pixel
    ones = torch.ones_like(torch.tensor(want))
    np.testing.assert_allclose(g.numpy(), torch.nn.functional.fold(ones, (5, 6), **kw).numpy())


@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_pytorch(align_corners):
    torch = pytest.importorskip("torch")
    theta = np.array([[[0.8, 0.5, 0.1], [-0.5, 0.8, -0.2]]], dtype=np.float32)
    got = ops.affine_grid(T(theta), (1, 1, 3, 4), align_corners=align_corners).numpy()
    want = torch.nn.functional.affine_grid(torch.tensor(theta), [1, 1, 3, 4],
                                           align_corners=align_corners).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_matches_pytorch_and_differentiates(align_corners):
    torch = pytest.importorskip("torch")
    rng = np.random.RandomState(1)
    img = rng.randn(1, 2, 3, 4).astype(np.float32)
    grid = rng.uniform(-1.2, 1.2, (1, 2, 3, 2)).astype(np.float32)    # some points outside
    got = ops.grid_sample(T(img), T(grid), align_corners=align_corners)
    ti, tg = torch.tensor(img, requires_grad=True), torch.tensor(grid, requires_grad=True)
    want = torch.nn.functional.grid_sample(ti, tg, align_corners=align_corners)
    np.testing.assert_allclose(got.numpy(), want.detach().numpy(), rtol=1e-5, atol=1e-6)
    want.sum().backward()
    gi, gg = grad_of(lambda a, b: ops.grid_sample(a, b, align_corners=align_corners),
                     T(img), T(grid))
    np.testing.assert_allclose(gi.numpy(), ti.grad.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(gg.numpy(), tg.grad.numpy(), rtol=1e-4, atol=1e-5)
