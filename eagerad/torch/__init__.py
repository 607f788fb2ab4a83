"""``import eagerad.torch as torch``: PyTorch's face over eagerad's engine.

Tensors made here speak PyTorch (see ``eagerad.face``): they print as PyTorch does, their
``shape`` is a ``torch.Size``, and where PyTorch and MindSpore read a name differently
this face follows PyTorch:

=========================  ==========================================  ==========================
name                       PyTorch (this face)                         MindSpore (eagerad.mindspore)
=========================  ==========================================  ==========================
``nn.Dropout(0.2)``        drop probability ``p``                      keep probability
``x.std()``, ``x.var()``   unbiased (``correction=1``)                 divide by n
``torch.std(x, True)``     ``True`` is ``unbiased``                    --
``x.max(1)``               ``(values, indices)``                       ``(values, indices)``
``torch.max(x)``           the value                                   ``ops.max``: (value, index)
``nn.Conv2d(1, 4, 3)``     padding 0, with bias                        pad_mode 'same', no bias
``nn.BatchNorm2d``         weight, bias, running_mean, running_var     gamma, beta, moving_*
``x.squeeze(d)``           no-op when dim d is not 1                   error
``p.data``                 a tensor outside the graph, same buffer     the parameter itself
``p.data = t``             takes ``t``'s buffer and dtype              keeps the dtype
``torch.Tensor(f64 data)`` float32                                     keeps float64
``torch.meshgrid``         ``indexing='ij'``                           ``'xy'``
``torch.sort``/``median``  ``(values, indices)``; lower median         --
printing                   ``tensor([1., 2.])``                        ``Tensor(shape=[2], ...)``
=========================  ==========================================  ==========================

>>> import eagerad.torch as torch
>>> x = torch.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
>>> x.std(), x.max(0)
(tensor(1.2910, grad_fn=<StdBackward0>), ValuesIndices(values=tensor(4., grad_fn=<ReshapeBackward0>), indices=tensor(3)))
"""
from .. import autograd as _autograd_core
from .. import dtype as _dtype
from .. import ops as _ops
from ..dtype import (bool_ as bool, float16, float32, float64, int8, int16, int32, int64,
                     uint8, get_default_dtype, set_default_dtype)
from ..dtype import cdouble, cfloat, complex64, complex128
from ..device import Device as device
from ..context import get_default_device, set_default_device
from ..autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from ..autograd import no_grad as inference_mode   # same numbers: no graph is recorded
from ..printing import set_printoptions
from ..ops.cumulative import ValuesIndices as _ValuesIndices
from ._face import TORCH, Size
from ._creation import (Tensor, arange, as_tensor, empty, empty_like, eye, from_dlpack,
                        from_numpy, full, full_like, linspace, ones, ones_like, rand, rand_like,
                        randint, randint_like, randn, randn_like, stamped, tensor, zeros,
                        zeros_like)

float, double, half, long, int, short = float32, float64, float16, int64, int32, int16
dtype = type(float32)

# ops that mean the same in PyTorch as in eagerad's core
from ..ops import (abs, acos, acosh, add, all, allclose, amax, amin, any, arctan2, argmax,
                   argmin, argsort, argwhere, asin, asinh, atan, atan2, atanh, atleast_1d,
                   atleast_2d, atleast_3d, broadcast_tensors, broadcast_to, cat, ceil, chunk,
                   clamp, clip, clone, column_stack, concat, copysign, cos, cosh, count_nonzero,
                   cross, cummax, cummin, cumprod, cumsum, deg2rad, det, diag, diag_embed,
                   diagonal, diff, digamma, div, divide, dot, dsplit, dstack, einsum, erf, erfc,
                   erfinv, exp, exp2, expm1, flatten, flip, fliplr, flipud, floor, floor_divide,
                   fmax, fmin, fmod, gather, greater, greater_equal, hsplit, hstack, hypot,
                   index_add, index_select, inner, inverse, isclose, isfinite, isnan, kron,
                   kthvalue, less, less_equal, lgamma, log, log10, log1p, log2, log_softmax,
                   logaddexp, logaddexp2, logcumsumexp, logdet, logical_and, logical_not,
                   logical_or, logical_xor, logit, logsumexp, masked_fill, masked_select,
                   matmul, matrix_exp, matrix_power, maximum, mean, minimum, moveaxis, movedim,
                   msort, mul, multiply, nan_to_num, nanmean, nansum, narrow, neg, negative,
                   nonzero, norm, not_equal, outer, polygamma, pow, prod, quantile, rad2deg,
                   reciprocal, relu, remainder, repeat_interleave, reshape, roll, rot90, round,
                   row_stack, rsqrt, scatter, scatter_add, searchsorted, sigmoid, sign, sin,
                   sinc, sinh, slogdet, softmax, split, sqrt, square, stack, sub, subtract, sum,
                   swapaxes, t, take, take_along_dim, tan, tanh, tensor_split, tensordot, tile,
                   topk, trace, transpose, tril, triu, true_divide, unbind, unique, unsqueeze,
                   vsplit, vstack, where, xlogy)
from ..ops import equal_all as equal
from ..ops.sorting import sort_with_indices as sort
from ..ops.statistics import median_lower as median
from ._opdb_functions import *  # noqa: F401,F403 - PyTorch keywords over the core ops
from . import _storage_methods  # noqa: F401 - Tensor attributes
from ..ops import (bincount, gcd, heaviside, histc, isin, isinf, isneginf, isposinf, isreal, lcm,
                   tril_indices, triu_indices)
from ._discrete import bucketize, chain_matmul, signbit, vander
from ._runtime import (are_deterministic_algorithms_enabled, can_cast, compile, finfo,
                       get_float32_matmul_precision, get_num_threads, iinfo, is_floating_point,
                       is_nonzero, logspace, promote_types, result_type,
                       set_float32_matmul_precision, set_num_threads, use_deterministic_algorithms)
from ._random import (bernoulli, get_rng_state, initial_seed, manual_seed, multinomial, normal,
                      poisson, randperm, seed, set_rng_state)
from ._face import tensor_std as _tensor_std, tensor_var as _tensor_var


def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``torch.std``: unbiased by default; ``torch.std(x, True)`` reads ``True`` as
    ``unbiased``.

    >>> std(tensor([1.0, 2.0, 3.0, 4.0])), std(tensor([1.0, 2.0, 3.0, 4.0]), False)
    (tensor(1.2910), tensor(1.1180))
    """
    return _tensor_std(input, dim, unbiased, keepdim, correction=correction)


def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``torch.var``: unbiased by default.

    >>> var(tensor([1.0, 2.0, 3.0, 4.0]))
    tensor(1.6667)
    """
    return _tensor_var(input, dim, unbiased, keepdim, correction=correction)


def max(input, dim=None, keepdim=False, *, out=None):
    """``torch.max``: the value; along ``dim``, ``(values, indices)``; of two tensors,
    the elementwise maximum.

    >>> x = tensor([[1.0, 5.0], [7.0, 2.0]])
    >>> max(x), max(x, 1).indices, max(x, tensor(3.0))
    (tensor(7.), tensor([1, 0]), tensor([[3., 5.],
            [7., 3.]]))
    """
    return input.max(dim, keepdim) if dim is not None else input.max()


def min(input, dim=None, keepdim=False, *, out=None):
    """``torch.min``: as ``max``.

    >>> min(tensor([3.0, 1.0, 2.0]), 0)
    ValuesIndices(values=tensor(1.), indices=tensor(1))
    """
    return input.min(dim, keepdim) if dim is not None else input.min()


def squeeze(input, dim=None):
    """``torch.squeeze``: a named dimension that is not 1 is left alone.

    >>> squeeze(zeros(2, 1), 0).shape, squeeze(zeros(2, 1), 1).shape
    (torch.Size([2, 1]), torch.Size([2]))
    """
    return input.squeeze(dim)


def meshgrid(*tensors, indexing="ij"):
    """``torch.meshgrid`` with PyTorch's default ``indexing='ij'``.

    >>> [g.shape for g in meshgrid(ones(2), ones(3))]
    [torch.Size([2, 3]), torch.Size([2, 3])]
    """
    return _ops.meshgrid(*tensors, indexing=indexing)


def is_tensor(obj):
    """``torch.is_tensor``.

    >>> is_tensor(ones(1)), is_tensor([1])
    (True, False)
    """
    return isinstance(obj, Tensor)


def numel(input):
    """``torch.numel``: the element count.

    >>> numel(zeros(2, 3))
    6
    """
    return input.numel()


from . import autograd, cuda, func, linalg, nn, optim, special, utils, backends  # noqa: E402
from . import amp, distributions, hub, jit, random, testing  # noqa: E402,F401
from .amp import autocast  # noqa: E402,F401
from . import fft  # noqa: E402
from . import serialization  # noqa: E402
from . import onnx  # noqa: E402
from ..samplers import Generator  # noqa: E402  (for random_split, samplers, DataLoader)
from .serialization import load, save  # noqa: E402


__version__ = "2.13.0+eagerad"
from . import distributed  # noqa: E402,F401  (torch.distributed, over MPI)
from ._linalg_functions import lu, lu_solve, lu_unpack, orgqr, ormqr  # noqa: E402,F401
from ..ops import frexp, i0, nextafter  # noqa: E402,F401  (special functions, issue 20)
from ..ops import gradient  # noqa: E402,F401  (torch.gradient, issue 20)
# torch.X spellings of the N-D convolutions and pools (nnfunc)
from .nn.functional import (adaptive_avg_pool1d, conv3d, conv_transpose1d,  # noqa: E402,F401
                            conv_transpose2d, conv_transpose3d)
from ..ops.grid_sample import grid_sampler_2d, grid_sampler_3d  # noqa: E402,F401
from ..ops.normalization import (native_batch_norm, native_group_norm,  # noqa: E402,F401
                                 native_layer_norm)
from ..ops import index_reduce, scatter_reduce  # noqa: E402,F401  (issue 20: scatter/index reductions)
from ..ops import mode, nanquantile  # noqa: E402,F401  (issue 20: order statistics)
from ..ops.order_statistics import nanmedian_lower as nanmedian  # noqa: E402,F401
from . import masked  # noqa: E402,F401  (issue 20: torch.masked)
from ._toplevel_aliases import *  # noqa: E402,F401,F403  (torch.eq, torch.relu_, ... issue 20)
from ._toplevel_more import *  # noqa: E402,F401,F403  (torch.range, histogram, ... issue 20)
from ._windows import *  # noqa: E402,F401,F403  (torch.hann_window, ... issue 20)
from . import _tensor_methods_more  # noqa: E402,F401  (Tensor.greater, fill_diagonal_, ... issue 20)
from ._legacy_types import *  # noqa: E402,F401,F403  (torch.FloatTensor, ... issue 20)
from ._legacy_types import install_cuda_types as _install_cuda_types  # noqa: E402
_install_cuda_types(cuda)
from ._toplevel_extra import *  # noqa: E402,F401,F403  (torch.convolution, ... issue 20)
from ._out import honour_out as _honour_out  # noqa: E402
_honour_out(globals())      # last: every torch.* function taking out= writes it (_out.py)
