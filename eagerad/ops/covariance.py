"""Covariance and correlation matrices of variables in rows, observations in columns
(``cov`` with ``correction``, frequency and analytic weights; ``corrcoef``).

Built from differentiable ops, so derivatives of every order come from the engine.

>>> import eagerad
>>> cov(eagerad.tensor([[0.0, 2.0], [1.0, 1.0]])).tolist()
[[2.0, 0.0], [0.0, 0.0]]
"""
from . import math as _math
from .registry import export


@export(methods=("cov",))
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance of the rows of ``input`` (one variable, as a 1-D input or a single row,
    gives a 0-d result).

    ``correction`` 1 divides by ``N - 1``; ``fweights`` (integer repeats) and ``aweights``
    (importance) weight the observations as numpy's ``cov`` does.

    >>> import eagerad
    >>> cov(eagerad.tensor([1.0, 2.0, 3.0])).item()
    1.0
    """
    if input.ndim > 2:
        raise ValueError(f"cov: input must be 1-D or 2-D, got shape {tuple(input.shape)}")
    x = input.reshape(1, -1) if input.ndim < 2 else input
    w = None
    if fweights is not None:
        w = fweights
    if aweights is not None:
        w = aweights if w is None else w * aweights
    if w is None:
        n = x.shape[1]
        avg = x.mean(axis=1, keepdims=True)
        factor = n - correction
    else:
        w_sum = w.sum()
        avg = (x * w).sum(axis=1, keepdims=True) / w_sum
        factor = w_sum - correction if aweights is None else \
            w_sum - correction * (w * aweights).sum() / w_sum
    xm = x - avg
    xw = xm if w is None else xm * w
    if hasattr(factor, "shape"):
        factor = _math.maximum(factor, factor * 0)      # numpy's and PyTorch's: not below 0
    else:
        factor = max(factor, 0)
    out = xw.matmul(xm.swapaxes(0, 1)) / factor
    return out.reshape(()) if x.shape[0] == 1 else out


@export(methods=("corrcoef",))
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input``, clipped to [-1, 1].

    >>> import eagerad
    >>> corrcoef(eagerad.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(input)
    if c.ndim == 0:             # one variable: correlated with itself (NaN if constant)
        return c / c
    d = _math.sqrt(c.diagonal())
    return _math.clamp(c / d.reshape(-1, 1) / d.reshape(1, -1), -1.0, 1.0)
