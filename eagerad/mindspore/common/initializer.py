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
from ... import dtype as _dt
from ...nn import init as _init
from .._face import stamped

__all__ = ["Initializer", "Normal", "Uniform", "XavierUniform", "HeUniform", "Zero", "One",
           "Constant", "initializer"]


class Initializer:
    """Base of the initializer objects: ``obj(shape, dtype)`` draws a new Tensor."""

    def _draw(self, shape, dtype):
        raise NotImplementedError

    def __call__(self, shape, dtype=_dt.float32):
        return self._draw(tuple(shape), dtype)


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
    """He's U(-a, a), ``a = sqrt(6 / ((1 + negative_slope**2) fan_in))`` (fan_in mode).

    >>> float(abs(HeUniform()((2, 6)).numpy()).max()) <= 1.0
    True
    """

    def __init__(self, negative_slope=0, mode="fan_in", nonlinearity="leaky_relu"):
        if mode != "fan_in":
            raise NotImplementedError(f"HeUniform: mode {mode!r}; only 'fan_in'")
        self.negative_slope = negative_slope

    def _draw(self, shape, dtype):
        return _init.he_uniform(shape, self.negative_slope, dtype)


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
