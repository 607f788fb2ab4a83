"""The initialiser families both frameworks share -- He (Kaiming), Glorot (Xavier),
truncated normal, orthogonal, Dirac, identity, sparse -- as float64 numpy arrays of a
shape, with the fans and gains both compute the same way.

Why one place: PyTorch's in-place ``nn.init.kaiming_normal_(w)`` and MindSpore's
``HeNormal()`` objects draw the same distributions; each face adapts these to its own
spelling (``eagerad/torch/nn/init.py``, ``eagerad/mindspore/common/initializer.py``).
Draws come from the host generator (``manual_seed``/``set_seed``) or ``generator``.

>>> fan_in_and_fan_out((8, 3, 5, 5))
(75, 200)
>>> dirac((2, 2, 3))[:, :, 1].tolist()
[[1.0, 0.0], [0.0, 1.0]]
"""
import math
import numbers
import warnings

import numpy as np

from .. import sampling
from ..ops import erfinv as _erfinv
from ..ops.inplace import check_draw
from ..tensor import Tensor

_LINEAR = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "sigmoid")


def calculate_gain(nonlinearity, param=None):
    """The recommended scale of an initialisation for ``nonlinearity`` (both frameworks'
    table).

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


def fan_in_and_fan_out(shape):
    """``(fan_in, fan_out)`` of a weight ``(out, in, *kernel)``.

    >>> fan_in_and_fan_out((10, 4))
    (4, 10)
    """
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         f"dimensions (got shape {tuple(shape)})")
    receptive = math.prod(shape[2:])
    return shape[1] * receptive, shape[0] * receptive


def correct_fan(shape, mode):
    """The fan ``mode`` ('fan_in' or 'fan_out') names.

    >>> correct_fan((10, 4), "fan_out")
    10
    """
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = fan_in_and_fan_out(shape)
    return fan_in if mode == "fan_in" else fan_out


def uniform(shape, low, high, generator=None):
    """U(low, high) draws.

    >>> float(abs(uniform((100,), -0.5, 0.5)).max()) <= 0.5
    True
    """
    return sampling._rng(generator).uniform(low, high, tuple(shape))


def normal(shape, mean, std, generator=None):
    """N(mean, std**2) draws.

    >>> normal((2,), 3.0, 0.0).tolist()
    [3.0, 3.0]
    """
    return sampling._rng(generator).normal(mean, std, tuple(shape))


def kaiming(shape, a=0, mode="fan_in", nonlinearity="leaky_relu", distribution="normal",
            generator=None):
    """He's draws: N(0, std**2) or U(-sqrt(3) std, sqrt(3) std), ``std = gain / sqrt(fan)``
    (``a``: the leaky ReLU's slope).

    >>> float(abs(kaiming((4, 6), nonlinearity="relu", distribution="uniform")).max()) <= 1.0
    True
    """
    std = calculate_gain(nonlinearity, a) / math.sqrt(correct_fan(shape, mode))
    if distribution == "uniform":
        return uniform(shape, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)
    return normal(shape, 0.0, std, generator)


def xavier(shape, gain=1.0, distribution="normal", generator=None):
    """Glorot's draws: N(0, std**2) or U(-sqrt(3) std, sqrt(3) std), ``std = gain *
    sqrt(2 / (fan_in + fan_out))``.

    >>> xavier((4, 4), gain=0.0)[0].tolist()
    [0.0, 0.0, 0.0, 0.0]
    """
    fan_in, fan_out = fan_in_and_fan_out(shape)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    if distribution == "uniform":
        return uniform(shape, -math.sqrt(3.0) * std, math.sqrt(3.0) * std, generator)
    return normal(shape, 0.0, std, generator)


def truncated_normal(shape, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None, name="trunc_normal_"):
    """N(mean, std**2) truncated to [a, b] (absolute bounds), by the inverse CDF, so bounds
    far in a tail cost nothing.

    >>> float(abs(truncated_normal((1000,), 0.0, 1.0, -0.1, 0.1)).max()) <= 0.1
    True
    """
    check_draw(name, std=std, low=a, high=b)
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn(f"mean is more than 2 std from [a, b] in {name}. The distribution of "
                      "values may be incorrect.", stacklevel=3)
    cdf = [0.5 * (1 + math.erf((bound - mean) / (std * math.sqrt(2)))) if std
           else float(bound > mean) for bound in (a, b)]
    draws = uniform(shape, 2 * cdf[0] - 1, 2 * cdf[1] - 1, generator)
    values = _erfinv(Tensor(draws)).numpy() * std * math.sqrt(2.0) + mean
    return np.clip(values, a, b)


def variance_scaling(shape, scale=1.0, mode="fan_in", distribution="truncated_normal",
                     generator=None):
    """Draws of variance ``scale / fan`` (``mode``: fan_in, fan_out or fan_avg, their
    mean): 'untruncated_normal', 'truncated_norm' (a normal cut at 2 std, rescaled) or
    uniform -- and 'truncated_normal', MindSpore's default, uniform too, as MindSpore 2.x
    draws it (its code tests for 'truncated_norm'; the variance is the same).

    >>> float(abs(variance_scaling((200, 100), 2.0)).max()) <= (3 * 2.0 / 100) ** 0.5
    True
    """
    if scale <= 0.0:
        raise ValueError(f"VarianceScaling: scale must be greater than 0, got {scale}")
    if mode not in ("fan_in", "fan_out", "fan_avg"):
        raise ValueError(f"VarianceScaling: mode must be fan_in, fan_out or fan_avg, got {mode!r}")
    if distribution not in ("uniform", "truncated_normal", "untruncated_normal", "truncated_norm"):
        raise ValueError(f"VarianceScaling: distribution must be uniform, truncated_normal or "
                         f"untruncated_normal, got {distribution!r}")
    fan_in, fan_out = fan_in_and_fan_out(shape)
    fan = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[mode]
    scale = scale / max(1.0, fan)
    if distribution == "truncated_norm":
        std = math.sqrt(scale) / 0.87962566103423978      # the std of N(0, 1) cut at +-2
        return truncated_normal(shape, 0.0, std, -2 * std, 2 * std, generator)
    if distribution == "untruncated_normal":
        return normal(shape, 0.0, math.sqrt(scale), generator)
    limit = math.sqrt(3.0 * scale)
    return uniform(shape, -limit, limit, generator)


def orthogonal(shape, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix times ``gain`` (rows or columns orthonormal, whichever
    are fewer), dimensions after the first flattened.

    >>> q = orthogonal((3, 3)); bool(abs(q @ q.T - np.eye(3)).max() < 1e-12)
    True
    """
    if len(shape) < 2:
        raise ValueError(f"Only tensors with 2 or more dimensions are supported, got shape "
                         f"{tuple(shape)}")
    rows = shape[0]
    cols = math.prod(shape) // rows if rows else 0
    if rows * cols == 0:
        return np.zeros(shape)
    flat = sampling._rng(generator).standard_normal((rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))          # the unique Q with a positive diagonal in R
    if rows < cols:
        q = q.T
    return (q * gain).reshape(shape)


def dirac(shape, groups=1):
    """A 3-, 4- or 5-D convolution weight that keeps as many input channels as it can, per
    group (a one at the kernel's centre).

    >>> dirac((1, 1, 3)).tolist()
    [[[0.0, 1.0, 0.0]]]
    """
    shape = tuple(shape)
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
    return values


def eye(shape):
    """The identity of a 2-D shape (ones on the diagonal of a rectangle).

    >>> eye((2, 3)).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    if len(shape) != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported, got shape {tuple(shape)}")
    return np.eye(*shape)


def sparse(shape, sparsity, std=0.01, generator=None):
    """A 2-D matrix with ``ceil(sparsity * rows)`` zeros in each column, N(0, std**2)
    elsewhere.

    >>> int((sparse((10, 3), 0.3) == 0).sum())
    9
    """
    if len(shape) != 2:
        raise ValueError(f"Only tensors with 2 dimensions are supported, got shape {tuple(shape)}")
    check_draw("sparse", std=std)
    rows, cols = shape
    rng = sampling._rng(generator)
    values = rng.normal(0.0, std, (rows, cols))
    zeros = int(math.ceil(sparsity * rows))
    for col in range(cols):
        values[rng.permutation(rows)[:zeros], col] = 0
    return values
