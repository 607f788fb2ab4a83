"""cpu backend: cross-entropy over class indices in one Numba pass each way
(``loss_kernels``), the loss that ends most training steps, and the embedding lookup that
starts many.  Every name in ``__all__``
becomes ``B.<name>``.

>>> cross_entropy_index(np.array([[0.0, 0.0]]), np.array([1]), None, None, 0.0, "sum")
array(0.69314718)
"""
import numpy as np

__all__ = ["cross_entropy_index", "cross_entropy_index_backward", "embedding_rows"]


_NO_WEIGHTS = np.zeros(0)


def _operands(x, t, w, ignore_index):
    """The kernels' operands: C-contiguous float32/float64 scores, int64 targets,
    float64 weights (empty: none), the ignored index (and whether there is one)."""
    if x.dtype.char not in "fd":
        x = x.astype(np.float32)
    if not x.flags.c_contiguous:
        x = np.ascontiguousarray(x)
    if t.dtype != np.int64 or not t.flags.c_contiguous:
        t = np.ascontiguousarray(t, dtype=np.int64)
    w = _NO_WEIGHTS if w is None else np.ascontiguousarray(w, dtype=np.float64)
    return x, t, w, (0 if ignore_index is None else int(ignore_index)), ignore_index is not None


_NONE = {"f": np.zeros((0, 0), np.float32), "d": np.zeros((0, 0))}   # "keep nothing"


def cross_entropy_index(x, t, w, ignore_index, label_smoothing, reduction, keep=None):
    """Cross-entropy of scores ``x`` (M, C) against class indices ``t`` (M,): class
    weights ``w`` (C,) or None, targets equal to ``ignore_index`` (None: none) left out,
    ``label_smoothing`` mixing in the uniform distribution; ``reduction`` 'none' gives
    (M,) losses, 'sum' their sum, 'mean' the sum over the targets' total weight.  The
    result has x's dtype.  A target outside [0, C) raises ValueError.  A list ``keep``
    receives ``[x, exps, reciprocal sums]`` for ``cross_entropy_index_backward``.

    >>> cross_entropy_index(np.array([[0.0, 0.0], [5.0, 0.0]]), np.array([1, -100]), None, -100, 0.0, "none")
    array([0.69314718, 0.        ])
    """
    from .loss_kernels import forward
    xs, ts, ws, ignore, has_ignore = _operands(x, t, w, ignore_index)
    rows = np.empty(ts.shape[0])
    e, inv = (np.empty(xs.shape, xs.dtype), np.empty(ts.shape[0])) if keep is not None \
        else (_NONE[xs.dtype.char], rows)
    total_w, total, bad = forward(xs, ts, ws, ignore, has_ignore, float(label_smoothing), rows,
                                  e, inv)
    if bad >= 0:
        valid = ts[ts != ignore] if has_ignore else ts
        ignored = " (or be ignore_index)" if has_ignore else ""
        raise ValueError(f"cross_entropy: class indices must lie in [0, {x.shape[1]}){ignored}, "
                         f"got values from {valid.min()} to {valid.max()}")
    if keep is not None:
        keep[:] = [x, e, inv]
    if reduction == "none":
        return rows.astype(x.dtype)
    if reduction == "mean":
        total = total / total_w if total_w else np.nan
    return np.array(total, x.dtype)


def cross_entropy_index_backward(g, x, t, w, ignore_index, label_smoothing, reduction,
                                 kept=None):
    """The gradient of ``cross_entropy_index`` with respect to ``x`` for the output
    gradient ``g`` (0-d, or (M,) for 'none'), in x's dtype; ``kept`` is what its
    ``keep`` received for this very ``x`` (else the exponentials are computed again),
    emptied here so that the node does not hold them after its backward.

    >>> cross_entropy_index_backward(np.array(1.0), np.array([[0.0, 0.0]]), np.array([1]), None, None, 0.0, "mean")
    array([[ 0.5, -0.5]])
    """
    from .loss_kernels import backward, target_weight
    xs, ts, ws, ignore, has_ignore = _operands(x, t, w, ignore_index)
    if reduction == "none":
        gs = np.ascontiguousarray(g, dtype=np.float64)
    else:
        scale = float(g)
        if reduction == "mean":
            total_w = target_weight(ts, ws, ignore, has_ignore)
            scale = scale / total_w if total_w else np.nan
        gs = np.full(ts.shape[0], scale)
    e, inv = _NONE[xs.dtype.char], gs
    if kept and kept[0] is x and kept[1].dtype == xs.dtype:
        e, inv = kept[1], kept[2]
    if kept:
        kept.clear()        # used once: a retained graph's next backward computes them again
    out = np.empty(xs.shape, xs.dtype)
    backward(gs, xs, ts, ws, ignore, has_ignore, float(label_smoothing), e, inv, out)
    return out if out.dtype == x.dtype else out.astype(x.dtype)


def embedding_rows(w, idx):
    """The rows of ``w`` picked by the integer array ``idx`` (shape ``idx.shape + w.shape[1:]``),
    by ``np.take`` (~1.6x numpy's fancy indexing); indices are checked by the caller.

    >>> embedding_rows(np.arange(6.0).reshape(3, 2), np.array([[2], [0]]))
    array([[[4., 5.]],
    <BLANKLINE>
           [[0., 1.]]])
    """
    return np.take(w, idx, axis=0)
