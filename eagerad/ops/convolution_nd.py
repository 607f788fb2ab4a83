"""Convolutions over any number of spatial axes: ``conv3d`` and the transposed
convolutions ``conv_transpose1d``/``conv_transpose3d`` (and unbatched input for
``conv_transpose2d``), PyTorch's ``F.*``.

The windows come from ``window_stack``: the input padded (or cropped, for negative
pads), then one strided slice per kernel offset, stacked on a new axis -- all existing
differentiable ops, so every derivative order and every device work without a kernel
of their own.  A convolution is that stack times the weight (one batched matmul, groups
as its batch axis); a transposed convolution is the convolution of the input with zeros
inserted between its cells (``stride``), padded by ``dilation * (k - 1) - padding``,
with the weight's channel axes swapped and its kernel flipped.  The 2-D convolution
keeps its own im2col kernels in ``ops.convolution``; 1-D transposed ones run there too.

>>> import eagerad
>>> conv3d(eagerad.ones(1, 1, 3, 3, 3), eagerad.ones(1, 1, 2, 2, 2)).shape
(1, 1, 2, 2, 2)
"""
import itertools
import math
import numbers

from .convolution import _bias, _check_ndim, _floats, _ints, _positive, _same_pads
from .convolution import conv_transpose2d as _conv_transpose2d
from .linalg import matmul
from .math import as_tensor
from .shape import getitem, stack, swapaxes
from .arrangement import pad as _pad_op


def spatial_ints(value, n, name):
    """``value`` (an int, or a sequence of 1 or ``n`` ints, as PyTorch's pooling and
    convolution arguments) as a tuple of ``n`` ints.

    >>> spatial_ints(2, 3, "stride"), spatial_ints((1,), 2, "padding")
    ((2, 2, 2), (1, 1))
    """
    if not isinstance(value, numbers.Integral) and len(tuple(value)) == 1:
        value = tuple(value)[0]
    return _ints(value, n, name)


def pad_or_crop(x, widths, fill=0.0):
    """``x`` with (before, after) ``widths`` for its last ``len(widths)`` axes: positive
    widths pad with ``fill``, negative ones crop.

    >>> pad_or_crop(eagerad.ones(1, 4), [(1, -2)]).tolist()
    [[0.0, 1.0, 1.0]]
    """
    lead = x.ndim - len(widths)
    crop = (slice(None),) * lead + tuple(slice(-min(lo, 0), n + min(hi, 0) if hi < 0 else None)
                                         for (lo, hi), n in zip(widths, x.shape[lead:]))
    if any(lo < 0 or hi < 0 for lo, hi in widths):
        x = getitem(x, crop)
    grow = [(0, 0)] * lead + [(max(lo, 0), max(hi, 0)) for lo, hi in widths]
    if any(lo or hi for lo, hi in grow):
        x = _pad_op(x, pad_width=grow, mode="constant", constant_values=fill)
    return x


def window_counts(size, kernel, stride, dilation, widths):
    """Number of windows along each axis of ``size`` padded by ``widths``."""
    return tuple((n + lo + hi - d * (k - 1) - 1) // s + 1
                 for n, k, s, d, (lo, hi) in zip(size, kernel, stride, dilation, widths))


def window_stack(x, kernel, stride, dilation, widths, fill=0.0):
    """Every window of ``x`` (N, C, *spatial): shape (N, C, prod(kernel), *windows),
    the kernel offsets in row-major order; ``widths`` pad (or crop) each spatial axis.

    >>> window_stack(eagerad.arange(4.0).reshape(1, 1, 4), (2,), (2,), (1,), [(0, 0)]).tolist()
    [[[[0.0, 2.0], [1.0, 3.0]]]]
    """
    out = window_counts(x.shape[2:], kernel, stride, dilation, widths)
    if any(o <= 0 for o in out):
        raise ValueError(f"input of spatial size {tuple(x.shape[2:])} (padding {widths}) is "
                         f"smaller than the kernel {kernel} (dilation {dilation})")
    x = pad_or_crop(x, widths, fill)
    slices = []
    for offset in itertools.product(*(range(k) for k in kernel)):
        index = (slice(None), slice(None)) + tuple(
            slice(o * d, o * d + s * (m - 1) + 1, s)
            for o, d, s, m in zip(offset, dilation, stride, out))
        slices.append(getitem(x, index))
    return stack(slices, axis=2)


def _conv_widths(padding, size, kernel, stride, dilation):
    """(before, after) per axis from PyTorch's ``padding``: an int, a tuple, 'same', 'valid'."""
    n = len(size)
    if isinstance(padding, str):
        if padding == "valid":
            return [(0, 0)] * n
        if padding == "same":
            flat = _same_pads(size, kernel, stride, dilation)
            return list(zip(flat[::2], flat[1::2]))
        raise ValueError(f"padding={padding!r} must be 'same', 'valid', an int or a tuple of ints")
    pads = spatial_ints(padding, n, "padding")
    if any(p < 0 for p in pads):
        raise ValueError(f"padding must not be negative, got {padding!r}")
    return [(p, p) for p in pads]


def _batch(name, x, dims):
    """``x`` with a batch axis (an unbatched (C, *spatial) input gains N = 1), and the undo."""
    if x.ndim == dims + 1:
        return x.reshape((1,) + x.shape), lambda y: y.reshape(y.shape[1:])
    _check_ndim(name, "input", x, dims + 2)
    return x, lambda y: y


def _check_groups(name, x, weight, groups, divided, channels, layout):
    """``groups`` must be a positive int dividing the input's channels and ``divided``, and
    the weight (``layout``) must expect ``channels`` == the input's channels."""
    c = x.shape[1]
    fits = isinstance(groups, numbers.Integral) and groups > 0 and not c % groups \
        and not divided % groups
    if not fits or channels != c:
        raise ValueError(f"{name}: input of shape {x.shape} and weight of shape {weight.shape} "
                         f"do not fit groups={groups!r}: the weight must be {layout}, groups a "
                         f"positive int dividing the channels")


def conv_nd(name, input, weight, bias, stride, widths_or_padding, dilation, groups, dims):
    """The N-D cross-correlation behind ``conv3d`` and the transposed convolutions;
    ``widths_or_padding`` is PyTorch's ``padding`` or a list of (before, after) pairs
    (negative entries crop).

    >>> conv_nd("c", eagerad.ones(1, 1, 4), eagerad.ones(1, 1, 2), None, 1, 0, 1, 1, 1).tolist()
    [[[2.0, 2.0, 2.0]]]
    """
    x, weight = _floats(name, input, weight)
    x, undo = _batch(name, x, dims)
    _check_ndim(name, "weight", weight, dims + 2)
    n, c = x.shape[:2]
    o, cg = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    _check_groups(name, x, weight, groups, o, cg * groups, "(O, C/groups, *kernel)")
    stride = _positive(spatial_ints(stride, dims, "stride"), f"{name}: stride")
    dilation = _positive(spatial_ints(dilation, dims, "dilation"), f"{name}: dilation")
    widths = widths_or_padding if isinstance(widths_or_padding, list) else \
        _conv_widths(widths_or_padding, x.shape[2:], kernel, stride, dilation)
    try:
        cols = window_stack(x, kernel, stride, dilation, widths)
    except ValueError as exc:
        raise ValueError(f"{name}: {exc}") from None
    out_size = cols.shape[3:]
    k = cg * math.prod(kernel)
    cols = cols.reshape(n, groups, k, -1)
    out = matmul(weight.reshape(groups, o // groups, k), cols).reshape((n, o) + out_size)
    if bias is not None:
        out = out + _bias(name, bias, o, out).reshape((1, o) + (1,) * dims)
    return undo(out)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D cross-correlation of ``input`` (N, C, D, H, W) or (C, D, H, W) with ``weight``
    (O, C/groups, kd, kh, kw), PyTorch's ``F.conv3d`` (``padding``: an int, a triple,
    'same' or 'valid').

    >>> conv3d(eagerad.ones(1, 2, 2, 2), eagerad.ones(1, 1, 1, 1, 1), padding='same').shape
    (1, 2, 2, 2)
    """
    return conv_nd("conv3d", input, weight, bias, stride, padding, dilation, groups, 3)


def _zero_stuffed(x, stride):
    """``x`` with ``stride - 1`` zeros between neighbouring cells of each spatial axis."""
    for axis, s in enumerate(stride, start=2):
        if s == 1:
            continue
        n = x.shape[axis]
        zero = x.detach() * 0
        spread = stack([x] + [zero] * (s - 1), axis=axis + 1)
        x = spread.reshape(x.shape[:axis] + (n * s,) + x.shape[axis + 1:])
        x = getitem(x, (slice(None),) * axis + (slice(0, (n - 1) * s + 1),))
    return x


def conv_transpose_nd(name, input, weight, bias, stride, padding, output_padding, groups,
                      dilation, dims):
    """The N-D transposed convolution (the input-gradient of ``conv_nd``): ``weight`` is
    (C_in, C_out/groups, *kernel) and each output axis ``(n-1)*stride - 2*padding +
    dilation*(k-1) + output_padding + 1`` long.

    >>> conv_transpose_nd("ct", eagerad.ones(1, 1, 2), eagerad.ones(1, 1, 2), None, 2, 0, 0,
    ...                   1, 1, 1).tolist()
    [[[1.0, 1.0, 1.0, 1.0]]]
    """
    x, weight = _floats(name, input, weight)
    x, undo = _batch(name, x, dims)
    _check_ndim(name, "weight", weight, dims + 2)
    c = x.shape[1]
    ci, og = weight.shape[:2]
    kernel = tuple(weight.shape[2:])
    _check_groups(name, x, weight, groups, c, ci, "(C, C_out/groups, *kernel)")
    stride = _positive(spatial_ints(stride, dims, "stride"), f"{name}: stride")
    dilation = _positive(spatial_ints(dilation, dims, "dilation"), f"{name}: dilation")
    pads = spatial_ints(padding, dims, "padding")
    extra = spatial_ints(output_padding, dims, "output_padding")
    if any(p < 0 for p in pads):
        raise ValueError(f"{name}: padding must not be negative, got {padding!r}")
    if any(e < 0 or e >= max(s, d) for e, s, d in zip(extra, stride, dilation)):
        raise ValueError(f"{name}: output_padding={extra} must be smaller than stride {stride} "
                         f"or dilation {dilation}")
    size = [(n - 1) * s - 2 * p + d * (k - 1) + e + 1 for n, s, p, d, k, e in
            zip(x.shape[2:], stride, pads, dilation, kernel, extra)]
    if min(size) <= 0:
        raise ValueError(f"{name}: output size {tuple(size)} is not positive")
    # weight (g * C_in/g, C_out/g, *k) -> (g * C_out/g, C_in/g, *k), kernel flipped
    w = weight.reshape((groups, c // groups, og) + kernel)
    w = swapaxes(w, 1, 2).reshape((groups * og, c // groups) + kernel)
    w = getitem(w, (slice(None), slice(None)) + (slice(None, None, -1),) * dims)
    widths = [(d * (k - 1) - p, d * (k - 1) - p + e)
              for p, d, k, e in zip(pads, dilation, kernel, extra)]
    out = conv_nd(name, _zero_stuffed(x, stride), w, None, 1, widths, dilation, groups, dims)
    if bias is not None:
        out = out + _bias(name, bias, groups * og, out).reshape((1, groups * og) + (1,) * dims)
    return undo(out)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution of (N, C_in, L) or (C_in, L) with ``weight`` (C_in,
    C_out/groups, k), PyTorch's ``F.conv_transpose1d`` (run as the 2-D one on an H axis
    of size 1).

    >>> conv_transpose1d(eagerad.ones(1, 1, 2), eagerad.ones(1, 1, 2), stride=2).tolist()
    [[[1.0, 1.0, 1.0, 1.0]]]
    """
    x, weight = as_tensor(input), as_tensor(weight)
    _check_ndim("conv_transpose1d", "weight", weight, 3)
    if x.ndim not in (2, 3):
        _check_ndim("conv_transpose1d", "input", x, 3)
    lift = [(1, v) for v in (spatial_ints(stride, 1, "stride")[0],
                             spatial_ints(dilation, 1, "dilation")[0])]
    out = conv_transpose2d(x.reshape(x.shape[:-1] + (1, x.shape[-1])),
                           weight.reshape(weight.shape[:-1] + (1, weight.shape[-1])), bias,
                           lift[0], (0, spatial_ints(padding, 1, "padding")[0]),
                           (0, spatial_ints(output_padding, 1, "output_padding")[0]), groups,
                           lift[1])
    return out.reshape(out.shape[:-2] + out.shape[-1:])


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """PyTorch's ``F.conv_transpose2d``: the 2-D kernels of ``ops.convolution``, also for
    an unbatched (C_in, H, W) input.

    >>> conv_transpose2d(eagerad.ones(1, 2, 2), eagerad.ones(1, 1, 2, 2), stride=2).shape
    (1, 4, 4)
    """
    x = as_tensor(input)
    args = (bias, stride, spatial_ints(padding, 2, "padding"),
            spatial_ints(output_padding, 2, "output_padding"), groups, dilation)
    if x.ndim == 3:
        out = _conv_transpose2d(x.reshape((1,) + x.shape), weight, *args)
        return out.reshape(out.shape[1:])
    return _conv_transpose2d(x, weight, *args)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-D convolution of (N, C_in, D, H, W) or (C_in, D, H, W) with ``weight``
    (C_in, C_out/groups, kd, kh, kw), PyTorch's ``F.conv_transpose3d``.

    >>> conv_transpose3d(eagerad.ones(1, 1, 2, 2, 2), eagerad.ones(1, 1, 2, 2, 2), stride=2).shape
    (1, 1, 4, 4, 4)
    """
    return conv_transpose_nd("conv_transpose3d", input, weight, bias, stride, padding,
                             output_padding, groups, dilation, 3)
