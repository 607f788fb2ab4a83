"""``gradient``: derivatives of sampled values by central differences (numpy's and
PyTorch's ``gradient``).

Along each dimension the interior gets the second-order central difference (for uneven
coordinates, the three-point formula of the neighbouring steps) and the two ends one-sided
differences of first or second order (``edge_order``).  Built from slices and arithmetic,
so its derivatives of every order come from the engine.

>>> import eagerad
>>> y = eagerad.tensor([0.0, 1.0, 4.0, 9.0, 16.0])        # x**2 at x = 0 .. 4
>>> gradient(y)[0].tolist(), gradient(y, edge_order=2)[0].tolist()
([1.0, 2.0, 4.0, 6.0, 7.0], [0.0, 2.0, 4.0, 6.0, 8.0])
"""
import numbers

from ..tensor import Tensor
from .math import as_tensor
from .registry import export
from .shape import normalize_axis
from .shape import cat as _cat


def _part(x, axis, start, stop):
    """``x[start:stop]`` along ``axis``."""
    return x[(slice(None),) * axis + (slice(start, stop),)]


def _as_column(v, axis, ndim):
    """A 1-D tensor of coordinate steps shaped to broadcast along ``axis`` of ``ndim`` dims."""
    return v.reshape((-1,) + (1,) * (ndim - axis - 1)) if isinstance(v, Tensor) else v


def _uniform(f, axis, h, edge_order):
    n = f.shape[axis]
    inner = (_part(f, axis, 2, n) - _part(f, axis, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (_part(f, axis, 1, 2) - _part(f, axis, 0, 1)) / h
        last = (_part(f, axis, n - 1, n) - _part(f, axis, n - 2, n - 1)) / h
    else:
        first = (-1.5 * _part(f, axis, 0, 1) + 2 * _part(f, axis, 1, 2)
                 - 0.5 * _part(f, axis, 2, 3)) / h
        last = (0.5 * _part(f, axis, n - 3, n - 2) - 2 * _part(f, axis, n - 2, n - 1)
                + 1.5 * _part(f, axis, n - 1, n)) / h
    return _cat([first, inner, last], axis)


def _three_point(f0, f1, f2, h1, h2, at):
    """The derivative at point ``at`` (0, 1 or 2) of the parabola through three samples
    with steps ``h1``, ``h2`` between them."""
    if at == 0:
        return (-(2 * h1 + h2) / (h1 * (h1 + h2)) * f0 + (h1 + h2) / (h1 * h2) * f1
                - h1 / (h2 * (h1 + h2)) * f2)
    if at == 1:
        return -h2 / (h1 * (h1 + h2)) * f0 + (h2 - h1) / (h1 * h2) * f1 + h1 / (h2 * (h1 + h2)) * f2
    return (h2 / (h1 * (h1 + h2)) * f0 - (h1 + h2) / (h1 * h2) * f1
            + (2 * h2 + h1) / (h2 * (h1 + h2)) * f2)


def _uneven(f, axis, x, edge_order):
    n, nd = f.shape[axis], f.ndim
    steps = x[1:] - x[:-1]
    h1, h2 = (_as_column(steps[:-1], axis, nd), _as_column(steps[1:], axis, nd))
    inner = _three_point(_part(f, axis, 0, n - 2), _part(f, axis, 1, n - 1), _part(f, axis, 2, n),
                         h1, h2, 1)
    if edge_order == 1:
        first = (_part(f, axis, 1, 2) - _part(f, axis, 0, 1)) / steps[0]
        last = (_part(f, axis, n - 1, n) - _part(f, axis, n - 2, n - 1)) / steps[-1]
    else:
        first = _three_point(*(_part(f, axis, i, i + 1) for i in range(3)), steps[0], steps[1], 0)
        last = _three_point(*(_part(f, axis, i, i + 1) for i in range(n - 3, n)), steps[-2],
                            steps[-1], 2)
    return _cat([first, inner, last], axis)


def _spacings(spacing, dims, input):
    """One entry per differentiated dimension: a number (the step) or a 1-D Tensor of
    coordinates."""
    if spacing is None:
        return [1.0] * len(dims)
    if isinstance(spacing, (numbers.Number, Tensor)) and not (
            isinstance(spacing, Tensor) and spacing.ndim == 1):
        return [float(spacing)] * len(dims)
    spacing = list(spacing) if isinstance(spacing, (list, tuple)) else [spacing]
    if len(spacing) == 1 and len(dims) > 1 and not isinstance(spacing[0], Tensor):
        spacing = spacing * len(dims)
    if len(spacing) != len(dims):
        raise ValueError(f"gradient: spacing gives {len(spacing)} entries for {len(dims)} "
                         f"dimensions {dims}")
    out = []
    for s, d in zip(spacing, dims):
        if isinstance(s, Tensor) and s.ndim == 1:
            if s.shape[0] != input.shape[d]:
                raise ValueError(f"gradient: the coordinates for dim {d} have {s.shape[0]} "
                                 f"entries but the input has {input.shape[d]} there")
            out.append(s.astype(input.dtype))
        else:
            out.append(float(s))
    return out


@export
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """A tuple of the derivatives of ``input`` along ``dim`` (every dimension by default),
    by central differences inside and one-sided ones at the ends.  ``spacing`` is the
    step (a number, one per dimension) or the sample coordinates (1-D tensors, one per
    dimension); ``edge_order`` (1 or 2) is the order of the end formulas.

    >>> import eagerad
    >>> gx, gy = gradient(eagerad.tensor([[1.0, 2.0, 4.0], [2.0, 5.0, 9.0]]), spacing=2.0)
    >>> gx.tolist(), gy.tolist()
    ([[0.5, 1.5, 2.5], [0.5, 1.5, 2.5]], [[0.5, 0.75, 1.0], [1.5, 1.75, 2.0]])
    """
    input = as_tensor(input)
    if edge_order not in (1, 2):
        raise ValueError(f"gradient: edge_order must be 1 or 2, got {edge_order!r}")
    if input.ndim == 0:
        raise ValueError("gradient: the input must have at least one dimension, got a 0-d tensor")
    if input.dtype.kind != "f":
        input = input.astype("float32")
    dims = tuple(range(input.ndim)) if dim is None else normalize_axis(dim, input.ndim, "dim")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise ValueError(f"gradient: dim {d} of the input (shape {tuple(input.shape)}) needs "
                             f"at least edge_order + 1 = {edge_order + 1} samples")
    out = []
    for d, h in zip(dims, _spacings(spacing, dims, input)):
        out.append(_uneven(input, d, h, edge_order) if isinstance(h, Tensor)
                   else _uniform(input, d, h, edge_order))
    return tuple(out)
