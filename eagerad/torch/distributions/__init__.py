"""``torch.distributions`` (see ``eagerad.distributions`` and
``eagerad.distribution_families``): Normal, LogNormal, Uniform, Laplace, Exponential,
Bernoulli, Categorical, OneHotCategorical, MultivariateNormal, Independent, Gamma, Chi2,
Beta, Dirichlet, Poisson, Binomial, Geometric, Gumbel, Cauchy, HalfNormal, StudentT,
``kl_divergence``/``register_kl``.

>>> import eagerad.torch as torch
>>> from eagerad.torch.distributions import Normal
>>> Normal(torch.tensor([0.0]), torch.tensor([1.0])).log_prob(torch.tensor([0.0]))
tensor([-0.9189])
"""
from ...distributions import (Bernoulli, Categorical, Distribution, Exponential,  # noqa: F401
                             Independent, Laplace, LogNormal, MultivariateNormal, Normal,
                             OneHotCategorical, Uniform, kl_divergence, register_kl)
from ...distribution_families import (Beta, Binomial, Cauchy, Chi2, Dirichlet,  # noqa: F401
                                      Gamma, Geometric, Gumbel, HalfNormal, Poisson, StudentT)

from . import kl  # noqa: E402,F401 - torch.distributions.kl
