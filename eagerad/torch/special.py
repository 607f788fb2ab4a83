"""``torch.special``: special functions under PyTorch's names.

>>> import eagerad.torch as torch
>>> torch.special.expit(torch.tensor(0.0)), torch.special.gammaln(torch.tensor(1.0))
(tensor(0.5000), tensor(0.))
"""
from ..ops import (digamma, entr, erf, erfc, erfcx, erfinv, exp2, expm1, i0, i0e, i1, i1e,  # noqa: F401
                   log1p, log_ndtr, logit, ndtr, ndtri, polygamma, sinc, xlog1py, xlogy)
from ._opdb_functions import log_softmax, logsumexp, mvlgamma as multigammaln, round, softmax  # noqa: F401
from ..ops import digamma as psi, lgamma as gammaln, sigmoid as expit  # noqa: F401

from ._out import honour_out as _honour_out  # noqa: E402
_honour_out(globals())      # last: out= is written, not ignored (torch/_out.py)
