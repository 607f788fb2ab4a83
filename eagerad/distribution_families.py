"""More of ``torch.distributions``: the gamma family (Gamma, Chi2, Beta, Dirichlet), the
counts (Poisson, Binomial, Geometric) and Gumbel, Cauchy, HalfNormal and StudentT, with
PyTorch's formulas for ``log_prob``, ``entropy``, ``mean``/``mode``/``variance``.

``log_prob`` and the moments are eagerad ops, differentiable in the parameters to any
order.  Draws of the gamma family, the counts and StudentT come from the host generator
(numpy's samplers, ``manual_seed``) through ``sample``; their ``rsample`` (PyTorch's
implicit reparameterisation of the gamma draw) is not offered and says so.  Gumbel,
Cauchy and HalfNormal are reparameterised.

>>> import eagerad
>>> round(Gamma(eagerad.tensor(2.0), eagerad.tensor(3.0)).log_prob(eagerad.tensor(0.5)).item(), 4)
0.0041
"""
import math

import numpy as np

from . import ops
from .distributions import Distribution, Normal, _broadcast, _param, _probs_logits
from .face import stamp
from .sampling import _rng
from .tensor import Tensor, rand

_EULER = 0.5772156649015329


def _drawn(values, like):
    """A host draw (numpy) as a tensor with ``like``'s dtype, device and face."""
    out = Tensor(np.asarray(values).astype(np.dtype(like.dtype)), device=like.device)
    return stamp(out, like._face)


def _host(t, shape):
    """``t`` (a parameter) on the host, broadcast to ``shape``."""
    return np.broadcast_to(t.detach().numpy().astype(np.float64), shape)


def _uniform_open(like, shape):
    """U(0, 1) draws, never exactly 0 or 1 (logs stay finite)."""
    tiny = np.finfo(np.dtype(like.dtype)).tiny
    u = rand(*shape, dtype=like.dtype, device=like.device)
    return ops.clamp(u, tiny, 1 - np.finfo(np.dtype(like.dtype)).eps)


def _lbeta(a, b):
    return ops.lgamma(a) + ops.lgamma(b) - ops.lgamma(a + b)


class Gamma(Distribution):
    """``Gamma(concentration, rate)``: density ``rate^a x^(a-1) e^(-rate x) / Gamma(a)``.

    >>> import eagerad
    >>> Gamma(2.0, 4.0).mean.item(), Gamma(2.0, 4.0).variance.item()
    (0.5, 0.125)
    """

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = _broadcast(concentration, rate)
        super().__init__(self.concentration.shape)

    mean = property(lambda self: self.concentration / self.rate)
    mode = property(lambda self: ops.clamp((self.concentration - 1) / self.rate, 0.0, None))
    variance = property(lambda self: self.concentration / self.rate ** 2)

    def sample(self, sample_shape=()):
        shape = self._extended(sample_shape)
        draws = _rng(None).standard_gamma(_host(self.concentration, shape))
        return _drawn(draws / _host(self.rate, shape), self.concentration)

    def log_prob(self, value):
        a, b = self.concentration, self.rate
        return ops.xlogy(a, b) + ops.xlogy(a - 1, value) - b * value - ops.lgamma(a)

    def entropy(self):
        a = self.concentration
        return a - ops.log(self.rate) + ops.lgamma(a) + (1.0 - a) * ops.digamma(a)


class Chi2(Gamma):
    """``Chi2(df)``: ``Gamma(df / 2, 1 / 2)``.

    >>> import eagerad
    >>> Chi2(eagerad.tensor(4.0)).mean.item()
    4.0
    """

    def __init__(self, df, validate_args=None):
        (df,) = _broadcast(df)
        super().__init__(0.5 * df, ops.full_like(df, 0.5))

    df = property(lambda self: self.concentration * 2)


class Dirichlet(Distribution):
    """``Dirichlet(concentration)`` over the last dimension (the event).

    >>> import eagerad
    >>> Dirichlet(eagerad.tensor([1.0, 3.0])).mean.tolist()
    [0.25, 0.75]
    """

    def __init__(self, concentration, validate_args=None):
        self.concentration = _param(concentration)
        if self.concentration.ndim < 1:
            raise ValueError("Dirichlet: concentration must have at least one dimension")
        super().__init__(self.concentration.shape[:-1], self.concentration.shape[-1:])

    mean = property(lambda self: self.concentration / self.concentration.sum(-1, keepdims=True))

    @property
    def mode(self):
        a = self.concentration
        inside = ops.clamp(a - 1, 0.0, None)
        return inside / inside.sum(-1, keepdims=True)

    @property
    def variance(self):
        a = self.concentration
        total = a.sum(-1, keepdims=True)
        return a * (total - a) / (total ** 2 * (total + 1))

    def sample(self, sample_shape=()):
        draws = _rng(None).standard_gamma(_host(self.concentration, self._extended(sample_shape)))
        return _drawn(draws / draws.sum(-1, keepdims=True), self.concentration)

    def log_prob(self, value):
        a = self.concentration
        return (ops.xlogy(a - 1, value).sum(-1) + ops.lgamma(a.sum(-1))
                - ops.lgamma(a).sum(-1))

    def entropy(self):
        a = self.concentration
        k, total = a.shape[-1], a.sum(-1)
        return (ops.lgamma(a).sum(-1) - ops.lgamma(total) - ((a - 1) * ops.digamma(a)).sum(-1)
                + (total - k) * ops.digamma(total))


class Beta(Distribution):
    """``Beta(concentration1, concentration0)``: density ``x^(c1-1) (1-x)^(c0-1) / B(c1, c0)``.

    >>> import eagerad
    >>> Beta(2.0, 2.0).mean.item(), round(Beta(2.0, 2.0).log_prob(eagerad.tensor(0.5)).item(), 6)
    (0.5, 0.405465)
    """

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = _broadcast(concentration1, concentration0)
        super().__init__(self.concentration1.shape)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self):
        return (self.concentration1 - 1) / (self.concentration1 + self.concentration0 - 2)

    @property
    def variance(self):
        a, b = self.concentration1, self.concentration0
        return a * b / ((a + b) ** 2 * (a + b + 1))

    def sample(self, sample_shape=()):
        shape, rng = self._extended(sample_shape), _rng(None)
        x = rng.standard_gamma(_host(self.concentration1, shape))
        y = rng.standard_gamma(_host(self.concentration0, shape))
        return _drawn(x / (x + y), self.concentration1)

    def log_prob(self, value):
        a, b = self.concentration1, self.concentration0
        return ops.xlogy(a - 1, value) + ops.xlogy(b - 1, 1 - value) - _lbeta(a, b)

    def entropy(self):
        a, b = self.concentration1, self.concentration0
        return (_lbeta(a, b) - (a - 1) * ops.digamma(a) - (b - 1) * ops.digamma(b)
                + (a + b - 2) * ops.digamma(a + b))


class Poisson(Distribution):
    """``Poisson(rate)``: counts with mean ``rate``.

    >>> import eagerad
    >>> round(Poisson(eagerad.tensor(2.0)).log_prob(eagerad.tensor(3.0)).item(), 6)
    -1.712318
    """

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast(rate)
        super().__init__(self.rate.shape)

    mean = property(lambda self: self.rate)
    mode = property(lambda self: ops.floor(self.rate))
    variance = property(lambda self: self.rate)

    def sample(self, sample_shape=()):
        return _drawn(_rng(None).poisson(_host(self.rate, self._extended(sample_shape))),
                      self.rate)

    def log_prob(self, value):
        return ops.xlogy(value, self.rate) - self.rate - ops.lgamma(value + 1)


class Binomial(Distribution):
    """``Binomial(total_count=1, probs=None, logits=None)``: successes in ``total_count``
    trials.

    >>> import eagerad
    >>> round(Binomial(4, probs=eagerad.tensor(0.5)).log_prob(eagerad.tensor(2.0)).exp().item(), 6)
    0.375
    """

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        self.probs, self.logits = _probs_logits(probs, logits, True)
        self.total_count, self.probs, self.logits = _broadcast(total_count, self.probs, self.logits)
        super().__init__(self.probs.shape)

    mean = property(lambda self: self.total_count * self.probs)
    variance = property(lambda self: self.total_count * self.probs * (1 - self.probs))
    mode = property(lambda self: ops.minimum(ops.floor((self.total_count + 1) * self.probs),
                                             self.total_count))

    def sample(self, sample_shape=()):
        shape = self._extended(sample_shape)
        counts = _host(self.total_count, shape).astype(np.int64)
        return _drawn(_rng(None).binomial(counts, _host(self.probs, shape)), self.probs)

    def log_prob(self, value):
        n, lg = self.total_count, self.logits
        normalizer = n * ops.softplus(lg) - ops.lgamma(n + 1)
        return value * lg - normalizer - ops.lgamma(value + 1) - ops.lgamma(n - value + 1)

    def entropy(self):
        n = self.total_count.detach().numpy()
        top = int(n.max()) if n.size else 0
        if n.size and n.min() != top:
            raise NotImplementedError("Binomial.entropy needs one total_count for the batch "
                                      "(as PyTorch: inhomogeneous total count not supported)")
        support = Tensor(np.arange(top + 1, dtype=np.dtype(self.probs.dtype)).reshape(
            (-1,) + (1,) * len(self.batch_shape)), device=self.probs.device)
        log_p = self.log_prob(support)
        return -(ops.exp(log_p) * log_p).sum(0)


class Geometric(Distribution):
    """``Geometric(probs=None, logits=None)``: failures before the first success.

    >>> import eagerad
    >>> Geometric(probs=eagerad.tensor(0.25)).mean.item()
    3.0
    """

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits = _probs_logits(probs, logits, True)
        super().__init__(self.probs.shape)

    mean = property(lambda self: 1.0 / self.probs - 1.0)
    mode = property(lambda self: ops.zeros_like(self.probs))
    variance = property(lambda self: (1.0 / self.probs - 1.0) / self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended(sample_shape)
        return _drawn(_rng(None).geometric(_host(self.probs, shape)) - 1, self.probs)

    def log_prob(self, value):
        failures = ops.where(value == 0, 0.0, value * ops.log1p(-self.probs))
        return failures + ops.log(self.probs)

    def entropy(self):
        p = self.probs
        return (ops.softplus(-self.logits) * p + ops.softplus(self.logits) * (1 - p)) / p


class Gumbel(Distribution):
    """``Gumbel(loc, scale)``: the maximum of many draws (``loc - scale log(-log u)``).

    >>> import eagerad
    >>> round(Gumbel(0.0, 1.0).mean.item(), 6)
    0.577216
    """
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast(loc, scale)
        super().__init__(self.loc.shape)

    mean = property(lambda self: self.loc + self.scale * _EULER)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: (math.pi ** 2 / 6) * self.scale ** 2)

    def rsample(self, sample_shape=()):
        u = _uniform_open(self.loc, self._extended(sample_shape))
        return self.loc - self.scale * ops.log(-ops.log(u))

    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -(ops.log(self.scale) + z + ops.exp(-z))

    def entropy(self):
        return ops.log(self.scale) + 1 + _EULER


class Cauchy(Distribution):
    """``Cauchy(loc, scale)``: no mean, no variance.

    >>> import eagerad
    >>> round(Cauchy(0.0, 1.0).log_prob(eagerad.tensor(0.0)).item(), 6)
    -1.14473
    """
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast(loc, scale)
        super().__init__(self.loc.shape)

    mean = property(lambda self: ops.full_like(self.loc, math.nan))
    mode = property(lambda self: self.loc)
    variance = property(lambda self: ops.full_like(self.loc, math.inf))

    def rsample(self, sample_shape=()):
        u = _uniform_open(self.loc, self._extended(sample_shape))
        return self.loc + self.scale * ops.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        z = (value - self.loc) / self.scale
        return -math.log(math.pi) - ops.log(self.scale) - ops.log1p(z * z)

    def cdf(self, value):
        return ops.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return self.loc + self.scale * ops.tan(math.pi * (value - 0.5))

    def entropy(self):
        return math.log(4 * math.pi) + ops.log(self.scale)


class HalfNormal(Distribution):
    """``HalfNormal(scale)``: ``|N(0, scale^2)|``.

    >>> import eagerad
    >>> round(HalfNormal(1.0).mean.item(), 6)
    0.797885
    """
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = _broadcast(scale)
        self._normal = Normal(ops.zeros_like(self.scale), self.scale)
        super().__init__(self.scale.shape)

    mean = property(lambda self: self.scale * math.sqrt(2 / math.pi))
    mode = property(lambda self: ops.zeros_like(self.scale))
    variance = property(lambda self: self.scale ** 2 * (1 - 2 / math.pi))

    def rsample(self, sample_shape=()):
        return ops.abs(self._normal.rsample(sample_shape))

    def log_prob(self, value):
        inside = self._normal.log_prob(value) + math.log(2)
        return ops.where(value >= 0, inside, -math.inf)

    def entropy(self):
        return 0.5 * ops.log(math.pi * self.scale ** 2 / 2) + 0.5


class StudentT(Distribution):
    """``StudentT(df, loc=0, scale=1)``.

    >>> import eagerad
    >>> round(StudentT(eagerad.tensor(3.0)).log_prob(eagerad.tensor(0.0)).item(), 6)
    -1.000889
    """

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = _broadcast(df, loc, scale)
        super().__init__(self.df.shape)

    @property
    def mean(self):
        return ops.where(self.df > 1, self.loc, math.nan)

    mode = property(lambda self: self.loc)

    @property
    def variance(self):
        df = self.df
        finite = self.scale ** 2 * df / ops.where(df > 2, df - 2, 1.0)
        return ops.where(df > 2, finite, ops.where(df > 1, math.inf, math.nan))

    def sample(self, sample_shape=()):
        shape, rng = self._extended(sample_shape), _rng(None)
        t = rng.standard_t(_host(self.df, shape))
        return _drawn(_host(self.loc, shape) + _host(self.scale, shape) * t, self.df)

    def log_prob(self, value):
        df = self.df
        y = (value - self.loc) / self.scale
        norm = (ops.log(self.scale) + 0.5 * ops.log(df) + 0.5 * math.log(math.pi)
                + ops.lgamma(0.5 * df) - ops.lgamma(0.5 * (df + 1)))
        return -0.5 * (df + 1) * ops.log1p(y * y / df) - norm

    def entropy(self):
        df = self.df
        lbeta = ops.lgamma(0.5 * df) + math.lgamma(0.5) - ops.lgamma(0.5 * (df + 1))
        return (ops.log(self.scale) + 0.5 * (df + 1) * (ops.digamma(0.5 * (df + 1))
                                                         - ops.digamma(0.5 * df))
                + 0.5 * ops.log(df) + lbeta)

