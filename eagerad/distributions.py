"""Probability distributions with PyTorch's ``torch.distributions`` interface: ``sample``
(no gradient), ``rsample`` (reparameterised: differentiable in the parameters, to any
order), ``log_prob``, ``entropy``, ``mean``/``variance``/``stddev``, ``batch_shape`` /
``event_shape``, and ``kl_divergence`` between pairs of families.  Every formula is
written in eagerad's differentiable ops.

>>> import eagerad
>>> d = Normal(eagerad.tensor([0.0]), eagerad.tensor([2.0]))
>>> round(d.log_prob(eagerad.tensor([1.0])).item(), 4), round(d.entropy().item(), 4)
(-1.7371, 2.1121)
"""
import math

import numpy as np

from . import linalg as _linalg, ops
from .face import stamp
from .sampling import categorical
from .tensor import Tensor, as_tensor, rand, randn

_LOG_2PI = math.log(2 * math.pi)


def _param(value, like=None):
    if isinstance(value, Tensor):
        return value if value.dtype.kind == "f" else value.astype("float32")
    dtype = like.dtype if isinstance(like, Tensor) else None
    out = as_tensor(float(value) if np.ndim(value) == 0 else value, dtype=dtype)
    return out if out.dtype.kind == "f" else out.astype("float32")


def _broadcast(*values):
    tensors = [_param(v) for v in values]
    first = next((v for v in values if isinstance(v, Tensor)), tensors[0])
    tensors = [_param(v, first) for v in values]
    shape = np.broadcast_shapes(*(tuple(t.shape) for t in tensors))
    return [t.broadcast_to(shape) if tuple(t.shape) != shape else t for t in tensors]


def _shape(sample_shape):
    return (int(sample_shape),) if isinstance(sample_shape, int) else tuple(sample_shape)


class Distribution:
    """The shared interface; subclasses define ``rsample`` or ``sample``, ``log_prob``."""

    has_rsample = False

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self.batch_shape, self.event_shape = tuple(batch_shape), tuple(event_shape)

    def _extended(self, sample_shape):
        return _shape(sample_shape) + self.batch_shape + self.event_shape

    def sample(self, sample_shape=()):
        """Draws of shape ``sample_shape + batch_shape + event_shape``, outside the graph."""
        return self.rsample(sample_shape).detach()

    def rsample(self, sample_shape=()):
        raise NotImplementedError(f"{type(self).__name__} has no reparameterised sample "
                                  "(use sample())")

    @property
    def stddev(self):
        return ops.sqrt(self.variance)

    def perplexity(self):
        return ops.exp(self.entropy())

    def __repr__(self):
        return f"{type(self).__name__}(batch_shape={self.batch_shape}, event_shape={self.event_shape})"


class Normal(Distribution):
    """``Normal(loc, scale)``.

    >>> import eagerad
    >>> Normal(0.0, 1.0).rsample((3,)).shape
    (3,)
    """
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast(loc, scale)
        super().__init__(self.loc.shape)

    mean = property(lambda self: self.loc)
    mode = property(lambda self: self.loc)
    variance = property(lambda self: self.scale ** 2)
    stddev = property(lambda self: self.scale)

    def rsample(self, sample_shape=()):
        eps = randn(*self._extended(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        return (-((value - self.loc) ** 2) / (2 * self.scale ** 2) - ops.log(self.scale)
                - 0.5 * _LOG_2PI)

    def cdf(self, value):
        return 0.5 * (1 + ops.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * ops.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * _LOG_2PI + ops.log(self.scale)


class LogNormal(Normal):
    """``LogNormal(loc, scale)``: ``exp`` of a ``Normal``."""

    def rsample(self, sample_shape=()):
        return ops.exp(super().rsample(sample_shape))

    def log_prob(self, value):
        return super().log_prob(ops.log(value)) - ops.log(value)

    mean = property(lambda self: ops.exp(self.loc + self.scale ** 2 / 2))
    mode = property(lambda self: ops.exp(self.loc - self.scale ** 2))
    variance = property(lambda self: (ops.exp(self.scale ** 2) - 1) * ops.exp(2 * self.loc + self.scale ** 2))

    def entropy(self):
        return super().entropy() + self.loc


class Uniform(Distribution):
    """``Uniform(low, high)``."""
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _broadcast(low, high)
        super().__init__(self.low.shape)

    mean = property(lambda self: (self.low + self.high) / 2)
    variance = property(lambda self: (self.high - self.low) ** 2 / 12)

    def rsample(self, sample_shape=()):
        u = rand(*self._extended(sample_shape), dtype=self.low.dtype, device=self.low.device)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value):
        inside = ops.logical_and(value >= self.low, value < self.high)
        return ops.where(inside, -ops.log(self.high - self.low), -math.inf)

    def entropy(self):
        return ops.log(self.high - self.low)


class Laplace(Distribution):
    """``Laplace(loc, scale)``."""
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast(loc, scale)
        super().__init__(self.loc.shape)

    mean = property(lambda self: self.loc)
    variance = property(lambda self: 2 * self.scale ** 2)

    def rsample(self, sample_shape=()):
        u = rand(*self._extended(sample_shape), dtype=self.loc.dtype, device=self.loc.device) * 2 - 1
        u = ops.clamp(u, -1 + 1e-7, 1 - 1e-7)
        return self.loc - self.scale * ops.sign(u) * ops.log1p(-ops.abs(u))

    def log_prob(self, value):
        return -ops.log(2 * self.scale) - ops.abs(value - self.loc) / self.scale

    def entropy(self):
        return 1 + ops.log(2 * self.scale)


class Exponential(Distribution):
    """``Exponential(rate)``."""
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast(rate)
        super().__init__(self.rate.shape)

    mean = property(lambda self: 1 / self.rate)
    variance = property(lambda self: self.rate ** -2)

    def rsample(self, sample_shape=()):
        u = rand(*self._extended(sample_shape), dtype=self.rate.dtype, device=self.rate.device)
        return -ops.log1p(-u) / self.rate

    def log_prob(self, value):
        return ops.log(self.rate) - self.rate * value

    def entropy(self):
        return 1 - ops.log(self.rate)


def _probs_logits(probs, logits, binary):
    if (probs is None) == (logits is None):
        raise ValueError("give either probs or logits, not both")
    if probs is not None:
        p = _param(probs)
        if binary:
            return p, ops.log(p) - ops.log1p(-p)
        p = p / p.sum(-1, keepdims=True)
        return p, ops.log(p)
    lg = _param(logits)
    if binary:
        return ops.sigmoid(lg), lg
    lg = lg - ops.logsumexp(lg, -1, keepdims=True)
    return ops.exp(lg), lg


class Bernoulli(Distribution):
    """``Bernoulli(probs=None, logits=None)``.

    >>> import eagerad
    >>> round(Bernoulli(probs=eagerad.tensor(0.25)).log_prob(eagerad.tensor(1.0)).item(), 4)
    -1.3863
    """

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits = _probs_logits(probs, logits, True)
        super().__init__(self.probs.shape)

    mean = property(lambda self: self.probs)
    variance = property(lambda self: self.probs * (1 - self.probs))

    def sample(self, sample_shape=()):
        u = rand(*self._extended(sample_shape), dtype=self.probs.dtype, device=self.probs.device)
        return stamp((u < self.probs.detach()).astype(self.probs.dtype), self.probs._face)

    def log_prob(self, value):
        return -(ops.softplus(-self.logits) * value + ops.softplus(self.logits) * (1 - value))

    def entropy(self):
        return ops.softplus(-self.logits) * self.probs + ops.softplus(self.logits) * (1 - self.probs)


class Categorical(Distribution):
    """``Categorical(probs=None, logits=None)`` over the last dimension.

    >>> import eagerad
    >>> d = Categorical(probs=eagerad.tensor([0.0, 1.0]))
    >>> d.sample((2,)).tolist(), round(d.entropy().item(), 6)
    ([1, 1], 0.0)
    """

    def __init__(self, probs=None, logits=None, validate_args=None):
        self.probs, self.logits = _probs_logits(probs, logits, False)
        super().__init__(self.probs.shape[:-1])
        self._num_events = self.probs.shape[-1]

    @property
    def param_shape(self):
        return tuple(self.probs.shape)

    mean = property(lambda self: ops.full(self.batch_shape, math.nan, dtype=self.probs.dtype))

    def sample(self, sample_shape=()):
        n = int(np.prod(_shape(sample_shape)))
        rows = self.probs.detach().reshape(-1, self._num_events)
        draws = categorical(rows, n, replacement=True)          # (rows, n)
        out = draws.reshape((-1,) + (n,)).swapaxes(0, 1).reshape(_shape(sample_shape) + self.batch_shape)
        return stamp(out, self.probs._face)

    def log_prob(self, value):
        v = as_tensor(value).astype("int64")
        lg = self.logits.broadcast_to(tuple(v.shape) + (self._num_events,)) \
            if tuple(v.shape) != self.batch_shape else self.logits
        return ops.take_along_dim(lg, v.unsqueeze(-1), -1).squeeze(-1)

    def entropy(self):
        plogp = ops.where(self.probs > 0, self.probs * self.logits, 0.0)
        return -plogp.sum(-1)


class OneHotCategorical(Categorical):
    """``OneHotCategorical(probs=None, logits=None)``: samples as one-hot vectors."""

    def __init__(self, probs=None, logits=None, validate_args=None):
        super().__init__(probs, logits)
        self.event_shape = (self._num_events,)

    def sample(self, sample_shape=()):
        index = super().sample(sample_shape).numpy()
        out = np.eye(self._num_events, dtype=self.probs.dtype)[index]
        return stamp(Tensor(out, device=self.probs.device), self.probs._face)

    def log_prob(self, value):
        return (value * self.logits).sum(-1)

    mean = property(lambda self: self.probs)


class MultivariateNormal(Distribution):
    """``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None,
    scale_tril=None)``.

    >>> import eagerad
    >>> d = MultivariateNormal(eagerad.zeros(2), eagerad.eye(2))
    >>> round(d.log_prob(eagerad.zeros(2)).item(), 4)
    -1.8379
    """
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("MultivariateNormal: give exactly one of covariance_matrix, "
                             "precision_matrix, scale_tril")
        self.loc = _param(loc)
        if scale_tril is not None:
            self.scale_tril = _param(scale_tril)
        elif covariance_matrix is not None:
            self.scale_tril = _linalg.cholesky(_param(covariance_matrix))
        else:
            self.scale_tril = _linalg.cholesky(_linalg.inv(_param(precision_matrix)))
        super().__init__(np.broadcast_shapes(tuple(self.loc.shape[:-1]),
                                             tuple(self.scale_tril.shape[:-2])),
                         self.loc.shape[-1:])

    covariance_matrix = property(lambda self: self.scale_tril @ self.scale_tril.swapaxes(-1, -2))
    mean = property(lambda self: self.loc)
    variance = property(lambda self: (self.scale_tril ** 2).sum(-1))

    def rsample(self, sample_shape=()):
        eps = randn(*self._extended(sample_shape), dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + (self.scale_tril @ eps.unsqueeze(-1)).squeeze(-1)

    def _half_log_det(self):
        return ops.log(ops.diagonal(self.scale_tril, 0, -2, -1)).sum(-1)

    def log_prob(self, value):
        diff = (value - self.loc).unsqueeze(-1)
        z = _linalg.solve_triangular(self.scale_tril.broadcast_to(
            tuple(diff.shape[:-2]) + tuple(self.scale_tril.shape[-2:])), diff, upper=False)
        k = self.event_shape[0]
        return -0.5 * (z ** 2).sum((-2, -1)) - self._half_log_det() - 0.5 * k * _LOG_2PI

    def entropy(self):
        k = self.event_shape[0]
        return 0.5 * k * (1 + _LOG_2PI) + self._half_log_det()


class Independent(Distribution):
    """``Independent(base, reinterpreted_batch_ndims)``: the last batch dimensions become
    event dimensions (their log-probabilities add)."""

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        self.base, n = base_distribution, int(reinterpreted_batch_ndims)
        shape = base_distribution.batch_shape
        super().__init__(shape[:len(shape) - n], shape[len(shape) - n:] + base_distribution.event_shape)
        self._n = n
        self.has_rsample = base_distribution.has_rsample

    mean = property(lambda self: self.base.mean)
    variance = property(lambda self: self.base.variance)

    def sample(self, sample_shape=()):
        return self.base.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base.rsample(sample_shape)

    def _sum(self, t):
        return t.sum(tuple(range(-self._n, 0))) if self._n else t

    def log_prob(self, value):
        return self._sum(self.base.log_prob(value))

    def entropy(self):
        return self._sum(self.base.entropy())


_KL = {}


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as KL(p || q) for these two classes."""
    def decorate(fn):
        _KL[(type_p, type_q)] = fn
        return fn
    return decorate


def kl_divergence(p, q):
    """KL(p || q) for a registered pair of families (closed forms).

    >>> import eagerad
    >>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)).item()
    0.5
    """
    fn = _KL.get((type(p), type(q)))
    if fn is not None:
        return fn(p, q)
    raise NotImplementedError(f"kl_divergence({type(p).__name__}, {type(q).__name__}) has no "
                              f"closed form here (registered: "
                              f"{sorted(f'{a.__name__}-{b.__name__}' for a, b in _KL)})")


@register_kl(LogNormal, LogNormal)     # the same as the underlying normals'
@register_kl(Normal, Normal)
def _kl_normal(p, q):
    ratio = (p.scale / q.scale) ** 2
    return 0.5 * (ratio + ((p.loc - q.loc) / q.scale) ** 2 - 1 - ops.log(ratio))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli(p, q):
    return (p.probs * (ops.softplus(-q.logits) - ops.softplus(-p.logits))
            + (1 - p.probs) * (ops.softplus(q.logits) - ops.softplus(p.logits)))


@register_kl(Categorical, Categorical)
def _kl_categorical(p, q):
    return ops.where(p.probs > 0, p.probs * (p.logits - q.logits), 0.0).sum(-1)


@register_kl(Laplace, Laplace)
def _kl_laplace(p, q):
    ratio, diff = p.scale / q.scale, ops.abs(p.loc - q.loc)
    return -ops.log(ratio) + diff / q.scale + ratio * ops.exp(-diff / p.scale) - 1


@register_kl(Exponential, Exponential)
def _kl_exponential(p, q):
    ratio = q.rate / p.rate
    return ratio - ops.log(ratio) - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn(p, q):
    k = p.event_shape[0]
    m = _linalg.solve_triangular(q.scale_tril, p.scale_tril, upper=False)
    diff = (q.loc - p.loc).unsqueeze(-1)
    z = _linalg.solve_triangular(q.scale_tril, diff, upper=False)
    return 0.5 * ((m ** 2).sum((-2, -1)) + (z ** 2).sum((-2, -1)) - k) + q._half_log_det() - p._half_log_det()


@register_kl(Independent, Independent)
def _kl_independent(p, q):
    if p._n != q._n:
        raise NotImplementedError("kl_divergence of Independent distributions needs equal "
                                  "reinterpreted_batch_ndims")
    return p._sum(kl_divergence(p.base, q.base))
