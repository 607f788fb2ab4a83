"""``mindspore.common.initializer``: initializer objects for ``weight_init`` /
``bias_init`` (``nn.Dense(400, 120, weight_init=Normal(0.02))``) and ``initializer(init,
shape, dtype)``.  Each object is a callable ``(shape, dtype) -> Tensor`` drawn from
eagerad's generator (``set_seed``), so the numbers differ from MindSpore's own draws.

>>> import eagerad.mindspore as ms
>>> ms.set_seed(0)
>>> initializer(Normal(0.02), (3, 4)).shape
(3, 4)
>>> initializer(Constant(0.5), [2], ms.float32)
Tensor(shape=[2], dtype=Float32, value= [ 5.00000000e-01,  5.00000000e-01])
"""
import numpy as np

from ... import dtype as _dt
from ...nn import init as _init, init_draws as _draws
from ...tensor import Tensor as _Tensor
from .._face import stamped

__all__ = ["Initializer", "Normal", "Uniform", "XavierUniform", "XavierNormal", "HeUniform",
           "HeNormal", "TruncatedNormal", "VarianceScaling", "Orthogonal", "Dirac", "Identity",
           "Sparse", "Zero", "One", "Constant", "initializer"]


class Initializer:
    """Base of the initializer objects: ``obj(shape, dtype)`` draws a new Tensor."""

    def _draw(self, shape, dtype):
        raise NotImplementedError

    def __call__(self, shape, dtype=_dt.float32):
        return self._draw(tuple(shape), dtype)


def _tensor(values, dtype):
    """A float64 numpy draw as a Tensor of ``dtype``."""
    return _Tensor(np.asarray(values), dtype=dtype)


class Normal(Initializer):
    """N(mean, sigma**2) (MindSpore's default sigma is 0.01).

    >>> float(abs(Normal(0.01)((1000,)).numpy()).max()) < 0.1
    True
    """

    def __init__(self, sigma=0.01, mean=0.0):
        self.sigma, self.mean = sigma, mean

    def _draw(self, shape, dtype):
        return _init.normal(shape, self.sigma, self.mean, dtype)


class Uniform(Initializer):
    """U(-scale, scale) (default scale 0.07).

    >>> float(abs(Uniform(0.5)((100,)).numpy()).max()) <= 0.5
    True
    """

    def __init__(self, scale=0.07):
        self.scale = scale

    def _draw(self, shape, dtype):
        return _init.uniform(shape, self.scale, dtype)


class XavierUniform(Initializer):
    """Glorot's U(-a, a), ``a = gain * sqrt(6 / (fan_in + fan_out))``.

    >>> float(abs(XavierUniform()((4, 2)).numpy()).max()) <= 1.0
    True
    """

    def __init__(self, gain=1):
        self.gain = gain

    def _draw(self, shape, dtype):
        return _init.xavier_uniform(shape, self.gain, dtype)


class HeUniform(Initializer):
    """He's U(-b, b), ``b = gain * sqrt(3 / fan)``, the gain of ``nonlinearity`` (with
    ``negative_slope`` for leaky ReLU) and the fan of ``mode``.

    >>> float(abs(HeUniform()((2, 6)).numpy()).max()) <= 1.0
    True
    """

    _distribution = "uniform"

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        self.negative_slope, self.mode, self.nonlinearity = negative_slope, mode, nonlinearity

    def _draw(self, shape, dtype):
        return _tensor(_draws.kaiming(shape, self.negative_slope, self.mode, self.nonlinearity,
                                      self._distribution), dtype)


class HeNormal(HeUniform):
    """He's N(0, std**2), ``std = gain / sqrt(fan)``.

    >>> HeNormal(mode="fan_out")((64, 32, 3, 3)).shape
    (64, 32, 3, 3)
    """
    _distribution = "normal"


class XavierNormal(Initializer):
    """Glorot's N(0, std**2), ``std = gain * sqrt(2 / (fan_in + fan_out))``.

    >>> XavierNormal(gain=0)((2, 2)).tolist()
    [[0.0, 0.0], [0.0, 0.0]]
    """

    def __init__(self, gain=1):
        self.gain = gain

    def _draw(self, shape, dtype):
        return _tensor(_draws.xavier(shape, self.gain, "normal"), dtype)


class TruncatedNormal(Initializer):
    """N(mean, sigma**2) truncated to [a, b] (absolute bounds, as MindSpore's).

    >>> float(abs(TruncatedNormal(1.0, a=-0.5, b=0.5)((1000,)).numpy()).max()) <= 0.5
    True
    """

    def __init__(self, sigma=0.01, mean=0.0, a=-2.0, b=2.0):
        self.sigma, self.mean, self.a, self.b = sigma, mean, a, b

    def _draw(self, shape, dtype):
        return _tensor(_draws.truncated_normal(shape, self.mean, self.sigma, self.a, self.b,
                                               name="TruncatedNormal"), dtype)


class VarianceScaling(Initializer):
    """Draws of variance ``scale / fan`` (``init_draws.variance_scaling``: its default
    'truncated_normal' draws uniformly, as MindSpore 2.x does).

    >>> float(abs(VarianceScaling(2.0)((200, 100)).numpy()).max()) <= (3 * 2.0 / 100) ** 0.5
    True
    """

    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal"):
        _draws.variance_scaling((1, 1), scale, mode, distribution)     # (checks the arguments)
        self.scale, self.mode, self.distribution = scale, mode, distribution

    def _draw(self, shape, dtype):
        return _tensor(_draws.variance_scaling(shape, self.scale, self.mode, self.distribution),
                       dtype)


class Orthogonal(Initializer):
    """A (semi-)orthogonal matrix times ``gain``.

    >>> q = Orthogonal()((3, 3)).numpy(); bool(abs(q @ q.T - np.eye(3)).max() < 1e-5)
    True
    """

    def __init__(self, gain=1.0):
        self.gain = gain

    def _draw(self, shape, dtype):
        return _tensor(_draws.orthogonal(shape, self.gain), dtype)


class Dirac(Initializer):
    """A convolution weight that passes its input channels through (per group).

    >>> Dirac()((1, 1, 3)).tolist()
    [[[0.0, 1.0, 0.0]]]
    """

    def __init__(self, groups=1):
        self.groups = groups

    def _draw(self, shape, dtype):
        return _tensor(_draws.dirac(shape, self.groups), dtype)


class Identity(Initializer):
    """The identity matrix (2-D shapes).

    >>> Identity()((2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """

    def _draw(self, shape, dtype):
        return _tensor(_draws.eye(shape), dtype)


class Sparse(Initializer):
    """``ceil(sparsity * rows)`` zeros per column, N(0, sigma**2) elsewhere (2-D shapes).

    >>> int((Sparse(0.5)((4, 3)).numpy() == 0).sum())
    6
    """

    def __init__(self, sparsity, sigma=0.01):
        self.sparsity, self.sigma = sparsity, sigma

    def _draw(self, shape, dtype):
        return _tensor(_draws.sparse(shape, self.sparsity, self.sigma), dtype)


class Constant(Initializer):
    """Every entry ``value``.

    >>> Constant(2)((2,)).tolist()
    [2.0, 2.0]
    """

    def __init__(self, value):
        self.value = value

    def _draw(self, shape, dtype):
        return _init.initializer(float(self.value), shape, dtype)


class Zero(Constant):
    """All zeros.

    >>> Zero()((1,)).tolist()
    [0.0]
    """

    def __init__(self):
        super().__init__(0.0)


class One(Constant):
    """All ones.

    >>> One()((1,)).tolist()
    [1.0]
    """

    def __init__(self):
        super().__init__(1.0)


def initializer(init, shape=None, dtype=_dt.float32):
    """A new MindSpore Tensor of ``shape`` from ``init`` (an Initializer, a name such as
    'normal', a number or an array).

    >>> initializer('ones', (2,)).asnumpy().tolist()
    [1.0, 1.0]
    """
    if shape is None:
        raise ValueError("initializer: give shape")
    return stamped(_init.initializer)(init, shape, dtype)
