"""Random draws shaped by tensors (categorical, normal with tensor parameters, Bernoulli,
Poisson, permutations) and the state of the host generator.

Every device draws from the CPU backend's generator (``backend.get("cpu").host_rng()``),
so ``manual_seed``/``set_seed`` make these reproducible; a ``generator=`` argument (an int
seed, a ``numpy.random.Generator`` or a ``Generator``) draws from that stream instead.
The names differ from both frameworks' on purpose: ``torch.multinomial`` and
``mindspore.ops.multinomial`` disagree on ``replacement``'s default, ``bernoulli`` on
what its tensor means, so each face binds these under its own spelling.

Draws are not differentiable: their results never require grad (PyTorch's gradient
through ``normal``'s mean and std is zero; here there is no graph to carry it).

>>> import eagerad
>>> eagerad.manual_seed(0)
>>> categorical(eagerad.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
[1, 1]
"""
import json

import numpy as np

from . import backend
from . import dtype as dt
from .samplers import as_rng
from .tensor import Tensor


def _rng(generator):
    return backend.get("cpu").host_rng() if generator is None else as_rng(generator)


def _host(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _like(values, like, dtype=None):
    """``values`` (numpy) as a tensor on ``like``'s device (the CPU for numbers)."""
    device = like.device if isinstance(like, Tensor) else None
    out = Tensor(np.ascontiguousarray(values), dtype=dtype)
    return out.to(device) if device is not None and device.type != "cpu" else out


def categorical(weights, num_samples, replacement=False, generator=None):
    """Indices drawn from the rows of ``weights`` (non-negative, any scale), as int64:
    what ``torch.multinomial`` does.  Without replacement a row yields each index at most
    once (so at most as many samples as it has positive weights).

    >>> import eagerad
    >>> r = categorical(eagerad.tensor([[1.0, 0.0, 1.0]]), 2)
    >>> sorted(r[0].tolist())
    [0, 2]
    """
    w = _host(weights).astype(np.float64)
    if w.ndim not in (1, 2) or w.shape[-1] == 0:
        raise ValueError(f"multinomial: input must be a 1-D or 2-D tensor of weights with at "
                         f"least one category, got shape {tuple(w.shape)}")
    if isinstance(num_samples, bool) or int(num_samples) != num_samples or num_samples <= 0:
        raise ValueError(f"multinomial: num_samples must be a positive int, got {num_samples!r}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("multinomial: input weights must be finite and non-negative")
    rows = w.reshape(-1, w.shape[-1])
    positive = (rows > 0).sum(axis=1)
    if (positive == 0).any():
        raise ValueError("multinomial: a row of input has no positive weight (its sum is 0)")
    if not replacement and num_samples > positive.min():
        raise ValueError(f"multinomial: cannot draw {num_samples} samples without replacement "
                         f"from a row with {int(positive.min())} positive weights")
    rng = _rng(generator)
    u = rng.random((rows.shape[0], int(num_samples) if replacement else rows.shape[1]))
    if replacement:                                  # inverse CDF per row
        cdf = np.cumsum(rows, axis=1)
        cdf /= cdf[:, -1:]
        out = np.stack([np.minimum(np.searchsorted(c, r, side="right"), len(c) - 1)
                        for c, r in zip(cdf, u)])
    else:                                            # keys u**(1/w): the largest ones win
        with np.errstate(divide="ignore"):
            keys = np.where(rows > 0, np.log(u) / rows, -np.inf)
        out = np.argsort(-keys, axis=1, kind="stable")[:, :int(num_samples)]
    return _like(out.reshape(w.shape[:-1] + (int(num_samples),)).astype(np.int64), weights)


def gaussian(mean, std, size=None, generator=None, dtype=None):
    """N(mean, std**2) draws with ``mean``/``std`` tensors or numbers broadcast (or of
    ``size`` when both are numbers): what ``torch.normal`` does.

    >>> import eagerad
    >>> gaussian(eagerad.tensor([1.0, 5.0]), 0.0).tolist()
    [1.0, 5.0]
    """
    m, s = _host(mean), _host(std)
    if (s < 0).any():
        raise ValueError("normal: std must be non-negative")
    like = mean if isinstance(mean, Tensor) else std
    if not isinstance(like, Tensor):
        if size is None:
            raise TypeError("normal(mean, std) with two numbers needs size=, e.g. "
                            "normal(0.0, 1.0, size=(3,))")
        shape, dtype = tuple(size), dt.as_dtype(dtype) or dt.default_float
    else:
        shape = np.broadcast_shapes(m.shape, s.shape)
        dtype = dt.as_dtype(dtype) or like.dtype
    draws = _rng(generator).standard_normal(shape) * s + m
    return _like(np.asarray(draws).astype(dtype), like, dtype)


def coin_flips(probs, generator=None):
    """1 where a uniform draw falls below ``probs`` (each entry its own probability), in
    ``probs``' dtype: what ``torch.bernoulli(input)`` does.

    >>> import eagerad
    >>> coin_flips(eagerad.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    p = _host(probs)
    if ((p < 0) | (p > 1) | np.isnan(p)).any():
        raise ValueError("bernoulli: probabilities in input must lie in [0, 1]")
    return _like((_rng(generator).random(p.shape) < p).astype(p.dtype), probs)


def poisson_counts(rates, generator=None):
    """Poisson counts with the given non-negative ``rates``, in their dtype.

    >>> import eagerad
    >>> poisson_counts(eagerad.tensor([0.0, 0.0])).tolist()
    [0.0, 0.0]
    """
    lam = _host(rates)
    if (lam < 0).any() or not np.isfinite(lam).all():
        raise ValueError("poisson: rates in input must be finite and non-negative")
    return _like(_rng(generator).poisson(lam).astype(lam.dtype), rates)


def permutation(n, generator=None, dtype=None, device=None):
    """A random permutation of ``range(n)`` (int64 unless ``dtype``): ``torch.randperm``.

    >>> sorted(permutation(4).tolist())
    [0, 1, 2, 3]
    """
    if isinstance(n, bool) or int(n) != n or n < 0:
        raise ValueError(f"randperm: n must be a non-negative int, got {n!r}")
    out = Tensor(_rng(generator).permutation(int(n)).astype(dt.as_dtype(dtype) or dt.int64))
    return out if device is None else out.to(device)


def integer_fill(x, low, high, generator=None):
    """Integers uniform in ``[low, high)`` in ``x``'s shape and dtype (``Tensor.random_``).

    >>> import eagerad
    >>> set(integer_fill(eagerad.zeros(50), 0, 2).tolist()) <= {0.0, 1.0}
    True
    """
    if high is None:
        raise ValueError("random_: the upper bound is missing")
    if int(high) <= int(low):
        raise ValueError(f"random_: from ({low}) must be less than to ({high})")
    return _like(_rng(generator).integers(int(low), int(high), x.shape).astype(x.dtype), x)


def host_state():
    """The host generator's state as a uint8 tensor (``torch.get_rng_state``).

    >>> s = host_state(); a = float(backend.get("cpu").host_rng().random())
    >>> set_host_state(s); a == float(backend.get("cpu").host_rng().random())
    True
    """
    text = json.dumps(backend.get("cpu").host_rng().bit_generator.state)
    return Tensor(np.frombuffer(text.encode(), dtype=np.uint8).copy())


def set_host_state(state):
    """Restore a state from ``host_state`` (``torch.set_rng_state``)."""
    raw = _host(state)
    try:
        parsed = json.loads(raw.astype(np.uint8).tobytes().decode())
        rng = backend.get("cpu").host_rng()
        rng.bit_generator.state = parsed
    except (ValueError, TypeError, KeyError) as err:
        raise ValueError(f"set_rng_state: new_state is not a state from get_rng_state "
                         f"({err})") from None
