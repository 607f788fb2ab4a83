"""Ops whose results are discrete -- booleans, counts, indices, integers -- so they have no
gradient: ``isinf`` and its one-sided twins, ``isreal``, ``isin``, ``bincount``,
``histc``, ``tril_indices``/``triu_indices``, ``gcd``/``lcm`` and the ``heaviside`` step.
They compute on the host (numpy) and hand the result back on the input's device.

>>> import eagerad
>>> eagerad.ops.isinf(eagerad.tensor([1.0, float('-inf')])).tolist()
[False, True]
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from .registry import export


def _np(x):
    return x.numpy() if isinstance(x, Tensor) else np.asarray(x)


def _result(values, like):
    """``values`` as a tensor on ``like``'s device, speaking as ``like`` does."""
    out = Tensor(np.ascontiguousarray(values))
    if isinstance(like, Tensor):
        out._face = like._face
        if like.device.type != "cpu":
            out = out.to(like.device)
    return out


def _test(name, fn, doc):
    def op(input):
        return _result(fn(_np(input)), input)
    op.__name__, op.__doc__ = name, doc
    return export(op, methods=(name,))


isinf = _test("isinf", np.isinf, """True where ``input`` is +inf or -inf.

    >>> import eagerad
    >>> isinf(eagerad.tensor([1.0, float('inf')])).tolist()
    [False, True]
    """)
isposinf = _test("isposinf", np.isposinf, """True where ``input`` is +inf.

    >>> import eagerad
    >>> isposinf(eagerad.tensor([float('-inf'), float('inf')])).tolist()
    [False, True]
    """)
isneginf = _test("isneginf", np.isneginf, """True where ``input`` is -inf.

    >>> import eagerad
    >>> isneginf(eagerad.tensor([float('-inf'), float('inf')])).tolist()
    [True, False]
    """)
isreal = _test("isreal", lambda a: np.ones(a.shape, bool), """True everywhere (eagerad's
    tensors are real; a complex one is real where its imaginary part is 0).

    >>> import eagerad
    >>> isreal(eagerad.tensor([1.0, 2.0])).tolist()
    [True, True]
    """)


@export
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """True where an entry of ``elements`` occurs in ``test_elements``.

    >>> import eagerad
    >>> isin(eagerad.tensor([1, 2, 3]), eagerad.tensor([2, 9])).tolist()
    [False, True, False]
    """
    return _result(np.isin(_np(elements), _np(test_elements), invert=invert), elements)


@export(methods=("bincount",))
def bincount(input, weights=None, minlength=0):
    """Occurrences of each value ``0..max(input)`` in a 1-D non-negative integer tensor
    (sums of ``weights`` when given).

    >>> import eagerad
    >>> bincount(eagerad.tensor([0, 2, 2])).tolist()
    [1, 0, 2]
    """
    a = _np(input)
    if a.ndim != 1 or a.dtype.kind not in "iu" or (a.size and a.min() < 0):
        raise ValueError(f"bincount: input must be a 1-D tensor of non-negative integers, got "
                         f"shape {a.shape} and dtype {a.dtype}")
    w = None if weights is None else _np(weights)
    if w is not None and w.shape != a.shape:
        raise ValueError(f"bincount: weights must have input's shape {a.shape}, got {w.shape}")
    counts = np.bincount(a, w, minlength=int(minlength))
    if w is not None:      # PyTorch keeps a float weights' dtype, other weights give float64
        counts = counts.astype(w.dtype if w.dtype.kind == "f" else np.float64)
    return _result(counts, input)


@export(methods=("histc",))
def histc(input, bins=100, min=0, max=0):
    """Counts of ``input`` in ``bins`` equal bins over ``[min, max]`` (the data's range
    when both are 0); values outside are ignored.  In ``input``'s dtype.

    >>> import eagerad
    >>> histc(eagerad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
    [0.0, 2.0, 1.0, 0.0]
    """
    a = _np(input)
    if a.dtype.kind != "f":
        raise TypeError(f"histc: input must be floating point, got {a.dtype}")
    lo, hi = float(min), float(max)
    if lo == hi == 0 and a.size:
        lo, hi = float(a.min()), float(a.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise ValueError(f"histc: max ({max}) must not be less than min ({min})")
    counts, _ = np.histogram(a[(a >= lo) & (a <= hi)], bins=int(bins), range=(lo, hi))
    return _result(counts.astype(a.dtype), input)


def _triangle(which):
    def op(row, col, offset=0, *, dtype=None, device=None, layout=None):
        rows, cols = which(int(row), int(offset), int(col))
        out = Tensor(np.stack([rows, cols]).astype(dt.as_dtype(dtype) or dt.int64))
        return out.to(device) if device is not None else out
    return op


tril_indices = export(_triangle(np.tril_indices), name="tril_indices")
tril_indices.__name__, tril_indices.__doc__ = "tril_indices", """The (row, column) indices
    of the lower triangle of a ``row`` x ``col`` matrix (from diagonal ``offset``), as a
    ``(2, n)`` int64 tensor.

    >>> tril_indices(2, 2).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
triu_indices = export(_triangle(np.triu_indices), name="triu_indices")
triu_indices.__name__, triu_indices.__doc__ = "triu_indices", """The (row, column) indices
    of the upper triangle, as ``tril_indices``.

    >>> triu_indices(2, 2).tolist()
    [[0, 0, 1], [0, 1, 1]]
    """


def _integer_pair(name, fn, doc):
    def op(input, other):
        a, b = _np(input), _np(other)
        if a.dtype.kind not in "iub" or b.dtype.kind not in "iub":
            raise TypeError(f"{name}: input and other must be integer tensors, got {a.dtype} "
                            f"and {b.dtype}")
        return _result(fn(a, b), input)
    op.__name__, op.__doc__ = name, doc
    return export(op, methods=(name,))


gcd = _integer_pair("gcd", np.gcd, """The greatest common divisor, elementwise.

    >>> import eagerad
    >>> gcd(eagerad.tensor([12, 7]), eagerad.tensor([18, 0])).tolist()
    [6, 7]
    """)
lcm = _integer_pair("lcm", np.lcm, """The least common multiple, elementwise.

    >>> import eagerad
    >>> lcm(eagerad.tensor([4, 3]), eagerad.tensor([6, 5])).tolist()
    [12, 15]
    """)


@export(methods=("heaviside",))
def heaviside(input, values):
    """The step function: 0 below 0, 1 above, ``values`` at 0 (no gradient, as PyTorch).

    >>> import eagerad
    >>> heaviside(eagerad.tensor([-1.0, 0.0, 2.0]), eagerad.tensor([0.5])).tolist()
    [0.0, 0.5, 1.0]
    """
    a, v = _np(input), _np(values)
    return _result(np.heaviside(a, v).astype(np.result_type(a, v)), input)
