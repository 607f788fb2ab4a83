"""Less common ``torch.X`` names that still appear in real programs: ATen forms with integer
modes (``convolution``, ``grid_sampler``, ``native_dropout``, ``native_channel_shuffle``),
``norm_except_dim`` (weight normalization), the bit shifts, ``nonzero_static``, copies of
views (``select_copy``, ``slice_copy``, ``detach_copy``, ``split_copy``), the low-rank SVD
and PCA, and a few environment queries.

>>> import eagerad.torch as torch
>>> torch.bitwise_left_shift(torch.tensor([1, 3]), 2), torch.nonzero_static(torch.tensor([0, 5, 7]), size=3)
(tensor([ 4, 12]), tensor([[ 1],
        [ 2],
        [-1]]))
"""
import numpy as np

from ..face import install
from ..tensor import Tensor
from ._creation import empty, tensor
from ._face import TORCH
from .linalg import svd as _svd
from .nn import functional as F


# ---------------------------------------------------------------- ATen forms
def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """``torch.convolution``: every convolution in ATen's argument order (1-3 spatial
    dims, ``transposed`` for the transposed ones).

    >>> import eagerad.torch as torch
    >>> torch.convolution(torch.ones(1, 1, 3), torch.ones(1, 1, 2), None, [1], [0], [1],
    ...                   False, [0], 1)
    tensor([[[2., 2.]]])
    """
    dims = weight.ndim - 2
    if dims not in (1, 2, 3):
        raise ValueError(f"convolution: weight must have 3 to 5 dimensions, got shape "
                         f"{tuple(weight.shape)}")
    stride, padding, dilation, output_padding = (
        _spatial(v) for v in (stride, padding, dilation, output_padding))
    if transposed:
        core = getattr(F, f"conv_transpose{dims}d")
        return core(input, weight, bias, stride, padding, output_padding, groups, dilation)
    return getattr(F, f"conv{dims}d")(input, weight, bias, stride, padding, dilation, groups)


def _spatial(value):
    """ATen's int lists as the F functions take them (one entry: a plain int)."""
    if isinstance(value, int):
        return value
    value = tuple(int(v) for v in value)
    return value[0] if len(value) == 1 else value


_INTERPOLATION = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def grid_sampler(input, grid, interpolation_mode, padding_mode, align_corners):
    """``torch.grid_sampler``: ``F.grid_sample`` with ATen's integer modes
    (interpolation 0 bilinear, 1 nearest, 2 bicubic; padding 0 zeros, 1 border,
    2 reflection).

    >>> import eagerad.torch as torch
    >>> torch.grid_sampler(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 1, 2), 0, 0, False)
    tensor([[[[1.]]]])
    """
    if interpolation_mode not in _INTERPOLATION or padding_mode not in _PADDING:
        raise ValueError(f"grid_sampler: interpolation_mode must be 0-2 and padding_mode 0-2, "
                         f"got {interpolation_mode!r}, {padding_mode!r}")
    return F.grid_sample(input, grid, _INTERPOLATION[interpolation_mode],
                         _PADDING[padding_mode], align_corners)


def native_dropout(input, p, train):
    """``torch.native_dropout``: ``(output, mask)``, the mask a bool tensor of kept places.

    >>> import eagerad.torch as torch
    >>> torch.native_dropout(torch.ones(2), 0.5, False)
    (tensor([1., 1.]), tensor([True, True]))
    """
    if not train or p == 0:
        return input * 1, input.new_ones(input.shape).astype(bool)
    if not 0 <= p <= 1:
        raise ValueError(f"native_dropout: p must be in [0, 1], got {p}")
    keep = input.new_empty(input.shape).uniform_() >= p
    scale = 0.0 if p == 1 else 1 / (1 - p)
    return input * keep.astype(input.dtype) * scale, keep


def native_channel_shuffle(input, groups):
    """``torch.native_channel_shuffle``: ``F.channel_shuffle``.

    >>> import eagerad.torch as torch
    >>> torch.native_channel_shuffle(torch.arange(4.0).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return F.channel_shuffle(input, groups)


def norm_except_dim(v, pow=2, dim=0):
    """``torch.norm_except_dim``: the ``pow``-norm over every dimension but ``dim``, shaped
    to broadcast against ``v`` (weight normalization's ``||v||``); ``dim=-1``: the norm of
    all of ``v``.

    >>> import eagerad.torch as torch
    >>> torch.norm_except_dim(torch.tensor([[3.0, 4.0], [6.0, 8.0]]), 2, 0)
    tensor([[ 5.],
            [10.]])
    """
    if dim == -1:
        return v.norm(pow)
    axis = dim + v.ndim if dim < 0 else dim
    others = tuple(d for d in range(v.ndim) if d != axis)
    return v.norm(pow, dim=others, keepdim=True) if others else v.abs()


# ---------------------------------------------------------------- bit shifts
def _shift(name, left):
    def shift(input, other, *, out=None):
        a = input if isinstance(input, Tensor) else tensor(input)
        b = other if isinstance(other, Tensor) else tensor(other, dtype=a.dtype,
                                                            device=a.device)
        if a.dtype.kind not in "iu" or b.dtype.kind not in "iu":
            raise TypeError(f"{name}: input and other must be integer tensors, got "
                            f"{a.dtype} and {b.dtype}")
        x, s = np.asarray(a.cpu()._data), np.asarray(b.cpu()._data).astype(np.int64)
        bits = 8 * x.dtype.itemsize
        safe = np.clip(s, 0, bits - 1)
        if left:
            result = np.where((s >= bits) | (s < 0), 0, np.left_shift(x, safe))
        else:
            result = np.where(s < 0, 0, np.right_shift(x, safe))
        return tensor(result.astype(x.dtype), device=a.device)
    shift.__name__ = name
    shift.__doc__ = (f"``torch.{name}``: integers shifted {'left' if left else 'right'} by "
                     f"``other`` bits ({'zeros shifted in' if left else 'arithmetic'}).")
    return shift


bitwise_left_shift = _shift("bitwise_left_shift", True)
bitwise_right_shift = _shift("bitwise_right_shift", False)


# ---------------------------------------------------------------- indices and copies
def nonzero_static(input, *, size, fill_value=-1):
    """``torch.nonzero_static``: ``nonzero`` cut or padded with ``fill_value`` to ``size``
    rows.

    >>> import eagerad.torch as torch
    >>> torch.nonzero_static(torch.tensor([1, 0, 1]), size=1)
    tensor([[0]])
    """
    found = np.argwhere(np.asarray(input.detach().cpu()._data))
    rows = np.full((size, input.ndim), fill_value, dtype=np.int64)
    rows[:min(size, len(found))] = found[:size]
    return tensor(rows, device=input.device)


def select_copy(input, dim, index):
    """``torch.select_copy``: ``input.select(dim, index)`` as a new tensor.

    >>> import eagerad.torch as torch
    >>> torch.select_copy(torch.arange(6.0).reshape(2, 3), 1, 2)
    tensor([2., 5.])
    """
    return input.select(dim, index).clone()


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """``torch.slice_copy``: ``input[..., start:end:step, ...]`` along ``dim``, copied.

    >>> import eagerad.torch as torch
    >>> torch.slice_copy(torch.arange(5.0), 0, 1, None, 2)
    tensor([1., 3.])
    """
    axis = dim + input.ndim if dim < 0 else dim
    return input[(slice(None),) * axis + (slice(start, end, step),)].clone()


def detach_copy(input):
    """``torch.detach_copy``: a detached copy.

    >>> import eagerad.torch as torch
    >>> torch.detach_copy(torch.ones(1, requires_grad=True)).requires_grad
    False
    """
    return input.detach().clone()


def split_copy(input, split_size, dim=0):
    """``torch.split_copy``: ``torch.split`` whose pieces are copies.

    >>> import eagerad.torch as torch
    >>> [p.tolist() for p in torch.split_copy(torch.arange(3.0), 2)]
    [[0.0, 1.0], [2.0]]
    """
    return tuple(p.clone() for p in input.split(split_size, dim))


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """``torch.unsafe_split_with_sizes``: ``split`` by the given sizes.

    >>> import eagerad.torch as torch
    >>> [p.shape[0] for p in torch.unsafe_split_with_sizes(torch.arange(5.0), [2, 3])]
    [2, 3]
    """
    if sum(split_sizes) != input.shape[dim]:
        raise ValueError(f"unsafe_split_with_sizes: split_sizes {list(split_sizes)} must sum "
                         f"to the size {input.shape[dim]} of dimension {dim}")
    return tuple(input.split(list(split_sizes), dim))


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """``torch.empty_permuted``: an uninitialised tensor of ``size`` (the memory layout
    hint is accepted and checked; eagerad stores it row-major).

    >>> import eagerad.torch as torch
    >>> torch.empty_permuted((2, 3), (1, 0)).shape
    torch.Size([2, 3])
    """
    if sorted(physical_layout) != list(range(len(size))):
        raise ValueError(f"empty_permuted: physical_layout {tuple(physical_layout)} must be a "
                         f"permutation of range({len(size)})")
    return empty(*size, dtype=dtype, device=device, requires_grad=requires_grad)


# ---------------------------------------------------------------- low-rank SVD and PCA
def svd_lowrank(A, q=6, niter=2, M=None):
    """``torch.svd_lowrank``: the ``q`` leading singular triplets ``(U, S, V)`` of ``A``
    (minus ``M``).  Computed exactly (PyTorch approximates them by random projections),
    differentiable through ``linalg.svd``.

    >>> import eagerad.torch as torch
    >>> torch.svd_lowrank(torch.tensor([[3.0, 0.0], [0.0, 1.0]]), q=1)[1]
    tensor([3.])
    """
    B = A if M is None else A - M
    q = min(q, *B.shape[-2:])
    U, S, Vh = _svd(B, full_matrices=False)
    return U[..., :q], S[..., :q], Vh[..., :q, :].transpose(-2, -1)


def pca_lowrank(A, q=None, center=True, niter=2):
    """``torch.pca_lowrank``: ``svd_lowrank`` of ``A`` with its column means removed
    (``center``), ``q`` defaulting to ``min(6, m, n)``.

    >>> import eagerad.torch as torch
    >>> torch.pca_lowrank(torch.tensor([[1.0, 0.0], [3.0, 0.0]]), q=1)[1]
    tensor([1.4142])
    """
    q = min(6, *A.shape[-2:]) if q is None else q
    B = A - A.mean(-2, keepdim=True) if center else A
    return svd_lowrank(B, q, niter)


# ---------------------------------------------------------------- environment
def to_dlpack(tensor):
    """``torch.to_dlpack``: a DLPack capsule of ``tensor`` (shares memory)."""
    return tensor.__dlpack__()


def is_storage(obj):
    """``torch.is_storage``: eagerad's tensors carry no separate storage objects.

    >>> import eagerad.torch as torch
    >>> torch.is_storage(torch.ones(1))
    False
    """
    return False


def is_distributed(input):
    """``torch.is_distributed``: False (no distributed tensors)."""
    return False


def is_vulkan_available():
    """``torch.is_vulkan_available``: False."""
    return False


def compiled_with_cxx11_abi():
    """``torch.compiled_with_cxx11_abi``: no C++ extension ABI here; True, as current
    PyTorch wheels answer."""
    return True


def init_num_threads():
    """``torch.init_num_threads``: nothing to initialise."""


_shift_methods = {
    "bitwise_left_shift": bitwise_left_shift, "bitwise_right_shift": bitwise_right_shift,
    "bitwise_left_shift_": lambda self, other: self.copy_(bitwise_left_shift(self, other)),
    "bitwise_right_shift_": lambda self, other: self.copy_(bitwise_right_shift(self, other)),
    "nonzero_static": nonzero_static,
    "unsafe_split_with_sizes": unsafe_split_with_sizes,
}
for _name, _impl in _shift_methods.items():
    install(Tensor, _name)
    TORCH.attributes[_name] = _impl

__all__ = ["convolution", "grid_sampler", "native_dropout", "native_channel_shuffle",
           "norm_except_dim", "bitwise_left_shift", "bitwise_right_shift", "nonzero_static",
           "select_copy", "slice_copy", "detach_copy", "split_copy", "unsafe_split_with_sizes",
           "empty_permuted", "svd_lowrank", "pca_lowrank", "to_dlpack", "is_storage",
           "is_distributed", "is_vulkan_available", "compiled_with_cxx11_abi",
           "init_num_threads"]
