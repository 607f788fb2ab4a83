"""``torch.nn.utils.weight_norm`` / ``spectral_norm`` and their ``remove_``: the weight is
recomputed before every forward from ``<name>_g``/``<name>_v`` (``g v / ||v||``) or from
``<name>_orig`` over its largest singular value (power iteration on the ``<name>_u`` /
``<name>_v`` buffers in training).  Checked against the closed forms and, where installed,
PyTorch run from the same weights and buffers."""
import numpy as np
import pytest

import eagerad.torch as torch
from eagerad.torch.nn.utils import (remove_spectral_norm, remove_weight_norm, spectral_norm,
                                    weight_norm)


def test_weight_norm_splits_magnitude_and_direction_and_keeps_the_weight():
    m = torch.nn.Conv2d(2, 4, 3)
    w = m.weight.detach().numpy().copy()
    weight_norm(m)
    assert m.weight_g.shape == (4, 1, 1, 1) and m.weight_v.shape == (4, 2, 3, 3)
    np.testing.assert_allclose(m.weight_g.detach().numpy().ravel(),
                               np.sqrt((w ** 2).sum((1, 2, 3))), rtol=1e-6)
    np.testing.assert_allclose(m.weight.detach().numpy(), w, rtol=1e-5, atol=1e-7)


def test_weight_norm_gradients_follow_the_closed_form():
    m = weight_norm(torch.nn.Linear(3, 2, bias=False).double(), dim=None)
    assert m.weight_g.shape == ()
    x = torch.tensor([[1.0, -2.0, 0.5]], dtype=torch.float64)
    m(x).sum().backward()
    v, g = m.weight_v.detach().numpy(), float(m.weight_g)
    norm = np.linalg.norm(v)
    dw = np.tile(x.numpy(), (2, 1))                     # d sum(W x) / dW
    np.testing.assert_allclose(float(m.weight_g.grad), (dw * v).sum() / norm, rtol=1e-12)
    want_v = g / norm * (dw - (dw * v).sum() * v / norm ** 2)
    np.testing.assert_allclose(m.weight_v.grad.numpy(), want_v, rtol=1e-10)


def test_weight_norm_follows_updates_of_g_and_v():
    m = weight_norm(torch.nn.Linear(2, 1, bias=False))
    with torch.no_grad():
        m.weight_g.fill_(3.0)
        m.weight_v.copy_(torch.tensor([[3.0, 4.0]]))
    m(torch.ones(1, 2))
    np.testing.assert_allclose(m.weight.detach().numpy(), [[1.8, 2.4]], rtol=1e-6)


def test_remove_folds_back_one_parameter_of_the_same_value():
    m = weight_norm(torch.nn.Linear(3, 2))
    with torch.no_grad():
        m.weight_g.mul_(2.0)
    m(torch.ones(1, 3))
    w = m.weight.detach().numpy().copy()
    remove_weight_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]
    np.testing.assert_array_equal(m.weight.detach().numpy(), w)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found"):
        remove_weight_norm(m)


def test_spectral_norm_reaches_unit_spectral_norm_in_training_only():
    m = spectral_norm(torch.nn.Linear(5, 4), n_power_iterations=1)
    for _ in range(50):
        m(torch.ones(1, 5))
    assert abs(float(torch.linalg.svdvals(m.weight.detach())[0]) - 1) < 1e-4
    m.eval()
    u = m.weight_u.clone()
    m(torch.ones(1, 5))
    assert m.weight_u.tolist() == u.tolist()
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight_orig"]


def test_spectral_norm_of_a_transposed_convolution_runs_along_dim_1():
    m = spectral_norm(torch.nn.ConvTranspose2d(3, 5, 2), n_power_iterations=40)
    assert m.weight_u.shape == (5,) and m.weight_v.shape == (3 * 2 * 2,)
    m(torch.ones(1, 3, 4, 4))
    matrix = m.weight.detach().numpy().transpose(1, 0, 2, 3).reshape(5, -1)
    assert abs(np.linalg.svd(matrix, compute_uv=False)[0] - 1) < 1e-3
    remove_spectral_norm(m)
    assert sorted(n for n, _ in m.named_parameters()) == ["bias", "weight"]


def test_bad_arguments_raise():
    m = weight_norm(torch.nn.Linear(2, 2))
    with pytest.raises(RuntimeError, match="two weight_norm hooks"):
        weight_norm(m)
    with pytest.raises(ValueError, match="n_power_iterations to be positive"):
        spectral_norm(torch.nn.Linear(2, 2), n_power_iterations=0)


def test_the_same_numbers_as_pytorch_where_installed():
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((4, 3)), rng.standard_normal(4)
    x = rng.standard_normal((2, 3))
    results = []
    for fw in (torch, real):
        m = fw.nn.Linear(3, 4).double()
        with fw.no_grad():
            m.weight.copy_(fw.tensor(w))
            m.bias.copy_(fw.tensor(b))
        fw.nn.utils.weight_norm(m)
        y = m(fw.tensor(x))
        (y ** 2).sum().backward()
        results.append([y.detach().numpy(), m.weight_g.grad.numpy(), m.weight_v.grad.numpy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-14)
    results = []
    u, v = rng.standard_normal(4), rng.standard_normal(3)
    for fw in (torch, real):
        m = fw.nn.utils.spectral_norm(fw.nn.Linear(3, 4).double(), n_power_iterations=2)
        with fw.no_grad():
            m.weight_orig.copy_(fw.tensor(w))
            m.bias.copy_(fw.tensor(b))
            m.weight_u.copy_(fw.tensor(u / np.linalg.norm(u)))
            m.weight_v.copy_(fw.tensor(v / np.linalg.norm(v)))
        y = m(fw.tensor(x))
        (y ** 2).sum().backward()
        results.append([y.detach().numpy(), m.weight_orig.grad.numpy(),
                        m.weight_u.numpy().copy(), m.weight_v.numpy().copy()])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)
