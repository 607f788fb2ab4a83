"""``torch.nn.functional``: eagerad's functional layers under PyTorch's names.

The 1-D/3-D (and N-D) convolutions, poolings, unpoolings, resizes and grid sampling
come from their own op modules (one implementation for every number of spatial axes).

>>> import eagerad.torch as torch
>>> torch.nn.functional.relu(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
from ...nn.functional import *  # noqa: F401,F403
from ...nn.functional import __all__  # noqa: F401
from ...nn.functional import with_indices
from ...ops import (ctc_loss, embedding_bag, linear_cross_entropy,  # noqa: F401
                    multilabel_margin_loss)
from ...ops.convolution_nd import (conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                                   conv_transpose3d)
from ...ops.pooling_nd import (adaptive_avg_pool1d, adaptive_avg_pool3d,  # noqa: F401
                               adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
                               avg_pool2d, avg_pool3d, fractional_max_pool2d,
                               fractional_max_pool3d, max_pool3d)
from ...ops.alpha_dropout import alpha_dropout, feature_alpha_dropout  # noqa: F401
from ...ops.grid_sample import affine_grid, grid_sample  # noqa: F401
from ...ops.negative_pad import pad  # noqa: F401
from ...ops.normalization import batch_norm as _batch_norm
from ...ops.resize import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
from ...ops.unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: F401

__all__ = list(__all__) + [
    "conv3d", "conv_transpose1d", "conv_transpose3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "avg_pool3d", "fractional_max_pool2d", "fractional_max_pool3d", "max_pool3d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "upsample", "upsample_bilinear",
    "upsample_nearest", "alpha_dropout", "feature_alpha_dropout", "ctc_loss", "embedding_bag",
    "linear_cross_entropy", "multilabel_margin_loss"]


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """PyTorch's ``F.batch_norm``; an empty input gives an empty result, as PyTorch's.

    >>> import eagerad.torch as torch
    >>> batch_norm(torch.zeros(0), torch.zeros(0), torch.zeros(0), training=True).shape
    torch.Size([0])
    """
    if 0 in tuple(input.shape):
        return input * 1
    return _batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


for _pool in (max_pool3d, adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
              fractional_max_pool2d, fractional_max_pool3d):
    globals()[_pool.__name__ + "_with_indices"] = with_indices(_pool)
    __all__.append(_pool.__name__ + "_with_indices")
del _pool

from .._out import honour_out as _honour_out  # noqa: E402
_honour_out(globals())      # last: out= is written, not ignored (torch/_out.py)
