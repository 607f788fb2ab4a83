"""Tensor contractions: einsum (one op), and tensordot, outer, inner, dot, kron,
cross, trace built from it and from indexing.

``einsum``'s gradient for operand i is itself an einsum: the output gradient
contracted with the other operands into operand i's subscripts (HIPS autograd's
rule), with a ones operand for letters only operand i has and an identity
operand for each letter it repeats (a diagonal).  So every order of derivative
is one more einsum.

>>> import eagerad
>>> einsum("ij,j->i", eagerad.ones(2, 3), eagerad.ones(3)).tolist()
[3.0, 3.0]
"""
import string

import numpy as np

from ..tensor import Tensor
from .math import as_tensor, operands
from .registry import Case, PerArg, U, defop, export
from .shape import normalize_axis, stack, transpose

_LETTERS = string.ascii_letters


def _split(subscripts):
    """``(inputs, output)`` of an explicit, ellipsis-free subscripts string."""
    lhs, out = subscripts.split("->")
    return lhs.split(","), out


def _sizes(ins, xs):
    return {c: n for s, x in zip(ins, xs) for c, n in zip(s, x.shape)}


def _fresh(used):
    return iter(c for c in _LETTERS if c not in used)


def _einsum_grad(i, g, ans, *xs, subscripts):
    ins, out = _split(subscripts)
    target = ins[i]
    sizes = _sizes(ins, xs)
    subs = [out] + [s for j, s in enumerate(ins) if j != i]
    args = [g] + [x for j, x in enumerate(xs) if j != i]
    fresh = _fresh(set(subscripts))
    have = set("".join(subs))
    missing = "".join(dict.fromkeys(c for c in target if c not in have))
    if missing:        # summed in operand i alone: its gradient is spread over them
        subs.append(missing)
        args.append(as_tensor(np.ones([sizes[c] for c in missing], dtype=g.dtype), g))
    renamed = ""
    for c in target:
        if c in renamed:   # a repeated letter (a diagonal): link a new letter by an identity
            f = next(fresh)
            subs.append(c + f)
            args.append(as_tensor(np.eye(sizes[c], dtype=g.dtype), g))
            c = f
        renamed += c
    return _einsum(*args, subscripts=",".join(subs) + "->" + renamed)


def _einsum_tangent(i, t, ans, *xs, subscripts):
    return _einsum(*xs[:i], t, *xs[i + 1:], subscripts=subscripts)


def _einsum_batch(args, bdims, subscripts):
    """Batching rule: a new letter for the batch axis, first in the output."""
    ins, out = _split(subscripts)
    b = next(_fresh(set(subscripts)))
    ins = [s[:d] + b + s[d:] if d is not None else s for s, d in zip(ins, bdims)]
    return _einsum(*args, subscripts=",".join(ins) + "->" + b + out), 0


_einsum = defop("einsum", lambda B, *xs, subscripts: B.einsum(subscripts, *xs),
                vjp=PerArg(_einsum_grad), jvp=PerArg(_einsum_tangent), saves=None,
                batch=_einsum_batch,
                cases=[Case(U(2, 3), U(3, 4), subscripts="ij,jk->ik"),
                       Case(U(2, 3), subscripts="ij->"), Case(U(3, 3), subscripts="ii->i"),
                       Case(U(2, 3), U(3), subscripts="ij,j->ij"),
                       Case(U(2, 3, 3), U(2), subscripts="bii,c->bci"),
                       Case(U(), U(2), subscripts=",i->i"),
                       Case(U(0, 3), U(3, 2), subscripts="ij,jk->ik"),
                       Case(U(2, 2), U(2, 3), U(3), subscripts="ij,jk,k->i")])


def _explicit(subscripts, shapes):
    """Subscripts with '...' replaced by letters and the output made explicit
    (numpy's implicit mode: the letters used once, sorted, after the ellipsis)."""
    subscripts = subscripts.replace(" ", "")
    lhs, arrow, out = subscripts.partition("->")
    ins = lhs.split(",")
    if len(ins) != len(shapes):
        raise ValueError(f"einsum: subscripts {subscripts!r} name {len(ins)} operands but "
                         f"{len(shapes)} were given")
    bad = set(subscripts) - set(_LETTERS) - set(",.->")
    if bad:
        raise ValueError(f"einsum: subscripts {subscripts!r} use {sorted(bad)}; use letters a-z, A-Z")
    fresh = _fresh(set(subscripts))
    n_ell = max((len(shape) - len(s.replace("...", "")) for s, shape in zip(ins, shapes)
                 if "..." in s), default=0)
    ell = "".join(next(fresh) for _ in range(n_ell))
    full = []
    for s, shape in zip(ins, shapes):
        named = len(s.replace("...", ""))
        if "..." in s:
            k = len(shape) - named
            if k < 0:
                raise ValueError(f"einsum: operand {s!r} has {len(shape)} dimensions (shape "
                                 f"{tuple(shape)}), fewer than its {named} letters")
            s = s.replace("...", ell[n_ell - k:] if k else "")
        if len(s) != len(shape):
            raise ValueError(f"einsum: subscripts {s!r} name {len(s)} dimensions but the operand "
                             f"has shape {tuple(shape)}")
        full.append(s)
    if arrow:
        out = out.replace("...", ell)
    else:
        counts = "".join(full)
        out = ell + "".join(sorted(c for c in set(counts) if counts.count(c) == 1 and c not in ell))
    for c in out:
        if out.count(c) > 1 or c not in "".join(full):
            raise ValueError(f"einsum: output subscript {c!r} of {subscripts!r} appears more than "
                             "once or in no operand")
    return full, out, ell


@export
def einsum(subscripts, *operands_):
    """Einstein summation with numpy's subscripts ('...' and the implicit output
    included); operands may also be given as one list (PyTorch).

    >>> einsum("...ij,...jk", eagerad.ones(2, 1, 3), eagerad.ones(3, 2)).shape
    (2, 1, 2)
    >>> einsum("ii", eagerad.eye(3)).item()
    3.0
    """
    if len(operands_) == 1 and isinstance(operands_[0], (list, tuple)):
        operands_ = tuple(operands_[0])
    xs = [as_tensor(x) for x in operands_]
    if not xs:
        raise ValueError("einsum: give at least one operand")
    dtype = np.result_type(*[x.dtype for x in xs])
    if dtype.kind not in "fiub":
        raise TypeError(f"einsum: operands must be real numbers, got dtypes {[x.dtype for x in xs]}")
    xs = [x.astype(dtype) if x.dtype != dtype else x for x in xs]
    ins, out, ell = _explicit(subscripts, [x.shape for x in xs])
    sizes = {}
    for s, x in zip(ins, xs):
        for c, n in zip(s, x.shape):
            if c in ell and n == 1:
                continue
            if sizes.setdefault(c, n) != n:
                raise ValueError(f"einsum: subscript {c!r} has size {sizes[c]} in one operand and "
                                 f"{n} in another (shapes {[x.shape for x in xs]}, subscripts "
                                 f"{subscripts!r})")
    xs = [x.broadcast_to(tuple(sizes.get(c, 1) for c in s)) if any(
        c in ell for c in s) else x for s, x in zip(ins, xs)]
    return _einsum(*xs, subscripts=",".join(ins) + "->" + out)


@export
def tensordot(a, b, axes=2):
    """Sum over the last ``axes`` axes of ``a`` and the first of ``b`` (an int), or over
    the axes given as two lists (numpy's ``tensordot``; PyTorch's ``dims``).

    >>> tensordot(eagerad.ones(2, 3, 4), eagerad.ones(3, 4, 5)).shape
    (2, 5)
    """
    a, b = operands("tensordot", as_tensor(a), as_tensor(b))
    if isinstance(axes, (int, np.integer)):
        if not 0 <= axes <= min(a.ndim, b.ndim):
            raise ValueError(f"tensordot: axes={axes} does not fit shapes {a.shape} and {b.shape}")
        ax_a, ax_b = tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes))
    else:
        ax_a, ax_b = axes
        ax_a = normalize_axis(ax_a, a.ndim, "axes[0]")
        ax_b = normalize_axis(ax_b, b.ndim, "axes[1]")
        if len(ax_a) != len(ax_b):
            raise ValueError(f"tensordot: axes {axes} pair {len(ax_a)} axes of a with "
                             f"{len(ax_b)} of b")
    for i, j in zip(ax_a, ax_b):
        if a.shape[i] != b.shape[j]:
            raise ValueError(f"tensordot: axis {i} of a (shape {a.shape}) has size {a.shape[i]} "
                             f"but axis {j} of b (shape {b.shape}) has {b.shape[j]}")
    if ax_a and a.dtype == b.dtype and a.dtype.kind in "fc":
        return _as_matmul(a, b, tuple(ax_a), tuple(ax_b))
    sa = _LETTERS[:a.ndim]
    sb = list(_LETTERS[a.ndim:a.ndim + b.ndim])
    for i, j in zip(ax_a, ax_b):
        sb[j] = sa[i]
    sb = "".join(sb)
    out = "".join(c for k, c in enumerate(sa) if k not in ax_a) + \
        "".join(c for k, c in enumerate(sb) if k not in ax_b)
    return _einsum(a, b, subscripts=f"{sa},{sb}->{out}")


def _as_matmul(a, b, ax_a, ax_b):
    """``tensordot`` of float operands as one ``matmul`` (numpy's own ``tensordot``
    does the same): the free axes of ``a`` and the summed ones moved together and
    flattened, so the contraction is a BLAS product (split over the CPU backend's
    threads when large) rather than numpy's einsum loops (~6x slower for a
    64x784 @ 784x256 contraction), differentiable to any order as transposes,
    reshapes and ``matmul`` are."""
    from .linalg import matmul
    free_a = tuple(i for i in range(a.ndim) if i not in ax_a)
    free_b = tuple(j for j in range(b.ndim) if j not in ax_b)
    m = int(np.prod([a.shape[i] for i in free_a], dtype=np.int64))
    k = int(np.prod([a.shape[i] for i in ax_a], dtype=np.int64))
    n = int(np.prod([b.shape[j] for j in free_b], dtype=np.int64))
    left = transpose(a, free_a + ax_a).reshape(m, k)
    right = transpose(b, ax_b + free_b).reshape(k, n)
    return matmul(left, right).reshape(tuple(a.shape[i] for i in free_a) +
                                       tuple(b.shape[j] for j in free_b))


@export(methods=("outer",))
def outer(a, b):
    """Outer product of two vectors (inputs are flattened, as numpy's ``outer``).

    >>> outer(eagerad.tensor([1.0, 2.0]), eagerad.tensor([1.0, 10.0])).tolist()
    [[1.0, 10.0], [2.0, 20.0]]
    """
    a, b = operands("outer", as_tensor(a), as_tensor(b))
    return a.reshape(-1, 1) * b.reshape(1, -1)



@export(methods=("inner",))
def inner(a, b):
    """Sum product over the last axes (numpy's ``inner``); a scalar operand multiplies.

    >>> inner(eagerad.tensor([1.0, 2.0]), eagerad.tensor([3.0, 4.0])).item()
    11.0
    """
    a, b = operands("inner", as_tensor(a), as_tensor(b))
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    return tensordot(a, b, axes=([-1], [-1]))



@export(methods=("dot",))
def dot(a, b):
    """numpy's ``dot``: inner product of vectors, matrix product of matrices, and for
    N-D a sum over the last axis of ``a`` and the second-to-last of ``b``.

    >>> dot(eagerad.tensor([1.0, 2.0]), eagerad.tensor([3.0, 4.0])).item()
    11.0
    """
    a, b = operands("dot", as_tensor(a), as_tensor(b))
    if a.ndim == 0 or b.ndim == 0:
        return a * b
    if b.ndim == 1:
        return tensordot(a, b, axes=([-1], [0]))
    return tensordot(a, b, axes=([-1], [-2]))



@export(methods=("kron",))
def kron(a, b):
    """Kronecker product (numpy's ``kron``; the shorter shape gets leading 1s).

    >>> kron(eagerad.eye(2), eagerad.ones(1, 2)).tolist()
    [[1.0, 1.0, 0.0, 0.0], [0.0, 0.0, 1.0, 1.0]]
    """
    a, b = operands("kron", as_tensor(a), as_tensor(b))
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + a.shape
    sb = (1,) * (nd - b.ndim) + b.shape
    a = a.reshape(tuple(x for s in sa for x in (s, 1)))
    b = b.reshape(tuple(x for s in sb for x in (1, s)))
    return (a * b).reshape(tuple(p * q for p, q in zip(sa, sb)))



@export(methods=("cross",))
def cross(a, b, axis=-1, dim=None):
    """Cross product of 3-vectors along ``axis`` (PyTorch's ``dim``), broadcasting the rest.

    >>> cross(eagerad.tensor([1.0, 0.0, 0.0]), eagerad.tensor([0.0, 1.0, 0.0])).tolist()
    [0.0, 0.0, 1.0]
    """
    a, b = operands("cross", as_tensor(a), as_tensor(b))
    axis = dim if dim is not None else axis
    shape = np.broadcast_shapes(a.shape, b.shape) if a.ndim and b.ndim else ()
    (ax,) = normalize_axis(axis, len(shape), "axis") if shape else (None,)
    if ax is None or shape[ax] != 3:
        raise ValueError(f"cross: axis {axis} of the broadcast shape {shape} (a {a.shape}, b "
                         f"{b.shape}) must have size 3")
    a, b = a.broadcast_to(shape), b.broadcast_to(shape)
    lead = (slice(None),) * ax
    x = [a[lead + (i,)] for i in range(3)]
    y = [b[lead + (i,)] for i in range(3)]
    return stack([x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2],
                  x[0] * y[1] - x[1] * y[0]], axis=ax)



@export(methods=("trace",))
def trace(x, offset=0, axis1=0, axis2=1):
    """Sum along a diagonal of ``x`` (numpy's ``trace``: ``offset`` above the main one,
    over ``axis1``/``axis2``; the other axes stay).

    >>> trace(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    5.0
    >>> trace(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]]), offset=1).item()
    2.0
    """
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"trace: needs at least 2 dimensions, got shape {x.shape}")
    a1, a2 = normalize_axis((axis1, axis2), x.ndim, "axis1/axis2")
    rest = [i for i in range(x.ndim) if i not in (a1, a2)]
    x = transpose(x, tuple(rest) + (a1, a2))
    n1, n2 = x.shape[-2:]
    start = max(0, -offset)
    length = max(0, min(n1 - start, n2 - max(0, offset)))
    rows = np.arange(start, start + length)
    return x[..., rows, rows + offset].sum(axis=-1)


export(tensordot, name="tensor_dot")     # MindSpore's spelling
export(trace, name="trace", primitive="Trace")
