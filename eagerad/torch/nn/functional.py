"""``torch.nn.functional``: eagerad's functional layers under PyTorch's names.

>>> import eagerad.torch as torch
>>> torch.nn.functional.relu(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
from ...nn.functional import *  # noqa: F401,F403
from ...nn.functional import __all__  # noqa: F401
from ...ops import (ctc_loss, embedding_bag, linear_cross_entropy,  # noqa: E402,F401
                    multilabel_margin_loss)
__all__ = __all__ + ["ctc_loss", "embedding_bag", "linear_cross_entropy", "multilabel_margin_loss"]
