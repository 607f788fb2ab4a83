"""Fused max-pooling (``ops.pooling``) and GELU kernels (issue 23): PyTorch's values and
gradients, the same window choice as the op-by-op pooling (first maximum, NaN wins), and
GELU's one-pass forward equal to the generic formula to the bit."""
import numpy as np
import pytest

import eagerad
import eagerad.nn.functional as F
from eagerad.backend.cpu import fused, special
from eagerad.ops import pooling

torch = pytest.importorskip("torch")

GEOMETRIES = [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=2, padding=1),
              dict(kernel_size=2, stride=1, dilation=2), dict(kernel_size=3, stride=2, ceil_mode=True)]


@pytest.mark.parametrize("kw", GEOMETRIES)
def test_max_pool_matches_torch(kw):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 3, 7, 8))
    xe, xt = eagerad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ye, yt = F.max_pool2d(xe, **kw), torch.nn.functional.max_pool2d(xt, **kw)
    np.testing.assert_array_equal(ye.numpy(), yt.detach().numpy())
    g = rng.standard_normal(tuple(yt.shape))
    (ye * eagerad.tensor(g)).sum().backward()
    (yt * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-12)


def test_max_pool_is_one_node_each_way_and_second_order_is_exact():
    x = eagerad.tensor(np.random.default_rng(1).standard_normal((1, 2, 4, 4)), requires_grad=True)
    y = F.max_pool2d(x, 2, 2)
    assert y.grad_fn.name == "PoolTakeBackward"     # ops/pool_index.py: one gather node
    (g,) = eagerad.autograd.grad((y ** 2).sum(), x, create_graph=True)   # 2 y at the maxima
    (h,) = eagerad.autograd.grad(g.sum(), x)
    top = (g.detach().numpy() != 0)
    np.testing.assert_allclose(g.detach().numpy()[top], 2 * y.detach().numpy().reshape(-1),
                               rtol=1e-15)
    np.testing.assert_array_equal(h.numpy(), 2.0 * top)


def test_ties_and_nan_pick_the_first_maximum():
    x = np.array([[[[1.0, 1.0, np.nan, 2.0], [1.0, 0.0, 3.0, np.nan]]]])
    geometry = ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0))
    assert np.isnan(fused.max_pool(x, geometry)[0, 0, 0, 1])
    grad = fused.max_pool_scatter(np.ones((1, 1, 1, 2)), x, geometry)
    np.testing.assert_array_equal(grad[0, 0], [[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 0.0]])


def test_integer_input_and_indices_keep_the_op_by_op_path():
    x = eagerad.tensor(np.arange(16).reshape(1, 1, 4, 4))
    assert F.max_pool2d(x, 2).tolist() == [[[[5, 7], [13, 15]]]]
    out, idx = F.max_pool2d(eagerad.tensor(np.arange(16.0).reshape(1, 1, 4, 4)), 2,
                            return_indices=True)
    assert idx.tolist() == [[[[5, 7], [13, 15]]]]


def test_vmap_of_the_fused_pool_folds_into_the_batch():
    x = eagerad.tensor(np.random.default_rng(2).standard_normal((3, 2, 1, 4, 4)))
    geometry = ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0))
    out = eagerad.vmap(lambda a: pooling.max_pool_fused(a, geometry=geometry))(x)
    np.testing.assert_array_equal(out.numpy(), fused.max_pool(x.numpy().reshape(6, 1, 4, 4),
                                                              geometry).reshape(3, 2, 1, 2, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_kernel_forward_is_the_formula_bit_for_bit(dtype, approximate):
    x = (np.random.default_rng(3).standard_normal((300, 7)) * 4).astype(dtype)
    x[0, :3] = [-50.0, 0.0, 50.0]
    expected = special.special_unary("gelu" if approximate == "none" else "gelu_tanh", x)
    if dtype == "float32" and approximate == "none":     # the vectorised float32 route
        assert _ulps(fused.gelu(x, approximate),
                     special.special_unary("gelu", x.astype(np.float64))) <= 6.0
        return
    np.testing.assert_array_equal(fused.gelu(x, approximate), expected)


def _ulps(got, reference):
    """Largest distance of ``got`` from the float64 ``reference`` in float32 ulps of it."""
    spacing = np.spacing(np.abs(reference.astype(np.float32))).astype(np.float64)
    return np.max(np.abs(got.astype(np.float64) - reference) / spacing)


def test_float32_gelu_value_and_slope_are_within_a_few_ulps_of_the_float64_formula():
    x = np.concatenate([np.linspace(-30.0, 30.0, 60001),
                        np.random.default_rng(5).standard_normal(20000) * 3]).astype(np.float32)
    x64 = x.astype(np.float64)
    value = special.special_unary("gelu", x64)
    # the slope Phi(x) + x phi(x), by the float64 kernel (tested against torch above)
    slope = fused.gelu_backward(np.ones_like(x64), x64, "none")
    # measured: 5.9 ulps at most (the module doc says how), mean 0.3
    assert _ulps(fused.gelu(x, "none"), value) <= 6.0
    got = fused.gelu_backward(np.ones_like(x), x, "none").astype(np.float64)
    assert np.all(np.abs(got - slope) <= 3.0 * np.spacing(np.float32(1.0)) * np.maximum(np.abs(slope), 0.2))
    away = np.abs(x + 0.75) > 0.25                     # off the slope's root (cancellation)
    assert _ulps(got[away], slope[away]) <= 8.0
    special_values = np.array([np.inf, -np.inf, np.nan, -1000.0, 0.0, -0.0, -40.0], np.float32)
    np.testing.assert_array_equal(np.signbit(fused.gelu(special_values, "none")),
                                  np.signbit(special.special_unary("gelu", special_values)))
    np.testing.assert_array_equal(fused.gelu(special_values, "none"),
                                  special.special_unary("gelu", special_values))


def test_float32_gelu_tails_keep_their_relative_accuracy():
    # 0.5 x (1 + erf(x / sqrt 2)) loses everything below x = -5 in float32; the tail form
    # here keeps a few ulps down to the subnormal results (x < -13.1) and gives -0 beyond
    x = -np.linspace(5.0, 14.6, 20001).astype(np.float32)
    value = special.special_unary("gelu", x.astype(np.float64))
    got = fused.gelu(x, "none")
    normal = np.abs(value) >= np.finfo(np.float32).tiny
    assert normal.sum() > 15000
    assert _ulps(got[normal], value[normal]) <= 6.0
    assert np.max(np.abs(got[~normal] - value[~normal])) <= 4 * 2.0 ** -149
    assert np.all(got <= 0) and np.all(np.signbit(got))
    np.testing.assert_array_equal(got[x < -14.4], -0.0)


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu_gradient_matches_torch_and_the_rule(approximate):
    x = np.random.default_rng(4).standard_normal((70, 1000)) * 3
    xe, xt = eagerad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    F.gelu(xe, approximate=approximate).sum().backward()
    torch.nn.functional.gelu(xt, approximate=approximate).sum().backward()
    # (the tanh form's slope cancels in 1 + tanh on the far negative side: ~5e-15 apart there)
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-13)
    (rule,) = eagerad.autograd.grad(F.gelu(xe, approximate=approximate).sum(), xe,
                                    create_graph=True)         # the differentiable rule
    np.testing.assert_allclose(xe.grad.numpy(), rule.detach().numpy(), rtol=1e-14, atol=1e-300)
