"""``torch.distributions.kl``'s import path.

>>> from eagerad.torch.distributions.kl import kl_divergence
>>> from eagerad.torch.distributions import Normal
>>> kl_divergence(Normal(0.0, 1.0), Normal(0.0, 1.0)).item()
0.0
"""
from ...distributions import kl_divergence, register_kl  # noqa: F401
