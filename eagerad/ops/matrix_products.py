"""Matrix products under their BLAS-style names (``mm``, ``bmm``, ``mv``, ``addmm``, ...).

Each is a checked ``matmul`` (the engine differentiates it to any order); the ``add*``
forms compute ``beta * input + alpha * product`` as PyTorch and MindSpore both define them.

>>> import eagerad
>>> a = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> mm(a, a).tolist(), mv(a, eagerad.tensor([1.0, 1.0])).tolist()
([[7.0, 10.0], [15.0, 22.0]], [3.0, 7.0])
"""
from .registry import export


def _need(name, x, ndim, what):
    if x.ndim != ndim:
        raise ValueError(f"{name}: {what} must be {ndim}-D, got shape {tuple(x.shape)}")


def _scaled_sum(input, product, beta, alpha):
    """``beta * input + alpha * product``; ``beta == 0`` ignores ``input`` (NaN included)."""
    if alpha != 1:
        product = product * alpha
    if beta == 0:
        return product
    return product + (input if beta == 1 else input * beta)


@export(methods=("mm",))
def mm(input, mat2):
    """Product of two matrices (both 2-D; ``matmul`` broadcasts, this refuses).

    >>> import eagerad
    >>> mm(eagerad.ones(2, 3), eagerad.ones(3, 1)).shape
    (2, 1)
    """
    _need("mm", input, 2, "input")
    _need("mm", mat2, 2, "mat2")
    return input.matmul(mat2)


@export(methods=("bmm",))
def bmm(input, mat2):
    """Batched product of two 3-D tensors ``(b, n, m) @ (b, m, p)``.

    >>> import eagerad
    >>> bmm(eagerad.ones(4, 2, 3), eagerad.ones(4, 3, 5)).shape
    (4, 2, 5)
    """
    _need("bmm", input, 3, "input")
    _need("bmm", mat2, 3, "mat2")
    if input.shape[0] != mat2.shape[0]:
        raise ValueError(f"bmm: batch sizes differ: {tuple(input.shape)} and {tuple(mat2.shape)}")
    return input.matmul(mat2)


@export(methods=("mv",))
def mv(input, vec):
    """Matrix times vector.

    >>> import eagerad
    >>> mv(eagerad.eye(2), eagerad.tensor([2.0, 3.0])).tolist()
    [2.0, 3.0]
    """
    _need("mv", input, 2, "input")
    _need("mv", vec, 1, "vec")
    return input.matmul(vec)


@export(methods=("addmm",))
def addmm(input, mat1, mat2, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat1 @ mat2)`` for matrices.

    >>> import eagerad
    >>> addmm(eagerad.ones(2, 2), eagerad.eye(2), eagerad.eye(2), beta=2).tolist()
    [[3.0, 2.0], [2.0, 3.0]]
    """
    return _scaled_sum(input, mm(mat1, mat2), beta, alpha)


@export(methods=("addmv",))
def addmv(input, mat, vec, *, beta=1, alpha=1):
    """``beta * input + alpha * (mat @ vec)``.

    >>> import eagerad
    >>> addmv(eagerad.ones(2), eagerad.eye(2), eagerad.tensor([1.0, 2.0]), alpha=3).tolist()
    [4.0, 7.0]
    """
    return _scaled_sum(input, mv(mat, vec), beta, alpha)


@export(methods=("baddbmm",))
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * bmm(batch1, batch2)``.

    >>> import eagerad
    >>> baddbmm(eagerad.zeros(1, 2, 2), eagerad.ones(1, 2, 3), eagerad.ones(1, 3, 2)).tolist()
    [[[3.0, 3.0], [3.0, 3.0]]]
    """
    return _scaled_sum(input, bmm(batch1, batch2), beta, alpha)


@export(methods=("addbmm",))
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    """``beta * input + alpha * sum_b batch1[b] @ batch2[b]`` (the batch is summed).

    >>> import eagerad
    >>> addbmm(eagerad.zeros(2, 2), eagerad.ones(3, 2, 1), eagerad.ones(3, 1, 2)).tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    return _scaled_sum(input, bmm(batch1, batch2).sum(0), beta, alpha)


@export(methods=("addr",))
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    """``beta * input + alpha * outer(vec1, vec2)``.

    >>> import eagerad
    >>> addr(eagerad.zeros(2, 2), eagerad.tensor([1.0, 2.0]), eagerad.tensor([1.0, 3.0])).tolist()
    [[1.0, 3.0], [2.0, 6.0]]
    """
    _need("addr", vec1, 1, "vec1")
    _need("addr", vec2, 1, "vec2")
    return _scaled_sum(input, vec1.reshape(-1, 1) * vec2.reshape(1, -1), beta, alpha)


@export(methods=("vdot",))
def vdot(input, other):
    """Dot product of two 1-D tensors (real inputs: the same as ``dot``).

    >>> import eagerad
    >>> vdot(eagerad.tensor([1.0, 2.0]), eagerad.tensor([3.0, 4.0])).item()
    11.0
    """
    _need("vdot", input, 1, "input")
    _need("vdot", other, 1, "other")
    return (input * other).sum()
