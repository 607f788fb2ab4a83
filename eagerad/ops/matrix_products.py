"""Matrix products under their BLAS-style names (``mm``, ``bmm``, ``mv``, ``addmm``, ...).

Each is a checked ``matmul`` (the engine differentiates it to any order); the ``add*``
forms compute ``beta * input + alpha * product`` as PyTorch and MindSpore both define them.

>>> import eagerad
>>> a = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> mm(a, a).tolist(), mv(a, eagerad.tensor([1.0, 1.0])).tolist()
([[7.0, 10.0], [15.0, 22.0]], [3.0, 7.0])
"""
from .registry import OPS, Case, U, defop, export, move_batch


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


# ------------------------------------------- products with a transposed operand (2-D)
#
# The rules of a 2-D ``matmul`` and of these two ops are again these three products, so
# derivatives of any order of an MLP record no ``transpose`` node (``g @ b.T`` would
# record one per rule): ``a @ b`` gives ``(nt(g, b), tn(a, g))``, ``nt(a, b) = a @ b.T``
# gives ``(g @ b, tn(g, a))`` and ``tn(a, b) = a.T @ b`` gives ``(nt(b, g), a @ g)``.
# The forwards make the backend calls that ``matmul`` of a transposed view makes, so
# they compute the same numbers.


def _nt_forward(B, a, b):
    return B.matmul_nt(a, b)         # the CPU: matmul of the transposed view; CUDA: in place


def _tn_forward(B, a, b):
    return B.matmul_tn(a, b)


def _product(a, b):
    return OPS["matmul"].apply2(a, b)    # (linalg imports this module: looked up late)


def _front(args, bdims):
    return [x if d is None or d == 0 else move_batch(x, d) for x, d in zip(args, bdims)]


def _nt_batch(args, bdims):
    """vmap: batched operands are stacks of matrices, which ``matmul`` broadcasts."""
    a, b = _front(args, bdims)
    return OPS["matmul"](a, OPS["transpose"](b, axes=_swap_last(b.ndim))), 0


def _tn_batch(args, bdims):
    a, b = _front(args, bdims)
    return OPS["matmul"](OPS["transpose"](a, axes=_swap_last(a.ndim)), b), 0


def _swap_last(ndim):
    return tuple(range(ndim - 2)) + (ndim - 1, ndim - 2)


def _matrices(name, a, b, k_a, k_b):
    if a.ndim != 2 or b.ndim != 2 or a.shape[k_a] != b.shape[k_b]:
        raise ValueError(f"{name}: operands must be matrices with a common inner dimension, "
                         f"got shapes {tuple(a.shape)} and {tuple(b.shape)}")


_MATRIX_CASES = [Case(U(2, 3), U(4, 3)), Case(U(1, 3), U(3, 3)), Case(U(0, 2), U(3, 2)),
                 Case(U(2, 0), U(3, 0))]

_nt = defop("matmul_nt", _nt_forward,
            vjp=(lambda g, ans, a, b: _product(g, b), lambda g, ans, a, b: _tn.apply2(g, a)),
            jvp=(lambda t, ans, a, b: _nt.apply2(t, b), lambda t, ans, a, b: _nt.apply2(a, t)),
            saves={0: (1,), 1: (0,)}, batch=_nt_batch,
            fast=(lambda B, g, ans, a, b: B.matmul(g, b),
                  lambda B, g, ans, a, b: _tn_forward(B, g, a)),
            cases=_MATRIX_CASES)
_tn = defop("matmul_tn", _tn_forward,
            vjp=(lambda g, ans, a, b: _nt.apply2(b, g), lambda g, ans, a, b: _product(a, g)),
            jvp=(lambda t, ans, a, b: _tn.apply2(t, b), lambda t, ans, a, b: _tn.apply2(a, t)),
            saves={0: (1,), 1: (0,)}, batch=_tn_batch,
            fast=(lambda B, g, ans, a, b: _nt_forward(B, b, g),
                  lambda B, g, ans, a, b: B.matmul(a, g)),
            cases=[Case(U(3, 2), U(3, 4)), Case(U(3, 1), U(3, 3)), Case(U(2, 0), U(2, 3)),
                   Case(U(0, 2), U(0, 3))])
matmul_nt_op, matmul_tn_op = _nt, _tn     # for matmul's rules (ops/linalg.py)


def matmul_nt(a, b):
    """``a @ b.T`` for matrices ``a`` (m, k) and ``b`` (n, k) without a transpose in the
    graph (a linear layer's product; every derivative of it is such a product again).

    >>> import eagerad
    >>> matmul_nt(eagerad.ones(2, 3), eagerad.ones(4, 3)).shape
    (2, 4)
    """
    _matrices("matmul_nt", a, b, 1, 1)
    return _nt.apply2(a, b)


def matmul_tn(a, b):
    """``a.T @ b`` for matrices ``a`` (k, m) and ``b`` (k, n) without a transpose in the
    graph (a weight's gradient ``x.T @ g``).

    >>> import eagerad
    >>> matmul_tn(eagerad.ones(3, 2), eagerad.ones(3, 4)).shape
    (2, 4)
    """
    _matrices("matmul_tn", a, b, 0, 0)
    return _tn.apply2(a, b)
