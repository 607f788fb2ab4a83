"""cuda backend: the sliding-window kernels of convolution and pooling.

The same ``unfold`` (im2col) and ``fold`` (col2im, its adjoint) as the CPU
backend, one thread per output element: ``unfold`` reads one input pixel (or
the fill value in the padding), ``fold`` sums the column entries that came from
one pixel in the CPU's order, so no atomics are needed and both devices add in
the same sequence.  Convolution and pooling are then matmul and reductions,
which this backend already has.  Every name in ``__all__`` becomes ``B.<name>``.
"""
import numpy as np
from numba import cuda

from ..cpu.nn import windows
from .launch import THREADS, blocks

__all__ = ["unfold", "fold"]


@cuda.jit
def _unfold(out, x, C, H, W, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl, fill):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        ox = i % ow
        r = i // ow
        oy = r % oh
        r //= oh
        kx = r % kw
        r //= kw
        ky = r % kh
        nc = r // kh
        y = oy * sh - pt + ky * dh
        xx = ox * sw - pl + kx * dw
        if 0 <= y < H and 0 <= xx < W:
            out[i] = x[(nc * H + y) * W + xx]
        else:
            out[i] = fill


@cuda.jit
def _fold(out, cols, H, W, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        xx = i % W
        r = i // W
        y = r % H
        nc = r // H
        acc = 0.0
        for ky in range(kh):
            ty = y + pt - ky * dh
            if ty < 0 or ty % sh != 0 or ty // sh >= oh:
                continue
            for kx in range(kw):
                tx = xx + pl - kx * dw
                if tx < 0 or tx % sw != 0 or tx // sw >= ow:
                    continue
                acc += cols[(((nc * kh + ky) * kw + kx) * oh + ty // sh) * ow + tx // sw]
        out[i] = acc


def unfold(x, kernel, stride, dilation, pads, fill):
    """Windows of ``x`` (N, C, H, W) as (N, C, kh, kw, oh, ow); see the CPU backend."""
    N, C, H, W = x.shape
    oh, ow = windows((H, W), kernel, stride, dilation, pads)
    out = cuda.device_array((N * C * kernel[0] * kernel[1] * oh * ow,), x.dtype)
    if out.size:
        _unfold[blocks(out.size), THREADS](out, x.reshape(x.size), C, H, W, *kernel, oh, ow,
                                           *stride, *dilation, pads[0], pads[2],
                                           x.dtype.type(fill))
    return out.reshape((N, C) + tuple(kernel) + (oh, ow))


def fold(cols, size, kernel, stride, dilation, pads):
    """Column entries summed back into an (N, C, *size) image; see the CPU backend."""
    N, C = cols.shape[:2]
    oh, ow = cols.shape[-2:]
    out = cuda.device_array((N * C * size[0] * size[1],), cols.dtype)
    if out.size:
        _fold[blocks(out.size), THREADS](out, cols.reshape(cols.size), *size, *kernel, oh, ow,
                                         *stride, *dilation, pads[0], pads[2])
    return out.reshape((N, C) + tuple(size))
