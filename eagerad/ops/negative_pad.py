"""PyTorch's ``F.pad`` with negative widths: a negative width crops that side ('constant'
and 'replicate' modes, as PyTorch allows); every other call is ``ops.pad``.

'replicate' reads cell ``clip(i - before, 0, n - 1)`` of each padded axis (one index
gather per axis, differentiable to any order), which is also what PyTorch computes when
a side is cropped past the other side's padding.

>>> import eagerad
>>> pad(eagerad.tensor([[1.0, 2.0, 3.0]]), (-1, 2), mode="replicate").tolist()
[[2.0, 3.0, 3.0, 3.0]]
"""
import numpy as np

from ..tensor import Tensor
from .arrangement import pad as _pad
from .indexing import take
from .math import as_tensor


def pad(input, pad, mode="constant", value=None):
    """``F.pad(input, pad, mode, value)``; ``pad`` is PyTorch's flat (before, after) list,
    last axis first, and may hold negative widths in 'constant' and 'replicate' modes.

    >>> pad(eagerad.tensor([1.0, 2.0, 3.0]), (-1, 1)).tolist()
    [2.0, 3.0, 0.0]
    """
    widths = [int(w) for w in pad]
    if len(widths) % 2 or all(w >= 0 for w in widths):
        return _pad(input, tuple(pad), mode=mode, value=value)
    x = as_tensor(input)
    if mode not in ("constant", "replicate"):
        raise ValueError(f"pad: negative padding {tuple(widths)} is supported in 'constant' and "
                         f"'replicate' modes, not {mode!r}")
    if len(widths) // 2 > x.ndim:
        raise ValueError(f"pad: {len(widths)} widths for input of shape {tuple(x.shape)}")
    for k in range(len(widths) // 2):
        axis, before, after = x.ndim - 1 - k, widths[2 * k], widths[2 * k + 1]
        n = x.shape[axis]
        size = n + before + after
        if size < 0 or (mode == "replicate" and size and not n):
            raise ValueError(f"pad: widths ({before}, {after}) leave axis {axis} of input "
                             f"{tuple(x.shape)} with size {size}")
        if mode == "replicate":
            cells = np.clip(np.arange(size) - before, 0, max(n - 1, 0))
        else:
            cells = np.arange(max(-before, 0), n + min(after, 0))
        if mode == "replicate" or before < 0 or after < 0:
            x = take(x, Tensor(cells.astype(np.int64), device=x.device), axis)
        if mode == "constant" and (before > 0 or after > 0):
            grow = [0, 0] * k + [max(before, 0), max(after, 0)]
            x = _pad(x, tuple(grow), mode="constant", value=value)
    return x
