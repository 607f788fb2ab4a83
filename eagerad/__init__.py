"""eagerad: an eager (PyNative-style) automatic-differentiation engine.

>>> import eagerad
>>> x = eagerad.tensor(0.5, requires_grad=True)
>>> (x ** 3).backward(); x.grad.item()
0.75
"""
from . import dtype
from .face import ambiguous as _ambiguous
from .dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8)
from .dtype import cdouble, cfloat, complex64, complex128
from .device import Device as device
from .printing import set_printoptions
from .tensor import from_dlpack, from_numpy
from .tensor import (Shape as Size, as_tensor, empty, empty_like, rand_like, randint,
                     randint_like, randn_like)
from .dtype import get_default_dtype, set_default_dtype
from .context import get_default_device, set_default_device
from .tensor import (Parameter, ParameterTuple, Tensor, arange, eye, full, full_like, linspace,
                     ones, ones_like, rand, randn, set_seed, manual_seed, tensor, zeros, zeros_like)
from . import autograd
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from . import ops
from .ops import (abs, add, cat, concat, cos, div, exp, log, matmul, maximum, mean, minimum,
                  mul, reshape, sigmoid, sin, sqrt, square, stack, sub, tanh, transpose, where)
from . import context
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context
from .jit import jit, ms_function
from .ops import stop_gradient
from .transforms import grad, value_and_grad
from .functional import hessian, jacfwd, jacrev, jvp, vjp
from .vectorize import vmap
import sys as _sys
from . import func                                   # torch.func
from . import autograd_functional as _autograd_functional
autograd.functional = _autograd_functional           # torch.autograd.functional
_sys.modules[__name__ + ".autograd.functional"] = _autograd_functional   # `import eagerad.autograd.functional`
from .custom import custom_jvp, custom_vjp
from .transforms import GradOperation
ops.GradOperation = GradOperation                    # MindSpore's ops.GradOperation, living with the transforms
from . import amp
from . import nn
from . import optim  # eagerad.optim.Adam, eagerad.optim.lr_scheduler, as torch.optim
from . import viz
from . import accelerator, cuda, data, linalg, printing, tree
from .checkpoint import checkpoint
from . import utils
from . import train
from .train import Model
from .serialization import load, load_checkpoint, load_param_into_net, save, save_checkpoint

from .ops import allclose, isclose
from .ops import equal_all as equal       # torch.equal: one bool for the whole tensors

# PyTorch's top-level tensor functions (``torch.flip``, ``torch.gather``, ...)
from .ops import (argwhere, atleast_1d, atleast_2d, atleast_3d, broadcast_tensors, chunk,
                  column_stack, diag, diag_embed, diagonal, diff, dsplit, dstack, flip, fliplr,
                  flipud, gather, hsplit, hstack, index_add, index_select, masked_fill,
                  masked_select, moveaxis, movedim, nonzero, repeat_interleave, roll, rot90,
                  row_stack, scatter, scatter_add, searchsorted, split, t, take, take_along_dim,
                  tensor_split, tile, tril, triu, unbind, unique, vsplit, vstack)


def meshgrid(*tensors, indexing=None):
    """Coordinate grids; ``indexing`` ('ij' or 'xy') must be given: PyTorch's default is
    'ij', MindSpore's and numpy's 'xy' (``eagerad.torch.meshgrid`` and
    ``eagerad.mindspore.ops.meshgrid`` take theirs).

    >>> [g.shape for g in meshgrid(ones(2), ones(3), indexing='ij')]
    [(2, 3), (2, 3)]
    """
    if indexing is None:
        raise _ambiguous("meshgrid() without indexing=", "indexing='ij'", "indexing='xy'",
                        "pass indexing=")
    return ops.meshgrid(*tensors, indexing=indexing)


# reductions under PyTorch's names; torch.sort/torch.median return (values, indices)
from .ops import (argsort, count_nonzero, cummax, cummin, cumprod, cumsum, kthvalue,
                  logcumsumexp, msort, nanmean, nansum, norm, prod, quantile, std, topk, var)
from .ops.sorting import sort_with_indices as sort
from .ops.statistics import median_lower as median

# PyTorch's spellings of dtypes and seeding
float, double, half, long, int, bool = float32, float64, float16, int64, int32, bool_

__version__ = "0.1.0"

# one intra-op thread count for BLAS, Numba's kernels and the CPU pool (torch.set_num_threads)
from .backend.cpu.threads import get_num_threads, set_num_threads
