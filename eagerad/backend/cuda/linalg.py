"""cuda backend: linear-algebra kernels (factorisations, solves).

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cuda/__init__.py``.

Until a cuSOLVER binding is in the ``cuda`` extra, each of these is a documented
host round trip: the operands are copied to the host, the CPU backend's LAPACK
kernel runs there, and the results are copied back to the device.  The numbers
are the CPU backend's (never an approximation); the cost is two transfers.
``einsum`` (and the contractions built on it) stays on the device: a chain of
pairwise contractions by transpose, reshape and the batched matmul kernel; only
an operand that repeats a letter (a diagonal, e.g. 'ii->i') goes through the host.
"""
import numpy as np
from numba import cuda

from .. import cpu

__all__ = list(cpu.linalg.__all__)


def _to_device(a):
    a = np.asarray(a)
    return cuda.to_device(a if a.flags.c_contiguous else a.copy(order="C"))


def on_host(name, family=None):
    """The CPU kernel ``name`` (of the CPU backend's ``family`` module, default ``linalg``)
    with device arrays copied to the host and back."""
    kernel = getattr(family or cpu.linalg, name)

    def run(*args):
        host = [a.copy_to_host() if hasattr(a, "copy_to_host") else a for a in args]
        out = kernel(*host)
        if isinstance(out, tuple):
            return tuple(_to_device(o) for o in out)
        return _to_device(out)
    run.__name__ = name
    run.__doc__ = f"``{name}`` by a host round trip (see the module docstring)."
    return run


globals().update({name: on_host(name) for name in __all__})

# products with a transposed operand, read in place by the tiled kernel (ops.matrix_products)
from .matmul import matmul_nt, matmul_tn  # noqa: E402
__all__ += ["matmul_nt", "matmul_tn"]


def _sum_private(B, s, a, keep):
    """Sum the axes of operand ``a`` (letters ``s``) whose letter is not in ``keep``."""
    axes = tuple(i for i, c in enumerate(s) if c not in keep)
    if not axes:
        return s, a
    return "".join(c for c in s if c in keep), B.reduce("sum", a, axes, False)


def _contract(B, sa, a, sb, b, later):
    """One pairwise contraction as a batched matmul: (batch, a-only, summed) @
    (batch, summed, b-only); ``later`` are the letters still needed afterwards."""
    size = dict(zip(sa, tuple(a.shape)))
    size.update(zip(sb, tuple(b.shape)))
    batch = [c for c in sa if c in sb and c in later]
    summed = [c for c in sa if c in sb and c not in later]
    a_only = [c for c in sa if c not in sb]
    b_only = [c for c in sb if c not in sa]

    def prod(letters):
        return int(np.prod([size[c] for c in letters], dtype=np.int64))

    a = B.transpose(a, [sa.index(c) for c in batch + a_only + summed])
    b = B.transpose(b, [sb.index(c) for c in batch + summed + b_only])
    c = B.matmul(B.reshape(a, (prod(batch), prod(a_only), prod(summed))),
                 B.reshape(b, (prod(batch), prod(summed), prod(b_only))))
    letters = batch + a_only + b_only
    return "".join(letters), B.reshape(c, tuple(size[x] for x in letters))


def einsum(subscripts, *arrays):
    """Explicit, ellipsis-free einsum (what the einsum op passes) on the device."""
    from .. import cuda as B
    lhs, out = subscripts.split("->")
    ins = lhs.split(",")
    if any(len(set(s)) != len(s) for s in ins):
        return _host_einsum(subscripts, *arrays)
    ops = list(zip(ins, arrays))
    while len(ops) > 1:
        (sa, a), (sb, b) = ops[0], ops[1]
        later = set("".join(s for s, _ in ops[2:]) + out)
        sa, a = _sum_private(B, sa, a, later | set(sb))
        sb, b = _sum_private(B, sb, b, later | set(sa))
        ops = [_contract(B, sa, a, sb, b, later)] + ops[2:]
    s, a = _sum_private(B, *ops[0], set(out))
    return B.copy(B.transpose(a, [s.index(c) for c in out]) if s != out else a)


_host_einsum = on_host("einsum")
