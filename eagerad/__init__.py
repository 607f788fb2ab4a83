"""eagerad: an eager (PyNative-style) automatic-differentiation engine.

>>> import eagerad
>>> x = eagerad.tensor(0.5, requires_grad=True)
>>> (x ** 3).backward(); x.grad.item()
0.75
"""
from . import dtype
from .dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8)
from .device import Device as device
from .tensor import (Parameter, ParameterTuple, Tensor, arange, eye, full, full_like, linspace,
                     ones, ones_like, rand, randn, set_seed, tensor, zeros, zeros_like)
from . import autograd
from .autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from . import ops
from .ops import (abs, add, cat, concat, cos, div, exp, log, matmul, maximum, mean, minimum,
                  mul, reshape, sigmoid, sin, sqrt, square, stack, sub, tanh, transpose, where)
from . import context
from .context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context

__version__ = "0.1.0"


def stop_gradient(x):
    """The same values with no gradient flowing back (MindSpore's ``stop_gradient``).

    >>> stop_gradient(eagerad.tensor([1.0], requires_grad=True)).requires_grad
    False
    """
    return x.detach() if isinstance(x, Tensor) else x
