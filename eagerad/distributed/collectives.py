"""Collectives on tensors over MPI: ``all_reduce`` (sum, mean, max, min, product),
``broadcast``, ``all_gather``, ``reduce_scatter`` and ``barrier``, each with
``async_op=True`` returning a ``Work`` (PyTorch's ``torch.distributed`` signatures;
results are written into the tensors given).

Every call first checks, with one 16-byte all-gather, that all ranks called the same
collective with the same shapes and dtypes; a mismatch raises ``ValueError`` listing
each rank's tensor instead of reducing mismatched buffers.

Memory: a C-contiguous CPU tensor's array is handed to MPI as it is (no copy); another
layout goes through a contiguous copy written back afterwards.  A CUDA tensor is staged
through host memory (copied to the host, reduced, copied back) unless the MPI library
is CUDA-aware: ``cuda_aware()`` is True when mpi4py reports CUDA support or the
environment sets ``EAGERAD_MPI_CUDA_AWARE=1``; the ``mpich`` wheels are not CUDA-aware.

Any dtype eagerad has: bool reduces with logical or (sum, max) and logical and (min,
product); ``mean`` needs a floating or complex dtype.

>>> t = eagerad.tensor([1.0, 2.0]); all_reduce(t, op="mean"); t.tolist()
[1.0, 2.0]
"""
import hashlib
import os

import numpy as np

from .. import backend
from ..tensor import Tensor
from . import process_group as pg
from .process_group import mpi
from .work import Work


class ReduceOp:
    """Reduction names (PyTorch's ``ReduceOp`` and MindSpore's): plain strings, so
    ``op="sum"`` works as well.

    >>> ReduceOp.SUM, ReduceOp.AVG
    ('sum', 'mean')
    """
    SUM = "sum"
    AVG = MEAN = "mean"
    MAX = "max"
    MIN = "min"
    PRODUCT = PROD = "prod"


_OPS = {"sum": "SUM", "mean": "SUM", "max": "MAX", "min": "MIN", "prod": "PROD"}
_BOOL_OPS = {"sum": "LOR", "max": "LOR", "min": "LAND", "prod": "LAND"}


def mpi_op(op, dtype, what):
    """The MPI operation for reduction ``op`` on ``dtype`` (refusing what has no meaning).

    >>> mpi_op("min", np.dtype(bool), "all_reduce") == mpi().LAND
    True
    """
    name = getattr(op, "name", op)         # enum-like objects with .name, or strings
    key = str(name).lower()
    key = {"avg": "mean", "product": "prod"}.get(key, key)
    if key not in _OPS:
        raise ValueError(f"{what}: op must be one of sum, mean, max, min, prod (ReduceOp.*), "
                         f"got {op!r}")
    if dtype == np.bool_:
        if key == "mean":
            raise TypeError(f"{what}: op='mean' needs a floating dtype, got a bool tensor")
        return getattr(mpi(), _BOOL_OPS[key])
    if key == "mean" and dtype.kind not in "fc":
        raise TypeError(f"{what}: op='mean' of a {dtype} tensor cannot be stored in place; "
                        "use op='sum' and divide, or a floating dtype")
    if dtype.kind == "c" and key in ("max", "min"):
        raise TypeError(f"{what}: op={key!r} has no meaning for complex dtype {dtype}")
    return getattr(mpi(), _OPS[key])


def is_mean(op):
    """True for the averaging reduction (divide the sum by the group size afterwards).

    >>> is_mean(ReduceOp.AVG), is_mean("sum")
    (True, False)
    """
    return str(getattr(op, "name", op)).lower() in ("mean", "avg")


def cuda_aware():
    """True when CUDA device buffers can go to MPI directly (else they are staged).

    >>> cuda_aware() in (True, False)
    True
    """
    if os.environ.get("EAGERAD_MPI_CUDA_AWARE", "").lower() in ("1", "true", "yes"):
        return True
    query = getattr(mpi(), "Query_cuda_support", None)
    return bool(query()) if query is not None else False


def _check_tensor(t, what, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"{what}: {name} must be an eagerad Tensor, got {type(t).__name__}")
    return t


def buffer(t, write=True, device_ok=True):
    """``(array for MPI, finish)``: ``t``'s own array when MPI can use it in place, else a
    contiguous host copy (a host array unless ``device_ok`` and MPI is CUDA-aware);
    ``finish()`` writes a copy back into ``t`` (when ``write``) and bumps ``t``'s version
    so autograd sees the change.

    >>> t = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]]).T
    >>> buf, finish = buffer(t); buf.flags.c_contiguous, buf is t._data
    (True, False)
    """
    arr = t._data
    if t.device.type == "cpu":
        direct = arr.flags.c_contiguous and arr.flags.writeable
        buf = arr if direct else np.ascontiguousarray(arr)
    elif device_ok and cuda_aware() and arr.is_c_contiguous():
        direct, buf = True, arr
    else:
        direct, buf = False, backend.get(t.device.type).to_numpy(arr)

    def finish():
        if write:
            if not direct:
                if t.device.type == "cpu":
                    np.copyto(arr, buf)
                else:
                    arr.copy_to_device(np.ascontiguousarray(buf))
            t._version[0] += 1
    return buf, finish


def agree(g, what, signature):
    """Check that every rank called ``what`` with the same ``signature`` (shapes, dtypes,
    arguments): one all-gather of a 16-byte digest; on a mismatch every rank raises a
    ValueError listing each rank's signature.

    >>> agree(pg.group(), "all_reduce", "shape (2,) float32")
    """
    if g["size"] == 1:
        return
    mine = np.frombuffer(hashlib.blake2b(signature.encode(), digest_size=16).digest(), np.uint8)
    every = np.empty((g["size"], 16), np.uint8)
    Work(g["comm"].Iallgather(mine, every), f"{what} (argument check)", g["rank"], g["timeout"],
         engine=g["engine"]).wait()
    if (every == every[0]).all():
        return
    signatures = g["comm"].allgather(signature)
    listing = "; ".join(f"rank {r}: {s}" for r, s in enumerate(signatures))
    raise ValueError(f"{what}: the ranks passed different tensors or arguments ({listing}); "
                     "every rank must call the same collective with the same shapes and dtypes")


def describe(t):
    """A tensor's shape and dtype as the mismatch errors spell them.

    >>> describe(eagerad.zeros(2, 3))
    'shape (2, 3) float32'
    """
    return f"shape {tuple(t.shape)} {t.dtype}"


def _run(g, request, what, finish, keep, async_op):
    work = Work(request, what, g["rank"], g["timeout"], finish, keep, g["engine"])
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` across ranks in place (every rank gets the result).

    >>> t = eagerad.tensor([3, 1]); w = all_reduce(t, "max", async_op=True); w.wait(), t.tolist()
    (True, [3, 1])
    """
    what = "all_reduce"
    _check_tensor(tensor, what)
    g = _group()
    mop = mpi_op(op, tensor.dtype, what)
    agree(g, what, f"{describe(tensor)} op {op}")
    buf, write_back = buffer(tensor, device_ok=not is_mean(op))

    def finish():
        if is_mean(op):
            np.divide(buf, g["size"], out=buf)
        write_back()
    return _run(g, g["comm"].Iallreduce(mpi().IN_PLACE, buf, op=mop), what, finish, (buf,),
                async_op)


def broadcast(tensor, src=0, group=None, async_op=False):
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank.

    >>> t = eagerad.tensor([5.0]); broadcast(t, src=0); t.tolist()
    [5.0]
    """
    what = "broadcast"
    _check_tensor(tensor, what)
    g = _group()
    if not isinstance(src, int) or not 0 <= src < g["size"]:
        raise ValueError(f"{what}: src must be a rank in [0, {g['size']}), got {src!r}")
    agree(g, what, f"{describe(tensor)} src {src}")
    buf, finish = buffer(tensor)
    return _run(g, g["comm"].Ibcast(buf, root=src), what, finish, (buf,), async_op)


def _pair(what, a, a_name, b, b_name):
    """Check that both arguments are tensors; the group."""
    _check_tensor(a, what, a_name)
    _check_tensor(b, what, b_name)
    return _group()


def _gathered(g, what, output_shape, inp, out_dtype):
    if out_dtype != inp.dtype:
        raise TypeError(f"{what}: output dtype {out_dtype} differs from the input's {inp.dtype}")
    expected = (g["size"] * inp.shape[0],) + tuple(inp.shape[1:]) if inp.ndim else (g["size"],)
    if tuple(output_shape) != expected:
        raise ValueError(f"{what}: with {g['size']} ranks and an input of {describe(inp)} the "
                         f"output must have shape {expected}, got {tuple(output_shape)}")


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Concatenate every rank's ``input_tensor`` along dimension 0 into ``output_tensor``
    (a 0-d input gives one element per rank).

    >>> out = eagerad.zeros(2); all_gather_into_tensor(out, eagerad.tensor([1.0, 2.0])); out.tolist()
    [1.0, 2.0]
    """
    what = "all_gather_into_tensor"
    g = _pair(what, output_tensor, "output_tensor", input_tensor, "input_tensor")
    _gathered(g, what, output_tensor.shape, input_tensor, output_tensor.dtype)
    agree(g, what, describe(input_tensor))
    send, _ = buffer(input_tensor, write=False)
    recv, finish = buffer(output_tensor)
    return _run(g, g["comm"].Iallgather(send, recv), what, finish, (send, recv), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Fill ``tensor_list[r]`` with rank r's ``tensor`` (one tensor per rank, each of
    ``tensor``'s shape and dtype).

    >>> out = [eagerad.zeros(2)]; all_gather(out, eagerad.tensor([1.0, 2.0])); out[0].tolist()
    [1.0, 2.0]
    """
    what = "all_gather"
    _check_tensor(tensor, what)
    g = _group()
    _check_list(g, what, "tensor_list", tensor_list, tensor)
    agree(g, what, describe(tensor))
    send, _ = buffer(tensor, write=False)
    recv = np.empty((g["size"],) + tuple(tensor.shape), tensor.dtype)
    return _run(g, g["comm"].Iallgather(send, recv), what,
                lambda: _scatter_rows(recv, tensor_list), (send, recv), async_op)


def _check_list(g, what, name, tensors, like):
    if not isinstance(tensors, (list, tuple)) or len(tensors) != g["size"]:
        raise ValueError(f"{what}: {name} must be a list of {g['size']} tensors (one per rank), "
                         f"got {type(tensors).__name__} of length {len(tensors) if hasattr(tensors, '__len__') else '?'}")
    for i, t in enumerate(tensors):
        _check_tensor(t, what, f"{name}[{i}]")
        if tuple(t.shape) != tuple(like.shape) or t.dtype != like.dtype:
            raise ValueError(f"{what}: {name}[{i}] has {describe(t)}, expected {describe(like)}")


def _scatter_rows(rows, tensors):
    """Write ``rows[i]`` into ``tensors[i]`` (each keeps its device)."""
    for row, t in zip(rows, tensors):
        buf, finish = buffer(t)
        np.copyto(buf, row) if isinstance(buf, np.ndarray) else buf.copy_to_device(row)
        finish()


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` (``world_size * n`` rows) across ranks and give rank r rows
    ``r*n ... (r+1)*n - 1`` of the result in ``output``.

    >>> out = eagerad.zeros(2); reduce_scatter_tensor(out, eagerad.tensor([1.0, 2.0])); out.tolist()
    [1.0, 2.0]
    """
    what = "reduce_scatter_tensor"
    g = _pair(what, output, "output", input, "input")
    mop = mpi_op(op, input.dtype, what)
    if input.ndim == 0:
        raise ValueError(f"{what}: input must have at least one dimension, got a 0-d tensor")
    _gathered(g, what, input.shape, output, input.dtype)
    agree(g, what, f"{describe(input)} op {op}")
    send, _ = buffer(input, write=False, device_ok=False)
    return _reduce_scatter(g, what, send, output, op, mop, async_op)


def _reduce_scatter(g, what, send, output, op, mop, async_op):
    """Start the reduce-scatter of host array ``send`` (one block per rank) into ``output``."""
    recv, write_back = buffer(output, device_ok=False)

    def finish():
        if is_mean(op):
            np.divide(recv, g["size"], out=recv)
        write_back()
    return _run(g, g["comm"].Ireduce_scatter_block(send, recv, op=mop), what, finish,
                (send, recv), async_op)


def reduce_scatter(output, input_list, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input_list[r]`` across ranks into rank r's ``output`` (one input per rank,
    each of ``output``'s shape and dtype).

    >>> out = eagerad.zeros(2); reduce_scatter(out, [eagerad.tensor([1.0, 2.0])]); out.tolist()
    [1.0, 2.0]
    """
    what = "reduce_scatter"
    _check_tensor(output, what, "output")
    g = _group()
    _check_list(g, what, "input_list", input_list, output)
    mop = mpi_op(op, output.dtype, what)
    agree(g, what, f"{describe(output)} op {op}")
    send = np.stack([backend.get(t.device.type).to_numpy(t._data) for t in input_list])
    return _reduce_scatter(g, what, send, output, op, mop, async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank reaches the barrier (with the group's watchdog).

    >>> barrier()
    """
    g = _group()
    return _run(g, g["comm"].Ibarrier(), "barrier", None, (), async_op)


def _group():
    return pg.group()
