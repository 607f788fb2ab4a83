"""``torch.nn.init``: PyTorch's in-place initialisers, with its fans, gains and defaults.

Why its own module: eagerad's ``nn.init`` speaks MindSpore's language (``normal(shape,
sigma=0.01)`` makes a new tensor), while PyTorch's ``init.normal(w)`` is the deprecated
spelling of ``normal_(w)``; programs also call ``kaiming_normal_``, ``trunc_normal_``,
``orthogonal_`` and ``_calculate_fan_in_and_fan_out``.  Draws come from the host
generator (``manual_seed``) or ``generator=``, in float64, and are written into the
tensor in its dtype without recording a graph, as PyTorch's run under ``no_grad``.

>>> import eagerad.torch as torch
>>> w = torch.empty(2, 3); _ = torch.nn.init.constant_(w, 0.5); w.tolist()[0]
[0.5, 0.5, 0.5]
>>> torch.nn.init.calculate_gain("relu") == 2 ** 0.5
True
"""
import math
import numbers
import warnings

import numpy as np

from ... import sampling
from ...nn.inplace import assign
from ...ops import erfinv as _erfinv
from ...ops.inplace import check_draw
from ...tensor import Tensor

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended scale of an initialisation for ``nonlinearity`` (PyTorch's table).

    >>> calculate_gain("tanh"), calculate_gain("leaky_relu", 0.2) == math.sqrt(2 / 1.04)
    (1.6666666666666667, True)
    """
    if nonlinearity in _LINEAR:
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "selu":
        return 3.0 / 4
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, numbers.Real) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight ``(out, in, *kernel)``, as PyTorch counts them.

    >>> import eagerad.torch as torch
    >>> _calculate_fan_in_and_fan_out(torch.empty(8, 3, 5, 5))
    (75, 200)
    """
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         f"dimensions (got shape {tuple(tensor.shape)})")
    receptive = math.prod(tensor.shape[2:])
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _write(tensor, values):
    """``values`` (numpy, tensor's shape) into ``tensor``'s buffer; returns ``tensor``."""
    assign(tensor, Tensor(np.asarray(values).astype(np.dtype(tensor.dtype), copy=False)))
    return tensor


def _uniform(tensor, low, high, generator):
    return _write(tensor, sampling._rng(generator).uniform(low, high, tuple(tensor.shape)))


def _normal(tensor, mean, std, generator):
    return _write(tensor, sampling._rng(generator).normal(mean, std, tuple(tensor.shape)))


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with U(a, b) draws.

    >>> import eagerad.torch as torch
    >>> w = uniform_(torch.empty(1000), -0.5, 0.5); bool(w.abs().max() <= 0.5)
    True
    """
    check_draw("uniform_", low=a, high=b)
    return _uniform(tensor, a, b, generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) draws.

    >>> import eagerad.torch as torch
    >>> normal_(torch.empty(2), 3.0, 0.0).tolist()
    [3.0, 3.0]
    """
    check_draw("normal_", std=std)
    return _normal(tensor, mean, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) draws truncated to [a, b] (absolute bounds), by
    the inverse CDF as PyTorch does, so bounds far in a tail cost nothing.

    >>> import eagerad.torch as torch
    >>> w = trunc_normal_(torch.empty(1000), std=1.0, a=-0.1, b=0.1); bool(w.abs().max() <= 0.1)
    True
    """
    check_draw("trunc_normal_", std=std, low=a, high=b)
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. The "
                      "distribution of values may be incorrect.", stacklevel=2)
    cdf = [0.5 * (1 + math.erf((bound - mean) / (std * math.sqrt(2)))) if std
           else float(bound > mean) for bound in (a, b)]
    draws = sampling._rng(generator).uniform(2 * cdf[0] - 1, 2 * cdf[1] - 1, tuple(tensor.shape))
    values = _erfinv(Tensor(draws)).numpy() * std * math.sqrt(2.0) + mean
    return _write(tensor, np.clip(values, a, b))


def constant_(tensor, val):
    """Fill ``tensor`` with ``val``.

    >>> import eagerad.torch as torch
    >>> constant_(torch.empty(2), 1.5).tolist()
    [1.5, 1.5]
    """
    return _write(tensor, np.full(tuple(tensor.shape), val))


def ones_(tensor):
    """Fill ``tensor`` with ones.

    >>> import eagerad.torch as torch
    >>> ones_(torch.empty(2)).tolist()
    [1.0, 1.0]
    """
    return constant_(tensor, 1.0)


def zeros_(tensor):
    """Fill ``tensor`` with zeros.

    >>> import eagerad.torch as torch
    >>> zeros_(torch.empty(2)).tolist()
    [0.0, 0.0]
    """
    return constant_(tensor, 0.0)


def eye_(tensor):
    """Fill the 2-D ``tensor`` with the identity (ones on the diagonal of a rectangle).

    >>> import eagerad.torch as torch
    >>> eye_(torch.empty(2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported, got shape "
                         f"{tuple(tensor.shape)}")
    return _write(tensor, np.eye(*tensor.shape))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: the convolution keeps
    as many input channels as it can, per group.

    >>> import eagerad.torch as torch
    >>> dirac_(torch.empty(2, 2, 3))[:, :, 1].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    shape = tuple(tensor.shape)
    if len(shape) not in (3, 4, 5):
        raise ValueError(f"Only tensors with 3, 4, or 5 dimensions are supported, got shape "
                         f"{shape}")
    if shape[0] % groups:
        raise ValueError(f"dim 0 ({shape[0]}) must be divisible by groups ({groups})")
    per_group = shape[0] // groups
    values = np.zeros(shape)
    centre = tuple(size // 2 for size in shape[2:])
    for g in range(groups):
        for d in range(min(per_group, shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _write(tensor, values)


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot's U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> import eagerad.torch as torch
    >>> bool(xavier_uniform_(torch.empty(3, 3)).abs().max() <= 1.0)
    True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / float(fan_in + fan_out))
    return _uniform(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot's N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> import eagerad.torch as torch
    >>> xavier_normal_(torch.empty(4, 4), gain=0.0).tolist()[0]
    [0.0, 0.0, 0.0, 0.0]
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return _normal(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def _kaiming_std(tensor, a, mode, nonlinearity):
    return calculate_gain(nonlinearity, a) / math.sqrt(_calculate_correct_fan(tensor, mode))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's U(-b, b), ``b = gain * sqrt(3 / fan)`` (``a``: the leaky ReLU's slope).

    >>> import eagerad.torch as torch
    >>> w = kaiming_uniform_(torch.empty(4, 6), nonlinearity="relu"); bool(w.abs().max() <= 1.0)
    True
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    bound = math.sqrt(3.0) * _kaiming_std(tensor, a, mode, nonlinearity)
    return _uniform(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's N(0, std**2), ``std = gain / sqrt(fan)``.

    >>> import eagerad.torch as torch
    >>> kaiming_normal_(torch.empty(64, 32, 3, 3), mode="fan_out").shape
    torch.Size([64, 32, 3, 3])
    """
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=2)
        return tensor
    return _normal(tensor, 0.0, _kaiming_std(tensor, a, mode, nonlinearity), generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix times ``gain``: rows orthonormal or columns orthonormal,
    whichever are fewer; dimensions after the first are flattened.

    >>> import eagerad.torch as torch
    >>> q = orthogonal_(torch.empty(3, 3)); bool(((q @ q.T) - torch.eye(3)).abs().max() < 1e-5)
    True
    """
    if tensor.ndim < 2:
        raise ValueError(f"Only tensors with 2 or more dimensions are supported, got shape "
                         f"{tuple(tensor.shape)}")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = sampling._rng(generator).standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))          # the unique Q with a positive diagonal in R
    if rows < cols:
        q = q.T
    return _write(tensor, (q * gain).reshape(tuple(tensor.shape)))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D matrix with ``ceil(sparsity * rows)`` zeros in each column, N(0, std**2)
    elsewhere.

    >>> import eagerad.torch as torch
    >>> int((sparse_(torch.empty(10, 3), 0.3) == 0).sum())
    9
    """
    if tensor.ndim != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported, got shape "
                         f"{tuple(tensor.shape)}")
    check_draw("sparse_", std=std)
    rows, cols = tensor.shape
    rng = sampling._rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    zeros = int(math.ceil(sparsity * rows))
    for col in range(cols):
        values[rng.permutation(rows)[:zeros], col] = 0
    return _write(tensor, values)


def _deprecated(method):
    """PyTorch's old spelling without the underscore: warns, then does the same."""
    old = method.__name__[:-1]

    def call(*args, **kwargs):
        warnings.warn(f"`nn.init.{old}` is now deprecated in favor of `nn.init.{method.__name__}`.",
                      FutureWarning, stacklevel=2)
        return method(*args, **kwargs)
    call.__name__ = call.__qualname__ = old
    call.__doc__ = f"Deprecated: ``{method.__name__}``."
    return call


uniform, normal, constant, eye, dirac, xavier_uniform, xavier_normal, kaiming_uniform, \
    kaiming_normal, orthogonal, sparse = map(_deprecated, (
        uniform_, normal_, constant_, eye_, dirac_, xavier_uniform_, xavier_normal_,
        kaiming_uniform_, kaiming_normal_, orthogonal_, sparse_))
