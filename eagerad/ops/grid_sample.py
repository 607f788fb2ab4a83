"""Sampling an image at arbitrary points: PyTorch's ``F.grid_sample`` on 4-D and 5-D
input and its ``torch.grid_sampler_2d``/``grid_sampler_3d`` (integer modes), and the grids
of affine maps that a spatial transformer samples at (``affine_grid``, both faces).

The grid's last axis holds normalised (x, y[, z]) in [-1, 1]; each is mapped to a pixel
coordinate (``align_corners`` as PyTorch), then ``padding_mode`` ('zeros', 'border',
'reflection') and ``mode`` ('bilinear' -- trilinear on 5-D --, 'nearest', 'bicubic'
on 4-D) apply.  Which cells are read is integer bookkeeping on constants; the weights
are differentiable ops of the grid and the values a gather of the input, so gradients
in the input and the grid hold to any order and every device runs it.

>>> import eagerad
>>> img = eagerad.tensor([[[[0.0, 1.0], [2.0, 3.0]]]])
>>> grid_sample(img, eagerad.tensor([[[[0.0, 0.0]]]]), align_corners=True).item()
1.5
"""
import itertools

import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .convolution import _floats
from .indexing import take_along_dim
from .math import abs as _abs
from .linalg import matmul
from .math import clamp, fmod, where
from .shape import broadcast_to, stack, swapaxes

_MODES = ("bilinear", "nearest", "bicubic")
_PADDINGS = ("zeros", "border", "reflection")


def _reflect(coord, low, high):
    """PyTorch's ``reflect_coordinates``: fold ``coord`` into [low/2, high/2]."""
    if low == high:
        return coord * 0
    lo, span = low / 2, (high - low) / 2
    dist = _abs(coord - lo)
    flips = np.floor(dist.detach().numpy() / span)
    extra = fmod(dist, span)
    even = Tensor(flips % 2 == 0, device=coord.device)
    return where(even, extra + lo, span - extra + lo)


def _padded(coord, size, padding_mode, align_corners):
    """A pixel coordinate after ``padding_mode`` (border clamps, reflection folds)."""
    if padding_mode == "zeros":
        return coord
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else \
            _reflect(coord, -1, 2 * size - 1)
    return clamp(coord, 0, size - 1)


def _int_padded(cells, size, padding_mode, align_corners):
    """Integer cells after ``padding_mode`` (for bicubic's 4x4 neighbourhood)."""
    if padding_mode == "zeros":
        return cells
    if padding_mode == "reflection":
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        if low == high:
            cells = cells * 0
        else:
            lo, span = low / 2, (high - low) / 2
            dist = np.abs(cells - lo)
            flips, extra = np.floor(dist / span), np.fmod(dist, span)
            cells = np.where(flips % 2 == 0, extra + lo, span - extra + lo)
    return np.clip(cells, 0, size - 1).astype(np.int64)


def _read(x, corners, out):
    """Values of ``x`` (N, C, *size) at K sets of integer cells (each one (N, *out) array
    per axis), one gather for all: shape (N, C, K, *out); cells outside read 0."""
    n, c = x.shape[:2]
    inside = np.ones((len(corners),) + corners[0][0].shape, dtype=bool)
    flat = np.zeros(inside.shape, dtype=np.int64)
    for axis, m in enumerate(x.shape[2:]):
        cells = np.stack([corner[axis] for corner in corners])
        inside &= (cells >= 0) & (cells <= m - 1)
        flat = flat * m + np.clip(cells, 0, m - 1).astype(np.int64)
    k, points = len(corners), int(np.prod(out))
    index = np.moveaxis(flat, 0, 1).reshape(n, 1, k * points)
    index = broadcast_to(Tensor(index, dtype=dt.int64, device=x.device), (n, c, k * points))
    vals = take_along_dim(x.reshape(n, c, -1), index, 2).reshape((n, c, k) + out)
    if inside.all():
        return vals
    mask = Tensor(np.moveaxis(inside, 0, 1).reshape((n, 1, k) + out), device=x.device)
    return where(mask, vals, vals * 0)


def _weighted(x, corners, weights, out):
    """``sum_k weights[k] * x[corners[k]]``; ``weights`` holds one (N, 1, *out) tensor (or
    list of per-axis factors) per corner."""
    factors = []
    for w in weights:
        term = w[0]
        for f in w[1:]:
            term = term * f
        factors.append(term)
    return (_read(x, corners, out) * stack(factors, axis=2)).sum(axis=2)


def _cubic(t):
    """Keys' cubic weights (A = -0.75) of the 4 neighbours at fraction ``t`` (a tensor)."""
    a = -0.75

    def near(d):
        return ((a + 2) * d - (a + 3)) * d * d + 1

    def far(d):
        return ((a * d - 5 * a) * d + 8 * a) * d - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` (N, C, H, W) or (N, C, D, H, W) at ``grid`` (N, *out, 2 or 3),
    PyTorch's ``F.grid_sample``: ``mode`` 'bilinear' (trilinear on 5-D), 'nearest' or
    'bicubic' (4-D); ``padding_mode`` 'zeros', 'border' or 'reflection'.

    >>> grid_sample(eagerad.ones(1, 1, 2, 2, 2), eagerad.zeros(1, 1, 1, 1, 3)).shape
    (1, 1, 1, 1, 1)
    """
    x, g = _floats("grid_sample", input, grid)
    dims = x.ndim - 2
    if dims not in (2, 3) or g.ndim != x.ndim or g.shape[-1] != dims or g.shape[0] != x.shape[0]:
        raise ValueError(f"grid_sample: input must be (N, C, H, W) with grid (N, Ho, Wo, 2), or "
                         f"(N, C, D, H, W) with grid (N, Do, Ho, Wo, 3); got {tuple(x.shape)} "
                         f"and {tuple(g.shape)}")
    if mode not in _MODES or padding_mode not in _PADDINGS or (mode == "bicubic" and dims == 3):
        raise ValueError(f"grid_sample: mode={mode!r} must be one of {_MODES} ('bicubic' on 4-D "
                         f"input only) and padding_mode={padding_mode!r} one of {_PADDINGS}")
    out = tuple(g.shape[1:-1])
    sizes = x.shape[2:]
    # grid[..., 0] is x (the last axis), grid[..., 1] y, grid[..., 2] z
    raw = [g[..., dims - 1 - a] for a in range(dims)]
    coords = [(c + 1) * ((m - 1) / 2) if align_corners else ((c + 1) * m - 1) / 2
              for c, m in zip(raw, sizes)]
    shape = (x.shape[0], 1) + out
    if mode == "bicubic":
        base = [np.floor(c.detach().numpy()) for c in coords]
        weights = [_cubic((c - Tensor(b, dtype=c.dtype, device=c.device)).reshape(shape))
                   for c, b in zip(coords, base)]
        offsets = list(itertools.product(range(4), repeat=dims))
        corners = [[_int_padded(b + o - 1, m, padding_mode, align_corners)
                    for b, o, m in zip(base, offset, sizes)] for offset in offsets]
        return _weighted(x, corners, [[w[o] for w, o in zip(weights, offset)]
                                      for offset in offsets], out)
    coords = [_padded(c, m, padding_mode, align_corners) for c, m in zip(coords, sizes)]
    if mode == "nearest":
        return _read(x, [[np.round(c.detach().numpy()) for c in coords]], out).squeeze(2)
    base = [np.floor(c.detach().numpy()) for c in coords]
    frac = [(c - Tensor(b, dtype=c.dtype, device=c.device)).reshape(shape)
            for c, b in zip(coords, base)]
    corners = list(itertools.product((0, 1), repeat=dims))
    return _weighted(x, [[b + k for b, k in zip(base, corner)] for corner in corners],
                     [[f if k else 1 - f for f, k in zip(frac, corner)] for corner in corners],
                     out)


def _sampler(dims):
    def sampler(input, grid, interpolation_mode, padding_mode, align_corners):
        if input.ndim != dims + 2:
            raise ValueError(f"grid_sampler_{dims}d: input must have {dims + 2} dimensions, got "
                             f"shape {tuple(input.shape)}")
        try:
            mode, pad = _MODES[interpolation_mode], _PADDINGS[padding_mode]
        except (IndexError, TypeError):
            raise ValueError(f"grid_sampler_{dims}d: interpolation_mode {interpolation_mode!r} "
                             f"must be 0-2 and padding_mode {padding_mode!r} 0-2") from None
        return grid_sample(input, grid, mode, pad, bool(align_corners))
    return sampler


grid_sampler_2d = _sampler(2)
grid_sampler_2d.__name__ = grid_sampler_2d.__qualname__ = "grid_sampler_2d"
grid_sampler_2d.__doc__ = """PyTorch's ``torch.grid_sampler_2d(input, grid, interpolation_mode,
padding_mode, align_corners)``: ``grid_sample`` with modes 0 bilinear, 1 nearest, 2 bicubic
and paddings 0 zeros, 1 border, 2 reflection.

>>> grid_sampler_2d(eagerad.ones(1, 1, 2, 2), eagerad.zeros(1, 1, 1, 2), 0, 0, False).item()
1.0
"""
grid_sampler_3d = _sampler(3)
grid_sampler_3d.__name__ = grid_sampler_3d.__qualname__ = "grid_sampler_3d"
grid_sampler_3d.__doc__ = """PyTorch's ``torch.grid_sampler_3d``: ``grid_sampler_2d`` on 5-D input
(modes 0 trilinear, 1 nearest).

>>> grid_sampler_3d(eagerad.ones(1, 1, 2, 2, 2), eagerad.zeros(1, 1, 1, 1, 3), 0, 0, False).item()
1.0
"""


def _centres(k, align_corners, dtype):
    """The normalised pixel centres along an axis of ``k`` pixels, computed as PyTorch
    computes them in ``dtype`` (its linspace's fused multiply-add, then ``* (k - 1) / k``):
    the grid points then fall on the same side of a pixel boundary as PyTorch's -- under
    the identity map exactly on one, where bilinear sampling's gradient in the grid jumps
    (the spatial transformer's start: its localisation net learnt differently)."""
    real = dtype.type
    if k <= 1:
        return np.zeros(k, dtype)
    wide = np.float64 if dtype.itemsize <= 4 else np.longdouble     # (one rounding, as FMA)
    step, index = real(2) / real(k - 1), np.arange(k)
    low = (wide(-1) + wide(step) * index).astype(dtype)
    high = (wide(1) - wide(step) * (k - 1 - index)).astype(dtype)
    values = np.where(index < k // 2, low, high)
    return values if align_corners else values * real(k - 1) / real(k)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of the affine maps ``theta`` for an output of ``size``: (N, H, W, 2)
    for theta (N, 2, 3) and size (N, C, H, W), (N, D, H, W, 3) for theta (N, 3, 4) and size
    (N, C, D, H, W); normalised coordinates in [-1, 1], x first (``align_corners``: the
    corner pixels' centres at +-1; None is False, PyTorch's default).  Differentiable in
    ``theta``.

    >>> affine_grid(eagerad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]), (1, 1, 1, 2)).tolist()
    [[[[-0.5, 0.0], [0.5, 0.0]]]]
    """
    (theta,) = _floats("affine_grid", theta)
    dtype = np.dtype(theta.dtype)
    size = tuple(int(s) for s in size)
    spatial = size[2:]
    dims = len(spatial)
    if dims not in (2, 3) or tuple(theta.shape) != (size[0], dims, dims + 1):
        want = "Nx2x3 for a 4-D size" if dims == 2 else "Nx3x4 for a 5-D size" if dims == 3 \
            else "a 4-D (2-D images) or 5-D (volumes) size"
        raise ValueError(f"affine_grid: expected theta of shape {want}, got theta of shape "
                         f"{tuple(theta.shape)} and size {list(size)}")
    mesh = np.meshgrid(*(_centres(k, align_corners, dtype) for k in spatial), indexing="ij")
    points = [m.ravel() for m in reversed(mesh)] + [np.ones(mesh[0].size, dtype)]
    base = Tensor(np.stack(points, 1), device=theta.device)
    return matmul(base, swapaxes(theta, 1, 2)).reshape(size[:1] + spatial + (dims,))
