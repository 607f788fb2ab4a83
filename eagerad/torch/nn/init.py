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
import warnings

import numpy as np

from ...nn import init_draws as _draws
from ...nn.inplace import assign
from ...ops.inplace import check_draw
from ...tensor import Tensor

calculate_gain = _draws.calculate_gain


def _calculate_fan_in_and_fan_out(tensor):
    """``(fan_in, fan_out)`` of a weight ``(out, in, *kernel)``, as PyTorch counts them.

    >>> import eagerad.torch as torch
    >>> _calculate_fan_in_and_fan_out(torch.empty(8, 3, 5, 5))
    (75, 200)
    """
    return _draws.fan_in_and_fan_out(tuple(tensor.shape))


def _write(tensor, values):
    """``values`` (numpy, tensor's shape) into ``tensor``'s buffer; returns ``tensor``."""
    assign(tensor, Tensor(np.asarray(values).astype(np.dtype(tensor.dtype), copy=False)))
    return tensor


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    """Fill ``tensor`` with U(a, b) draws.

    >>> import eagerad.torch as torch
    >>> w = uniform_(torch.empty(1000), -0.5, 0.5); bool(w.abs().max() <= 0.5)
    True
    """
    check_draw("uniform_", low=a, high=b)
    return _write(tensor, _draws.uniform(tensor.shape, a, b, generator))


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) draws.

    >>> import eagerad.torch as torch
    >>> normal_(torch.empty(2), 3.0, 0.0).tolist()
    [3.0, 3.0]
    """
    check_draw("normal_", std=std)
    return _write(tensor, _draws.normal(tensor.shape, mean, std, generator))


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Fill ``tensor`` with N(mean, std**2) draws truncated to [a, b] (absolute bounds).

    >>> import eagerad.torch as torch
    >>> w = trunc_normal_(torch.empty(1000), std=1.0, a=-0.1, b=0.1); bool(w.abs().max() <= 0.1)
    True
    """
    return _write(tensor, _draws.truncated_normal(tensor.shape, mean, std, a, b, generator))


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
    return _write(tensor, _draws.eye(tuple(tensor.shape)))


def dirac_(tensor, groups=1):
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: the convolution keeps
    as many input channels as it can, per group.

    >>> import eagerad.torch as torch
    >>> dirac_(torch.empty(2, 2, 3))[:, :, 1].tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _write(tensor, _draws.dirac(tuple(tensor.shape), groups))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    """Glorot's U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> import eagerad.torch as torch
    >>> bool(xavier_uniform_(torch.empty(3, 3)).abs().max() <= 1.0)
    True
    """
    return _write(tensor, _draws.xavier(tuple(tensor.shape), gain, "uniform", generator))


def xavier_normal_(tensor, gain=1.0, generator=None):
    """Glorot's N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> import eagerad.torch as torch
    >>> xavier_normal_(torch.empty(4, 4), gain=0.0).tolist()[0]
    [0.0, 0.0, 0.0, 0.0]
    """
    return _write(tensor, _draws.xavier(tuple(tensor.shape), gain, "normal", generator))


def _kaiming(tensor, a, mode, nonlinearity, distribution, generator):
    if 0 in tuple(tensor.shape):
        warnings.warn("Initializing zero-element tensors is a no-op", stacklevel=3)
        return tensor
    return _write(tensor, _draws.kaiming(tuple(tensor.shape), a, mode, nonlinearity,
                                         distribution, generator))


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's U(-b, b), ``b = gain * sqrt(3 / fan)`` (``a``: the leaky ReLU's slope).

    >>> import eagerad.torch as torch
    >>> w = kaiming_uniform_(torch.empty(4, 6), nonlinearity="relu"); bool(w.abs().max() <= 1.0)
    True
    """
    return _kaiming(tensor, a, mode, nonlinearity, "uniform", generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """He's N(0, std**2), ``std = gain / sqrt(fan)``.

    >>> import eagerad.torch as torch
    >>> kaiming_normal_(torch.empty(64, 32, 3, 3), mode="fan_out").shape
    torch.Size([64, 32, 3, 3])
    """
    return _kaiming(tensor, a, mode, nonlinearity, "normal", generator)


def orthogonal_(tensor, gain=1, generator=None):
    """A (semi-)orthogonal matrix times ``gain``: rows orthonormal or columns orthonormal,
    whichever are fewer; dimensions after the first are flattened.

    >>> import eagerad.torch as torch
    >>> q = orthogonal_(torch.empty(3, 3)); bool(((q @ q.T) - torch.eye(3)).abs().max() < 1e-5)
    True
    """
    return _write(tensor, _draws.orthogonal(tuple(tensor.shape), gain, generator))


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """A 2-D matrix with ``ceil(sparsity * rows)`` zeros in each column, N(0, std**2)
    elsewhere.

    >>> import eagerad.torch as torch
    >>> int((sparse_(torch.empty(10, 3), 0.3) == 0).sum())
    9
    """
    return _write(tensor, _draws.sparse(tuple(tensor.shape), sparsity, std, generator))


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
