"""Pooling over any number of spatial axes, PyTorch's names: ``max_pool3d``,
``avg_pool3d``, ``adaptive_avg_pool1d``/``3d``, ``adaptive_max_pool1d``/``2d``/``3d``,
``fractional_max_pool2d``/``3d`` (1-D/2-D/3-D share one implementation each).

Regular windows come from ``convolution_nd.window_stack`` (padding with ``-inf`` for
maxima, zeros for means); irregular ones (adaptive bins, fractional intervals) are one
gather of the flattened input at the windows' cells.  A maximum is then the window's
first largest cell, picked by a gather, so the gradient goes to that cell (ties to the
first, as PyTorch) and every higher derivative is exact; a mean is a sum divided by a
constant count.  Indices (``return_indices``) are flat positions in each input plane.

>>> import eagerad
>>> max_pool3d(eagerad.arange(8.0).reshape(1, 1, 2, 2, 2), 2).reshape(-1).tolist()
[7.0]
"""
import numbers

import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .convolution import _adaptive_matrix, _floats, _positive
from .convolution import avg_pool2d as _avg_pool2d
from .convolution_nd import spatial_ints, window_stack
from .linalg import matmul
from .math import as_tensor
from .creation import rand
from .reduction import argmax
from .arrangement import moveaxis
from .indexing import take_along_dim


def batched(name, input, dims):
    """``input`` as a float (N, C, *spatial) batch (an unbatched (C, *spatial) one gains
    N = 1) and the function undoing that on a result.

    >>> batched("p", eagerad.ones(2, 3), 1)[0].shape
    (1, 2, 3)
    """
    x, = _floats(name, input)
    if x.ndim == dims + 1:
        return x.reshape((1,) + x.shape), lambda y: y.reshape(y.shape[1:])
    if x.ndim != dims + 2:
        axes = ("L", "H, W", "D, H, W")[dims - 1] if dims <= 3 else f"{dims} spatial axes"
        raise ValueError(f"{name}: input must be (N, C, {axes}) or (C, {axes}), got shape "
                         f"{x.shape}")
    return x, lambda y: y


def first_max(windows, axis):
    """Largest entry along ``axis`` of ``windows`` (the first one on ties) and its
    position (a detached int tensor, ``axis`` kept with size 1).

    >>> v, k = first_max(eagerad.tensor([[1.0, 3.0, 3.0]]), 1); v.tolist(), k.tolist()
    ([3.0], [[1]])
    """
    k = argmax(windows.detach(), axis=axis, keepdims=True)
    return take_along_dim(windows, k, axis).squeeze(axis), k


def pool_geometry(name, size, kernel_size, stride, padding, dilation, ceil_mode):
    """kernel, stride, dilation, symmetric padding and per-axis (before, after) widths of
    a pooling over ``size``; ``ceil_mode`` widens the end for the last partial window
    (which must start inside the input or its leading padding, as PyTorch).

    >>> pool_geometry("p", (5,), 2, None, 0, 1, True)
    ((2,), (2,), (1,), (0,), [(0, 1)])
    """
    n = len(size)
    kernel = _positive(spatial_ints(kernel_size, n, "kernel_size"), f"{name}: kernel_size")
    stride = kernel if stride is None or (not isinstance(stride, numbers.Integral)
                                          and len(tuple(stride)) == 0) else \
        _positive(spatial_ints(stride, n, "stride"), f"{name}: stride")
    dilation = _positive(spatial_ints(dilation, n, "dilation"), f"{name}: dilation")
    pad = spatial_ints(padding, n, "padding")
    if any(p < 0 or 2 * p > k for p, k in zip(pad, kernel)):
        raise ValueError(f"{name}: padding {pad} must be at most half the kernel {kernel}")
    widths = []
    for m, k, s, d, p in zip(size, kernel, stride, dilation, pad):
        span = m + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= m + p:
            out -= 1
        if out <= 0:
            raise ValueError(f"{name}: input of spatial size {tuple(size)} (padding {pad}) is "
                             f"smaller than the kernel {kernel} (dilation {dilation})")
        widths.append((p, p + max(0, (out - 1) * s + d * (k - 1) + 1 - (m + 2 * p))))
    return kernel, stride, dilation, pad, widths


def _flat_positions(positions, size):
    """Flat index in a plane of ``size`` from per-axis positions (broadcast together)."""
    flat = 0
    for pos, m in zip(positions, size):
        flat = flat * m + pos
    return flat


def max_pool_nd(name, input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                dims):
    """Window maxima over the last ``dims`` axes (and flat indices if ``return_indices``).

    >>> max_pool_nd("p", eagerad.tensor([[[1.0, 3.0, 2.0]]]), 2, 1, 0, 1, False, True, 1)
    (tensor([[[3., 3.]]]), tensor([[[1, 1]]]))
    """
    x, undo = batched(name, input, dims)
    size = x.shape[2:]
    kernel, stride, dilation, pad, widths = pool_geometry(name, size, kernel_size, stride,
                                                          padding, dilation, ceil_mode)
    cols = window_stack(x, kernel, stride, dilation, widths, fill=float("-inf"))
    out, k = first_max(cols, 2)
    if not return_indices:
        return undo(out)
    offsets = np.unravel_index(k.numpy()[:, :, 0], kernel)
    out_size = out.shape[2:]
    positions = []
    for a, (off, s, p, d) in enumerate(zip(offsets, stride, pad, dilation)):
        grid = np.arange(out_size[a]).reshape((-1,) + (1,) * (dims - a - 1))
        positions.append(grid * s - p + off * d)
    flat = _flat_positions(positions, size)
    return undo(out), undo(Tensor(flat.astype(np.int64), dtype=dt.int64, device=x.device))


def avg_pool_nd(name, input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                divisor_override, dims):
    """Window means over the last ``dims`` axes, PyTorch's divisors (padding counted
    unless ``count_include_pad=False``; ceil_mode's extra cells never; or
    ``divisor_override``).

    >>> avg_pool_nd("p", eagerad.tensor([[[1.0, 3.0, 2.0]]]), 2, 1, 0, False, True, None, 1)
    tensor([[[2.0000, 2.5000]]])
    """
    x, undo = batched(name, input, dims)
    size = x.shape[2:]
    kernel, stride, dilation, pad, widths = pool_geometry(name, size, kernel_size, stride,
                                                          padding, 1, ceil_mode)
    sums = window_stack(x, kernel, stride, dilation, widths).sum(axis=2)
    if divisor_override is not None:
        if not divisor_override or divisor_override <= 0:
            raise ValueError(f"{name}: divisor_override must be positive, got "
                             f"{divisor_override!r}")
        return undo(sums / divisor_override)
    counts = np.ones(())
    for m, k, s, p, o in zip(size, kernel, stride, pad, sums.shape[2:]):
        start = np.arange(o) * s - p
        end = np.minimum(start + k, m + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, m)
        counts = np.multiply.outer(counts, end - start)
    return undo(sums / Tensor(counts.astype(np.float64), dtype=x.dtype, device=x.device))


def _output_sizes(name, size, output_size):
    """Adaptive pooling's output sizes (an int or a sequence; None keeps that axis)."""
    n = len(size)
    if isinstance(output_size, numbers.Integral) or output_size is None:
        output_size = (output_size,) * n
    sizes = tuple(output_size)
    if len(sizes) == 1:
        sizes *= n
    if len(sizes) != n:
        raise ValueError(f"{name}: output_size must be an int or {n} ints, got {output_size!r}")
    sizes = tuple(m if o is None else int(o) for o, m in zip(sizes, size))
    if any(o <= 0 for o in sizes) or not all(size):
        raise ValueError(f"{name}: output size {sizes} and input size {tuple(size)} must be "
                         "positive")
    return sizes


def adaptive_avg_pool_nd(name, input, output_size, dims):
    """Average the last ``dims`` axes into ``output_size`` bins (PyTorch's bin edges), one
    constant averaging matrix per axis.

    >>> adaptive_avg_pool_nd("p", eagerad.tensor([[[1.0, 3.0, 2.0]]]), 2, 1).tolist()
    [[[2.0, 2.5]]]
    """
    x, undo = batched(name, input, dims)
    sizes = _output_sizes(name, x.shape[2:], output_size)
    for axis, (m, o) in enumerate(zip(x.shape[2:], sizes), start=2):
        if m == o:
            continue
        a = Tensor(_adaptive_matrix(m, o).T.copy(), dtype=x.dtype, device=x.device)
        x = moveaxis(matmul(moveaxis(x, axis, -1), a), -1, axis)
    return undo(x)


def gathered_max(name, x, positions, return_indices):
    """Maxima of irregular windows: ``positions`` holds, per spatial axis, the cells of
    every window as an int array broadcasting to (N, C, o_1..o_d, k_1..k_d).  Returns
    the maxima (N, C, o_1..o_d) and, if asked, their flat indices."""
    n, c = x.shape[:2]
    size = x.shape[2:]
    dims = len(size)
    flat = np.broadcast_to(_flat_positions(positions, size), np.broadcast_shapes(
        (n, c) + (1,) * (2 * dims), *(p.shape for p in positions)))
    out_size = flat.shape[2:2 + dims]
    flat = flat.reshape((n, c, -1))
    windows = take_along_dim(x.reshape(n, c, -1), Tensor(flat, dtype=dt.int64, device=x.device),
                             2).reshape((n, c) + out_size + (-1,))
    out, k = first_max(windows, -1)
    if not return_indices:
        return out
    picked = np.take_along_axis(flat.reshape((n, c) + out_size + (-1,)), k.numpy(), -1)
    return out, Tensor(picked[..., 0].astype(np.int64), dtype=dt.int64, device=x.device)


def _expand(values, axis, dims):
    """Window cells of axis ``axis``, ((N, C,) o_a, k_a), placed on their axes of
    (N, C, o_1..o_d, k_1..k_d)."""
    shape = [1] * (2 * dims)
    shape[axis], shape[dims + axis] = values.shape[-2], values.shape[-1]
    return values.reshape((values.shape[:-2] or (1, 1)) + tuple(shape))


def adaptive_max_pool_nd(name, input, output_size, return_indices, dims):
    """Maxima over PyTorch's adaptive bins of the last ``dims`` axes.

    >>> adaptive_max_pool_nd("p", eagerad.tensor([[[1.0, 3.0, 2.0]]]), 2, True, 1)
    (tensor([[[3., 3.]]]), tensor([[[1, 1]]]))
    """
    x, undo = batched(name, input, dims)
    sizes = _output_sizes(name, x.shape[2:], output_size)
    positions = []
    for a, (m, o) in enumerate(zip(x.shape[2:], sizes)):
        start = np.arange(o) * m // o
        end = -(-(np.arange(o) + 1) * m // o)
        cells = np.minimum(start[:, None] + np.arange((end - start).max())[None, :],
                           end[:, None] - 1)
        positions.append(_expand(cells, a, dims))
    out = gathered_max(name, x, positions, return_indices)
    return (undo(out[0]), undo(out[1])) if return_indices else undo(out)


def _intervals(sample, m, o, k):
    """PyTorch's fractional-pooling window starts from one uniform ``sample`` per plane."""
    if o == 1:
        return np.full(sample.shape + (1,), m - k, dtype=np.int64)
    alpha = (m - k) / (o - 1)
    i = np.arange(o - 1)
    starts = np.trunc((i + sample[..., None]) * alpha) - np.trunc(sample[..., None] * alpha)
    last = np.full(sample.shape + (1,), m - k)
    return np.concatenate([starts, last], axis=-1).astype(np.int64)


def fractional_max_pool_nd(name, input, kernel_size, output_size, output_ratio, return_indices,
                           _random_samples, dims):
    """Fractional max-pooling (Graham's pseudo-random windows) over the last ``dims`` axes;
    ``_random_samples`` (N, C, dims) in [0, 1) fixes the windows (else they are drawn).

    >>> fractional_max_pool_nd("p", eagerad.ones(1, 1, 5), 2, 2, None, False,
    ...                        eagerad.zeros(1, 1, 1), 1).tolist()
    [[[1.0, 1.0]]]
    """
    x, undo = batched(name, input, dims)
    n, c = x.shape[:2]
    size = x.shape[2:]
    kernel = _positive(spatial_ints(kernel_size, dims, "kernel_size"), f"{name}: kernel_size")
    if (output_size is None) == (output_ratio is None):
        raise ValueError(f"{name}: give exactly one of output_size and output_ratio")
    if output_size is None:
        ratios = (output_ratio,) * dims if isinstance(output_ratio, numbers.Number) \
            else tuple(output_ratio)
        if len(ratios) != dims or not all(0 < r < 1 for r in ratios):
            raise ValueError(f"{name}: output_ratio must be {dims} numbers in (0, 1), got "
                             f"{output_ratio!r}")
        output_size = tuple(int(m * r) for m, r in zip(size, ratios))
    out = spatial_ints(output_size, dims, "output_size")
    if any(o <= 0 or o + k - 1 > m for o, k, m in zip(out, kernel, size)):
        raise ValueError(f"{name}: output_size {out} plus kernel_size {kernel} minus one must "
                         f"not exceed the input size {tuple(size)}")
    if _random_samples is None:
        samples = rand(n, c, dims, dtype=x.dtype).numpy()
    else:
        samples = as_tensor(_random_samples).detach().numpy()
        if samples.shape != (n, c, dims):
            raise ValueError(f"{name}: _random_samples must have shape {(n, c, dims)}, got "
                             f"{samples.shape}")
    # PyTorch's 2-D pooling reads the width's sample first, its 3-D pooling the depth's
    order = range(dims - 1, -1, -1) if dims == 2 else range(dims)
    positions = [None] * dims
    for s, a in zip(order, range(dims)):
        starts = _intervals(samples[:, :, s], size[a], out[a], kernel[a])
        cells = starts[..., None] + np.arange(kernel[a])
        positions[a] = _expand(cells, a, dims)
    res = gathered_max(name, x, positions, return_indices)
    return (undo(res[0]), undo(res[1])) if return_indices else undo(res)


# ------------------------------------------------------------------ PyTorch's names


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Window maxima of (N, C, D, H, W) or (C, D, H, W), PyTorch's ``F.max_pool3d``.

    >>> max_pool3d(eagerad.ones(1, 1, 2, 2, 2), 2, return_indices=True)[1].reshape(-1).tolist()
    [0]
    """
    return max_pool_nd("max_pool3d", input, kernel_size, stride, padding, dilation, ceil_mode,
                       return_indices, 3)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Window means of (N, C, D, H, W) or (C, D, H, W), PyTorch's ``F.avg_pool3d``.

    >>> avg_pool3d(eagerad.arange(8.0).reshape(1, 1, 2, 2, 2), 2).reshape(-1).tolist()
    [3.5]
    """
    return avg_pool_nd("avg_pool3d", input, kernel_size, stride, padding, ceil_mode,
                       count_include_pad, divisor_override, 3)


def adaptive_avg_pool1d(input, output_size):
    """Average (N, C, L) or (C, L) into ``output_size`` bins, PyTorch's ``F.adaptive_avg_pool1d``.

    >>> adaptive_avg_pool1d(eagerad.tensor([[1.0, 3.0, 2.0, 4.0]]), 2).tolist()
    [[2.0, 3.0]]
    """
    return adaptive_avg_pool_nd("adaptive_avg_pool1d", input, output_size, 1)


def adaptive_avg_pool3d(input, output_size):
    """Average (N, C, D, H, W) or (C, D, H, W) into ``output_size`` bins.

    >>> adaptive_avg_pool3d(eagerad.ones(1, 1, 4, 4, 4), 2).shape
    (1, 1, 2, 2, 2)
    """
    return adaptive_avg_pool_nd("adaptive_avg_pool3d", input, output_size, 3)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Maxima of (N, C, L) or (C, L) over ``output_size`` adaptive bins.

    >>> adaptive_max_pool1d(eagerad.tensor([[1.0, 3.0, 2.0, 4.0]]), 2).tolist()
    [[3.0, 4.0]]
    """
    return adaptive_max_pool_nd("adaptive_max_pool1d", input, output_size, return_indices, 1)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Maxima of (N, C, H, W) or (C, H, W) over ``output_size`` adaptive bins.

    >>> adaptive_max_pool2d(eagerad.arange(16.0).reshape(1, 4, 4), 2).tolist()
    [[[5.0, 7.0], [13.0, 15.0]]]
    """
    return adaptive_max_pool_nd("adaptive_max_pool2d", input, output_size, return_indices, 2)


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Maxima of (N, C, D, H, W) or (C, D, H, W) over ``output_size`` adaptive bins.

    >>> adaptive_max_pool3d(eagerad.ones(1, 2, 2, 2), 1).shape
    (1, 1, 1, 1)
    """
    return adaptive_max_pool_nd("adaptive_max_pool3d", input, output_size, return_indices, 3)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """PyTorch's ``F.fractional_max_pool2d`` on (N, C, H, W) or (C, H, W).

    >>> fractional_max_pool2d(eagerad.ones(1, 1, 5, 5), 2, output_size=3).shape
    (1, 1, 3, 3)
    """
    return fractional_max_pool_nd("fractional_max_pool2d", input, kernel_size, output_size,
                                  output_ratio, return_indices, _random_samples, 2)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """PyTorch's ``F.fractional_max_pool3d`` on (N, C, D, H, W) or (C, D, H, W).

    >>> fractional_max_pool3d(eagerad.ones(1, 1, 4, 4, 4), 2, output_ratio=0.5).shape
    (1, 1, 2, 2, 2)
    """
    return fractional_max_pool_nd("fractional_max_pool3d", input, kernel_size, output_size,
                                  output_ratio, return_indices, _random_samples, 3)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """PyTorch's ``F.avg_pool2d`` (sizes may also be 1-tuples), on the 2-D kernels of
    ``ops.convolution``.

    >>> avg_pool2d(eagerad.ones(1, 1, 4, 4), (2,), padding=(1,)).shape
    (1, 1, 3, 3)
    """
    two = [v if v is None or v == () else spatial_ints(v, 2, what) for v, what in
           ((kernel_size, "kernel_size"), (stride, "stride"), (padding, "padding"))]
    return _avg_pool2d(input, two[0], two[1], two[2], ceil_mode, count_include_pad, divisor_override)


__all__ = ["max_pool3d", "avg_pool3d", "adaptive_avg_pool1d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d",
           "fractional_max_pool2d", "fractional_max_pool3d", "avg_pool2d"]
