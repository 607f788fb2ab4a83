"""Weight initialisers, seeded by ``eagerad.set_seed``.

MindSpore style: ``initializer(init, shape, dtype)`` with ``init`` a name
(``'normal'``, ``'xavier_uniform'``, ``'zeros'``, ...), a number, a Tensor or a
callable ``f(shape, dtype)``.  PyTorch style: ``xavier_uniform_(t)`` etc. fill an
existing tensor in place.

>>> import eagerad
>>> eagerad.set_seed(0)
>>> initializer('zeros', (2, 3)).shape
(2, 3)
"""
import math

import numpy as np

from .. import dtype as dt
from .. import _upcalls
from ..ops.inplace import check_draw
from ..tensor import Tensor, full, rand, randn
from . import init_draws
from .inplace import assign


def _fans(shape):
    """(fan_in, fan_out) of a weight: ``(out, in, *kernel)`` as in Dense/Conv; a 0-/1-D
    shape (a bias drawn like a weight) counts its length both ways."""
    if len(shape) < 2:
        return (shape[0], shape[0]) if shape else (1, 1)
    return init_draws.fan_in_and_fan_out(shape)


def zeros(shape, dtype=dt.float32):
    """All zeros (MindSpore's ``'zeros'``), the usual bias start.

    >>> zeros((2,)).tolist()
    [0.0, 0.0]
    """
    return full(tuple(shape), 0.0, dtype=dtype)


def ones(shape, dtype=dt.float32):
    """All ones (MindSpore's ``'ones'``), e.g. a normalisation scale.

    >>> ones((2,)).tolist()
    [1.0, 1.0]
    """
    return full(tuple(shape), 1.0, dtype=dtype)


def normal(shape, sigma=0.01, mean=0.0, dtype=dt.float32):
    """N(mean, sigma**2) samples (MindSpore's ``Normal``: sigma defaults to 0.01).

    >>> float(abs(normal((1000,)).numpy()).max()) < 0.1
    True
    """
    check_draw("normal", std=sigma)
    return randn(*shape, dtype=dtype) * sigma + mean


def uniform(shape, scale=0.07, dtype=dt.float32):
    """U(-scale, scale) samples (MindSpore's ``Uniform``).

    >>> float(abs(uniform((1000,), scale=0.5).numpy()).max()) <= 0.5
    True
    """
    return (rand(*shape, dtype=dtype) * 2 - 1) * scale


def xavier_uniform(shape, gain=1.0, dtype=dt.float32):
    """U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))`` (Glorot & Bengio).

    >>> float(abs(xavier_uniform((4, 2)).numpy()).max()) <= 1.0
    True
    """
    fan_in, fan_out = _fans(shape)
    return uniform(shape, gain * math.sqrt(6.0 / (fan_in + fan_out)), dtype)


def he_uniform(shape, negative_slope=math.sqrt(5), dtype=dt.float32):
    """U(-a, a) with ``a = sqrt(6 / ((1 + slope**2) fan_in))``; the default slope gives
    ``a = 1/sqrt(fan_in)``, the Dense/Linear default of MindSpore 2.x and PyTorch.

    >>> float(abs(he_uniform((2, 4)).numpy()).max()) <= 0.5   # fan_in 4: a = 1/2
    True
    """
    fan_in, _ = _fans(shape)
    return uniform(shape, math.sqrt(6.0 / ((1 + negative_slope ** 2) * fan_in)), dtype)


def _drawn(draw):
    """A name's initialiser from an ``init_draws`` family (float64 numpy of a shape)."""
    return lambda shape, dtype=dt.float32: Tensor(np.asarray(draw(tuple(shape))), dtype=dtype)


_HE_UNIFORM = _drawn(lambda s: init_draws.kaiming(s, 0, distribution="uniform"))
_HE_NORMAL = _drawn(lambda s: init_draws.kaiming(s, 0, distribution="normal"))
_XAVIER_NORMAL = _drawn(lambda s: init_draws.xavier(s, 1.0, "normal"))
# MindSpore's names (case and underscores aside), each meaning its class's defaults:
# 'he_uniform' is HeUniform() -- slope 0, bound sqrt(6 / fan_in) -- not the Dense default
INITIALIZERS = {"zeros": zeros, "zero": zeros, "ones": ones, "one": ones, "normal": normal,
                "uniform": uniform, "xavier_uniform": xavier_uniform,
                "xavieruniform": xavier_uniform, "he_uniform": _HE_UNIFORM,
                "heuniform": _HE_UNIFORM, "he_normal": _HE_NORMAL, "henormal": _HE_NORMAL,
                "xavier_normal": _XAVIER_NORMAL, "xaviernormal": _XAVIER_NORMAL,
                "truncatednormal": _drawn(lambda s: init_draws.truncated_normal(s, 0.0, 0.01)),
                "identity": _drawn(init_draws.eye), "dirac": _drawn(init_draws.dirac),
                "orthogonal": _drawn(init_draws.orthogonal),
                "variancescaling": _drawn(init_draws.variance_scaling)}


def initializer(init, shape, dtype=dt.float32):
    """A new Tensor of ``shape`` made by ``init`` (name, number, Tensor/array or callable).

    >>> initializer(2.5, (2,)).tolist()
    [2.5, 2.5]
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if isinstance(init, str):
        try:
            return INITIALIZERS[init.lower()](shape, dtype=dtype)
        except KeyError:
            raise ValueError(f"unknown initializer {init!r}; known: {sorted(INITIALIZERS)}") from None
    if isinstance(init, (int, float)) and not isinstance(init, bool):
        return full(shape, float(init), dtype=dtype)
    if isinstance(init, (Tensor, np.ndarray)):
        t = Tensor(init, dtype=dtype)
        if t.shape != shape:
            raise ValueError(f"initializer tensor has shape {t.shape}, expected {shape}")
        return t
    if callable(init):
        return Tensor(init(shape, dtype), dtype=dtype)
    raise TypeError(f"initializer must be a name, number, Tensor or callable, got {type(init).__name__}")


# ------------------------------------------------------ PyTorch in-place style


def constant_(t, val):
    """Fill ``t`` with ``val`` in place.

    >>> constant_(eagerad.zeros(2), 3).tolist()
    [3.0, 3.0]
    """
    return assign(t, full(t.shape, float(val), dtype=t.dtype))


def zeros_(t):
    """Fill ``t`` with zeros in place (PyTorch), e.g. to reset a bias.

    >>> zeros_(eagerad.ones(2)).tolist()
    [0.0, 0.0]
    """
    return constant_(t, 0.0)


def ones_(t):
    """Fill ``t`` with ones in place (PyTorch).

    >>> ones_(eagerad.zeros(2)).tolist()
    [1.0, 1.0]
    """
    return constant_(t, 1.0)


def normal_(t, mean=0.0, std=1.0):
    """Fill ``t`` with N(mean, std**2) samples (PyTorch: std defaults to 1).

    >>> normal_(eagerad.zeros(3), mean=5.0, std=0.0).tolist()
    [5.0, 5.0, 5.0]
    """
    return assign(t, normal(t.shape, std, mean, t.dtype))


def uniform_(t, a=0.0, b=1.0):
    """Fill ``t`` with U(a, b) samples.

    >>> t = uniform_(eagerad.zeros(100), 2.0, 3.0).numpy()
    >>> bool(((t >= 2) & (t <= 3)).all())
    True
    """
    check_draw("uniform_", low=a, high=b)
    return assign(t, rand(*t.shape, dtype=t.dtype) * (b - a) + a)


def xavier_uniform_(t, gain=1.0):
    """Fill ``t`` with Glorot-uniform samples (see ``xavier_uniform``).

    >>> float(abs(xavier_uniform_(eagerad.zeros(3, 3)).numpy()).max()) <= 1.0   # a = 1
    True
    """
    return assign(t, xavier_uniform(t.shape, gain, t.dtype))


_upcalls.register("initializer", initializer)     # for Tensor(shape=, init=) (tensor.py)
