"""PyTorch's spellings of discrete-valued functions the core holds under other names or
that differ from MindSpore's (``signbit`` is True for -0.0 here, MindSpore 2.10 says
False), plus ``bucketize``, ``vander`` and ``chain_matmul``.

>>> import eagerad.torch as torch
>>> torch.signbit(torch.tensor([-0.0, 1.0]))
tensor([ True, False])
"""
import functools

import numpy as np

from .. import ops as _ops
from ..face import install, stamp
from ..tensor import Tensor
from ._face import TORCH


def signbit(input):
    """True where the sign bit is set (-0.0 included).

    >>> import eagerad.torch as torch
    >>> torch.tensor([-2.0, 0.0]).signbit()
    tensor([ True, False])
    """
    out = Tensor(np.signbit(input.numpy()))
    return stamp(out.to(input.device) if input.device.type != "cpu" else out, TORCH)


def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each entry of ``input`` between sorted 1-D ``boundaries``:
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``<= x <``).

    >>> import eagerad.torch as torch
    >>> torch.bucketize(torch.tensor([1, 5, 9]), torch.tensor([1, 3, 5, 7]))
    tensor([0, 2, 4])
    """
    b = boundaries.numpy() if isinstance(boundaries, Tensor) else np.asarray(boundaries)
    if b.ndim != 1:
        raise ValueError(f"bucketize: boundaries must be 1-D, got shape {b.shape}")
    x = input.numpy() if isinstance(input, Tensor) else np.asarray(input)
    idx = np.searchsorted(b, x, side="right" if right else "left")
    res = Tensor(np.asarray(idx, np.int32 if out_int32 else np.int64))
    return stamp(res.to(input.device) if isinstance(input, Tensor) and input.device.type != "cpu"
                 else res, TORCH)


def vander(x, N=None, increasing=False):
    """``torch.vander``: columns ``x ** (N-1) ... x ** 0`` (ascending with ``increasing``),
    differentiable.

    >>> import eagerad.torch as torch
    >>> torch.vander(torch.tensor([2.0, 3.0]), 3)
    tensor([[4., 2., 1.],
            [9., 3., 1.]])
    """
    if x.ndim != 1:
        raise ValueError(f"vander: x must be 1-D, got shape {tuple(x.shape)}")
    n = x.shape[0] if N is None else int(N)
    powers = range(n) if increasing else range(n - 1, -1, -1)
    if n == 0:
        return x.reshape(-1, 1)[:, :0]
    return _ops.stack([x ** k if k else _ops.ones_like(x) for k in powers], 1)


def chain_matmul(*matrices, out=None):
    """The product of the matrices, left to right (``torch.chain_matmul``).

    >>> import eagerad.torch as torch
    >>> torch.chain_matmul(torch.eye(2), torch.ones(2, 2) * 3)
    tensor([[3., 3.],
            [3., 3.]])
    """
    if not matrices:
        raise ValueError("chain_matmul: expected one or more matrices")
    return functools.reduce(_ops.matmul, matrices)


install(Tensor, "signbit")
TORCH.attributes["signbit"] = signbit
