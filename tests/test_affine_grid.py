"""``affine_grid`` (PyTorch's ``F.affine_grid``, MindSpore's ``ops.affine_grid``), one core
op for both faces, 2-D and 3-D: the grids of a spatial transformer, differentiable in theta.
It was missing from the PyTorch face (the STN tutorial stopped at the name) and 2-D only
in MindSpore's."""
import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
import eagerad.torch as torch
import eagerad.torch.nn.functional as F


def _reference(theta, size, align_corners):
    """The grid by hand: each output pixel's normalised centre, mapped by theta."""
    spatial = size[2:]

    def axis(k):
        if align_corners:
            return np.linspace(-1.0, 1.0, k) if k > 1 else np.zeros(k)
        return (np.arange(k) * 2.0 + 1.0) / k - 1.0
    mesh = np.meshgrid(*(axis(k) for k in spatial), indexing="ij")
    points = np.stack([m for m in reversed(mesh)] + [np.ones_like(mesh[0])], -1)   # x, y[, z], 1
    return np.einsum("...k,njk->n...j", points, theta)


@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 4, 2), (1, 1, 1, 1)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_the_grid_is_theta_applied_to_the_pixel_centres(size, align_corners):
    dims = len(size) - 2
    theta = np.random.default_rng(0).standard_normal((size[0], dims, dims + 1))
    got = F.affine_grid(torch.tensor(theta), size, align_corners=align_corners)
    assert tuple(got.shape) == size[:1] + size[2:] + (dims,)
    np.testing.assert_allclose(got.numpy(), _reference(theta, size, align_corners), atol=1e-12)


def test_the_gradient_in_theta_matches_finite_differences():
    theta = torch.tensor(np.random.default_rng(1).standard_normal((2, 2, 3)), requires_grad=True)
    assert eagerad.autograd.gradcheck(lambda t: F.affine_grid(t, (2, 1, 3, 4), align_corners=False),
                                      (theta,))


def test_a_spatial_transformer_step_matches_pytorch_where_installed():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    image, theta = rng.standard_normal((2, 3, 6, 5)), rng.standard_normal((2, 2, 3)) * 0.5
    results = []
    for fw, fn in ((torch, F), (real, real.nn.functional)):
        t = fw.tensor(theta, requires_grad=True)
        x = fw.tensor(image, requires_grad=True)
        out = fn.grid_sample(x, fn.affine_grid(t, (2, 3, 4, 4), align_corners=False),
                             align_corners=False)
        (out ** 2).sum().backward()
        results.append([out.detach().numpy(), t.grad.numpy(), x.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_the_mindspore_face_shares_it():
    theta = np.random.default_rng(3).standard_normal((1, 3, 4)).astype(np.float32)
    got = ms.ops.affine_grid(ms.Tensor(theta), (1, 1, 2, 2, 3))
    np.testing.assert_allclose(got.numpy(), _reference(theta, (1, 1, 2, 2, 3), False), rtol=1e-5)


def test_a_theta_that_does_not_fit_the_size_is_refused_naming_both():
    with pytest.raises(ValueError, match=r"expected theta of shape Nx2x3 for a 4-D size, got "
                                         r"theta of shape \(1, 3, 3\) and size \[1, 1, 2, 2\]"):
        F.affine_grid(torch.ones(1, 3, 3), (1, 1, 2, 2))
    with pytest.raises(ValueError, match="4-D .* or 5-D"):
        F.affine_grid(torch.ones(1, 2, 3), (1, 1, 2))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_the_grid_is_pytorchs_to_the_bit_where_installed(dtype):
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(4)
    for size in [(2, 1, 28, 28), (1, 1, 7, 5), (1, 2, 3, 6, 9)]:
        dims = len(size) - 2
        for theta in (np.eye(dims, dims + 1)[None].repeat(size[0], 0),
                      rng.standard_normal((size[0], dims, dims + 1))):
            for align in (False, True):
                ours = F.affine_grid(torch.tensor(theta, dtype=getattr(torch, dtype)), size,
                                     align_corners=align).numpy()
                ref = real.nn.functional.affine_grid(
                    real.tensor(theta, dtype=getattr(real, dtype)), size, align_corners=align)
                if np.all(theta == np.eye(dims, dims + 1)):     # (a product adds no rounding)
                    np.testing.assert_array_equal(ours, ref.numpy())
                else:
                    np.testing.assert_allclose(ours, ref.numpy(), rtol=1e-5, atol=1e-6)


def test_a_spatial_transformer_at_the_identity_gets_pytorchs_gradient_where_installed():
    # Under the identity map the sampling points sit on pixel boundaries, where bilinear
    # sampling's gradient in the grid jumps: float32 grid points a rounding away from
    # PyTorch's gave theta another gradient, and the tutorial's STN trained differently.
    real = pytest.importorskip("torch")
    image = np.random.default_rng(5).standard_normal((2, 1, 12, 12)).astype(np.float32)
    grads = []
    for fw, fn in ((torch, F), (real, real.nn.functional)):
        theta = fw.tensor(np.eye(2, 3, dtype=np.float32)[None].repeat(2, 0), requires_grad=True)
        out = fn.grid_sample(fw.tensor(image), fn.affine_grid(theta, (2, 1, 12, 12),
                                                              align_corners=False),
                             align_corners=False)
        (out * fw.tensor(image)).sum().backward()
        grads.append(theta.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-4, atol=1e-5)
