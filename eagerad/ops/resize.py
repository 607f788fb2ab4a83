"""Resizing over any number of spatial axes, PyTorch's ``F.interpolate`` (every mode:
'nearest', 'nearest-exact', 'linear', 'bilinear', 'bicubic', 'trilinear', 'area'),
``F.upsample``, ``F.upsample_nearest`` and ``F.upsample_bilinear``.

Each mode is separable: one constant matrix per spatial axis (linear and cubic weights,
area averages) applied by a matmul, or one index gather per axis (nearest), so the
result is differentiable to any order and runs on every device.  Source coordinates
and scales follow PyTorch's kernels: a given ``scale_factor`` is used as is unless
``recompute_scale_factor``; nearest indices are computed in float32 as PyTorch does.

>>> import eagerad
>>> interpolate(eagerad.tensor([[[1.0, 3.0]]]), scale_factor=2, mode='linear').tolist()
[[[1.0, 1.5, 2.5, 3.0]]]
"""
import math
import numbers
import warnings

import numpy as np

from ..tensor import Tensor
from .arrangement import moveaxis
from .convolution import _adaptive_matrix, _floats, _linear_matrix
from .indexing import take
from .linalg import matmul

_LINEAR = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_MODES = ("nearest", "nearest-exact", "area") + tuple(_LINEAR)


def _sizes_and_scales(x, size, scale_factor, recompute_scale_factor):
    """Output sizes and the per-axis scale (input cells per output cell, or None for
    ``in / out``) PyTorch's kernels use."""
    dims = x.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: give exactly one of size and scale_factor")
    if size is not None:
        sizes = (size,) * dims if isinstance(size, numbers.Integral) else tuple(size)
        if len(sizes) != dims:
            raise ValueError(f"interpolate: size {size!r} must have {dims} entries for input "
                             f"of shape {tuple(x.shape)}")
        sizes, scales = tuple(int(s) for s in sizes), (None,) * dims
    else:
        factors = (scale_factor,) * dims if isinstance(scale_factor, numbers.Number) \
            else tuple(scale_factor)
        if len(factors) != dims:
            raise ValueError(f"interpolate: scale_factor {scale_factor!r} must have {dims} "
                             f"entries for input of shape {tuple(x.shape)}")
        sizes = tuple(int(math.floor(float(n) * float(f))) for n, f in zip(x.shape[2:], factors))
        scales = (None,) * dims if recompute_scale_factor else \
            tuple(1.0 / float(f) if f > 0 else None for f in factors)
    if any(s <= 0 for s in sizes):
        raise ValueError(f"interpolate: output size {sizes} must be positive (input "
                         f"{tuple(x.shape)})")
    return sizes, scales


def _nearest_index(n, out, scale, exact):
    """PyTorch's nearest source cells, its float32 arithmetic included."""
    s = np.float32(n / out if scale is None else scale)
    dst = np.arange(out, dtype=np.float64)
    src = (dst + 0.5) * np.float64(s) if exact else dst.astype(np.float32) * s
    return np.minimum(np.floor(np.float32(src)).astype(np.int64), n - 1)


def _cubic_weights(t, a=-0.75):
    """Keys' cubic convolution weights of the 4 neighbours at fraction ``t``."""
    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return np.stack([far(t + 1), near(t), near(1 - t), far(2 - t)], axis=-1)


def _cubic_matrix(n, out, scale, align_corners):
    """Bicubic weights from ``n`` cells to ``out`` (edge cells repeated, as PyTorch)."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        src = dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    else:
        src = (dst + 0.5) * (n / out if scale is None else scale) - 0.5
    base = np.floor(src)
    weights = _cubic_weights(src - base)
    cells = np.clip(base[:, None].astype(np.int64) + np.arange(-1, 3)[None, :], 0, n - 1)
    m = np.zeros((out, n))
    np.add.at(m, (np.repeat(np.arange(out), 4), cells.ravel()), weights.ravel())
    return m


def _axis_matrix(mode, n, out, scale, align_corners):
    if mode == "area":
        return _adaptive_matrix(n, out)
    if mode == "bicubic":
        return _cubic_matrix(n, out, scale, align_corners)
    return _linear_matrix(n, out, n / out if scale is None else scale, align_corners)


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize (N, C, *spatial) to ``size`` or by ``scale_factor``, PyTorch's
    ``F.interpolate``: 'nearest' (its legacy rounding), 'nearest-exact', 'area' (adaptive
    averages) on any number of axes; 'linear' (1 axis), 'bilinear' and 'bicubic' (2),
    'trilinear' (3) with ``align_corners``.

    >>> interpolate(eagerad.ones(1, 1, 2, 2, 2), scale_factor=2, mode='trilinear').shape
    (1, 1, 4, 4, 4)
    """
    x, = _floats("interpolate", input)
    if mode not in _MODES:
        raise ValueError(f"interpolate: mode={mode!r} is not one of {', '.join(_MODES)}")
    if x.ndim < 3:
        raise ValueError(f"interpolate: input must be (N, C, *spatial), got shape {x.shape}")
    if mode in _LINEAR and x.ndim - 2 != _LINEAR[mode]:
        raise ValueError(f"interpolate: mode={mode!r} needs {_LINEAR[mode]} spatial axes, got "
                         f"input of shape {x.shape}")
    if mode not in _LINEAR and align_corners is not None:
        raise ValueError(f"interpolate: align_corners only applies to linear and cubic modes, "
                         f"not {mode!r}")
    if antialias:
        raise NotImplementedError("interpolate: antialias=True is not supported")
    sizes, scales = _sizes_and_scales(x, size, scale_factor, recompute_scale_factor)
    for axis, (n, out, scale) in enumerate(zip(x.shape[2:], sizes, scales), start=2):
        if mode.startswith("nearest"):
            index = _nearest_index(n, out, scale, mode == "nearest-exact")
            x = take(x, Tensor(index, device=x.device), axis)
        else:
            m = _axis_matrix(mode, n, out, scale, bool(align_corners))
            a = Tensor(m.T.copy(), dtype=x.dtype, device=x.device)
            x = moveaxis(matmul(moveaxis(x, axis, -1), a), -1, axis)
    return x


def _deprecated(name):
    warnings.warn(f"`nn.functional.{name}` is deprecated. Use `nn.functional.interpolate` "
                  "instead.", UserWarning, stacklevel=3)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """PyTorch's deprecated ``F.upsample``: ``interpolate``.

    >>> upsample(eagerad.ones(1, 1, 2), scale_factor=2).shape
    (1, 1, 4)
    """
    _deprecated("upsample")
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """PyTorch's ``F.upsample_nearest``: 'nearest' ``interpolate``.

    >>> upsample_nearest(eagerad.tensor([[[1.0, 2.0]]]), scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    """
    _deprecated("upsample_nearest")
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """PyTorch's ``F.upsample_bilinear``: 'bilinear' ``interpolate`` with
    ``align_corners=True``.

    >>> upsample_bilinear(eagerad.tensor([[[[0.0, 2.0]]]]), size=(1, 3)).tolist()
    [[[[0.0, 1.0, 2.0]]]]
    """
    _deprecated("upsample_bilinear")
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
