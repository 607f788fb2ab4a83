"""``torch.nn.functional``: eagerad's functional layers under PyTorch's names.

The 1-D/3-D (and N-D) convolutions, poolings, unpoolings, resizes and grid sampling
come from their own op modules (one implementation for every number of spatial axes).

>>> import eagerad.torch as torch
>>> torch.nn.functional.relu(torch.tensor([-1.0, 2.0]))
tensor([0., 2.])
"""
from ...nn.functional import *  # noqa: F401,F403
from ...nn.functional import __all__  # noqa: F401
from ...ops.convolution_nd import (conv3d, conv_transpose1d, conv_transpose2d,  # noqa: F401
                                   conv_transpose3d)
from ...ops.pooling_nd import (adaptive_avg_pool1d, adaptive_avg_pool3d,  # noqa: F401
                               adaptive_max_pool1d, adaptive_max_pool2d, adaptive_max_pool3d,
                               avg_pool2d, avg_pool3d, fractional_max_pool2d,
                               fractional_max_pool3d, max_pool3d)
from ...ops.grid_sample import grid_sample  # noqa: F401
from ...ops.resize import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
from ...ops.unpool import max_unpool1d, max_unpool2d, max_unpool3d  # noqa: F401

__all__ = list(__all__) + [
    "conv3d", "conv_transpose1d", "conv_transpose3d", "adaptive_avg_pool1d",
    "adaptive_avg_pool3d", "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
    "avg_pool3d", "fractional_max_pool2d", "fractional_max_pool3d", "max_pool3d",
    "max_unpool1d", "max_unpool2d", "max_unpool3d", "upsample", "upsample_bilinear",
    "upsample_nearest"]
