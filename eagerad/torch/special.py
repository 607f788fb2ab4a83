"""``torch.special``: special functions under PyTorch's names.

>>> import eagerad.torch as torch
>>> torch.special.expit(torch.tensor(0.0)), torch.special.gammaln(torch.tensor(1.0))
(tensor(0.5000), tensor(0.))
"""
from ..ops import (digamma, erf, erfc, erfinv, exp2, expm1, log1p, logit, polygamma, sinc,
                   xlogy)
from ._opdb_functions import log_softmax, logsumexp, mvlgamma as multigammaln, round, softmax  # noqa: F401
from ..ops import digamma as psi, lgamma as gammaln, sigmoid as expit  # noqa: F401
