"""Shape and layout ops built from other ops: ``unflatten``, ``ravel``, ``expand_as``,
``view_as``/``reshape_as``, ``swapdims``, ``masked_scatter``, ``block_diag``, ``diagflat``,
``cartesian_prod`` and ``dist``.

Compositions of differentiable ops (derivatives of every order come from the engine);
the names mean the same in PyTorch and MindSpore.

>>> import eagerad
>>> unflatten(eagerad.ones(2, 6), 1, (3, -1)).shape, ravel(eagerad.ones(2, 3)).shape
((2, 3, 2), (6,))
"""
import numpy as np

from . import shape as _shape
from .arrangement import diag as _diag, meshgrid as _meshgrid, pad as _pad
from .cumulative import cumsum as _cumsum
from .math import where as _where
from .norms import vector_norm as _vector_norm
from .registry import export


@export(methods=("unflatten",))
def unflatten(input, dim, sizes):
    """Dimension ``dim`` split into ``sizes`` (one of them may be -1).

    >>> import eagerad
    >>> unflatten(eagerad.ones(2, 6), -1, (2, 3)).shape
    (2, 2, 3)
    """
    (dim,) = _shape.normalize_axis(dim, input.ndim)
    shape = tuple(input.shape)
    return input.reshape(shape[:dim] + tuple(sizes) + shape[dim + 1:])


@export(methods=("ravel",))
def ravel(input):
    """The elements as a 1-D tensor, in row-major order.

    >>> import eagerad
    >>> ravel(eagerad.ones(2, 3)).shape
    (6,)
    """
    return input.reshape(-1)


@export(methods=("expand_as",))
def expand_as(input, other):
    """``input`` broadcast to ``other``'s shape.

    >>> import eagerad
    >>> expand_as(eagerad.ones(1, 3), eagerad.zeros(2, 3)).shape
    (2, 3)
    """
    return _shape.broadcast_to(input, tuple(other.shape))


@export(methods=("view_as", "reshape_as"), aliases=("reshape_as",))
def view_as(input, other):
    """``input`` reshaped to ``other``'s shape.

    >>> import eagerad
    >>> view_as(eagerad.ones(6), eagerad.zeros(2, 3)).shape
    (2, 3)
    """
    return input.reshape(tuple(other.shape))


@export(methods=("swapdims",))
def swapdims(input, dim0, dim1):
    """``swapaxes`` under PyTorch's other name.

    >>> import eagerad
    >>> swapdims(eagerad.ones(2, 3), 0, 1).shape
    (3, 2)
    """
    return _shape.swapaxes(input, dim0, dim1)


@export(methods=("masked_scatter",))
def masked_scatter(input, mask, source):
    """Where ``mask`` is true, the next elements of ``source`` in row-major order;
    elsewhere ``input``.  ``mask`` broadcasts to ``input``'s shape.

    >>> import eagerad
    >>> mask = eagerad.tensor([True, False, True, False])
    >>> masked_scatter(eagerad.zeros(4), mask, eagerad.tensor([1.0, 2.0, 3.0])).tolist()
    [1.0, 0.0, 2.0, 0.0]
    """
    shape = np.broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    flat_mask = _shape.broadcast_to(mask, shape).reshape(-1)
    count = int(flat_mask.astype("int64").sum().item())
    if count > source.numel():
        raise ValueError(f"masked_scatter: mask selects {count} elements, source has "
                         f"{source.numel()} (shape {tuple(source.shape)})")
    flat_input = _shape.broadcast_to(input, shape).reshape(-1)
    if count == 0:
        return flat_input.reshape(shape)
    position = (_cumsum(flat_mask.astype("int64"), 0) - 1).clamp(0, None)
    return _where(flat_mask, source.reshape(-1)[position], flat_input).reshape(shape)


@export
def block_diag(*tensors):
    """The tensors (0-, 1- or 2-D) as the blocks of one block-diagonal matrix.

    >>> import eagerad
    >>> block_diag(eagerad.ones(1, 1), eagerad.tensor([2.0, 3.0])).tolist()
    [[1.0, 0.0, 0.0], [0.0, 2.0, 3.0]]
    """
    if any(t.ndim > 2 for t in tensors):
        raise ValueError("block_diag: inputs must be 0-, 1- or 2-D, got shapes "
                         f"{[tuple(t.shape) for t in tensors]}")
    blocks = [t.reshape(1, -1) if t.ndim < 2 else t for t in tensors]
    width = sum(b.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        rows.append(_pad(b, (left, width - left - b.shape[1])))
        left += b.shape[1]
    return _shape.cat(rows, 0)


@export(methods=("diagflat",))
def diagflat(input, offset=0):
    """The flattened input on diagonal ``offset`` of a square matrix.

    >>> import eagerad
    >>> diagflat(eagerad.tensor([[1.0, 2.0]])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    return _diag(input.reshape(-1), offset)


@export
def cartesian_prod(*tensors):
    """Every combination of the 1-D inputs, one per row (a single input is returned).

    >>> import eagerad
    >>> cartesian_prod(eagerad.tensor([1, 2]), eagerad.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    if len(tensors) == 1:
        return tensors[0]
    grids = _meshgrid(*tensors, indexing="ij")
    return _shape.stack([g.reshape(-1) for g in grids], 1)


@export(methods=("dist",))
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` over all elements.

    >>> import eagerad
    >>> dist(eagerad.tensor([3.0, 0.0]), eagerad.tensor([0.0, 4.0])).item()
    5.0
    """
    return _vector_norm(input - other, float(p), None, False)
