"""``split``'s pieces as one op of several outputs, whose gradient joins the pieces'.

As separate ``getitem`` views, the k pieces of a split record k nodes, and each one's
gradient is a zero tensor of the whole input with its piece written in: k full-size
zero fills and writes, then k - 1 full-size sums.  One node of k outputs instead
concatenates the pieces' gradients (zeros only for pieces that got none): one pass.

The pieces stay views, as before: each shares the input's memory and version counter
and is noted as a ``getitem`` view of it (``shape.track_view``), so in-place changes
through a piece or to the input are seen and rewrite history exactly as they do for
``x[a:b]``.  The node reads nothing of its input and outputs (only their shapes), so
in-place changes after the split do not invalidate its backward (PyTorch's rule too).

>>> import eagerad
>>> x = eagerad.arange(5.0, requires_grad=True)
>>> a, b = split_pieces(x, 0, (0, 2, 5))
>>> (a.sum() * 2 + b.sum()).backward(); x.grad.tolist()
[2.0, 2.0, 1.0, 1.0, 1.0]
"""
from .registry import Case, U, defop
from .shape import _GETITEM, concat, getitem, track_view


def _index(axis, a, b, cpu):
    """The basic index of the piece ``[a:b]`` along ``axis``, as ``shape.getitem`` forms
    it (on the CPU a trailing ``...``: numpy then returns a view even of a 0-d piece)."""
    index = (slice(None),) * axis + (slice(a, b),)
    return index + (Ellipsis,) if cpu else index


def _forward(B, x, axis, bounds, cpu):
    return tuple(B.getitem(x, _index(axis, a, b, cpu)) for a, b in zip(bounds, bounds[1:]))


def _vjp(g, ans, x, axis, bounds, cpu):
    return concat(list(g), axis=axis)


def _jvp(t, ans, x, axis, bounds, cpu):
    return tuple(getitem(t, _index(axis, a, b, cpu)) for a, b in zip(bounds, bounds[1:]))


def _batch(args, bdims, axis, bounds, cpu):
    (x,), (d,) = args, bdims
    if d is None:
        return split_pieces(x, axis, bounds), (None,) * (len(bounds) - 1)
    if d != 0:
        x = x.moveaxis(d, 0)
    return split_pieces(x, axis + 1, bounds), (0,) * (len(bounds) - 1)


MAX_PIECES = 8
# number of pieces -> the op with that many outputs (more pieces: getitem views each)
_OPS = {n: defop(f"split_{n}", _forward, vjp=_vjp, jvp=_jvp, saves=(), save_output=True,
                 n_outputs=n, batch=_batch,
                 cases=[Case(U(n + 1, 2), axis=0, bounds=tuple(range(n)) + (n + 1,), cpu=True),
                        Case(U(2, 2 * n), axis=1, bounds=tuple(range(0, 2 * n + 1, 2)),
                             cpu=True)])
        for n in range(2, MAX_PIECES + 1)}


def split_pieces(x, axis, bounds):
    """The views ``x[..., bounds[i]:bounds[i + 1]]`` along ``axis`` (a normalised axis,
    increasing bounds from 0 to the axis' length), recorded as one op (2 to
    ``MAX_PIECES`` pieces).

    >>> import eagerad
    >>> [p.shape for p in split_pieces(eagerad.zeros(2, 5), 1, (0, 1, 5))]
    [(2, 1), (2, 4)]
    """
    bounds = tuple(int(b) for b in bounds)
    cpu = x.device.type == "cpu"
    op = _OPS.get(len(bounds) - 1)
    if op is None:              # one piece, or more than MAX_PIECES: getitem views
        return tuple(getitem(x, _index(axis, a, b, cpu)) for a, b in zip(bounds, bounds[1:]))
    pieces = op(x, axis=axis, bounds=bounds, cpu=cpu)
    for piece, a, b in zip(pieces, bounds, bounds[1:]):
        # a view: the input's version counter, and its place noted for in-place changes
        # (the node keeps the counters it recorded, which nothing else moves)
        piece._version = x._version
        track_view(piece, x, _GETITEM, index=_index(axis, a, b, cpu))
    return tuple(pieces)
