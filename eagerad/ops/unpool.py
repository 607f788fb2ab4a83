"""Max-unpooling, PyTorch's ``F.max_unpool1d``/``2d``/``3d``: the partial inverse of a
max-pooling with ``return_indices=True``, every value written at its flat index of a
zero output plane.

One index may occur twice (overlapping windows sharing a maximum).  PyTorch keeps one
write there and its gradient still reads the output's gradient at every index, so the
value here is the scatter-add of all inputs minus (detached) the extra copies: the
forward is PyTorch's, and the gradient of each input is the gather PyTorch's is, through
differentiable ops (any order).

>>> import eagerad
>>> max_unpool1d(eagerad.tensor([[[5.0, 7.0]]]), eagerad.tensor([[[1, 2]]]), 2).tolist()
[[[0.0, 5.0, 7.0, 0.0]]]
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .convolution_nd import spatial_ints
from .creation import zeros
from .indexing import scatter_add
from .math import as_tensor
from .pooling_nd import batched


def _unpool_size(name, size, kernel, stride, padding, output_size):
    """PyTorch's default output size ``(n-1)*stride - 2*padding + kernel``, or the
    spatial part of ``output_size`` (which must lie within one stride of it)."""
    default = tuple((n - 1) * s - 2 * p + k for n, s, p, k in zip(size, stride, padding, kernel))
    if output_size is None:
        return default
    out = tuple(int(o) for o in output_size)
    if len(out) == len(size) + 2:
        out = out[2:]
    if len(out) != len(size) or any(not d - s < o < d + s for o, d, s in zip(out, default, stride)):
        raise ValueError(f"{name}: output_size {tuple(output_size)} must give {len(size)} spatial "
                         f"sizes within one stride {stride} of {default}")
    return out


def max_unpool_nd(name, input, indices, kernel_size, stride, padding, output_size, dims):
    """Scatter ``input`` (N, C, *spatial) or (C, *spatial) to the flat ``indices`` of zero
    planes of the unpooled size.

    >>> max_unpool_nd("u", eagerad.tensor([[[1.0]]]), eagerad.tensor([[[0]]]), 2, None, 0,
    ...               None, 1).tolist()
    [[[1.0, 0.0]]]
    """
    x, undo = batched(name, input, dims)
    idx = as_tensor(indices)
    if idx.dtype.kind not in "iu" or tuple(idx.shape) != tuple(as_tensor(input).shape):
        raise ValueError(f"{name}: indices must be an integer tensor of the input's shape "
                         f"{tuple(as_tensor(input).shape)}, got {idx.dtype} {tuple(idx.shape)}")
    kernel = spatial_ints(kernel_size, dims, "kernel_size")
    stride = kernel if stride is None else spatial_ints(stride, dims, "stride")
    padding = spatial_ints(padding, dims, "padding")
    out = _unpool_size(name, x.shape[2:], kernel, stride, padding, output_size)
    n, c = x.shape[:2]
    plane = int(np.prod(out))
    flat = idx.detach().numpy().astype(np.int64).reshape(n, c, -1)
    if flat.size and (flat.min() < 0 or flat.max() >= plane):
        raise ValueError(f"{name}: indices must lie in [0, {plane}) for output size {out}, got "
                         f"values in [{flat.min()}, {flat.max()}]")
    # all but the last write of each repeated index (PyTorch keeps one value there)
    keys = (np.arange(n * c).reshape(n, c, 1) * plane + flat).ravel()
    extra = np.ones(keys.size, dtype=bool)
    extra[keys.size - 1 - np.unique(keys[::-1], return_index=True)[1]] = False
    values = x.reshape(n, c, -1)
    index = Tensor(flat, dtype=dt.int64, device=x.device)
    base = zeros(n, c, plane, dtype=x.dtype, device=x.device)
    result = scatter_add(base, 2, index, values)
    if extra.any():
        mask = Tensor(extra.reshape(flat.shape).astype(np.float64), dtype=x.dtype, device=x.device)
        result = result - scatter_add(base, 2, index, values.detach() * mask)
    return undo(result.reshape((n, c) + out))


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """PyTorch's ``F.max_unpool1d`` on (N, C, L) or (C, L).

    >>> max_unpool1d(eagerad.tensor([[3.0]]), eagerad.tensor([[1]]), 2).tolist()
    [[0.0, 3.0]]
    """
    return max_unpool_nd("max_unpool1d", input, indices, kernel_size, stride, padding,
                         output_size, 1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """PyTorch's ``F.max_unpool2d`` on (N, C, H, W) or (C, H, W).

    >>> max_unpool2d(eagerad.tensor([[[3.0]]]), eagerad.tensor([[[3]]]), 2).tolist()
    [[[0.0, 0.0], [0.0, 3.0]]]
    """
    return max_unpool_nd("max_unpool2d", input, indices, kernel_size, stride, padding,
                         output_size, 2)


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """PyTorch's ``F.max_unpool3d`` on (N, C, D, H, W) or (C, D, H, W).

    >>> max_unpool3d(eagerad.ones(1, 1, 1, 1), eagerad.tensor([[[[7]]]]), 2).sum().item()
    1.0
    """
    return max_unpool_nd("max_unpool3d", input, indices, kernel_size, stride, padding,
                         output_size, 3)
