"""PyTorch's ``torch.nn.utils`` helpers: gradient clipping and flat parameter vectors.

>>> import eagerad
>>> w = eagerad.Parameter(eagerad.tensor([3.0, 4.0]))
>>> (w * w).sum().backward()                 # grad [6, 8], norm 10
>>> round(clip_grad_norm_([w], 1.0).item(), 6), [round(v, 6) for v in w.grad.tolist()]
(10.0, [0.6, 0.8])
"""
import math

import numpy as np

from ..autograd import no_grad
from ..ops import cat
from ..tensor import Tensor
from .inplace import assign


def _params(parameters):
    return [parameters] if isinstance(parameters, Tensor) else list(parameters)


def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale the gradients in place so that their joint ``norm_type``-norm is at most
    ``max_norm``; returns the norm before clipping (a 0-d Tensor).

    >>> w = eagerad.Parameter(eagerad.tensor([1.0, -2.0])); w.grad = eagerad.tensor([1.0, -2.0])
    >>> clip_grad_norm_(w, 10.0, norm_type='inf').item(), w.grad.tolist()
    (2.0, [1.0, -2.0])
    """
    grads = [p.grad for p in _params(parameters) if p.grad is not None]
    if not grads:
        return Tensor(0.0)
    norm_type = float(norm_type)
    if norm_type == 2.0:
        arrays = _plain_arrays(grads)
        if arrays is not None:
            return _clip_arrays(grads, arrays, float(max_norm), error_if_nonfinite)
    with no_grad():
        if math.isinf(norm_type):
            parts = [g.abs().max() for g in grads]
            total = parts[0] if len(parts) == 1 else cat([t.reshape(1) for t in parts]).max()
        else:
            total = sum((g.abs() ** norm_type).sum() for g in grads) ** (1.0 / norm_type)
        value = float(total)
        if error_if_nonfinite and not math.isfinite(value):
            raise RuntimeError(f"the total norm of order {norm_type} of the gradients is "
                               f"{value}; pass error_if_nonfinite=False to clip anyway")
        scale = float(max_norm) / (value + 1e-6)
        if scale < 1.0:
            for g in grads:
                g.mul_(scale)
    return total


def _plain_arrays(grads):
    """The gradients' numpy arrays when all are writable float32 (or all float64) CPU
    arrays of tensors outside any graph, else None (then Tensor ops run)."""
    arrays = []
    dtype = grads[0]._data.dtype
    for g in grads:
        a = g._data
        if type(a) is not np.ndarray or a.dtype != dtype or g._requires_grad \
                or not a.flags.writeable or g._device.type != "cpu":
            return None
        arrays.append(a)
    return arrays if dtype.char in "fd" else None


def _clip_arrays(grads, arrays, max_norm, error_if_nonfinite):
    """``clip_grad_norm_``'s 2-norm on bare arrays: one pass per gradient for the sum of
    squares (float64, rounded once), one in-place multiply each when clipping (the
    numbers of ``g.mul_(scale)``)."""
    from ..backend.cpu.optim_kernels import sum_squares
    total = 0.0
    for a in arrays:
        total += sum_squares(a.reshape(-1)) if a.flags.c_contiguous else \
            float(np.sum(np.square(a, dtype=np.float64)))
    dtype = arrays[0].dtype
    norm = np.asarray(math.sqrt(total), dtype)
    value = float(norm)
    if error_if_nonfinite and not math.isfinite(value):
        raise RuntimeError(f"the total norm of order 2.0 of the gradients is {value}; pass "
                           "error_if_nonfinite=False to clip anyway")
    scale = max_norm / (value + 1e-6)
    if scale < 1.0:
        factor = dtype.type(scale)
        for g, a in zip(grads, arrays):
            np.multiply(a, factor, out=a)
            g._version[0] += 1
    first = grads[0]
    return Tensor._make(norm, first._device, face=first._face)


def clip_grad_value_(parameters, clip_value):
    """Clamp every gradient entry to ``[-clip_value, clip_value]`` in place.

    >>> w = eagerad.Parameter(eagerad.zeros(2)); w.grad = eagerad.tensor([0.5, -3.0])
    >>> clip_grad_value_([w], 1.0); w.grad.tolist()
    [0.5, -1.0]
    """
    with no_grad():
        for p in _params(parameters):
            if p.grad is not None:
                p.grad.clamp_(-clip_value, clip_value)


def parameters_to_vector(parameters):
    """All parameters flattened into one vector (a copy), in order.

    >>> parameters_to_vector([eagerad.ones(2, 1), eagerad.zeros(1)]).tolist()
    [1.0, 1.0, 0.0]
    """
    return cat([p.reshape(-1) for p in _params(parameters)])


def vector_to_parameters(vec, parameters):
    """Write consecutive slices of ``vec`` into the parameters (the inverse of
    ``parameters_to_vector``); the lengths must add up.

    >>> w = eagerad.Parameter(eagerad.zeros(2, 1))
    >>> vector_to_parameters(eagerad.tensor([3.0, 4.0]), [w]); w.tolist()
    [[3.0], [4.0]]
    """
    params = _params(parameters)
    total = sum(p.size for p in params)
    if vec.ndim != 1 or vec.size != total:
        raise ValueError(f"vec must be a vector of {total} entries (the parameters' sizes), got "
                         f"shape {vec.shape}")
    offset = 0
    with no_grad():
        for p in params:
            assign(p, vec[offset:offset + p.size].reshape(p.shape))
            offset += p.size
