"""The distribution families added to ``torch.distributions`` (Gamma, Chi2, Beta,
Dirichlet, Poisson, Binomial, Geometric, Gumbel, Cauchy, HalfNormal, StudentT): densities,
entropies and moments against closed forms and PyTorch's (where installed), gradients of
``log_prob`` in the parameters against PyTorch's, and the draws' moments."""
import math

import numpy as np
import pytest

import eagerad.torch as torch
from eagerad.torch import distributions as D

F64 = torch.float64


def t(values):
    return torch.tensor(values, dtype=F64)


FAMILIES = {    # name -> (parameters, values to score)
    "Gamma": (dict(concentration=[0.5, 2.0, 7.5], rate=[1.0, 3.0, 0.25]), [0.3, 1.7, 20.0]),
    "Chi2": (dict(df=[1.0, 3.0, 10.0]), [0.5, 2.0, 9.0]),
    "Beta": (dict(concentration1=[0.5, 2.0, 5.0], concentration0=[0.7, 2.0, 1.5]),
             [0.2, 0.5, 0.9]),
    "Dirichlet": (dict(concentration=[[0.5, 1.0, 2.0], [3.0, 3.0, 0.8]]),
                  [[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]]),
    "Poisson": (dict(rate=[0.5, 3.0, 12.0]), [0.0, 2.0, 15.0]),
    "Binomial": (dict(total_count=[5.0, 5.0, 5.0], probs=[0.1, 0.5, 0.8]), [0.0, 2.0, 5.0]),
    "Geometric": (dict(probs=[0.1, 0.5, 0.9]), [0.0, 3.0, 1.0]),
    "Gumbel": (dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 0.5, 3.0]), [0.3, 1.5, -4.0]),
    "Cauchy": (dict(loc=[0.0, 1.0, -2.0], scale=[1.0, 0.5, 3.0]), [0.3, 1.5, -4.0]),
    "HalfNormal": (dict(scale=[1.0, 0.5, 3.0]), [0.3, 1.5, 4.0]),
    "StudentT": (dict(df=[1.5, 3.0, 30.0], loc=[0.0, 1.0, -2.0], scale=[1.0, 0.5, 3.0]),
                 [0.3, 1.5, -4.0]),
}
NO_ENTROPY = {"Poisson"}          # (PyTorch has none either)


def _made(module, name, params, grad=False):
    kwargs = {k: module.tensor(v, dtype=module.float64, requires_grad=grad)
              for k, v in params.items()}
    return getattr(module.distributions, name)(**kwargs), kwargs


def test_closed_forms_where_they_are_short():
    assert D.Gamma(t(2.0), t(3.0)).log_prob(t(0.5)).item() == pytest.approx(
        math.log(9 * 0.5 * math.exp(-1.5)), rel=1e-12)
    assert D.Beta(t(2.0), t(2.0)).log_prob(t(0.5)).item() == pytest.approx(math.log(1.5), rel=1e-12)
    assert D.Poisson(t(2.0)).log_prob(t(3.0)).exp().item() == pytest.approx(
        2 ** 3 * math.exp(-2) / 6, rel=1e-12)
    assert D.Binomial(4, probs=t(0.5)).log_prob(t(2.0)).exp().item() == pytest.approx(0.375)
    assert D.Geometric(probs=t(0.25)).log_prob(t(2.0)).exp().item() == pytest.approx(0.75 ** 2 / 4)
    assert D.Cauchy(t(0.0), t(1.0)).log_prob(t(1.0)).exp().item() == pytest.approx(0.5 / math.pi)
    assert D.Chi2(t(2.0)).log_prob(t(1.0)).exp().item() == pytest.approx(0.5 * math.exp(-0.5))
    assert D.HalfNormal(t(1.0)).log_prob(t(-0.1)).item() == -math.inf
    assert D.Dirichlet(t([1.0, 1.0, 1.0])).log_prob(t([0.2, 0.3, 0.5])).exp().item() == \
        pytest.approx(2.0)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_sample_shapes_and_moments(name):
    torch.manual_seed(0)
    params, _ = FAMILIES[name]
    d, _ = _made(torch, name, params)
    draws = d.sample((20000,))
    assert tuple(draws.shape) == (20000,) + d.batch_shape + d.event_shape
    if name in ("Cauchy", "StudentT"):
        return                              # (heavy tails: no stable moments to compare)
    got = draws.numpy()
    mean, std = d.mean.numpy(), np.sqrt(d.variance.numpy())
    np.testing.assert_allclose(got.mean(0), mean, atol=0.05 * std.max() + 1e-12)
    np.testing.assert_allclose(got.std(0), std, rtol=0.05)


@pytest.mark.parametrize("name", sorted(FAMILIES))
def test_the_same_numbers_and_gradients_as_pytorch_where_installed(name):
    real = pytest.importorskip("torch")
    params, values = FAMILIES[name]
    results = []
    for module in (torch, real):
        d, kwargs = _made(module, name, params, grad=True)
        lp = d.log_prob(module.tensor(values, dtype=module.float64))
        grads = [g.numpy() for g in (module.autograd.grad(lp.sum(), list(kwargs.values())))]
        row = [lp.detach().numpy(), d.mean.detach().numpy(), d.variance.detach().numpy()] + grads
        if name not in NO_ENTROPY:
            row.append(d.entropy().detach().numpy())
        results.append(row)
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


def test_rsample_is_reparameterised_where_offered_and_refused_where_not():
    loc = t([0.5]).requires_grad_()
    D.Gumbel(loc, t([2.0])).rsample((4,)).sum().backward()
    assert loc.grad.tolist() == [4.0]
    with pytest.raises(NotImplementedError, match="Gamma has no reparameterised sample"):
        D.Gamma(t(1.0), t(1.0)).rsample()
