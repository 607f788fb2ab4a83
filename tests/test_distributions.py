"""``torch.distributions``: log-probabilities, entropies, moments, KL divergences and
their gradients in the parameters against PyTorch's own (float64), reparameterised
samples' moments and gradients, and the discrete samplers' frequencies."""
import numpy as np
import pytest

import eagerad.torch as torch
from eagerad.torch import distributions as D

pt = pytest.importorskip("torch")
PD = pt.distributions

rng = np.random.default_rng(0)
LOC, SCALE = rng.standard_normal(3), np.abs(rng.standard_normal(3)) + 0.5
PROBS = np.array([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])
L = np.array([[1.0, 0.0], [0.4, 0.7]])

# name, parameters (numpy; all differentiated), values for log_prob
CASES = [
    ("Normal", (LOC, SCALE), rng.standard_normal(3)),
    ("LogNormal", (LOC, SCALE), np.abs(rng.standard_normal(3)) + 0.1),
    ("Laplace", (LOC, SCALE), rng.standard_normal(3)),
    ("Exponential", (SCALE,), np.abs(rng.standard_normal(3))),
    ("Uniform", (LOC, LOC + SCALE), LOC + 0.3 * SCALE),
    ("Bernoulli", (np.array([0.2, 0.7, 0.5]),), np.array([1.0, 0.0, 1.0])),
    ("Categorical", (PROBS,), np.array([2, 0])),
    ("MultivariateNormal", (np.array([0.3, -0.2]), L @ L.T), rng.standard_normal((4, 2))),
]


def _run(fw, dist, name, params, value):
    tensors = [fw.tensor(p, requires_grad=True) for p in params]
    if name in ("Bernoulli", "Categorical"):
        d = getattr(dist, name)(probs=tensors[0])
    elif name == "MultivariateNormal":
        d = getattr(dist, name)(tensors[0], covariance_matrix=tensors[1])
    else:
        d = getattr(dist, name)(*tensors)
    v = fw.tensor(value)
    lp, ent = d.log_prob(v), d.entropy()
    (lp.sum() + ent.sum()).backward()
    return [lp.detach().numpy(), ent.detach().numpy(), d.mean.detach().numpy()] + \
        [t.grad.numpy() for t in tensors]


@pytest.mark.parametrize("name, params, value", CASES, ids=[c[0] for c in CASES])
def test_log_prob_entropy_mean_and_their_gradients_match_torch(name, params, value):
    mine, theirs = _run(torch, D, name, params, value), _run(pt, PD, name, params, value)
    for a, b in zip(mine, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("pair", ["Normal", "Bernoulli", "Categorical", "Laplace", "Exponential",
                                  "MultivariateNormal"])
def test_kl_divergence_matches_torch(pair):
    def build(fw, dist, shift):
        if pair == "Bernoulli":
            return dist.Bernoulli(probs=fw.tensor([0.2 + shift, 0.6]))
        if pair == "Categorical":
            return dist.Categorical(probs=fw.tensor(np.roll(PROBS, int(shift * 10), axis=1)))
        if pair == "Exponential":
            return dist.Exponential(fw.tensor(SCALE + shift))
        if pair == "MultivariateNormal":
            return dist.MultivariateNormal(fw.tensor([shift, 0.0]),
                                           scale_tril=fw.tensor(L * (1 + shift)))
        return getattr(dist, pair)(fw.tensor(LOC + shift), fw.tensor(SCALE * (1 + shift)))
    mine = D.kl_divergence(build(torch, D, 0.0), build(torch, D, 0.1)).numpy()
    theirs = PD.kl_divergence(build(pt, PD, 0.0), build(pt, PD, 0.1)).numpy()
    np.testing.assert_allclose(mine, theirs, rtol=1e-9, atol=1e-12)


def test_rsample_moments_and_pathwise_gradient():
    torch.manual_seed(0)
    loc = torch.tensor([1.0, -2.0], requires_grad=True)
    scale = torch.tensor([0.5, 2.0], requires_grad=True)
    x = D.Normal(loc, scale).rsample((20000,))
    np.testing.assert_allclose(x.mean(0).detach().numpy(), [1.0, -2.0], atol=0.05)
    (x ** 2).mean(0).sum().backward()            # E[x^2] = loc^2 + scale^2
    np.testing.assert_allclose(loc.grad.numpy(), [2.0, -4.0], atol=0.06)
    np.testing.assert_allclose(scale.grad.numpy(), [1.0, 4.0], rtol=0.03)


def test_categorical_and_bernoulli_sample_frequencies():
    torch.manual_seed(1)
    draws = D.Categorical(probs=torch.tensor(PROBS)).sample((6000,)).numpy()
    assert draws.shape == (6000, 2)
    for row in range(2):
        np.testing.assert_allclose(np.bincount(draws[:, row], minlength=3) / 6000, PROBS[row],
                                   atol=0.02)
    b = D.Bernoulli(logits=torch.tensor([0.0, 2.0])).sample((8000,)).numpy()
    np.testing.assert_allclose(b.mean(0), [0.5, 1 / (1 + np.exp(-2.0))], atol=0.02)
    assert D.OneHotCategorical(probs=torch.tensor([0.0, 1.0])).sample((2,)).tolist() == \
        [[0.0, 1.0], [0.0, 1.0]]


def test_mistakes_are_named():
    with pytest.raises(ValueError, match="probs or logits"):
        D.Bernoulli()
    with pytest.raises(NotImplementedError, match="Normal, Uniform"):
        D.kl_divergence(D.Normal(0.0, 1.0), D.Uniform(0.0, 1.0))
