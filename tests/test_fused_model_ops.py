"""The one-op paths real models now take on the CPU (issue 23, item 2): convolution as
``conv2d_gemm``, ``layer_norm`` as ``layer_norm_rows``, max-pooling by indices
(``pool_take``/``pool_put``), linear layers as one 2-D product, and the kernels beneath
them (col2im, the 2x2 argmax, the pooled softmax).  Values and first and second
derivatives against PyTorch in float64 and against central differences (gradcheck,
gradgradcheck, forward mode); the kernels against the numpy loops they replace."""
import itertools

import numpy as np
import pytest

import eagerad
import eagerad.nn.functional as F
from eagerad import autograd
from eagerad.autograd.gradcheck import gradcheck, gradgradcheck
from eagerad.backend.cpu import fused
from eagerad.backend.cpu import nn as cpu_nn
from eagerad.backend.cpu.pool_index_kernels import argmax

torch = pytest.importorskip("torch")

CONVS = [dict(stride=1, padding=1, dilation=1), dict(stride=(2, 1), padding=(1, 0), dilation=(1, 2)),
         dict(stride=2, padding=0, dilation=1)]


def _pair(*arrays):
    return ([eagerad.tensor(a, requires_grad=True) for a in arrays],
            [torch.tensor(a, requires_grad=True) for a in arrays])


@pytest.mark.parametrize("kw", CONVS)
@pytest.mark.parametrize("bias", [True, False])
def test_conv2d_is_one_op_and_matches_torch_to_second_order(kw, bias):
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal((3, 2, 7, 6)), rng.standard_normal((4, 2, 3, 2))]
    arrays += [rng.standard_normal(4)] if bias else []
    (xe, we, *be), (xt, wt, *bt) = _pair(*arrays)
    ye = F.conv2d(xe, we, be[0] if bias else None, **kw)
    yt = torch.nn.functional.conv2d(xt, wt, bt[0] if bias else None, **kw)
    assert ye.grad_fn.name == "Conv2dGemmBackward"
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    v = rng.standard_normal(tuple(yt.shape))
    ge = autograd.grad((ye * eagerad.tensor(v)).sum(), [xe, we] + be, create_graph=True)
    gt = torch.autograd.grad((yt * torch.tensor(v)).sum(), [xt, wt] + bt, create_graph=True)
    for a, b in zip(ge, gt):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-11, atol=1e-12)
    # second order: the gradient of |dL/dx|^2 + |dL/dw|^2 with respect to x and w
    he = autograd.grad(sum((g * g).sum() for g in ge[:2]), [xe, we])
    ht = torch.autograd.grad(sum((g * g).sum() for g in gt[:2]), [xt, wt])
    for a, b in zip(he, ht):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-10, atol=1e-11)


def test_conv2d_gemm_passes_gradcheck_gradgradcheck_and_forward_mode():
    rng = np.random.default_rng(1)
    x, w, b = (eagerad.tensor(rng.standard_normal(s), requires_grad=True)
               for s in ((2, 2, 5, 4), (3, 2, 3, 2), (3,)))

    def fn(x, w, b):
        return F.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2))
    assert gradcheck(fn, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(fn, (x, w, b))


def test_conv2d_float32_and_other_paths_agree():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 9, 9)).astype(np.float32)
    w = rng.standard_normal((6, 3, 3, 3)).astype(np.float32)
    (xe, we), (xt, wt) = _pair(x, w)
    ye, yt = F.conv2d(xe, we, padding=1), torch.nn.functional.conv2d(xt, wt, padding=1)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-5, atol=1e-5)
    ye.sum().backward()
    yt.sum().backward()
    np.testing.assert_allclose(xe.grad.numpy(), xt.grad.numpy(), rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(we.grad.numpy(), wt.grad.numpy(), rtol=1e-5, atol=1e-3)
    grouped = F.conv2d(eagerad.tensor(x[:, :2]), eagerad.tensor(w[:, :1]), groups=2)
    assert grouped.grad_fn is None and grouped.shape == (4, 6, 7, 7)   # op-by-op path


def test_conv2d_under_vmap_folds_into_the_batch():
    rng = np.random.default_rng(3)
    xs = eagerad.tensor(rng.standard_normal((5, 2, 2, 6, 6)))
    w = eagerad.tensor(rng.standard_normal((3, 2, 3, 3)))
    out = eagerad.func.vmap(lambda x: F.conv2d(x, w, padding=1))(xs)
    ref = F.conv2d(xs.reshape(10, 2, 6, 6), w, padding=1).reshape(5, 2, 3, 6, 6)
    np.testing.assert_allclose(out.numpy(), ref.numpy(), rtol=1e-14)


@pytest.mark.parametrize("dtype, tol", [(np.float64, 1e-12), (np.float32, 2e-5)])
@pytest.mark.parametrize("affine", [True, False])
def test_layer_norm_is_one_op_and_matches_torch(dtype, tol, affine):
    rng = np.random.default_rng(4)
    arrays = [rng.standard_normal((3, 4, 2, 5)).astype(dtype) * 3 + 1]
    arrays += [rng.standard_normal((2, 5)).astype(dtype), rng.standard_normal((2, 5)).astype(dtype)] \
        if affine else []
    (xe, *pe), (xt, *pt) = _pair(*arrays)
    ye = F.layer_norm(xe, (2, 5), *pe, eps=1e-3)
    yt = torch.nn.functional.layer_norm(xt, (2, 5), *pt, eps=1e-3)
    assert ye.grad_fn.next[0][0].name == "LayerNormRowsBackward"
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=tol, atol=tol)
    v = rng.standard_normal(tuple(yt.shape)).astype(dtype)
    ge = autograd.grad((ye * eagerad.tensor(v)).sum(), [xe] + pe)
    gt = torch.autograd.grad((yt * torch.tensor(v)).sum(), [xt] + pt)
    for a, b in zip(ge, gt):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=tol, atol=10 * tol)


@pytest.mark.parametrize("lead", [(4,), (2, 3)])
def test_layer_norm_second_order_against_torch_and_gradchecks(lead):
    # (rows, d) and (batch, seq, d) with normalized_shape (d,): one op on the input itself
    rng = np.random.default_rng(5)
    (xe, we, be), (xt, wt, bt) = _pair(rng.standard_normal(lead + (6,)) * 2 + 1,
                                       rng.standard_normal(6), rng.standard_normal(6))
    ye = F.layer_norm(xe, (6,), we, be, eps=1e-3)
    yt = torch.nn.functional.layer_norm(xt, (6,), wt, bt, eps=1e-3)
    assert ye.grad_fn.name == "LayerNormRowsBackward" and ye.grad_fn.next[0][0] is xe
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)
    ge = autograd.grad((ye ** 3).sum(), [xe, we, be], create_graph=True)
    gt = torch.autograd.grad((yt ** 3).sum(), [xt, wt, bt], create_graph=True)
    for a, b in zip(ge, gt):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-10)
    he = autograd.grad(sum((g ** 2).sum() for g in ge), [xe, we, be])
    ht = torch.autograd.grad(sum((g ** 2).sum() for g in gt), [xt, wt, bt])
    for a, b in zip(he, ht):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-9, atol=1e-10)

    def fn(x, w, b):
        return F.layer_norm(x, (6,), w, b, eps=0.1)
    x, w, b = (eagerad.tensor(rng.standard_normal(s), requires_grad=True)
               for s in (lead[:-1] + (3, 6), (6,), (6,)))
    assert gradcheck(fn, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(fn, (x, w, b))
    # vmap over a leading axis: the per-sample results
    xs = eagerad.tensor(rng.standard_normal((3,) + lead + (6,)))
    batched = eagerad.vmap(lambda a: fn(a, w.detach(), b.detach()))(xs)
    for i in range(3):
        np.testing.assert_allclose(batched[i].numpy(), fn(xs[i], w.detach(), b.detach()).numpy(),
                                   rtol=1e-14, atol=1e-14)


def test_layer_norm_module_takes_the_fused_path_with_parameters():
    import eagerad.torch as face
    layer = face.nn.LayerNorm(8)
    x = face.randn(2, 3, 8, requires_grad=True)
    y = layer(x)
    # one node on the (2, 3, 8) input itself: no reshapes to rows and back
    assert y.grad_fn.name == "LayerNormRowsBackward" and y.grad_fn.next[0][0] is x
    y.sum().backward()
    assert x.grad.shape == (2, 3, 8) and layer.weight.grad.shape == (8,)


@pytest.mark.parametrize("kw", [dict(kernel_size=2, stride=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3), stride=1, dilation=(2, 1))])
def test_max_pool_indices_and_second_order_match_torch(kw):
    rng = np.random.default_rng(6)
    (xe,), (xt,) = _pair(rng.integers(0, 4, (2, 3, 7, 8)).astype(np.float64))   # many ties
    ye, ie = F.max_pool2d(xe, return_indices=True, **kw)
    yt, it = torch.nn.functional.max_pool2d(xt, return_indices=True, **kw)
    np.testing.assert_array_equal(ye.detach().numpy(), yt.detach().numpy())
    np.testing.assert_array_equal(ie.numpy(), it.numpy())
    assert ye.grad_fn.name == "PoolTakeBackward"
    (ge,) = autograd.grad((ye ** 2).sum(), xe, create_graph=True)
    (gt,) = torch.autograd.grad((yt ** 2).sum(), xt, create_graph=True)
    np.testing.assert_array_equal(ge.detach().numpy(), gt.detach().numpy())
    (he,) = autograd.grad((ge ** 2).sum(), xe)
    (ht,) = torch.autograd.grad((gt ** 2).sum(), xt)
    np.testing.assert_array_equal(he.numpy(), ht.numpy())


def test_two_by_two_argmax_fast_path_equals_the_general_kernel():
    rng = np.random.default_rng(7)
    geometry = ((2, 2), (2, 2), (1, 1), (0, 0, 0, 0))
    for shape in [(2, 3, 5, 7), (1, 1, 2, 2), (3, 2, 8, 6)]:
        for x in (rng.integers(0, 3, shape).astype(np.float32), rng.standard_normal(shape)):
            general = np.empty(fused._out_shape(x, geometry), np.int64)
            argmax(np.ascontiguousarray(x), general, 2, 2, 2, 2, 1, 1, 0, 0)
            np.testing.assert_array_equal(fused.max_pool_argmax(x, geometry), general)
    x = np.array([[[[1.0, np.nan], [3.0, 2.0]]]])            # NaN wins: the general kernel
    assert fused.max_pool_argmax(x, geometry).item() == 1


def test_pooled_gradient_equals_the_window_search_bit_for_bit():
    rng = np.random.default_rng(8)
    x = rng.integers(0, 3, (2, 3, 9, 7)).astype(np.float32)
    for geometry in [((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)), ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1)),
                     ((2, 3), (1, 2), (2, 1), (0, 1, 1, 0))]:
        idx = fused.max_pool_argmax(x, geometry)
        g = rng.standard_normal(idx.shape).astype(np.float32)
        np.testing.assert_array_equal(fused.pool_put(g, idx, x.shape[2:]),
                                      fused.max_pool_scatter(g, x, geometry))
        np.testing.assert_array_equal(fused.pool_take(x, idx, -np.inf), fused.max_pool(x, geometry))


def test_col2im_kernel_equals_the_numpy_loop_bit_for_bit(monkeypatch):
    rng = np.random.default_rng(9)
    for (h, w), kernel, stride, dilation, pads in itertools.product(
            [(5, 4), (7, 9)], [(1, 1), (3, 2)], [(1, 1), (2, 3)], [(1, 1), (2, 1)],
            [(0, 0, 0, 0), (1, 0, 2, 1)]):
        oh, ow = cpu_nn.windows((h, w), kernel, stride, dilation, pads)
        if oh <= 0 or ow <= 0:
            continue
        cols = rng.standard_normal((2, 3) + kernel + (oh, ow)).astype(np.float32)
        compiled = cpu_nn.fold(cols, (h, w), kernel, stride, dilation, pads)
        with monkeypatch.context() as m:
            m.setattr(cpu_nn, "_compiled", lambda a: False)
            loop = cpu_nn.fold(cols, (h, w), kernel, stride, dilation, pads)
        np.testing.assert_array_equal(compiled, loop)


def test_linear_layers_are_one_product_each_way_and_match_torch():
    rng = np.random.default_rng(10)
    import eagerad.torch as face
    layer = face.nn.Linear(5, 3)
    x = rng.standard_normal((4, 6, 5)).astype(np.float32)
    xe = eagerad.tensor(x, requires_grad=True)
    ye = layer(xe)
    assert ye.grad_fn.name == "LinearBiasBackward"          # product and bias: one node
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    (xt, wt, bt) = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    yt = torch.nn.functional.linear(xt, wt, bt)
    np.testing.assert_allclose(ye.detach().numpy(), yt.detach().numpy(), rtol=1e-6, atol=1e-6)
    ye.sum().backward()
    yt.sum().backward()
    for a, c in ((xe.grad, xt.grad), (layer.weight.grad, wt.grad), (layer.bias.grad, bt.grad)):
        np.testing.assert_allclose(a.numpy(), c.numpy(), rtol=1e-5, atol=1e-5)
    # the array rules give the differentiable rules' numbers
    x64 = eagerad.tensor(rng.standard_normal((2, 3, 5)), requires_grad=True)
    w64 = eagerad.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    grads = [autograd.grad((F.linear(x64, w64) ** 2).sum(), [x64, w64], create_graph=c)
             for c in (False, True)]
    for a, c in zip(*grads):
        np.testing.assert_array_equal(a.detach().numpy(), c.detach().numpy())


def test_softmax_array_rule_on_the_last_axis_equals_the_rule_bit_for_bit():
    z = np.random.default_rng(11).standard_normal((4, 3, 9)).astype(np.float32) * 3
    v = eagerad.tensor(np.linspace(-2, 3, z.size).reshape(z.shape).astype(np.float32))
    grads = []
    for create_graph in (False, True):
        x = eagerad.tensor(z, requires_grad=True)
        (g,) = autograd.grad((F.softmax(x, dim=-1) * v).sum(), x, create_graph=create_graph)
        grads.append(g.detach().numpy())
    np.testing.assert_array_equal(*grads)
    e = np.exp(z - z.max(-1, keepdims=True))
    # (float32 rows run a Numba kernel: within a few ulps of numpy's passes, not bit for bit)
    np.testing.assert_allclose(F.softmax(eagerad.tensor(z), dim=-1).numpy(),
                               e / e.sum(-1, keepdims=True), rtol=1e-6, atol=1e-9)
    z64 = z.astype(np.float64)
    e = np.exp(z64 - z64.max(-1, keepdims=True))
    np.testing.assert_array_equal(F.softmax(eagerad.tensor(z64), dim=-1).numpy(),
                                  e / e.sum(-1, keepdims=True))


def test_layer_norm_rows_batching_rule_folds_rows_or_loops():
    from eagerad.ops.normalization import _layer_norm_rows
    rng = np.random.default_rng(12)
    xs, w, b = (eagerad.tensor(rng.standard_normal(s)) for s in ((3, 4, 5), (5,), (5,)))
    ws = eagerad.tensor(rng.standard_normal((3, 5)))
    folded = eagerad.func.vmap(lambda x: _layer_norm_rows(x, w, b, eps=1e-5))(xs)
    looped = eagerad.func.vmap(lambda x, w: _layer_norm_rows(x, w, b, eps=1e-5))(xs, ws)
    for k in range(3):
        np.testing.assert_allclose(folded[k].numpy(), _layer_norm_rows(xs[k], w, b, eps=1e-5).numpy(),
                                   rtol=1e-14)
        np.testing.assert_allclose(looped[k].numpy(),
                                   _layer_norm_rows(xs[k], ws[k], b, eps=1e-5).numpy(), rtol=1e-14)


def test_two_layer_norms_of_one_input_sharing_the_gradient_keep_their_own_weights():
    rng = np.random.default_rng(13)
    (xe, w1, w2), (xt, t1, t2) = _pair(rng.standard_normal((3, 4)), rng.standard_normal(4),
                                       rng.standard_normal(4))
    b = np.zeros(4)
    (F.layer_norm(xe, (4,), w1, eagerad.tensor(b)) + F.layer_norm(xe, (4,), w2, eagerad.tensor(b))).sum().backward()
    (torch.nn.functional.layer_norm(xt, (4,), t1, torch.tensor(b))
     + torch.nn.functional.layer_norm(xt, (4,), t2, torch.tensor(b))).sum().backward()
    for a, c in ((xe, xt), (w1, t1), (w2, t2)):
        np.testing.assert_allclose(a.grad.numpy(), c.grad.numpy(), rtol=1e-10, atol=1e-12)
