"""PyTorch's ``fold`` (the adjoint of ``unfold``: patches summed back into an image) and
power-average pooling ``lp_pool1d``/``2d``/``3d``, both from differentiable ops.

>>> import eagerad
>>> import eagerad.nn.functional as F
>>> x = eagerad.arange(16.0).reshape(1, 1, 4, 4)
>>> bool((fold(F.unfold(x, 2, stride=2), (4, 4), 2, stride=2) == x).all())
True
"""
import numpy as np

from .. import ops
from ..ops.convolution import avg_pool1d, avg_pool2d
from ..ops.pooling_nd import avg_pool3d
from ..tensor import Tensor

_AVERAGES = {1: avg_pool1d, 2: avg_pool2d, 3: avg_pool3d}


def _pair(v, n, name):
    t = (v,) * n if isinstance(v, int) else tuple(v)
    if len(t) != n:
        raise ValueError(f"fold: {name} must be an int or {n} ints, got {v!r}")
    return t


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding blocks ``(N, C*kh*kw, L)`` (or unbatched) back into ``(N, C, H, W)``
    of ``output_size``: where blocks overlap their entries add.

    >>> import eagerad
    >>> fold(eagerad.ones(1, 4, 4), (3, 3), 2).reshape(3, 3).tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    (h, w), (kh, kw) = _pair(output_size, 2, "output_size"), _pair(kernel_size, 2, "kernel_size")
    (dh, dw), (ph, pw) = _pair(dilation, 2, "dilation"), _pair(padding, 2, "padding")
    sh, sw = _pair(stride, 2, "stride")
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    if x.ndim != 3 or x.shape[1] % (kh * kw):
        raise ValueError(f"fold: input must be (N, C*{kh}*{kw}, L) or unbatched, got shape "
                         f"{tuple(input.shape)}")
    channels = x.shape[1] // (kh * kw)
    hp, wp = h + 2 * ph, w + 2 * pw
    rows = (hp - dh * (kh - 1) - 1) // sh + 1
    cols = (wp - dw * (kw - 1) - 1) // sw + 1
    if rows * cols != x.shape[2]:
        raise ValueError(f"fold: output_size {(h, w)} with kernel {(kh, kw)}, stride {(sh, sw)}, "
                         f"padding {(ph, pw)} and dilation {(dh, dw)} makes {rows * cols} blocks, "
                         f"but input has {x.shape[2]}")
    # target (flat index into the padded image) of each (channel, ki, kj, block) entry
    c, ki, kj, r, q = np.ix_(np.arange(channels), np.arange(kh), np.arange(kw), np.arange(rows),
                             np.arange(cols))
    target = (c * hp + ki * dh + r * sh) * wp + kj * dw + q * sw
    flat_index = Tensor(target.reshape(-1).astype(np.int64), device=x.device)
    padded = ops.zeros(x.shape[0], channels * hp * wp, dtype=x.dtype, device=x.device)
    padded = ops.index_add(padded, 1, flat_index, x.reshape(x.shape[0], -1))
    out = padded.reshape(x.shape[0], channels, hp, wp)[:, :, ph:ph + h, pw:pw + w]
    return out.squeeze(0) if unbatched else out


def _lp_pool(name, spatial):
    def fn(input, norm_type, kernel_size, stride=None, ceil_mode=False):
        kernel = (kernel_size,) * spatial if isinstance(kernel_size, int) else tuple(kernel_size)
        out = _AVERAGES[spatial](input ** norm_type, kernel, stride, 0, ceil_mode)
        return (ops.sign(out) * ops.relu(ops.abs(out)) * float(np.prod(kernel))) ** (1.0 / norm_type)
    fn.__name__ = name
    fn.__doc__ = (f"The ``norm_type``-power average over {spatial}-D windows, times the window "
                  f"size, to the power ``1/norm_type`` (PyTorch's ``{name}``).")
    return fn


lp_pool1d, lp_pool2d, lp_pool3d = (_lp_pool(f"lp_pool{n}d", n) for n in (1, 2, 3))
