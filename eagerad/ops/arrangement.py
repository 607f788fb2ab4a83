"""Rearranging ops: split and its kin, flip/rot90, roll, pad, tile/repeat, triangles and
diagonals, moveaxis, atleast_nd and the stacking helpers, meshgrid, diff.

Three stanzas (``flip``, ``roll``, constant ``pad``) each have a vjp that
is another rearrangement (flip, roll back, crop); everything else is an
exact composition of differentiable ops (reshape, broadcast_to, transpose,
getitem, concat, where, take), so its derivatives of every order, its CUDA
version and its batching come from those.  numpy's names and arguments come
first; PyTorch's and MindSpore's spellings (``dim``, ``dims``, ``diagonal=``) are
accepted where they do not clash.  Where they clash the choice is documented:
``split`` takes PyTorch's/MindSpore's piece sizes (numpy's split points are
``array_split``/``tensor_split``), ``pad`` reads a flat tuple PyTorch's way
(last axis first) and numpy's ``pad_width`` when given so, ``meshgrid`` defaults
to numpy's and MindSpore's ``indexing='xy'``.

>>> import eagerad
>>> eagerad.ops.flip(eagerad.tensor([1, 2, 3]), 0).tolist()
[3, 2, 1]
"""
import numpy as np

from ..tensor import Size, Tensor
from .decompositions import configured_primitive
from .indexing import front, take
from .math import as_tensor, where
from .registry import METHODS, OPS, Case, U, defop, export
from .shape import (ViewKind, _index_arrays, broadcast_to, concat, expand_dims, getitem,
                    index_add, normalize_axis, reshape, track_view, transpose)
from .split_views import split_pieces


def _given(name, default=None, **spellings):
    """The one argument given under any of its spellings (``axis=``/``dim=``/``dims=``)."""
    got = [(k, v) for k, v in spellings.items() if v is not None]
    if len(got) > 1:
        raise TypeError(f"{name}: {' and '.join(k for k, _ in got)} name the same argument; "
                        "give one")
    return got[0][1] if got else default


def _shift_axes(axes):
    return tuple(a + 1 for a in axes)


def _batched(op, **kw_shift):
    """Batching rule of a one-operand op whose axes keywords shift by one when a batch
    axis is put in front."""
    def rule(args, bdims, **kw):
        kw = {k: (kw_shift[k](v) if k in kw_shift else v) for k, v in kw.items()}
        return op(front(args[0], bdims[0]), **kw), 0
    return rule

# ------------------------------------------------------------------ split
# Pieces are basic slices (views, as in PyTorch); each piece's gradient lands in its
# slot of the input's.


def _slices(name, x, bounds, axis):
    """The pieces ``x[bounds[i]:bounds[i + 1]]`` along ``axis`` (slice semantics: negative
    points count from the end, points past each other give empty pieces, as numpy)."""
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d tensor cannot be split")
    axis = normalize_axis(axis, x.ndim)[0]
    head = (slice(None),) * axis
    return tuple(getitem(x, head + (slice(a, b),)) for a, b in zip(bounds, bounds[1:]))


def _bounds(sizes):
    return [0] + np.cumsum(sizes, dtype=np.int64).tolist()


def _pieces(name, x, sizes, axis):
    x = as_tensor(x)
    n = x.shape[normalize_axis(axis, max(x.ndim, 1))[0]] if x.ndim else 0
    if any(s < 0 for s in sizes) or sum(sizes) != n:
        raise ValueError(f"{name}: piece sizes {list(sizes)} must be >= 0 and add up to "
                         f"{n}, the size of axis {axis} (shape {x.shape})")
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d tensor cannot be split")
    return split_pieces(x, normalize_axis(axis, x.ndim)[0], _bounds(sizes))


@export(methods=("split",))
def split(tensor, split_size_or_sections, axis=0, *, dim=None):
    """Pieces along ``axis`` (PyTorch's and MindSpore's split): an int is each piece's size
    (the last may be smaller), a list gives the sizes.  numpy's ``split`` by split points
    is ``array_split``/``tensor_split``.  Returns a tuple; its gradient joins the pieces'.

    >>> [p.tolist() for p in split(eagerad.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    >>> [p.shape for p in split(eagerad.zeros(2, 5), [1, 4], dim=1)]
    [(2, 1), (2, 4)]
    """
    axis = _given("split", 0, axis=axis if dim is None else None, dim=dim)
    x = as_tensor(tensor)
    if isinstance(split_size_or_sections, (int, np.integer)):
        step = int(split_size_or_sections)
        if step <= 0:
            raise ValueError(f"split: split_size must be positive, got {step}")
        n = x.shape[normalize_axis(axis, max(x.ndim, 1))[0]] if x.ndim else 0
        sizes = [min(step, n - i) for i in range(0, n, step)] or [0]
    else:
        sizes = [int(s) for s in split_size_or_sections]
    return _pieces("split", x, sizes, axis)


def _split_points(name, x, sections, axis, equal=False):
    """numpy's array_split: N near-equal sections (the first ones one longer), or the
    pieces between split points."""
    x = as_tensor(x)
    if x.ndim == 0:
        raise ValueError(f"{name}: a 0-d tensor cannot be split")
    n = x.shape[normalize_axis(axis, x.ndim)[0]]
    if not isinstance(sections, (int, np.integer)):
        points = sections.tolist() if isinstance(sections, Tensor) else list(sections)
        return _slices(name, x, [0] + [int(p) for p in points] + [n], axis)
    if sections <= 0:
        raise ValueError(f"{name}: the number of sections must be positive, got {sections}")
    if equal and n % sections:
        raise ValueError(f"{name}: {n} entries along axis {axis} do not split into {sections} "
                         "equal sections")
    q, r = divmod(n, int(sections))
    return _slices(name, x, _bounds([q + 1] * r + [q] * (int(sections) - r)), axis)


@export(methods=("array_split",))
def array_split(ary, indices_or_sections, axis=0):
    """numpy's array_split: an int N gives N near-equal pieces (the first ones one longer),
    a list gives the split points.

    >>> [p.tolist() for p in array_split(eagerad.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    """
    return _split_points("array_split", ary, indices_or_sections, axis)


@export(methods=("tensor_split",))
def tensor_split(input, indices_or_sections, dim=0):
    """PyTorch's tensor_split: numpy's ``array_split`` with ``dim``.

    >>> [p.tolist() for p in tensor_split(eagerad.arange(4), [1, 3])]
    [[0], [1, 2], [3]]
    """
    return _split_points("tensor_split", input, indices_or_sections, dim)


@export(methods=("chunk",))
def chunk(input, chunks, axis=0, *, dim=None):
    """At most ``chunks`` pieces of ``ceil(n / chunks)`` entries (PyTorch and MindSpore).

    >>> [p.tolist() for p in chunk(eagerad.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    """
    axis = _given("chunk", 0, axis=axis if dim is None else None, dim=dim)
    x = as_tensor(input)
    if int(chunks) <= 0:
        raise ValueError(f"chunk: chunks must be positive, got {chunks}")
    n = x.shape[normalize_axis(axis, max(x.ndim, 1))[0]] if x.ndim else 0
    return split(x, max(1, -(-n // int(chunks))), axis)


def _nd_split(name, x, sections, axis, min_ndim):
    x = as_tensor(x)
    if x.ndim < min_ndim:
        raise ValueError(f"{name}: needs at least {min_ndim} dimensions, got shape {x.shape}")
    return _split_points(name, x, sections, axis, equal=True)


@export(methods=("hsplit",))
def hsplit(ary, indices_or_sections):
    """Split along the columns (axis 1; axis 0 of a 1-D input) into equal sections or at
    split points, as numpy.

    >>> [p.shape for p in hsplit(eagerad.zeros(2, 4), 2)]
    [(2, 2), (2, 2)]
    """
    x = as_tensor(ary)
    return _nd_split("hsplit", x, indices_or_sections, 1 if x.ndim > 1 else 0, 1)


@export(methods=("vsplit",))
def vsplit(ary, indices_or_sections):
    """Split along the rows (axis 0) of an input with 2 or more dimensions, as numpy.

    >>> [p.shape for p in vsplit(eagerad.zeros(4, 2), [1])]
    [(1, 2), (3, 2)]
    """
    return _nd_split("vsplit", ary, indices_or_sections, 0, 2)


@export(methods=("dsplit",))
def dsplit(ary, indices_or_sections):
    """Split along the depth (axis 2) of an input with 3 or more dimensions, as numpy.

    >>> [p.shape for p in dsplit(eagerad.zeros(1, 1, 4), 2)]
    [(1, 1, 2), (1, 1, 2)]
    """
    return _nd_split("dsplit", ary, indices_or_sections, 2, 3)


@export(methods=("unbind",))
def unbind(input, dim=0):
    """The slices along ``dim``, that axis removed (PyTorch and MindSpore).

    >>> [t.tolist() for t in unbind(eagerad.tensor([[1, 2], [3, 4]]), 1)]
    [[1, 3], [2, 4]]
    """
    x = as_tensor(input)
    axis = normalize_axis(dim, max(x.ndim, 1), "dim")[0]
    rest = x.shape[:axis] + x.shape[axis + 1:]
    return tuple(reshape(p, rest) for p in split_pieces(x, axis, range(x.shape[axis] + 1)))

# ------------------------------------------------------------ flip / roll


def _reversed(axes, ndim):
    return tuple(slice(None, None, -1) if d in axes else slice(None) for d in range(ndim))


_flip = defop("flip", lambda B, x, axes: B.copy(B.getitem(x, _reversed(axes, len(x.shape)))),
              vjp=lambda g, ans, x, axes: _flip(g, axes=axes),
              jvp=lambda t, ans, x, axes: _flip(t, axes=axes), saves=(),
              batch=_batched(lambda x, axes: _flip(x, axes=axes), axes=_shift_axes),
              cases=[Case(U(2, 3), axes=(1,)), Case(U(2, 3, 2), axes=(0, 2)), Case(U(), axes=()),
                     Case(U(0, 2), axes=(0, 1))])


@export(methods=("flip",))
def flip(m, axis=None, *, dims=None):
    """Reverse the order of entries along ``axis`` (an int or tuple; None: all axes, as
    numpy; PyTorch's and MindSpore's ``dims``).

    >>> flip(eagerad.tensor([[1, 2], [3, 4]]), dims=(0, 1)).tolist()
    [[4, 3], [2, 1]]
    """
    x = as_tensor(m)
    axis = _given("flip", None, axis=axis, dims=dims)
    axes = normalize_axis(axis, x.ndim) if x.ndim else ()
    return _flip(x, axes=axes)


@export(methods=("fliplr",))
def fliplr(m):
    """Reverse the columns (axis 1); needs 2 or more dimensions.

    >>> fliplr(eagerad.tensor([[1, 2]])).tolist()
    [[2, 1]]
    """
    x = as_tensor(m)
    if x.ndim < 2:
        raise ValueError(f"fliplr: needs at least 2 dimensions, got shape {x.shape}")
    return flip(x, 1)


@export(methods=("flipud",))
def flipud(m):
    """Reverse the rows (axis 0); needs 1 or more dimensions.

    >>> flipud(eagerad.tensor([1, 2])).tolist()
    [2, 1]
    """
    x = as_tensor(m)
    if x.ndim < 1:
        raise ValueError("flipud: needs at least 1 dimension, got a 0-d tensor")
    return flip(x, 0)


@export(methods=("rot90",))
def rot90(m, k=1, axes=(0, 1), *, dims=None):
    """Rotate by 90 degrees ``k`` times in the plane of ``axes`` (from the first axis toward
    the second), as numpy and PyTorch (``dims``).

    >>> rot90(eagerad.tensor([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """
    x = as_tensor(m)
    axes = dims if dims is not None else axes
    if x.ndim < 2 or len(axes) != 2:
        raise ValueError(f"rot90: needs 2 axes of a tensor with 2 or more dimensions, got "
                         f"axes {axes} for shape {x.shape}")
    a0, a1 = normalize_axis(tuple(axes), x.ndim, "axes")
    k %= 4
    if k == 0:
        return flip(x, ())
    if k == 2:
        return flip(x, (a0, a1))
    perm = list(range(x.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    return transpose(flip(x, a1), perm) if k == 1 else flip(transpose(x, perm), a1)


def _roll_fwd(B, x, shifts, axes):
    out = x
    for s, a in zip(shifts, axes):
        n = x.shape[a]
        s = s % n if n else 0
        if s:
            head = (slice(None),) * a
            out = B.concat([B.getitem(out, head + (slice(n - s, None),)),
                            B.getitem(out, head + (slice(0, n - s),))], a)
    return B.copy(out) if out is x else out


_roll = defop("roll", _roll_fwd,
              vjp=lambda g, ans, x, shifts, axes: _roll(g, shifts=tuple(-s for s in shifts), axes=axes),
              jvp=lambda t, ans, x, shifts, axes: _roll(t, shifts=shifts, axes=axes), saves=(),
              batch=_batched(lambda x, shifts, axes: _roll(x, shifts=shifts, axes=axes),
                             axes=_shift_axes),
              cases=[Case(U(2, 3), shifts=(1,), axes=(1,)), Case(U(3, 4), shifts=(-1, 5), axes=(0, 1)),
                     Case(U(0, 2), shifts=(1,), axes=(0,))])


@export(methods=("roll",))
def roll(a, shift=None, axis=None, *, dims=None, shifts=None):
    """Shift entries along ``axis`` cyclically (numpy's ``shift``/``axis``; PyTorch's
    ``shifts``/``dims``); ``axis=None`` rolls the flattened tensor.

    >>> roll(eagerad.tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    """
    x = as_tensor(a)
    axis = _given("roll", None, axis=axis, dims=dims)
    shift = _given("roll", None, shift=shift, shifts=shifts)
    if shift is None:
        raise TypeError("roll: give the shift (shift= as numpy, shifts= as PyTorch)")
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, 0), x.shape)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    shift = (shift,) if isinstance(shift, (int, np.integer)) else tuple(shift)
    if len(shift) == 1 and len(axes) > 1:
        shift = shift * len(axes)
    if len(shift) != len(axes):
        raise ValueError(f"roll: {len(shift)} shifts for {len(axes)} axes")
    axes = tuple(normalize_axis(a, x.ndim)[0] for a in axes)
    return _roll(x, shifts=tuple(int(s) for s in shift), axes=axes)


# -------------------------------------------------------------------- pad


def _crop(widths):
    return tuple(slice(b, b + n) for (b, a), n in widths)


def _pad_fwd(B, x, widths, value):
    shape = tuple(b + n + a for (b, a), n in zip(widths, x.shape))
    out = B.full(shape, value, x.dtype)
    B.setitem(out, _crop(zip(widths, x.shape)), x)
    return out


_pad = defop("pad", _pad_fwd,
             vjp=lambda g, ans, x, widths, value: getitem(g, _crop(zip(widths, x.shape))),
             jvp=lambda t, ans, x, widths, value: _pad(t, widths=widths, value=0), saves=(),
             batch=_batched(lambda x, widths, value: _pad(x, widths=widths, value=value),
                            widths=lambda w: ((0, 0),) + w),
             cases=[Case(U(2, 3), widths=((1, 0), (2, 1)), value=0.5), Case(U(), widths=(), value=0),
                    Case(U(0, 2), widths=((1, 1), (0, 0)), value=1.0)])

_NUMPY_MODES = {"reflect": "reflect", "replicate": "edge", "edge": "edge", "circular": "wrap",
                "wrap": "wrap", "symmetric": "symmetric"}


def _widths(name, x, pad, numpy_style):
    """Per-axis (before, after) pairs from numpy's ``pad_width`` or PyTorch's flat tuple."""
    if numpy_style:
        w = np.asarray(pad.tolist() if isinstance(pad, Tensor) else pad)
        if w.dtype.kind not in "iu":
            raise TypeError(f"{name}: pad_width must hold integers, got {pad!r}")
        try:
            w = np.broadcast_to(w, (x.ndim, 2))     # numpy's forms: n, (n,), (b, a), pairs
        except ValueError:
            raise ValueError(f"{name}: pad_width {pad!r} does not fit a tensor of shape "
                             f"{x.shape}") from None
        widths = tuple((int(b), int(a)) for b, a in w)
    else:
        pad = tuple(int(p) for p in pad)
        if len(pad) % 2 or len(pad) // 2 > x.ndim:
            raise ValueError(f"{name}: pad {pad} must have an even length of at most 2 * ndim "
                             f"= {2 * x.ndim} (last dimension first)")
        pairs = [(pad[i], pad[i + 1]) for i in range(0, len(pad), 2)][::-1]
        widths = ((0, 0),) * (x.ndim - len(pairs)) + tuple(pairs)
    if any(v < 0 for pair in widths for v in pair):
        raise ValueError(f"{name}: negative padding {widths} is not supported")
    return widths


@export
def pad(input, pad=None, mode="constant", value=None, *, pad_width=None, padding=None,
        constant_values=None):
    """Pad with a constant (default 0), by reflection, by repeating the edge
    (``'replicate'``/``'edge'``), cyclically (``'circular'``/``'wrap'``) or by
    ``'symmetric'`` reflection.  Widths are read as PyTorch's ``F.pad``/MindSpore's
    ``ops.pad`` flat tuple (``(left, right)`` of the last axis first, then the one
    before...), or as numpy's ``np.pad`` ``pad_width`` when given by that keyword or
    as an int or nested pairs (``((1, 1), (0, 2))``).  The gradient crops (constant)
    or adds up the reflected copies.

    >>> pad(eagerad.tensor([[1, 2]]), (1, 0)).tolist()                  # PyTorch
    [[0, 1, 2]]
    >>> pad(eagerad.tensor([1, 2, 3]), pad_width=2, mode="reflect").tolist()   # numpy
    [3, 2, 1, 2, 3, 2, 1]
    """
    x = as_tensor(input)
    spec = _given("pad", None, pad=pad, padding=padding)
    numpy_style = pad_width is not None or isinstance(spec, (int, np.integer)) or (
        spec is not None and len(spec) and isinstance(spec[0], (tuple, list, np.ndarray)))
    spec = pad_width if pad_width is not None else spec
    if spec is None:
        raise TypeError("pad: give the widths (pad= as PyTorch, or pad_width= as numpy)")
    widths = _widths("pad", x, spec, numpy_style)
    if mode == "constant":
        fill = _given("pad", 0, value=value, constant_values=constant_values)
        return _pad(x, widths=widths, value=fill.item() if isinstance(fill, Tensor) else fill)
    if mode not in _NUMPY_MODES:
        raise ValueError(f"pad: mode must be 'constant' or one of {sorted(_NUMPY_MODES)}, "
                         f"got {mode!r}")
    for axis, ((before, after), n) in enumerate(zip(widths, x.shape)):
        if before or after:
            if n == 0:
                raise ValueError(f"pad: mode {mode!r} cannot pad axis {axis} of size 0 "
                                 f"(shape {x.shape})")
            src = np.pad(np.arange(n), (before, after), mode=_NUMPY_MODES[mode])
            x = take(x, Tensor(src, device=x.device), axis)
    return x

# ---------------------------------------------------------- tile / repeat


@export(methods=("tile",))
def tile(A, reps=None, *, dims=None):
    """``A`` repeated ``reps`` times along each axis (numpy's tile, PyTorch's ``dims``);
    its gradient sums the copies.

    >>> tile(eagerad.tensor([1, 2]), 2).tolist(), tile(eagerad.tensor([1, 2]), (2, 1)).shape
    ([1, 2, 1, 2], (2, 2))
    """
    x = as_tensor(A)
    reps = _given("tile", None, reps=reps, dims=dims)
    reps = (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ValueError(f"tile: reps {reps} must be >= 0")
    d = max(x.ndim, len(reps))
    shape = (1,) * (d - x.ndim) + x.shape
    reps = (1,) * (d - len(reps)) + reps
    inter = tuple(v for s in shape for v in (1, s))
    wide = tuple(v for r, s in zip(reps, shape) for v in (r, s))
    return reshape(broadcast_to(reshape(x, inter), wide), tuple(r * s for r, s in zip(reps, shape)))


_NO_AXIS = object()


def _ints_only(values):
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in values)


def _numpy_repeat_fits(x, args):
    """Whether ``args`` are a valid numpy ``(repeats[, axis])`` for ``x``."""
    if not 1 <= len(args) <= 2 or not _ints_only(args[1:]):
        return False
    if len(args) == 2 and not -x.ndim <= args[1] < x.ndim:
        return False
    counts = np.asarray(args[0].numpy() if isinstance(args[0], Tensor) else args[0])
    if counts.dtype.kind not in "iu" or counts.ndim > 1:
        return False
    n = x.shape[args[1]] if len(args) == 2 else x.size
    return counts.size in (1, n)


def tensor_repeat(self, *sizes, axis=_NO_AXIS):
    """``Tensor.repeat`` in both faces, told apart by the call: PyTorch's
    ``x.repeat(*sizes)`` tiles (``tile``; sizes as ints or one tuple/``Size``, at least
    ``x.ndim`` of them); numpy's/MindSpore's ``x.repeat(repeats, axis=None)`` repeats
    each entry (``repeat``).  ``axis=`` or fewer sizes than ``x.ndim`` mean numpy's; a
    ``Size`` means PyTorch's.  A call both read differently (``x.repeat(2)`` on a
    1-D tensor of several entries) is refused: call ``tile`` or ``repeat_interleave``
    (or give ``axis=``).

    >>> x = eagerad.tensor([[1, 2]])
    >>> x.repeat(2, 2).tolist(), x.repeat(2, axis=1).tolist()
    ([[1, 2, 1, 2], [1, 2, 1, 2]], [[1, 1, 2, 2]])
    """
    if axis is not _NO_AXIS:
        return repeat(self, *sizes, axis=axis)
    one = sizes[0] if len(sizes) == 1 else None
    if isinstance(one, Size) or isinstance(one, tuple) and not sizes[1:]:
        return tile(self, tuple(one))
    listed = tuple(one) if isinstance(one, (list, np.ndarray)) else sizes
    torch_reads = _ints_only(listed) and len(listed) >= self.ndim
    numpy_reads = _numpy_repeat_fits(self, sizes)
    call = f"Tensor.repeat({', '.join(map(repr, sizes))})"
    if torch_reads and numpy_reads and self.size > 1 and any(s != 1 for s in listed):
        raise ValueError(
            f"{call}: on a tensor of shape {tuple(self.shape)} this call means "
            "PyTorch's tiling and numpy's/MindSpore's per-entry repetition, which differ; call "
            "x.tile(...) for PyTorch's meaning, or x.repeat_interleave(...) / give axis= for "
            "numpy's")
    if torch_reads:
        return tile(self, listed)
    if numpy_reads:
        return repeat(self, *sizes)
    raise TypeError(f"{call}: expected PyTorch's repeat(*sizes) with at least "
                    f"{self.ndim} ints, or numpy's repeat(repeats, axis=None)")


METHODS["repeat"] = tensor_repeat


@export
def repeat(a, repeats, axis=None):
    """Each entry repeated ``repeats`` times along ``axis`` (numpy's and MindSpore's repeat;
    ``axis=None`` flattens first); ``repeats`` may give one count per entry.  This is
    PyTorch's ``repeat_interleave``; PyTorch's ``Tensor.repeat`` is ``tile``.

    >>> repeat(eagerad.tensor([1, 2]), 2).tolist(), repeat(eagerad.tensor([1, 2]), [1, 3]).tolist()
    ([1, 1, 2, 2], [1, 2, 2, 2])
    """
    x = as_tensor(a)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    if x.ndim == 0:
        x = reshape(x, (1,))
    axis = normalize_axis(axis, x.ndim)[0]
    n = x.shape[axis]
    counts = repeats.numpy() if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.dtype.kind not in "iu":
        raise TypeError(f"repeat: repeats must be integers, got {repeats!r}")
    if (counts < 0).any():
        raise ValueError(f"repeat: repeats must be >= 0, got {counts.tolist()}")
    if counts.size == 1:
        r = int(counts.reshape(()))
        wide = x.shape[:axis + 1] + (r,) + x.shape[axis + 1:]
        out = broadcast_to(expand_dims(x, axis + 1), wide)
        return reshape(out, x.shape[:axis] + (n * r,) + x.shape[axis + 1:])
    if counts.shape != (n,):
        raise ValueError(f"repeat: repeats of shape {counts.shape} must be one count or {n} "
                         f"(axis {axis} of shape {x.shape})")
    return take(x, Tensor(np.repeat(np.arange(n), counts), device=x.device), axis)


@export(methods=("repeat_interleave",))
def repeat_interleave(input, repeats, dim=None, *, axis=None):
    """PyTorch's and MindSpore's name for numpy's ``repeat``.

    >>> repeat_interleave(eagerad.tensor([[1, 2]]), 2, dim=0).tolist()
    [[1, 2], [1, 2]]
    """
    return repeat(input, repeats, _given("repeat_interleave", None, dim=dim, axis=axis))

# --------------------------------------------------- triangles / diagonals


def _triangle(name, x, k, lower):
    x = as_tensor(x)
    if x.ndim < 2:
        raise ValueError(f"{name}: needs at least 2 dimensions, got shape {x.shape}")
    n, m = x.shape[-2:]
    keep = np.tri(n, m, k, dtype=bool) if lower else ~np.tri(n, m, k - 1, dtype=bool)
    return where(Tensor(keep, device=x.device), x, 0)


@export(methods=("tril",))
def tril(m, k=0, *, diagonal=None):
    """The lower triangle (entries on and below diagonal ``k``) of the last two axes;
    the rest is zero, with zero gradient.

    >>> tril(eagerad.tensor([[1, 2], [3, 4]])).tolist()
    [[1, 0], [3, 4]]
    """
    return _triangle("tril", m, k if diagonal is None else diagonal, True)


@export(methods=("triu",))
def triu(m, k=0, *, diagonal=None):
    """The upper triangle (entries on and above diagonal ``k``) of the last two axes.

    >>> triu(eagerad.tensor([[1, 2], [3, 4]]), 1).tolist()
    [[0, 2], [0, 0]]
    """
    return _triangle("triu", m, k if diagonal is None else diagonal, False)


def _diag_index(n, m, offset):
    """Rows and columns of diagonal ``offset`` of an ``n`` x ``m`` matrix."""
    r0, c0 = max(-offset, 0), max(offset, 0)
    k = max(0, min(n - r0, m - c0))
    return np.arange(k) + r0, np.arange(k) + c0


def _diagonal_batch(args, bdims, offset):
    x, = args
    if bdims[0] is None:
        return _diag_view(x, offset=offset), None
    return _diag_view(moveaxis(x, bdims[0], 0), offset=offset), 0


def _diagonal_put(base, value, offset):
    """``base`` with diagonal ``offset`` of its last two axes replaced by ``value``."""
    rows, cols = _diag_index(*base.shape[-2:], offset)
    index = _index_arrays((Ellipsis, rows, cols), base.device)
    return OPS["setitem"](base, value, index=index)


_diag_view = defop("diagonal", lambda B, x, offset: B.diagonal(x, offset),
                   vjp=lambda g, ans, x, offset: _embed_into(g, x.shape, offset),
                   jvp=lambda t, ans, x, offset: _diag_view(t, offset=offset), saves=(),
                   view=True, batch=_diagonal_batch,
                   cases=[Case(U(3, 3), offset=0), Case(U(2, 3, 4), offset=1),
                          Case(U(4, 3), offset=-2)])
_DIAGONAL = ViewKind("diagonal", lambda x, offset: _diag_view(x, offset=offset), _diagonal_put)


def _embed_into(g, shape, offset):
    rows, cols = _diag_index(*shape[-2:], offset)
    return index_add(shape, g.dtype, _index_arrays((Ellipsis, rows, cols), g.device), g)


@export(methods=("diagonal",))
def diagonal(a, offset=0, axis1=0, axis2=1, *, dim1=None, dim2=None):
    """Diagonal ``offset`` of the matrices in ``axis1``/``axis2`` (PyTorch's ``dim1``/
    ``dim2``), as the last axis of the result (numpy and PyTorch).  A view, as in
    PyTorch: writing into it (``K.diagonal().add_(jitter)``) changes ``a``.

    >>> m = eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> diagonal(m).tolist(), diagonal(m, 1).tolist()
    ([1.0, 4.0], [2.0])
    >>> _ = m.diagonal().add_(10.0); m.tolist()
    [[11.0, 2.0], [3.0, 14.0]]
    """
    x = as_tensor(a)
    if x.ndim < 2:
        raise ValueError(f"diagonal: needs at least 2 dimensions, got shape {x.shape}")
    a1, a2 = normalize_axis((axis1 if dim1 is None else dim1, axis2 if dim2 is None else dim2),
                            x.ndim, "axis1/axis2")
    if (a1, a2) != (x.ndim - 2, x.ndim - 1):
        x = moveaxis(x, (a1, a2), (-2, -1))
    return track_view(_diag_view(x, offset=int(offset)), x, _DIAGONAL, offset=int(offset))


_diagonal = diagonal


def _embed(v, offset, batch):
    n = v.shape[-1] + abs(offset)
    rows, cols = _diag_index(n, n, offset)
    index = _index_arrays((Ellipsis, rows, cols), v.device)
    return index_add(batch + (n, n), v.dtype, index, v)


@export(methods=("diag",))
def diag(v, k=0, *, diagonal=None):
    """A 1-D ``v`` placed on diagonal ``k`` of a square matrix, or diagonal ``k`` of a
    2-D ``v`` (numpy and PyTorch).

    >>> diag(eagerad.tensor([1, 2])).tolist(), diag(eagerad.tensor([[1, 2], [3, 4]])).tolist()
    ([[1, 0], [0, 2]], [1, 4])
    """
    x = as_tensor(v)
    k = int(k if diagonal is None else diagonal)
    if x.ndim == 1:
        return _embed(x, k, ())
    if x.ndim == 2:
        return _diagonal(x, k)
    raise ValueError(f"diag: needs a 1-D or 2-D input, got shape {x.shape}")



@export(methods=("diag_embed",))
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices with the last axis of ``input`` on diagonal ``offset``, in the new axes
    ``dim1`` and ``dim2`` of the result (PyTorch).

    >>> diag_embed(eagerad.tensor([[1, 2]])).tolist()
    [[[1, 0], [0, 2]]]
    """
    x = as_tensor(input)
    if x.ndim == 0:
        raise ValueError("diag_embed: needs at least 1 dimension, got a 0-d tensor")
    out = _embed(x, int(offset), x.shape[:-1])
    d1, d2 = normalize_axis((dim1, dim2), out.ndim, "dim1/dim2")
    return moveaxis(out, (-2, -1), (d1, d2))

# ------------------------------------------------------------ moving axes


@export(methods=("moveaxis", "movedim"), aliases=("movedim",))
def moveaxis(a, source, destination):
    """Move axes ``source`` to positions ``destination``, the others keeping their order
    (numpy's moveaxis, PyTorch's and MindSpore's movedim).

    >>> moveaxis(eagerad.zeros(2, 3, 4), 0, -1).shape
    (3, 4, 2)
    """
    x = as_tensor(a)
    src = normalize_axis(source, x.ndim, "source")
    dst = normalize_axis(destination, x.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: source {source} and destination {destination} differ in length")
    order = [d for d in range(x.ndim) if d not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return transpose(x, tuple(order))


def _at_least(shapes):
    def fn(*arys):
        out = []
        for a in arys:
            x = as_tensor(a)
            out.append(reshape(x, shapes[min(x.ndim, len(shapes) - 1)](x.shape))
                       if x.ndim < len(shapes) - 1 else x)
        return out[0] if len(out) == 1 else out
    return fn


atleast_1d = export(_at_least([lambda s: (1,), lambda s: s]), name="atleast_1d")
atleast_2d = export(_at_least([lambda s: (1, 1), lambda s: (1,) + s, lambda s: s]),
                    name="atleast_2d")
atleast_3d = export(_at_least([lambda s: (1, 1, 1), lambda s: (1,) + s + (1,),
                               lambda s: s + (1,), lambda s: s]), name="atleast_3d")
atleast_1d.__doc__ = """Views with at least 1 dimension (one result per argument, numpy).

    >>> atleast_1d(eagerad.tensor(5.0)).shape
    (1,)
    """
atleast_2d.__doc__ = """Views with at least 2 dimensions: 1-D ``(n,)`` becomes ``(1, n)``.

    >>> atleast_2d(eagerad.zeros(3)).shape
    (1, 3)
    """
atleast_3d.__doc__ = """Views with at least 3 dimensions: ``(n,)`` becomes ``(1, n, 1)``,
    ``(m, n)`` becomes ``(m, n, 1)`` (numpy).

    >>> atleast_3d(eagerad.zeros(2, 3)).shape
    (2, 3, 1)
    """

# --------------------------------------------------------------- stacking


def _seq(name, tup):
    if isinstance(tup, Tensor) or not len(tup):
        raise TypeError(f"{name} takes a non-empty list or tuple of tensors")
    return [as_tensor(t) for t in tup]


@export(aliases=("row_stack",))
def vstack(tup):
    """Stack rows: inputs made at least 2-D, joined along axis 0 (numpy).

    >>> vstack([eagerad.tensor([1, 2]), eagerad.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    return concat([atleast_2d(t) for t in _seq("vstack", tup)], 0)


@export
def hstack(tup):
    """Join along axis 1 (axis 0 for 1-D inputs), as numpy.

    >>> hstack([eagerad.tensor([1]), eagerad.tensor([2, 3])]).tolist()
    [1, 2, 3]
    """
    xs = [atleast_1d(t) for t in _seq("hstack", tup)]
    return concat(xs, 0 if xs[0].ndim == 1 else 1)


@export
def column_stack(tup):
    """1-D inputs as columns, 2-D ones as they are, joined along axis 1 (numpy).

    >>> column_stack([eagerad.tensor([1, 2]), eagerad.tensor([3, 4])]).tolist()
    [[1, 3], [2, 4]]
    """
    xs = [reshape(t, (-1, 1)) if t.ndim < 2 else t for t in _seq("column_stack", tup)]
    return concat(xs, 1)


@export
def dstack(tup):
    """Inputs made at least 3-D, joined along axis 2 (numpy).

    >>> dstack([eagerad.tensor([1, 2]), eagerad.tensor([3, 4])]).shape
    (1, 2, 2)
    """
    return concat([atleast_3d(t) for t in _seq("dstack", tup)], 2)


@export
def append(arr, values, axis=None):
    """``values`` joined after ``arr`` along ``axis``; both flattened when ``axis`` is None
    (numpy).

    >>> append(eagerad.tensor([[1, 2]]), eagerad.tensor([3])).tolist()
    [1, 2, 3]
    """
    x, v = as_tensor(arr), as_tensor(values, as_tensor(arr))
    if axis is None:
        return concat([reshape(x, (-1,)), reshape(v, (-1,))], 0)
    return concat([x, v], axis)


@export
def meshgrid(*xi, indexing="xy", sparse=False):
    """Coordinate grids from 1-D tensors (numpy's and MindSpore's default ``indexing='xy'``
    swaps the first two axes; PyTorch's default is ``'ij'``, pass it explicitly).
    ``sparse=True`` keeps size-1 axes instead of broadcasting.

    >>> [g.tolist() for g in meshgrid(eagerad.tensor([1, 2]), eagerad.tensor([5]))]
    [[[1, 2]], [[5, 5]]]
    """
    if len(xi) == 1 and isinstance(xi[0], (list, tuple)):
        xi = tuple(xi[0])
    if indexing not in ("xy", "ij"):
        raise ValueError(f"meshgrid: indexing must be 'xy' or 'ij', got {indexing!r}")
    xs = [reshape(as_tensor(x), (-1,)) for x in xi]
    shape = [x.size for x in xs]
    pos = list(range(len(xs)))
    if indexing == "xy" and len(xs) > 1:
        shape[0], shape[1] = shape[1], shape[0]
        pos[0], pos[1] = 1, 0
    out = []
    for x, p in zip(xs, pos):
        one = [1] * len(xs)
        one[p] = x.size
        g = reshape(x, tuple(one))
        out.append(g if sparse else broadcast_to(g, tuple(shape)))
    return tuple(out)


@export(aliases=("broadcast_tensors",))
def broadcast_arrays(*args):
    """The inputs broadcast to their common shape (numpy; PyTorch's broadcast_tensors).

    >>> [t.shape for t in broadcast_arrays(eagerad.zeros(2, 1), eagerad.zeros(3))]
    [(2, 3), (2, 3)]
    """
    xs = [as_tensor(a) for a in args]
    try:
        shape = np.broadcast_shapes(*(x.shape for x in xs))
    except ValueError:
        raise ValueError(f"broadcast_arrays: shapes {[x.shape for x in xs]} do not "
                         "broadcast together") from None
    return tuple(broadcast_to(x, shape) for x in xs)


@export
def repeat_elements(x, rep, axis=0):
    """MindSpore's ``ops.repeat_elements``: ``repeat`` with one count, along axis 0 by
    default.

    >>> repeat_elements(eagerad.tensor([[1, 2]]), 2, axis=1).tolist()
    [[1, 1, 2, 2]]
    """
    return repeat(x, rep, axis)


configured_primitive("Tril", lambda x, diagonal: tril(x, diagonal), diagonal=0)
configured_primitive("Triu", lambda x, diagonal: triu(x, diagonal), diagonal=0)
configured_primitive("Roll", lambda x, shift, axis: roll(x, shift, axis), shift=0, axis=0)
export(tile, name="tile", primitive="Tile")
