"""Closeness tests (``isclose``, ``allclose``) with numpy/PyTorch semantics: ``|a - b| <=
atol + rtol * |b|``, NaNs equal only with ``equal_nan``; not differentiable.

>>> import eagerad
>>> eagerad.ops.allclose(eagerad.tensor([1.0, 2.0]), eagerad.tensor([1.0, 2.0 + 1e-9]))
True
"""
from .math import abs, as_tensor, isfinite, isnan, logical_and, logical_or, where
from .registry import export


@export(methods=("isclose",))
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (a bool tensor; infinities
    are close only to themselves).

    >>> isclose(eagerad.tensor([1.0, float('nan')]), eagerad.tensor([1.1, float('nan')]),
    ...         equal_nan=True).tolist()
    [False, True]
    >>> inf = float('inf'); isclose(eagerad.tensor([inf, -inf]), eagerad.tensor([inf, inf])).tolist()
    [True, False]
    """
    a = as_tensor(input)
    b = as_tensor(other, like=a)
    with_nan = logical_and(isnan(a), isnan(b)) if equal_nan else None
    exact = a == b
    diff = abs(where(exact, 0, a - b))          # inf - inf would be nan
    finite = logical_and(isfinite(a), isfinite(b))   # inf vs -inf: inf <= inf, not close
    close = logical_or(exact, logical_and(finite, diff <= atol + rtol * abs(b)))
    return logical_or(close, with_nan) if with_nan is not None else close


@export(methods=("allclose",))
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element pair is ``isclose`` (broadcasting).

    >>> allclose(eagerad.ones(2, 3), 1.0 + 1e-7)
    True
    """
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@export(methods=("equal_all",), name="equal_all")
def equal_all(input, other):
    """True when both have the same shape and elements (``torch.equal``; ``ops.equal`` is
    MindSpore's elementwise comparison).

    >>> equal_all(eagerad.tensor([1, 2]), eagerad.tensor([1, 2])), equal_all(eagerad.ones(2), eagerad.ones(3))
    (True, False)
    """
    a, b = as_tensor(input), as_tensor(other)
    return a.shape == b.shape and bool((a == b).all())

