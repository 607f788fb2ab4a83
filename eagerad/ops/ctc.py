"""``ctc_loss``: the Connectionist Temporal Classification loss (Graves et al. 2006;
PyTorch's ``F.ctc_loss``).

The loss of one sequence is ``-log`` of the total probability of every alignment of its
target (labels with blanks between and around them, repeats collapsed) to the input
frames.  The forward variables ``alpha`` run over the extended label sequence
``blank, l1, blank, l2, ..., blank`` in log space, all samples of the batch at once: at
each frame a state is reached from itself, its predecessor, or (for a label differing
from the one two back) over the blank between them.  Everything is eagerad ops, with a
log-sum-exp that stays finite (and has zero, not nan, gradients) where no alignment
reaches a state, so gradients of every order come from the engine.

>>> import eagerad
>>> lp = eagerad.tensor([[[0.0, -50.0]], [[-50.0, 0.0]]])      # frames: blank, then label 1
>>> round(ctc_loss(lp, eagerad.tensor([[1]]), [2], [1], reduction="sum").item(), 6)
0.0
"""
import numpy as np

from ..tensor import Tensor
from .cumulative import take_along_axis
from .math import as_tensor, exp, isfinite, log, maximum, where
from .convolution import _floats
from .registry import export
from .shape import cat

REDUCTIONS = ("none", "mean", "sum")


def log_add(*terms):
    """``log(sum(exp(terms)))`` elementwise; ``-inf`` where every term is, with zero
    gradients there (a plain log-sum-exp would give 0/0).

    >>> import eagerad
    >>> log_add(eagerad.tensor([0.0, float('-inf')]), eagerad.tensor([0.0, float('-inf')])).tolist()
    [0.6931471824645996, -inf]
    """
    top = terms[0]
    for t in terms[1:]:
        top = maximum(top, t)
    top = top.detach()                         # the result does not depend on the shift
    shift = where(isfinite(top), top, 0.0)
    total = exp(terms[0] - shift)
    for t in terms[1:]:
        total = total + exp(t - shift)
    reached = total > 0
    return where(reached, shift + log(where(reached, total, 1.0)), float("-inf"))


def _lengths(name, what, value, batch):
    out = np.asarray(value.tolist() if isinstance(value, Tensor) else value, dtype=np.int64)
    out = out.reshape(-1)
    if out.shape != (batch,):
        raise ValueError(f"{name}: {what} must give one length per sequence ({batch}), got "
                         f"{out.size}")
    if out.size and out.min() < 0:
        raise ValueError(f"{name}: {what} must not be negative, got {out.tolist()}")
    return out


def _padded_targets(name, targets, target_lengths, batch, batched):
    """Targets as a ``(batch, S)`` integer array, from the padded 2-D layout or the 1-D
    concatenation of all targets."""
    t = np.asarray(as_tensor(targets).tolist(), dtype=np.int64)
    if not batched:
        t = t.reshape(1, -1)
    if t.ndim == 2:
        if t.shape[0] != batch or (t.size and target_lengths.max() > t.shape[1]):
            raise ValueError(f"{name}: targets of shape {t.shape} do not hold {batch} sequences "
                             f"of lengths {target_lengths.tolist()}")
        return t
    if t.ndim != 1 or t.size != target_lengths.sum():
        raise ValueError(f"{name}: 1-D targets must concatenate all targets "
                         f"({target_lengths.sum()} labels), got shape {t.shape}")
    out = np.zeros((batch, int(target_lengths.max()) if batch else 0), np.int64)
    starts = np.cumsum(target_lengths) - target_lengths
    for n, (s, k) in enumerate(zip(starts, target_lengths)):
        out[n, :k] = t[s:s + k]
    return out


@export
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """CTC loss of ``log_probs`` (frames, batch, classes) -- log-softmax outputs -- against
    ``targets`` (padded ``(batch, S)`` or all targets concatenated), with each sequence's
    ``input_lengths`` and ``target_lengths``.  ``reduction='mean'`` divides each loss by
    its target length, then averages; ``zero_infinity`` turns impossible alignments'
    infinite losses (and their gradients) into 0.  Unbatched input is ``(frames,
    classes)`` with ``(S,)`` targets.

    >>> import eagerad
    >>> lp = eagerad.zeros(3, 1, 2) - 0.6931471805599453        # p = 1/2 everywhere
    >>> round(ctc_loss(lp, eagerad.tensor([[1]]), [3], [1]).item(), 6)   # 6 alignments of 8
    0.287682
    """
    name = "ctc_loss"
    lp, = _floats(name, log_probs)
    if reduction not in REDUCTIONS:
        raise ValueError(f"{name}: reduction={reduction!r} is not one of {REDUCTIONS}")
    batched = lp.ndim == 3
    if not batched:
        if lp.ndim != 2:
            raise ValueError(f"{name}: log_probs must be (frames, batch, classes) or "
                             f"(frames, classes), got shape {lp.shape}")
        lp = lp.reshape(lp.shape[0], 1, lp.shape[1])
    frames, batch, classes = lp.shape
    il = _lengths(name, "input_lengths", input_lengths, batch)
    tl = _lengths(name, "target_lengths", target_lengths, batch)
    if il.size and il.max() > frames:
        raise ValueError(f"{name}: input_lengths {il.tolist()} exceed the {frames} frames")
    if not 0 <= blank < classes:
        raise ValueError(f"{name}: blank={blank} is not a class index in [0, {classes})")
    labels = _padded_targets(name, targets, tl, batch, batched)
    width = int(tl.max()) if batch else 0
    labels = labels[:, :width]
    used = np.arange(width) < tl[:, None]
    if np.any(used & ((labels < 0) | (labels >= classes) | (labels == blank))):
        raise ValueError(f"{name}: target labels must lie in [0, {classes}) and differ from "
                         f"blank={blank}")
    states = 2 * width + 1
    extended = np.full((batch, states), blank, np.int64)
    extended[:, 1::2] = np.where(used, labels, blank)
    skip = np.zeros((batch, states), bool)
    skip[:, 2:] = (extended[:, 2:] != blank) & (extended[:, 2:] != extended[:, :-2])

    device = lp.device
    emit = take_along_axis(lp, Tensor(np.broadcast_to(extended, (frames, batch, states)).copy(),
                                      device=device), 2)                  # (frames, batch, states)
    never = Tensor(np.full((batch, 2), -np.inf), device=device).astype(lp.dtype)
    skip_t = Tensor(skip, device=device)
    alpha = where(Tensor(np.arange(states) < 2, device=device), emit[0], float("-inf"))
    for t in range(1, frames):
        one_back = cat([never[:, :1], alpha[:, :-1]], 1)
        two_back = where(skip_t, cat([never, alpha[:, :-2]], 1), float("-inf"))
        step = log_add(alpha, one_back, two_back) + emit[t]
        alpha = where(Tensor((t < il)[:, None], device=device), step, alpha)
    last = Tensor((2 * tl)[:, None], device=device)
    before = Tensor(np.maximum(2 * tl - 1, 0)[:, None], device=device)
    end = take_along_axis(alpha, last, 1)
    penult = where(Tensor((tl > 0)[:, None], device=device), take_along_axis(alpha, before, 1),
                   float("-inf"))
    loss = -log_add(end, penult).reshape(batch)
    if zero_infinity:
        loss = where(loss == float("inf"), 0.0, loss)
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        return (loss / Tensor(np.maximum(tl, 1), device=device).astype(loss.dtype)).mean()
    return loss if batched else loss.reshape(())
