"""Activation Cells in PyTorch's and MindSpore's spellings (``nn.GELU``, ``nn.SiLU``,
``nn.Hardswish`` / ``nn.HSwish``, ...), each a thin Cell over the op of
``eagerad.ops.activations`` with the same gradient to any order.

Where the two frameworks name one class alike but choose different defaults, the
class takes both keywords and documents the difference: ``GELU`` is exact by default
(PyTorch; MindSpore's ``nn.GELU()`` uses the tanh approximation, pass
``approximate=True``), ``LeakyReLU`` has slope 0.01 by default (PyTorch and
MindSpore after 2.9; pass ``alpha=0.2`` for MindSpore's older default).

>>> import eagerad
>>> from eagerad.nn.activation import HSwish, Hardswish
>>> HSwish()(eagerad.tensor([1.0])).tolist() == Hardswish()(eagerad.tensor([1.0])).tolist()
True
"""
from .. import ops
from ..ops import activations as act
from .cell import Cell


class Activation(Cell):
    """Base of the activation Cells: calls ``fn`` with the keywords given at construction
    (``inplace`` is accepted for PyTorch's signatures; the result is a new tensor).

    >>> class Double(Activation):
    ...     fn = staticmethod(lambda x, k: x * k)
    >>> Double(k=2.0)(eagerad.tensor([1.5])).tolist()
    [3.0]
    """
    fn = None

    def __init__(self, inplace=False, **params):
        super().__init__()
        self.__dict__["params"] = params

    def construct(self, x):
        """The activation of ``x``.

        >>> SiLU().construct(eagerad.tensor([0.0])).tolist()
        [0.0]
        """
        return type(self).fn(x, **self.params)

    def extend_repr(self):
        """The construction keywords, for ``repr``.

        >>> ELU(alpha=0.5)
        ELU<alpha=0.5>
        """
        return ", ".join(f"{k}={v!r}" for k, v in self.params.items())


class GELU(Activation):
    """``x Phi(x)``.  ``approximate``: ``'none'`` (exact) or ``'tanh'`` as PyTorch;
    ``True``/``False`` as MindSpore.  The defaults differ (PyTorch exact, MindSpore tanh):
    ``eagerad.torch.nn.GELU()`` and ``eagerad.mindspore.nn.GELU()`` take theirs.

    >>> print(GELU("none")(eagerad.tensor([1.0])), GELU(approximate=True)(eagerad.tensor([1.0])))
    [0.8413] [0.8412]
    """
    fn = staticmethod(act.gelu)

    def __init__(self, approximate=None):
        if approximate is None:
            approximate = self.framework_default("approximate", "none", True)
        if approximate is True or approximate is False:
            approximate = "tanh" if approximate else "none"
        super().__init__(approximate=approximate)


class SiLU(Activation):
    """``x * sigmoid(x)`` (swish).

    >>> print(SiLU()(eagerad.tensor([1.0])))
    [0.7311]
    """
    fn = staticmethod(act.silu)


class ELU(Activation):
    """``x`` above 0, ``alpha (exp(x) - 1)`` below; same default (1.0) in both frameworks.

    >>> print(ELU()(eagerad.tensor([-1.0])))
    [-0.6321]
    """
    fn = staticmethod(act.elu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha)


class SELU(Activation):
    """Self-normalising ELU (MindSpore spells it ``SeLU``).

    >>> print(SELU()(eagerad.tensor([1.0])))
    [1.0507]
    """
    fn = staticmethod(act.selu)


class CELU(Activation):
    """``x`` above 0, ``alpha (exp(x / alpha) - 1)`` below.

    >>> print(CELU(alpha=2.0)(eagerad.tensor([-1.0])))
    [-0.7869]
    """
    fn = staticmethod(act.celu)

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__(alpha=alpha)


class LeakyReLU(Activation):
    """``x`` above 0, ``slope * x`` below.  The slope is PyTorch's ``negative_slope`` (first
    argument) or MindSpore's ``alpha``; the defaults differ (PyTorch 0.01, MindSpore 0.2):
    ``eagerad.torch.nn.LeakyReLU()`` and ``eagerad.mindspore.nn.LeakyReLU()`` take theirs.

    >>> print(LeakyReLU(0.01)(eagerad.tensor([-1.0])), LeakyReLU(alpha=0.2)(eagerad.tensor([-1.0])))
    [-0.01] [-0.2]
    """
    fn = staticmethod(act.torch_leaky_relu)

    def __init__(self, negative_slope=None, inplace=False, alpha=None):
        if negative_slope is not None and alpha is not None:
            raise TypeError("LeakyReLU: give negative_slope or alpha, not both")
        slope = negative_slope if alpha is None else alpha
        if slope is None:
            slope = self.framework_default("negative_slope", 0.01, 0.2)
        super().__init__(negative_slope=slope)


class Hardtanh(Activation):
    """``x`` clamped to ``[min_val, max_val]`` (gradient 0 at the corners).

    >>> print(Hardtanh()(eagerad.tensor([-3.0, 0.5])))
    [-1.   0.5]
    """
    fn = staticmethod(act.hardtanh)

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__(min_val=min_val, max_val=max_val)


class ReLU6(Activation):
    """``min(max(x, 0), 6)``.

    >>> print(ReLU6()(eagerad.tensor([-1.0, 8.0])))
    [0. 6.]
    """
    fn = staticmethod(act.relu6)


class Hardsigmoid(Activation):
    """``relu6(x + 3) / 6`` (MindSpore: ``HSigmoid``).

    >>> print(Hardsigmoid()(eagerad.tensor([0.0])))
    [0.5]
    """
    fn = staticmethod(act.hardsigmoid)


class Hardswish(Activation):
    """``x * relu6(x + 3) / 6`` (MindSpore: ``HSwish``).

    >>> print(Hardswish()(eagerad.tensor([4.0])))
    [4.]
    """
    fn = staticmethod(act.hardswish)


class Mish(Activation):
    """``x * tanh(softplus(x))``.

    >>> print(Mish()(eagerad.tensor([1.0])))
    [0.8651]
    """
    fn = staticmethod(act.mish)


class Softsign(Activation):
    """``x / (1 + |x|)``.

    >>> print(Softsign()(eagerad.tensor([1.0])))
    [0.5]
    """
    fn = staticmethod(act.softsign)


class Softplus(Activation):
    """``log(1 + exp(beta x)) / beta``, linear above ``threshold``; same defaults (1, 20) in
    both frameworks.

    >>> print(Softplus()(eagerad.tensor([0.0])))
    [0.6931]
    """
    fn = staticmethod(act.softplus)

    def __init__(self, beta=1.0, threshold=20.0):
        super().__init__(beta=beta, threshold=threshold)


class LogSigmoid(Activation):
    """``log(sigmoid(x))``, finite for any ``x``.

    >>> print(LogSigmoid()(eagerad.tensor([-1000.0])))
    [-1000.]
    """
    fn = staticmethod(act.log_sigmoid)


class Tanhshrink(Activation):
    """``x - tanh(x)``.

    >>> print(Tanhshrink()(eagerad.tensor([0.0])))
    [0.]
    """
    fn = staticmethod(lambda x: x - ops.tanh(x))


SeLU, HSigmoid, HSwish = SELU, Hardsigmoid, Hardswish

# lower-case names for ``nn.get_activation`` (MindSpore's activation strings)
# get_activation is MindSpore's API: GELU and LeakyReLU with MindSpore's defaults
ACTIVATIONS = {"gelu": lambda: GELU(approximate=True), "silu": SiLU, "swish": SiLU, "elu": ELU, "selu": SELU, "celu": CELU,
               "leakyrelu": lambda: LeakyReLU(alpha=0.2), "hardtanh": Hardtanh, "relu6": ReLU6,
               "hsigmoid": Hardsigmoid, "hardsigmoid": Hardsigmoid, "hswish": Hardswish,
               "hardswish": Hardswish, "mish": Mish, "softsign": Softsign, "softplus": Softplus,
               "logsigmoid": LogSigmoid, "tanhshrink": Tanhshrink}
