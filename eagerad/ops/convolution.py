"""Convolution, pooling and resizing of NCHW batches, differentiable to any order.

Two op stanzas carry the whole family: ``unfold`` (im2col: every kernel window
of the image copied into columns) and ``fold`` (its adjoint, summing columns
back into an image).  Each is linear and the other's vjp, so the vjp of a
convolution is again convolution-shaped ops (PyTorch writes the input gradient
as a transposed convolution; here it is the same fold), and second and third
derivatives (double backward for WGAN-GP or PINN losses) come for free.

- ``conv2d`` = unfold, then one batched matmul with the weight (groups are a
  batch axis of that matmul); ``conv_transpose2d`` = matmul, then fold.  On the CPU,
  float convolutions with groups=1 are one op (``conv2d_gemm``: the same products in
  one backend call each way), whose rules are these ops again.
- ``max_pool2d`` = unfold with ``-inf`` padding, then the window's first
  maximum picked by a mask (so the gradient goes to the argmax, ties to the
  first, as PyTorch); ``avg_pool2d`` = unfold, sum, divide by the count.
- ``adaptive_avg_pool2d`` and bilinear ``interpolate`` are separable linear maps,
  ``A_h @ x @ A_w^T``; nearest ``interpolate`` is an index gather.

The 1-D versions add an H axis of size 1.  On CUDA only ``unfold``/``fold``
have kernels of their own (``backend/cuda/nn.py``); the rest is existing ops.

>>> import eagerad
>>> x = eagerad.ones(1, 1, 4, 4)
>>> conv2d(x, eagerad.ones(2, 1, 3, 3), padding=1).shape
(1, 2, 4, 4)
"""
import math
import numbers

import numpy as np

from .. import dtype as dt
from ..autograd.batching import BatchedTensor
from ..backend.cpu import nn as cpu_nn
from ..tensor import Tensor, arange
from .arrangement import pad
from .linalg import matmul
from .pooling import max_pool_fused
from .pool_index import max_pool_indexed
from .math import as_tensor, equal, where
from .reduction import argmax
from .registry import Case, U, defop, export, loop_batch
from .shape import broadcast_to, getitem, transpose

# ------------------------------------------------------------------ the two ops


def _unfold_vjp(g, ans, x, kernel, stride, dilation, pads, fill):
    return _fold(g, size=tuple(x.shape[2:]), kernel=kernel, stride=stride, dilation=dilation,
                 pads=pads)


def _unfold_jvp(t, ans, x, kernel, stride, dilation, pads, fill):
    return _unfold(t, kernel=kernel, stride=stride, dilation=dilation, pads=pads, fill=0.0)


def _fold_vjp(g, ans, cols, size, kernel, stride, dilation, pads):
    return _unfold(g, kernel=kernel, stride=stride, dilation=dilation, pads=pads, fill=0.0)


def _fold_jvp(t, ans, cols, size, kernel, stride, dilation, pads):
    return _fold(t, size=size, kernel=kernel, stride=stride, dilation=dilation, pads=pads)


def _to_front(x, axis):
    """``x`` with axis ``axis`` moved to position 0."""
    if axis == 0:
        return x
    perm = (axis,) + tuple(i for i in range(x.ndim) if i != axis)
    return transpose(x, perm)


def _merge_batch(op):
    """Batching rule of an op on (N, C, ...) arrays whose other operands (a convolution's
    weight and bias) are shared: the vmapped axis joins N; a batched weight or bias runs
    per sample."""
    def rule(args, bdims, **kw):
        if any(d is not None for d in bdims[1:]):
            size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
            return loop_batch(op, args, bdims, kw, size)
        x = _to_front(args[0], bdims[0])
        b, n = x.shape[:2]
        out = op(x.reshape((b * n,) + x.shape[2:]), *args[1:], **kw)
        return out.reshape((b, n) + out.shape[1:]), 0
    return rule


_GEOMETRY = [dict(kernel=(3, 2), stride=(2, 1), dilation=(1, 2), pads=(1, 0, 0, 1)),
             dict(kernel=(2, 2), stride=(1, 1), dilation=(1, 1), pads=(0, 0, 0, 0))]


def _cols_shape(n, c, size, geometry):
    return (n, c) + geometry["kernel"] + cpu_nn.windows(size, geometry["kernel"],
                                                        geometry["stride"],
                                                        geometry["dilation"], geometry["pads"])


_unfold = defop("unfold", lambda B, x, kernel, stride, dilation, pads, fill:
                B.unfold(x, kernel, stride, dilation, pads, fill),
                vjp=_unfold_vjp, jvp=_unfold_jvp, saves=(),
                cases=[Case(U(2, 2, 5, 4), fill=0.0, **_GEOMETRY[0]),
                       Case(U(1, 1, 3, 3), fill=0.0, **_GEOMETRY[1]),
                       Case(U(0, 1, 3, 3), fill=0.0, **_GEOMETRY[1])])
_fold = defop("fold", lambda B, cols, size, kernel, stride, dilation, pads:
              B.fold(cols, size, kernel, stride, dilation, pads),
              vjp=_fold_vjp, jvp=_fold_jvp, saves=(),
              cases=[Case(U(*_cols_shape(2, 2, (5, 4), _GEOMETRY[0])), size=(5, 4), **_GEOMETRY[0]),
                     Case(U(*_cols_shape(1, 1, (3, 3), _GEOMETRY[1])), size=(3, 3), **_GEOMETRY[1]),
                     Case(U(*_cols_shape(0, 1, (3, 3), _GEOMETRY[1])), size=(3, 3), **_GEOMETRY[1])])
_unfold.batch = _merge_batch(_unfold)
_fold.batch = _merge_batch(_fold)

# ------------------------------------------------- 2-D convolution as one op (CPU)


def _gemm_unfold(x, kernel, geometry):
    stride, dilation, pads = geometry
    return _unfold(x, kernel=tuple(kernel), stride=stride, dilation=dilation, pads=pads,
                   fill=0.0)


def _conv_gemm_grad_x(g, ans, x, w, b, geometry):
    """``fold(W^T @ g)``: the input gradient, in unfold/fold/matmul ops (any order)."""
    stride, dilation, pads = geometry
    n, o, oh, ow = g.shape
    _, c, kh, kw = w.shape
    dcols = matmul(w.reshape(o, c * kh * kw).swapaxes(0, 1), g.reshape(n, o, oh * ow))
    return _fold(dcols.reshape(n, c, kh, kw, oh, ow), size=tuple(x.shape[2:]), kernel=(kh, kw),
                 stride=stride, dilation=dilation, pads=pads)


def _conv_gemm_grad_w(g, ans, x, w, b, geometry):
    """``sum_n g[n] @ cols[n]^T``: the weight gradient."""
    n, o, oh, ow = g.shape
    cols = _gemm_unfold(x, w.shape[2:], geometry).reshape(n, -1, oh * ow)
    return matmul(g.reshape(n, o, oh * ow), cols.swapaxes(-1, -2)).sum(axis=0).reshape(w.shape)


_conv_gemm = defop(
    "conv2d_gemm", lambda B, x, w, b, geometry: B.conv2d_gemm(x, w, b, geometry),
    vjp=(_conv_gemm_grad_x, _conv_gemm_grad_w,
         lambda g, ans, x, w, b, geometry: g.sum(axis=(0, 2, 3))),
    jvp=(lambda t, ans, x, w, b, geometry: _conv_gemm(t, w, None, geometry=geometry),
         lambda t, ans, x, w, b, geometry: _conv_gemm(x, t, None, geometry=geometry),
         lambda t, ans, x, w, b, geometry: broadcast_to(t.reshape(1, -1, 1, 1), ans.shape)),
    fast=(lambda B, g, ans, x, w, b, geometry:
          B.conv2d_gemm_grad_input(g, w, tuple(x.shape[2:]), geometry),
          lambda B, g, ans, x, w, b, geometry:
          B.conv2d_gemm_grad_weight(g, x, tuple(w.shape), geometry),
          lambda B, g, ans, x, w, b, geometry: B.reduce("sum", g, (0, 2, 3), False)),
    saves={0: (1,), 1: (0,), 2: ()},
    cases=[Case(U(2, 2, 5, 4), U(3, 2, 3, 2), U(3), geometry=((2, 1), (1, 2), (1, 0, 0, 1))),
           Case(U(1, 1, 3, 3), U(1, 1, 2, 2), None, geometry=((1, 1), (1, 1), (0, 0, 0, 0)))])
_conv_gemm.batch = _merge_batch(_conv_gemm)


def _transposed_forward(B, x, w, b, size, geometry):
    out = B.conv2d_gemm_grad_input(x, w, size, geometry)
    return out if b is None else B.binary("add", out, b.reshape(1, -1, 1, 1))


# The transposed convolution is the input-gradient of ``conv2d_gemm``, so its own
# gradients are that op's forward (input) and weight gradient with the roles of input
# and output swapped: one op each way, as for the convolution.
_transposed_gemm = defop(
    "conv_transpose2d_gemm", _transposed_forward,
    vjp=(lambda g, ans, x, w, b, size, geometry: _conv_gemm(g, w, None, geometry=geometry),
         lambda g, ans, x, w, b, size, geometry: _conv_gemm_grad_w(x, None, g, w, None, geometry),
         lambda g, ans, x, w, b, size, geometry: g.sum(axis=(0, 2, 3))),
    jvp=(lambda t, ans, x, w, b, size, geometry:
         _transposed_gemm(t, w, None, size=size, geometry=geometry),
         lambda t, ans, x, w, b, size, geometry:
         _transposed_gemm(x, t, None, size=size, geometry=geometry),
         lambda t, ans, x, w, b, size, geometry: broadcast_to(t.reshape(1, -1, 1, 1), ans.shape)),
    fast=(lambda B, g, ans, x, w, b, size, geometry: B.conv2d_gemm(g, w, None, geometry),
          lambda B, g, ans, x, w, b, size, geometry:
          B.conv2d_gemm_grad_weight(x, g, tuple(w.shape), geometry),
          lambda B, g, ans, x, w, b, size, geometry: B.reduce("sum", g, (0, 2, 3), False)),
    saves={0: (1,), 1: (0,), 2: ()},
    cases=[Case(U(2, 3, 2, 3), U(3, 2, 3, 2), U(2), size=(5, 4),
                geometry=((2, 1), (1, 2), (1, 0, 0, 1))),
           Case(U(1, 1, 2, 2), U(1, 1, 2, 2), None, size=(4, 4),
                geometry=((2, 2), (1, 1), (0, 0, 0, 0)))])
_transposed_gemm.batch = _merge_batch(_transposed_gemm)

# ------------------------------------------------------------ argument parsing


def _ints(value, n, name):
    """``value`` (an int or a sequence of ``n`` ints) as a tuple of ``n`` ints."""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * n
    try:
        out = tuple(int(v) for v in value)
    except TypeError:
        out = ()
    if len(out) != n:
        raise ValueError(f"{name} must be an int or a tuple of {n} ints, got {value!r}")
    return out


def _positive(values, name):
    if any(v <= 0 for v in values):
        raise ValueError(f"{name} must be positive, got {values}")
    return values


def _same_pads(size, kernel, stride, dilation):
    """'same' padding (TensorFlow/MindSpore; PyTorch's for stride 1): output
    ``ceil(size / stride)``, the odd pixel of an uneven total at the bottom/right."""
    pads = []
    for n, k, s, d in zip(size, kernel, stride, dilation):
        total = max((-(-n // s) - 1) * s + d * (k - 1) + 1 - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


def conv_pads(padding, size, kernel, stride, dilation):
    """(top, bottom, left, right) from ``padding``: an int, (ph, pw) (PyTorch), (top,
    bottom, left, right) (MindSpore's ``pad_mode='pad'``), ``'same'`` or ``'valid'``.

    >>> conv_pads('same', (5, 5), (4, 3), (1, 1), (1, 1)), conv_pads((1, 2), (5, 5), (3, 3), (1, 1), (1, 1))
    ((1, 2, 1, 1), (1, 1, 2, 2))
    """
    if isinstance(padding, str):
        if padding == "valid":
            return (0, 0, 0, 0)
        if padding == "same":
            return _same_pads(size, kernel, stride, dilation)
        raise ValueError(f"padding={padding!r} must be 'same', 'valid', an int or a tuple of ints")
    if not isinstance(padding, numbers.Integral) and len(tuple(padding)) == 4:
        pads = _ints(padding, 4, "padding")
    else:
        ph, pw = _ints(padding, 2, "padding")
        pads = (ph, ph, pw, pw)
    if any(p < 0 for p in pads):
        raise ValueError(f"padding must not be negative, got {padding!r}")
    return pads


def _floats(name, *tensors):
    """Tensors of one floating dtype (integers become the default float)."""
    ts = [as_tensor(t) for t in tensors]
    target = ts[0].dtype
    for t in ts[1:]:
        target = dt.promote(target, t.dtype)
    if target.kind != "f":
        target = dt.default_float
    return [t if t.dtype == target else t.astype(target) for t in ts]


def _plain(t):
    """Whether ``t`` is a Tensor outside vmap (a BatchedTensor takes the op-by-op path)."""
    return isinstance(t, Tensor) and not isinstance(t, BatchedTensor)


def _check_ndim(name, what, t, ndim):
    if t.ndim != ndim:
        raise ValueError(f"{name}: {what} must have {ndim} dimensions, got shape {t.shape}")


def _check_geometry(name, size, kernel, stride, dilation, pads):
    _positive(kernel, f"{name}: kernel_size")
    _positive(stride, f"{name}: stride")
    _positive(dilation, f"{name}: dilation")
    out = cpu_nn.windows(size, kernel, stride, dilation, pads)
    if any(o <= 0 for o in out):
        raise ValueError(f"{name}: input of spatial size {tuple(size)} (padding {pads}) is smaller "
                         f"than the dilated kernel {kernel} (dilation {dilation})")
    return out

# ------------------------------------------------------------------ convolution


def _conv(name, x, weight, bias, stride, padding, dilation, groups):
    """The 2-D convolution behind every spelling; an unbatched (C, H, W) input, as
    PyTorch takes (and as each sample looks inside vmap), gives a (O, H', W') output."""
    x, weight = _floats(name, x, weight)
    if x.ndim == 3:
        out = _conv(name, x.reshape((1,) + x.shape), weight, bias, stride, padding, dilation,
                    groups)
        return out.reshape(out.shape[1:])
    _check_ndim(name, "input", x, 4)
    _check_ndim(name, "weight", weight, 4)
    n, c, h, w = x.shape
    o, cg, kh, kw = weight.shape
    if not isinstance(groups, numbers.Integral) or groups <= 0 or c % groups or o % groups:
        raise ValueError(f"{name}: groups={groups} must be a positive int dividing the input's "
                         f"{c} channels and the weight's {o} output channels")
    if cg * groups != c:
        raise ValueError(f"{name}: weight of shape {weight.shape} expects {cg * groups} input "
                         f"channels (groups={groups}), input of shape {x.shape} has {c}")
    stride, dilation = _ints(stride, 2, "stride"), _ints(dilation, 2, "dilation")
    pads = conv_pads(padding, (h, w), (kh, kw), stride, dilation)
    oh, ow = _check_geometry(name, (h, w), (kh, kw), stride, dilation, pads)
    if groups == 1 and x.size and x.device.type == "cpu" and _plain(x) and _plain(weight) \
            and x.dtype.name in ("float32", "float64") and weight.dtype == x.dtype \
            and (bias is None or _plain(bias)):
        b = None if bias is None else _bias(name, bias, o, x)
        return _conv_gemm(x, weight, b, geometry=(stride, dilation, pads))   # one op each way
    cols = _unfold(x, kernel=(kh, kw), stride=stride, dilation=dilation, pads=pads, fill=0.0)
    cols = cols.reshape(n, groups, cg * kh * kw, oh * ow)
    out = matmul(weight.reshape(groups, o // groups, cg * kh * kw), cols).reshape(n, o, oh, ow)
    return out if bias is None else out + _bias(name, bias, o, out).reshape(1, o, 1, 1)


def _bias(name, bias, channels, like):
    bias = as_tensor(bias, like)
    if bias.shape != (channels,):
        raise ValueError(f"{name}: bias must have shape ({channels},), got {bias.shape}")
    return bias if bias.dtype == like.dtype else bias.astype(like.dtype)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D cross-correlation of ``input`` (N, C, H, W) with ``weight`` (O, C/groups, kh,
    kw), PyTorch's ``F.conv2d``; ``padding`` is an int, (ph, pw), (top, bottom, left,
    right), ``'same'`` or ``'valid'``.

    >>> conv2d(eagerad.ones(1, 1, 3, 3), eagerad.ones(1, 1, 2, 2)).tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    return _conv("conv2d", input, weight, bias, stride, padding, dilation, groups)


def _ms_padding(name, pad_mode, padding):
    """MindSpore's ``pad_mode`` ('same' | 'valid' | 'pad') and ``padding`` as one padding."""
    if pad_mode == "pad":
        return padding
    if pad_mode not in ("same", "valid"):
        raise ValueError(f"{name}: pad_mode={pad_mode!r} is not one of 'same', 'valid', 'pad'")
    if padding not in (0, (0, 0), (0, 0, 0, 0)):
        raise ValueError(f"{name}: padding={padding!r} needs pad_mode='pad', got "
                         f"pad_mode={pad_mode!r}")
    return pad_mode


@export(name="conv2d")
def conv2d_ms(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
              groups=1):
    """MindSpore's ``ops.conv2d``: padding chosen by ``pad_mode`` ('valid', 'same', or
    'pad' with ``padding`` an int or (top, bottom, left, right)).

    >>> conv2d_ms(eagerad.ones(1, 1, 3, 3), eagerad.ones(1, 1, 3, 3), pad_mode='same').shape
    (1, 1, 3, 3)
    """
    return _conv("conv2d", input, weight, bias, stride, _ms_padding("conv2d", pad_mode, padding),
                 dilation, groups)


def _as_2d(name, what, x, ndim, unbatched=False):
    """``x`` with a unit H axis before its last; ``unbatched`` also allows one fewer axis."""
    x = as_tensor(x)
    if not (unbatched and x.ndim == ndim - 1):
        _check_ndim(name, what, x, ndim)
    return x.reshape(x.shape[:-1] + (1, x.shape[-1]))


def _1d_padding(padding):
    """A 1-D padding as the 2-D one of an H axis of size 1."""
    if isinstance(padding, str):
        return padding
    if isinstance(padding, numbers.Integral):
        return (0, padding)
    left, right = _ints(padding, 2, "padding")
    return (0, 0, left, right)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D cross-correlation of ``input`` (N, C, L) or unbatched (C, L) with ``weight``
    (O, C/groups, k), PyTorch's ``F.conv1d`` (``padding``: an int, (left, right), 'same',
    'valid').

    >>> conv1d(eagerad.ones(1, 1, 5), eagerad.ones(1, 1, 3), padding='same').tolist()
    [[[2.0, 3.0, 3.0, 3.0, 2.0]]]
    """
    weight = _as_2d("conv1d", "weight", weight, 3)
    x = _as_2d("conv1d", "input", input, 3, unbatched=True)
    out = _conv("conv1d", x, weight, bias, (1, _ints(stride, 1, "stride")[0]),
                _1d_padding(padding), (1, _ints(dilation, 1, "dilation")[0]), groups)
    return out.reshape(out.shape[:-2] + out.shape[-1:])


@export(name="conv1d")
def conv1d_ms(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
              groups=1):
    """MindSpore's ``ops.conv1d`` (``pad_mode`` as in ``conv2d_ms``; ``padding`` an int or
    (left, right)).

    >>> conv1d_ms(eagerad.ones(1, 1, 5), eagerad.ones(1, 1, 3)).shape
    (1, 1, 3)
    """
    return conv1d(input, weight, bias, stride, _ms_padding("conv1d", pad_mode, padding), dilation,
                  groups)


@export
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed convolution (the input-gradient of ``conv2d``), PyTorch's
    ``F.conv_transpose2d``: ``weight`` is (C_in, C_out/groups, kh, kw) and the output
    ``(H-1)*stride - 2*padding + dilation*(k-1) + output_padding + 1`` high.

    >>> conv_transpose2d(eagerad.ones(1, 1, 2, 2), eagerad.ones(1, 1, 2, 2), stride=2).shape
    (1, 1, 4, 4)
    """
    ph, pw = _ints(padding, 2, "padding")
    return transposed_conv("conv_transpose2d", input, weight, bias, stride, (ph, ph, pw, pw),
                           output_padding, groups, dilation)


def transposed_conv(name, input, weight, bias, stride, pads, output_padding, groups, dilation):
    """``conv_transpose2d`` with (top, bottom, left, right) ``pads`` cropped from the
    full output (MindSpore's 'same' needs uneven ones).

    >>> transposed_conv("ct", eagerad.ones(1, 1, 2, 2), eagerad.ones(1, 1, 2, 2), None, 1,
    ...                 (0, 1, 0, 1), 0, 1, 1).shape
    (1, 1, 2, 2)
    """
    x, weight = _floats(name, input, weight)
    _check_ndim(name, "input", x, 4)
    _check_ndim(name, "weight", weight, 4)
    n, c, h, w = x.shape
    ci, og, kh, kw = weight.shape
    if not isinstance(groups, numbers.Integral) or groups <= 0 or c % groups:
        raise ValueError(f"{name}: groups={groups} must be a positive int dividing the input's "
                         f"{c} channels")
    if ci != c:
        raise ValueError(f"{name}: weight of shape {weight.shape} expects {ci} input channels, "
                         f"input of shape {x.shape} has {c}")
    stride, dilation = _positive(_ints(stride, 2, "stride"), f"{name}: stride"), \
        _positive(_ints(dilation, 2, "dilation"), f"{name}: dilation")
    extra = _ints(output_padding, 2, "output_padding")
    if any(e < 0 or e >= max(s, d) for e, s, d in zip(extra, stride, dilation)):
        raise ValueError(f"{name}: output_padding={extra} must be smaller than stride {stride} "
                         f"or dilation {dilation}")
    if any(p < 0 for p in pads):
        raise ValueError(f"{name}: padding must not be negative, got {pads}")
    size = tuple((i - 1) * s - lo - hi + d * (k - 1) + e + 1 for i, s, lo, hi, d, k, e in
                 zip((h, w), stride, pads[::2], pads[1::2], dilation, (kh, kw), extra))
    if min(size) <= 0:
        raise ValueError(f"{name}: output size {size} is not positive")
    o = og * groups
    unreached = tuple(max(e - s + 1, 0) for e, s in zip(extra, stride))
    if groups == 1 and not any(unreached) and x.size and x.device.type == "cpu" and _plain(x) \
            and _plain(weight) and x.dtype.name in ("float32", "float64") \
            and weight.dtype == x.dtype and (bias is None or _plain(bias)):
        b = None if bias is None else _bias(name, bias, o, x)
        return _transposed_gemm(x, weight, b, size=size, geometry=(stride, dilation, pads))
    wm = weight.reshape(groups, c // groups, og * kh * kw).swapaxes(-1, -2)
    cols = matmul(wm, x.reshape(n, groups, c // groups, h * w)).reshape(n, o, kh, kw, h, w)
    if any(unreached):
        # output_padding >= stride (allowed by a large dilation) adds rows/columns no window
        # reaches: fold the uncropped output without them (its windows must tile it), append
        # them as zeros, then crop the padding
        full = tuple(z + lo + hi - u for z, lo, hi, u in zip(size, pads[::2], pads[1::2], unreached))
        out = _fold(cols, size=full, kernel=(kh, kw), stride=stride, dilation=dilation,
                    pads=(0, 0, 0, 0))
        out = pad(out, (0, unreached[1], 0, unreached[0]))
        out = out[:, :, pads[0]:pads[0] + size[0], pads[2]:pads[2] + size[1]]
    else:
        out = _fold(cols, size=size, kernel=(kh, kw), stride=stride, dilation=dilation, pads=pads)
    return out if bias is None else out + _bias(name, bias, o, out).reshape(1, o, 1, 1)

# ---------------------------------------------------------------------- pooling


def _pool_geometry(name, x, kernel_size, stride, padding, dilation, ceil_mode):
    """kernel, stride, dilation, padding and the (top, bottom, left, right) pads of a
    pooling; ``ceil_mode`` adds bottom/right padding for the last partial window
    (which must start inside the image or its left padding, as PyTorch)."""
    kernel = _positive(_ints(kernel_size, 2, "kernel_size"), f"{name}: kernel_size")
    stride = kernel if stride is None or stride == () else \
        _positive(_ints(stride, 2, "stride"), f"{name}: stride")
    dilation = _positive(_ints(dilation, 2, "dilation"), f"{name}: dilation")
    if isinstance(padding, str) and padding == "same":
        # MindSpore's (and TensorFlow's) pad_mode='same': ceil(n / stride) windows, the
        # padding split evenly with the odd cell at the bottom/right, none of it counted
        pads = _same_pads(x.shape[2:], kernel, stride, dilation)
        _check_geometry(name, x.shape[2:], kernel, stride, dilation, pads)
        return kernel, stride, dilation, (0, 0), pads
    pad = _ints(padding, 2, "padding")
    if any(p < 0 or 2 * p > k for p, k in zip(pad, kernel)):
        raise ValueError(f"{name}: padding {pad} must be at most half the kernel {kernel}")
    pads = []
    for n, k, s, d, p in zip(x.shape[2:], kernel, stride, dilation, pad):
        span = n + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        if ceil_mode and (out - 1) * s >= n + p:
            out -= 1
        pads += [p, p + max(0, (out - 1) * s + d * (k - 1) + 1 - (n + 2 * p))]
    pads = tuple(pads)
    _check_geometry(name, x.shape[2:], kernel, stride, dilation, pads)
    return kernel, stride, dilation, pad, pads


def _batched(name, x, ndim):
    """``x`` as a 4-D batch (an unbatched (C, H, W) gains N=1) and how to undo it."""
    x, = _floats(name, x)
    if x.ndim == ndim - 1:
        return x.reshape((1,) + x.shape), lambda y: y.reshape(y.shape[1:])
    _check_ndim(name, "input", x, ndim)
    return x, lambda y: y


def _max_pool(name, x, kernel_size, stride, padding, dilation, ceil_mode, return_indices):
    kernel, stride, dilation, _, pads = _pool_geometry(name, x, kernel_size, stride, padding,
                                                       dilation, ceil_mode)
    n, c, h, w = x.shape
    if _plain(x) and x.dtype.name in ("float32", "float64"):
        # the maxima found once; the backward a scatter to them
        out, idx = max_pool_indexed(x, (kernel, stride, dilation, pads))
        return (out, idx) if return_indices else out
    if not return_indices and x.dtype.name in ("float32", "float64"):
        return max_pool_fused(x, geometry=(kernel, stride, dilation, pads))   # one pass each way
    cols = _unfold(x, kernel=kernel, stride=stride, dilation=dilation, pads=pads,
                   fill=float("-inf"))
    oh, ow = cols.shape[-2:]
    cols = cols.reshape(n, c, kernel[0] * kernel[1], oh, ow)
    first = argmax(cols.detach(), axis=2, keepdims=True)   # numpy's argmax: the first maximum
    pick = equal(first, arange(kernel[0] * kernel[1], device=x.device).reshape(1, 1, -1, 1, 1))
    out = where(pick, cols, 0.0).sum(axis=2)
    if not return_indices:
        return out
    k = first.numpy()[:, :, 0]
    rows = np.arange(oh).reshape(-1, 1) * stride[0] - pads[0] + k // kernel[1] * dilation[0]
    colm = np.arange(ow) * stride[1] - pads[2] + k % kernel[1] * dilation[1]
    return out, Tensor(rows * w + colm, dtype=dt.int64, device=x.device)


@export
def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """Window maxima of ``input`` (N, C, H, W) or (C, H, W); the gradient goes to each
    window's first maximum, as PyTorch's.  ``return_indices`` also gives the flat
    H*W position of each maximum.

    >>> max_pool2d(eagerad.tensor([[[[1.0, 2.0], [4.0, 3.0]]]]), 2).tolist()
    [[[[4.0]]]]
    """
    x, undo = _batched("max_pool2d", input, 4)
    out = _max_pool("max_pool2d", x, kernel_size, stride, padding, dilation, ceil_mode,
                    return_indices)
    return (undo(out[0]), undo(out[1])) if return_indices else undo(out)


def _pool_1d(x):
    """A (N, C, L) or (C, L) input as 2-D pooling input with H = 1, and the way back."""
    x = as_tensor(x)
    y = x.reshape(x.shape[:-1] + (1, x.shape[-1]))
    return y, lambda out: out.reshape(out.shape[:-2] + out.shape[-1:])


def _1d(value, name):
    """A 1-D pooling size as the 2-D one with 1 (or 0 for padding) on the H axis."""
    if value is None:
        return None
    v, = _ints(value, 1, name)
    return (0 if name == "padding" else 1, v)


@export
def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """``max_pool2d`` over the last axis of (N, C, L) or (C, L).

    >>> max_pool1d(eagerad.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[3.0, 2.0]]]
    """
    x, undo = _pool_1d(input)
    out = max_pool2d(x, _1d(kernel_size, "kernel_size"), _1d(stride, "stride"),
                     _1d(padding, "padding"), _1d(dilation, "dilation"), ceil_mode, return_indices)
    return (undo(out[0]), undo(out[1])) if return_indices else undo(out)


def _window_counts(x, kernel, stride, pad, pads, count_include_pad):
    """How many cells of each window the average divides by: those inside the image
    padded by the symmetric ``pad`` (``count_include_pad``) or inside the image itself;
    the rest of ``pads`` (ceil_mode's, 'same''s) never counts."""
    h, w = x.shape[2:]
    p = pad if count_include_pad else (0, 0)
    inside = np.ones((1, 1, h + 2 * p[0], w + 2 * p[1]), np.float64)
    rest = (pads[0] - p[0], pads[1] - p[0], pads[2] - p[1], pads[3] - p[1])
    counts = cpu_nn.unfold(inside, kernel, stride, (1, 1), rest, 0.0).sum(axis=(2, 3))
    return Tensor(counts, dtype=x.dtype, device=x.device)


@export
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """Window means of ``input`` (N, C, H, W) or (C, H, W), PyTorch's ``F.avg_pool2d``
    (zero padding counted unless ``count_include_pad=False``).

    >>> avg_pool2d(eagerad.tensor([[[[1.0, 2.0], [4.0, 3.0]]]]), 2).tolist()
    [[[[2.5]]]]
    """
    x, undo = _batched("avg_pool2d", input, 4)
    kernel, stride, dilation, pad, pads = _pool_geometry("avg_pool2d", x, kernel_size, stride,
                                                         padding, 1, ceil_mode)
    sums = _unfold(x, kernel=kernel, stride=stride, dilation=dilation, pads=pads,
                   fill=0.0).sum(axis=(2, 3))
    if divisor_override is not None:
        if divisor_override <= 0:
            raise ValueError(f"avg_pool2d: divisor_override must be positive, got {divisor_override}")
        return undo(sums / divisor_override)
    return undo(sums / _window_counts(x, kernel, stride, pad, pads, count_include_pad))


@export
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """``avg_pool2d`` over the last axis of (N, C, L) or (C, L).

    >>> avg_pool1d(eagerad.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2).tolist()
    [[[2.0, 1.0]]]
    """
    x, undo = _pool_1d(input)
    return undo(avg_pool2d(x, _1d(kernel_size, "kernel_size"), _1d(stride, "stride"),
                           _1d(padding, "padding"), ceil_mode, count_include_pad))

# ------------------------------------------------------------ separable linear maps


def _separable(x, rows, cols):
    """``rows @ x @ cols^T`` over the last two axes, with constant numpy matrices."""
    a = Tensor(rows, dtype=x.dtype, device=x.device)
    b = Tensor(cols.T.copy(), dtype=x.dtype, device=x.device)
    return matmul(matmul(a, x), b)


def _adaptive_matrix(n, out):
    """Row i averages cells ``floor(i*n/out) .. ceil((i+1)*n/out) - 1`` (PyTorch's bins)."""
    m = np.zeros((out, n))
    for i in range(out):
        lo, hi = (i * n) // out, -(-(i + 1) * n // out)
        m[i, lo:hi] = 1.0 / (hi - lo)
    return m


@export
def adaptive_avg_pool2d(input, output_size):
    """Average ``input`` (N, C, H, W) or (C, H, W) into ``output_size`` bins (an int, a
    pair; None keeps that axis), PyTorch's bin edges.

    >>> adaptive_avg_pool2d(eagerad.arange(16.0).reshape(1, 1, 4, 4), 1).tolist()
    [[[[7.5]]]]
    """
    x, undo = _batched("adaptive_avg_pool2d", input, 4)
    h, w = x.shape[2:]
    size = (output_size, output_size) if not isinstance(output_size, (tuple, list)) \
        else tuple(output_size)
    if len(size) != 2:
        raise ValueError(f"adaptive_avg_pool2d: output_size must be an int or a pair, got "
                         f"{output_size!r}")
    oh, ow = (h if size[0] is None else int(size[0])), (w if size[1] is None else int(size[1]))
    if oh <= 0 or ow <= 0 or not h or not w:
        raise ValueError(f"adaptive_avg_pool2d: output size {(oh, ow)} and input size {(h, w)} "
                         "must be positive")
    return undo(_separable(x, _adaptive_matrix(h, oh), _adaptive_matrix(w, ow)))


def _source(n, out, scale, align_corners):
    """Source coordinate of each output cell (PyTorch's ``area_pixel_compute_source_index``)."""
    dst = np.arange(out, dtype=np.float64)
    if align_corners:
        return dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    return np.maximum((dst + 0.5) * scale - 0.5, 0.0)


def _linear_matrix(n, out, scale, align_corners):
    """Linear-interpolation weights from ``n`` cells to ``out`` cells."""
    src = _source(n, out, scale, align_corners)
    lo = np.minimum(np.floor(src).astype(np.int64), n - 1)
    hi = np.minimum(lo + 1, n - 1)
    frac = src - lo
    m = np.zeros((out, n))
    np.add.at(m, (np.arange(out), lo), 1.0 - frac)
    np.add.at(m, (np.arange(out), hi), frac)
    return m


def _nearest_index(n, out, scale):
    """PyTorch's 'nearest' source cells: ``floor(dst * scale)`` in float32."""
    idx = np.floor(np.arange(out, dtype=np.float32) * np.float32(scale)).astype(np.int64)
    return np.minimum(idx, n - 1)


def _output_size(name, shape, size, scale_factor):
    """Output sizes and scales (input per output cell) of a resize."""
    k = len(shape)
    if (size is None) == (scale_factor is None):
        raise ValueError(f"{name}: give exactly one of size and scale_factor")
    if size is not None:
        out = _ints(size, k, "size")
        scales = [n / o for n, o in zip(shape, out)]
    else:
        factors = (float(scale_factor),) * k if isinstance(scale_factor, numbers.Number) \
            else tuple(float(f) for f in scale_factor)
        if len(factors) != k:
            raise ValueError(f"{name}: scale_factor must be a number or {k} numbers, "
                             f"got {scale_factor!r}")
        out = tuple(int(math.floor(n * f)) for n, f in zip(shape, factors))
        scales = [1.0 / f for f in factors]
    if any(o <= 0 for o in out):
        raise ValueError(f"{name}: output size {out} must be positive")
    return out, scales


@export
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Resize (N, C, L) or (N, C, H, W) to ``size`` or by ``scale_factor``: ``mode``
    'nearest' (PyTorch's legacy nearest), 'linear' (3-D) or 'bilinear' (4-D), with
    ``align_corners`` for the latter two.

    >>> interpolate(eagerad.tensor([[[1.0, 3.0]]]), scale_factor=2, mode='linear').tolist()
    [[[1.0, 1.5, 2.5, 3.0]]]
    """
    x, = _floats("interpolate", input)
    if x.ndim not in (3, 4):
        raise ValueError(f"interpolate: input must be 3-D or 4-D, got shape {x.shape}")
    spatial = x.shape[2:]
    out, scales = _output_size("interpolate", spatial, size, scale_factor)
    if mode == "nearest":
        if align_corners is not None:
            raise ValueError("interpolate: align_corners only applies to linear modes")
        idx = [_nearest_index(n, o, s) for n, o, s in zip(spatial, out, scales)]
        if x.ndim == 3:
            return getitem(x, (slice(None), slice(None), idx[0]))
        return getitem(x, (slice(None), slice(None), idx[0][:, None], idx[1][None, :]))
    want = {"linear": 3, "bilinear": 4}.get(mode)
    if want is None:
        raise ValueError(f"interpolate: mode={mode!r} is not one of 'nearest', 'linear', "
                         "'bilinear'")
    if x.ndim != want:
        raise ValueError(f"interpolate: mode={mode!r} needs a {want}-D input, got shape {x.shape}")
    corners = bool(align_corners)
    if x.ndim == 3:
        m = _linear_matrix(spatial[0], out[0], scales[0], corners)
        return matmul(x, Tensor(m.T.copy(), dtype=x.dtype, device=x.device))
    return _separable(x, _linear_matrix(spatial[0], out[0], scales[0], corners),
                      _linear_matrix(spatial[1], out[1], scales[1], corners))
