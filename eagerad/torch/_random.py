"""PyTorch's random functions (``torch.multinomial``, ``normal``, ``bernoulli``, ``poisson``,
``randperm``, the global generator's seed and state) and its sampling Tensor methods,
over ``eagerad.sampling``.  Results speak PyTorch.

>>> import eagerad.torch as torch
>>> torch.manual_seed(0); torch.multinomial(torch.tensor([0.0, 2.0, 0.0]), 1)
tensor([1])
"""
import math

import numpy as np

from .. import sampling
from ..face import install, stamp
from ..tensor import Tensor, manual_seed as _seed_all
from ._face import TORCH

_initial_seed = [0]


def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """``torch.multinomial``: indices drawn from the rows of ``input``'s weights
    (without replacement by default).

    >>> import eagerad.torch as torch
    >>> sorted(torch.multinomial(torch.tensor([1.0, 0.0, 3.0]), 2).tolist())
    [0, 2]
    """
    return stamp(sampling.categorical(input, num_samples, replacement, generator), TORCH)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False):
    """``torch.normal(mean, std, size=None)``: ``mean`` and ``std`` tensors or numbers
    (not differentiable: PyTorch's gradient through the draw is zero).

    >>> import eagerad.torch as torch
    >>> torch.normal(torch.tensor([2.0, 3.0]), 0.0)
    tensor([2., 3.])
    """
    draw = sampling.gaussian(mean, std, size, generator, dtype)
    draw = draw.to(device) if device is not None else draw
    return stamp(draw.requires_grad_(True) if requires_grad else draw, TORCH)


def bernoulli(input, p=None, *, generator=None, out=None):
    """``torch.bernoulli(input)``: 1 with probability ``input`` (or ``p``) per entry.

    >>> import eagerad.torch as torch
    >>> torch.bernoulli(torch.tensor([0.0, 1.0]))
    tensor([0., 1.])
    """
    probs = input if p is None else Tensor(np.full(input.shape, float(p), input.numpy().dtype))
    return stamp(sampling.coin_flips(probs, generator), TORCH)


def poisson(input, generator=None):
    """``torch.poisson``: counts with rates ``input``.

    >>> import eagerad.torch as torch
    >>> torch.poisson(torch.zeros(2))
    tensor([0., 0.])
    """
    return stamp(sampling.poisson_counts(input, generator), TORCH)


def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False,
             pin_memory=False):
    """``torch.randperm``: a random permutation of ``range(n)``, int64.

    >>> import eagerad.torch as torch
    >>> sorted(torch.randperm(3).tolist())
    [0, 1, 2]
    """
    return stamp(sampling.permutation(n, generator, dtype, device), TORCH)


def manual_seed(seed):
    """``torch.manual_seed``: seed every generator (initialisers, dropout, rand/randn,
    the samplers above).

    >>> manual_seed(3); initial_seed()
    3
    """
    _initial_seed[0] = int(seed)
    _seed_all(int(seed))


def seed():
    """``torch.seed``: reseed from fresh entropy; returns the seed.

    >>> isinstance(seed(), int)
    True
    """
    value = int(np.random.SeedSequence().entropy % 2 ** 32)   # numpy's global seed's range
    manual_seed(value)
    return value


def initial_seed():
    """``torch.initial_seed``: the last seed given to ``manual_seed``/``seed``."""
    return _initial_seed[0]


def get_rng_state():
    """``torch.get_rng_state``: the generator's state as a uint8 tensor.

    >>> import eagerad.torch as torch
    >>> s = torch.get_rng_state(); a = torch.rand(2); torch.set_rng_state(s)
    >>> bool((a == torch.rand(2)).all())
    True
    """
    return stamp(sampling.host_state(), TORCH)


def set_rng_state(new_state):
    """``torch.set_rng_state``: restore a state from ``get_rng_state``."""
    sampling.set_host_state(new_state)


def _fill(draw):
    """An in-place sampling method: ``self`` takes ``draw(self)``'s values, returns self."""
    def method(self, *args, **kwargs):
        values = draw(self, *args, **kwargs)
        self.copy_(values if isinstance(values, Tensor) else Tensor(values))
        return self
    return method


def _uniform_open(self, generator):
    """Uniform draws in (0, 1] (never 0, so logs stay finite), as float64 numpy."""
    return 1.0 - sampling._rng(generator).random(self.shape)


def _random_bounds(self, from_=0, to=None, *, generator=None):
    """``random_()``: [0, 2**mantissa bits] for floats (int64's range for integers);
    ``random_(to)``: [0, to); ``random_(from, to)``: [from, to)."""
    if to is None and from_:
        from_, to = 0, from_
    if to is None:
        kind = np.dtype(str(self.dtype).replace("torch.", ""))
        to = 2 ** (np.finfo(kind).nmant + 1) + 1 if kind.kind == "f" else 2 ** 63 - 1
    return sampling.integer_fill(self, from_, to, generator)


def _positive(name, what, value):
    """``value`` when it is > 0, else a ValueError naming it (PyTorch refuses the rest)."""
    if not float(value) > 0:
        raise ValueError(f"{name} expects {what} > 0.0, but found {what}={value}")
    return value


def _geometric(self, p, *, generator=None):
    if not 0 < float(p) < 1:
        raise ValueError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    return np.ceil(np.log(_uniform_open(self, generator)) / math.log1p(-p))


_METHODS = {
    "multinomial": lambda self, num_samples, replacement=False, *, generator=None:
        multinomial(self, num_samples, replacement, generator=generator),
    "bernoulli": lambda self, p=None, *, generator=None: bernoulli(self, p, generator=generator),
    "random_": _fill(_random_bounds),
    "geometric_": _fill(_geometric),
    "cauchy_": _fill(lambda self, median=0.0, sigma=1.0, *, generator=None:
                     median + _positive("cauchy_", "sigma", sigma)
                     * np.tan(math.pi * (_uniform_open(self, generator) - 0.5))),
    "log_normal_": _fill(lambda self, mean=1.0, std=2.0, *, generator=None:
                         np.exp(mean + _positive("log_normal_", "std", std)
                                * sampling._rng(generator).standard_normal(self.shape))),
}
for _name, _impl in _METHODS.items():
    _impl.__name__ = _name
    _impl.__doc__ = f"PyTorch's ``Tensor.{_name}``."
    install(Tensor, _name)
    TORCH.attributes[_name] = _impl
