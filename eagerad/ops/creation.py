"""Creation functions under the names MindSpore's and PyTorch's tutorials use:
``ops.ones(shape, dtype)``, ``ops.zeros``, ``ops.full``, ``ops.eye``, ``ops.arange``,
``ops.linspace`` and the ``*_like`` forms.  Thin wrappers over ``eagerad.tensor``'s
creation functions that read MindSpore's argument order (``ops.ones((2, 3),
mstype.float32)``: a dtype as the second positional argument) as well as
PyTorch's (``ones(2, 3, dtype=...)``).

>>> import eagerad
>>> from eagerad import ops, dtype as mstype
>>> ops.ones((2, 3), mstype.float32).shape
(2, 3)
"""
import numbers

import numpy as np

from .. import dtype as dt
from ..tensor import (arange as _arange, eye as _eye, full as _full, full_like as _full_like,
                      linspace as _linspace, ones as _ones, ones_like as _ones_like,
                      rand as _rand, randn as _randn, tensor as _tensor, zeros as _zeros,
                      zeros_like as _zeros_like)
from .registry import export


def _is_dtype(v):
    """Whether ``v`` names a dtype (np.dtype, a numpy scalar type, or a string like 'int32')."""
    if isinstance(v, np.dtype):
        return True
    if isinstance(v, (numbers.Number, tuple, list)) or v is None or hasattr(v, "shape"):
        return False        # (numpy would read a tensor's .dtype as a dtype)
    try:
        dt.as_dtype(v)
    except (TypeError, ValueError):
        return False
    return True


def _shape_and_dtype(name, args, dtype):
    """``(shape, dtype)`` from ``(shape, dtype)``, ``(shape,)`` or PyTorch's ``(*sizes)``."""
    if args and _is_dtype(args[-1]):
        if dtype is not None:
            raise TypeError(f"{name}: dtype given twice")
        args, dtype = args[:-1], args[-1]
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    elif len(args) == 1 and hasattr(args[0], "tolist") and not isinstance(args[0], numbers.Number):
        args = tuple(np.atleast_1d(np.asarray(args[0].tolist())).tolist())   # a shape tensor
    for s in args:
        if not isinstance(s, (numbers.Integral,)):
            raise TypeError(f"{name}: shape must be ints, got {args!r}")
    return tuple(int(s) for s in args), dtype


@export
def ones(*shape, dtype=None, device=None, requires_grad=False):
    """Ones of ``shape`` (float32 by default): MindSpore's ``ops.ones(shape, dtype)`` and
    PyTorch's ``ones(*size, dtype=)``.

    >>> ones((2,), eagerad.int32).tolist(), ones(1, 2).shape
    ([1, 1], (1, 2))
    """
    shape, dtype = _shape_and_dtype("ones", shape, dtype)
    return _ones(shape, dtype=dtype, device=device, requires_grad=requires_grad)


@export
def zeros(*shape, dtype=None, device=None, requires_grad=False):
    """Zeros of ``shape`` (float32 by default), in both argument orders as ``ones``.

    >>> zeros((2, 2), eagerad.float64).dtype
    dtype('float64')
    """
    shape, dtype = _shape_and_dtype("zeros", shape, dtype)
    return _zeros(shape, dtype=dtype, device=device, requires_grad=requires_grad)


@export
def full(size, fill_value, dtype=None, *, device=None, requires_grad=False):
    """``size`` filled with ``fill_value`` (MindSpore's and PyTorch's ``full``; the dtype
    follows the value unless given).

    >>> full((2,), 1.5).tolist(), full(2, 3).dtype
    ([1.5, 1.5], dtype('int64'))
    """
    size = (int(size),) if isinstance(size, numbers.Integral) else tuple(size)
    return _full(size, fill_value, dtype=dtype, device=device, requires_grad=requires_grad)


def _like(name, fn):
    def like(input, *args, dtype=None, device=None, requires_grad=False):
        return fn(input, *args, dtype=dtype, device=device, requires_grad=requires_grad)
    like.__name__ = name
    return like


ones_like = export(_like("ones_like", _ones_like))
ones_like.__doc__ = """Ones with ``input``'s shape and dtype (``dtype=`` overrides).

    >>> ones_like(eagerad.zeros(2, dtype=eagerad.int32)).tolist()
    [1, 1]
    """
zeros_like = export(_like("zeros_like", _zeros_like))
zeros_like.__doc__ = """Zeros with ``input``'s shape and dtype (``dtype=`` overrides).

    >>> zeros_like(eagerad.ones(2)).tolist()
    [0.0, 0.0]
    """
full_like = export(_like("full_like", _full_like))
full_like.__doc__ = """``fill_value`` with ``input``'s shape and dtype: ``full_like(x, 7)``.

    >>> full_like(eagerad.ones(2), 7).tolist()
    [7.0, 7.0]
    """


def _sample(draw, method, shape, dtype, device, requires_grad, seed):
    """Random ``shape`` from the global generator (``eagerad.set_seed``), or from its own
    generator (numpy's ``method``) when MindSpore's ``seed=`` is given (the same seed, the
    same numbers)."""
    if seed is None:
        return draw(shape, dtype=dtype, device=device, requires_grad=requires_grad)
    rng = np.random.default_rng(seed)
    return _tensor(getattr(rng, method)(shape), dtype=dtype or dt.default_float, device=device,
                   requires_grad=requires_grad)


@export
def rand(*size, dtype=None, device=None, requires_grad=False, seed=None):
    """Uniform samples in [0, 1) of ``size`` (PyTorch's ``rand(*size)``, MindSpore's
    ``ops.rand(*size, dtype=None, seed=None)``).

    >>> rand(2, 3).shape, rand((2,), seed=1).tolist() == rand(2, seed=1).tolist()
    ((2, 3), True)
    """
    shape, dtype = _shape_and_dtype("rand", size, dtype)
    return _sample(_rand, "random", shape, dtype, device, requires_grad, seed)


@export
def randn(*size, dtype=None, device=None, requires_grad=False, seed=None):
    """Standard normal samples of ``size`` (PyTorch's ``randn``, MindSpore's
    ``ops.randn(*size, dtype=None, seed=None)``).

    >>> randn(4, dtype=eagerad.float64).dtype
    dtype('float64')
    """
    shape, dtype = _shape_and_dtype("randn", size, dtype)
    return _sample(_randn, "standard_normal", shape, dtype, device, requires_grad, seed)


def _random_like(name, fn):
    def like(input, *, dtype=None, device=None, requires_grad=False, seed=None):
        return fn(tuple(input.shape), dtype=dtype or input.dtype, device=device or input.device,
                  requires_grad=requires_grad, seed=seed)
    like.__name__ = name
    like.__doc__ = f"""``{fn.__name__}`` with ``input``'s shape, dtype and device.

    >>> {name}(eagerad.zeros(2, 3, dtype=eagerad.float64)).dtype
    dtype('float64')
    """
    return export(like)


rand_like = _random_like("rand_like", rand)
randn_like = _random_like("randn_like", randn)


@export
def eye(n, m=None, dtype=None, *, device=None, requires_grad=False):
    """The ``n`` x ``m`` identity (float32 by default): ``ops.eye(2, 2, mstype.int32)``.

    >>> eye(2, dtype=eagerad.int32).tolist()
    [[1, 0], [0, 1]]
    """
    return _eye(n, m, dtype=dtype, device=device, requires_grad=requires_grad)


@export
def arange(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False):
    """``start, start + step, ...`` below ``end`` (``arange(n)`` counts from 0; ints give
    int64, floats float32).

    >>> arange(1, 7, 2).tolist(), arange(3.0).dtype
    ([1, 3, 5], dtype('float32'))
    """
    return _arange(start, end, step, dtype=dtype, device=device, requires_grad=requires_grad)


@export
def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive (MindSpore's and
    PyTorch's ``linspace(start, end, steps)``).

    >>> linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    return _linspace(_scalar(start), _scalar(end), int(_scalar(steps)), dtype=dtype,
                       device=device, requires_grad=requires_grad)


def _scalar(v):
    """A Python number from a number or a one-element tensor (MindSpore passes Tensors)."""
    return v.item() if hasattr(v, "item") and not isinstance(v, numbers.Number) else v
