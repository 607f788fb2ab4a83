"""``eagerad.nn.functional``: PyTorch's ``torch.nn.functional`` names and signatures.

A namespace over the op stanzas (``import eagerad.nn.functional as F``): class
axis 1 for losses, ``dim``/``keepdim`` spellings, PyTorch's argument order
(MindSpore's ``ops`` keeps its own order, e.g. ``ops.binary_cross_entropy_with_logits
(logits, label, weight, pos_weight)``).  A name not defined here is looked up in
``eagerad.ops`` (activations such as ``gelu`` or ``silu`` live there), so new
elementwise ops appear here without an edit.

>>> import eagerad
>>> import eagerad.nn.functional as F
>>> F.relu(eagerad.tensor([-1.0, 2.0])).tolist()
[0.0, 2.0]
"""
import warnings

from .. import ops
from ..ops.convolution import (adaptive_avg_pool2d, avg_pool1d, avg_pool2d, conv1d, conv2d,
                               conv_transpose2d, interpolate, max_pool1d, max_pool2d)
from ..ops.losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cosine_similarity,
                          embedding, huber_loss, kl_div, l1_loss, linear, mse_loss,
                          nll_loss, scaled_dot_product_attention, smooth_l1_loss)
from ..ops.losses import cross_entropy_full as cross_entropy
from ..ops.losses import dropout as _dropout
from ..ops.losses import one_hot_long as one_hot
from ..ops.normalization import batch_norm, group_norm, layer_norm

__all__ = ["adaptive_avg_pool2d", "avg_pool1d", "avg_pool2d", "batch_norm",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "conv1d", "conv2d",
           "conv_transpose2d", "cosine_similarity", "cross_entropy", "dropout", "embedding",
           "group_norm", "huber_loss", "interpolate", "kl_div", "l1_loss", "layer_norm", "linear",
           "log_softmax", "max_pool1d", "max_pool2d", "mse_loss", "nll_loss", "one_hot", "relu",
           "scaled_dot_product_attention", "sigmoid", "smooth_l1_loss", "softmax", "tanh"]


def relu(input, inplace=False):
    """``max(x, 0)`` (``inplace`` is accepted; a new tensor is returned).

    >>> relu(eagerad.tensor([-1.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    return ops.relu(input)


def sigmoid(input):
    """``1 / (1 + exp(-x))``.

    >>> sigmoid(eagerad.tensor([0.0])).tolist()
    [0.5]
    """
    return ops.sigmoid(input)


def tanh(input):
    """Hyperbolic tangent.

    >>> tanh(eagerad.tensor([0.0])).tolist()
    [0.0]
    """
    return ops.tanh(input)


def _softmax_dim(x, dim, name):
    """PyTorch's implicit dim (0 for 0-, 1- and 3-D inputs, else 1), with its warning."""
    if dim is not None:
        return dim
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if x.ndim in (0, 1, 3) else 1


def softmax(input, dim=None, dtype=None):
    """Softmax along ``dim`` (after casting to ``dtype`` if given).

    >>> softmax(eagerad.tensor([[0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5]]
    """
    x = input.astype(dtype) if dtype is not None else input
    return ops.softmax(x, _softmax_dim(x, dim, "softmax"))


def log_softmax(input, dim=None, dtype=None):
    """Log-softmax along ``dim``; finite for very negative logits.

    >>> log_softmax(eagerad.tensor([[0.0, -1000.0]]), dim=1).tolist()
    [[0.0, -1000.0]]
    """
    x = input.astype(dtype) if dtype is not None else input
    return ops.log_softmax(x, _softmax_dim(x, dim, "log_softmax"))


# PyTorch's names and defaults for the activations (leaky_relu's slope is 0.01 here, where
# MindSpore's ``ops.leaky_relu`` defaults to 0.2)
from ..ops.activations import FUNCTIONAL as _ACTIVATIONS  # noqa: E402
globals().update(_ACTIVATIONS)


def __getattr__(name):
    """Names this module does not define come from ``eagerad.ops`` (e.g. activations)."""
    try:
        return getattr(ops, name)
    except AttributeError:
        raise AttributeError(f"eagerad.nn.functional has no attribute {name!r}") from None


# ----------------------------------------------------------------------------- more of
# PyTorch's functional names, built from differentiable ops (derivatives of any order)
from ..ops.grid_sample import grid_sample  # noqa: E402  (the core op, every mode)
from ..ops.nn_ops import reduce_loss as _reduce_loss  # noqa: E402
from ..ops.norms import vector_norm as _vector_norm  # noqa: E402
from ..tensor import tensor as _index  # noqa: E402

__all__ += sorted(_ACTIVATIONS) + [
    "glu", "hardshrink", "hinge_embedding_loss", "margin_ranking_loss",
    "multilabel_soft_margin_loss", "normalize", "pad", "pairwise_distance", "pixel_shuffle",
    "pixel_unshuffle", "poisson_nll_loss", "rms_norm", "soft_margin_loss", "softmin",
    "softshrink", "tanhshrink", "threshold", "unfold", "pdist", "cosine_embedding_loss",
    "triplet_margin_loss", "gaussian_nll_loss", "prelu", "bilinear", "channel_shuffle",
    "triplet_margin_with_distance_loss", "multi_margin_loss", "local_response_norm",
    "instance_norm", "grid_sample"]


from .noise import dropout1d, dropout2d, dropout3d, gumbel_softmax, rrelu, rrelu_  # noqa: E402
from .patches import fold, lp_pool1d, lp_pool2d, lp_pool3d  # noqa: E402

__all__ += ["dropout1d", "dropout2d", "dropout3d", "gumbel_softmax", "rrelu", "rrelu_", "fold",
            "lp_pool1d", "lp_pool2d", "lp_pool3d"]


def _in_place(name):
    """PyTorch's ``F.<name>_``: the activation written into its input."""
    def fn(input, *args, **kwargs):
        return input.copy_(globals().get(name, getattr(ops, name, None))(input, *args, **kwargs))
    fn.__name__, fn.__doc__ = name + "_", f"``{name}`` in place; returns the input."
    return fn


def with_indices(pool):
    """PyTorch's ``F.<pool>_with_indices``: ``pool(..., return_indices=True)``, the pair
    ``(values, indices)``."""
    def fn(*args, **kwargs):
        kwargs["return_indices"] = True
        return pool(*args, **kwargs)
    fn.__name__ = pool.__name__ + "_with_indices"
    fn.__doc__ = f"``{pool.__name__}(..., return_indices=True)``."
    return fn


for _name in ("relu", "elu", "leaky_relu", "hardtanh", "selu", "celu", "threshold"):
    globals()[_name + "_"] = _in_place(_name)
    __all__.append(_name + "_")
for _pool in (max_pool1d, max_pool2d):
    globals()[_pool.__name__ + "_with_indices"] = with_indices(_pool)
    __all__.append(_pool.__name__ + "_with_indices")
del _name, _pool


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p``, scaling the rest by ``1/(1-p)``, when
    ``training`` (PyTorch's ``F.dropout``; ``inplace`` writes the result into ``input``).

    >>> dropout(eagerad.ones(2), 0.5, training=False).tolist()
    [1.0, 1.0]
    """
    out = _dropout(input, p, training)
    return input.copy_(out) if inplace and out is not input else out


def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    """``input`` divided by its ``p``-norm along ``dim`` (the norm kept at least ``eps``).

    >>> normalize(eagerad.tensor([[3.0, 4.0]])).tolist()
    [[0.6, 0.8]]
    """
    norm = _vector_norm(input, float(p), ops.shape.normalize_axis(dim, input.ndim), True)
    return input / ops.clamp_min(norm, eps)


def glu(input, dim=-1):
    """Gated linear unit: the first half of ``dim`` times the sigmoid of the second half.

    >>> round(glu(eagerad.tensor([1.0, 0.0])).item(), 4)
    0.5
    """
    size = input.shape[dim]
    if size % 2:
        raise ValueError(f"glu: dimension {dim} of shape {tuple(input.shape)} must be even")
    a, b = ops.split(input, size // 2, dim)
    return a * ops.sigmoid(b)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    """``softmax(-input)`` along ``dim``.

    >>> softmin(eagerad.tensor([[0.0, 0.0]]), dim=1).tolist()
    [[0.5, 0.5]]
    """
    return softmax(-input, dim, dtype)


def threshold(input, threshold, value, inplace=False):
    """``input`` where it is above ``threshold``, else ``value``.

    >>> threshold(eagerad.tensor([0.5, 2.0]), 1.0, -1.0).tolist()
    [-1.0, 2.0]
    """
    return ops.where(input > threshold, input, input * 0 + value)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    """``p``-norm of ``x1 - x2 + eps`` along the last dimension.

    >>> round(pairwise_distance(eagerad.tensor([[3.0, 0.0]]), eagerad.tensor([[0.0, 4.0]]), eps=0.0).item(), 4)
    5.0
    """
    diff = x1 - x2 + eps
    return _vector_norm(diff, float(p), (max(diff.ndim, 1) - 1,) if diff.ndim else None,
                        keepdim and diff.ndim > 0)


def pixel_shuffle(input, upscale_factor):
    """``(*, C r^2, H, W) -> (*, C, H r, W r)``.

    >>> pixel_shuffle(eagerad.ones(1, 4, 2, 3), 2).shape
    (1, 1, 4, 6)
    """
    r = int(upscale_factor)
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(f"pixel_shuffle: channels {c} are not divisible by {r}**2")
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    n = len(lead)
    x = ops.transpose(x, tuple(range(n)) + (n, n + 3, n + 1, n + 4, n + 2))
    return x.reshape(*lead, c // (r * r), h * r, w * r)


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H r, W r) -> (*, C r^2, H, W)``, the inverse of ``pixel_shuffle``.

    >>> pixel_unshuffle(eagerad.ones(1, 1, 4, 6), 2).shape
    (1, 4, 2, 3)
    """
    r = int(downscale_factor)
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(f"pixel_unshuffle: height {h} and width {w} must be divisible by {r}")
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    n = len(lead)
    x = ops.transpose(x, tuple(range(n)) + (n, n + 2, n + 4, n + 1, n + 3))
    return x.reshape(*lead, c * r * r, h // r, w // r)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Sliding local blocks (im2col): ``(N, C, H, W) -> (N, C*kh*kw, L)``.

    >>> unfold(eagerad.ones(1, 2, 3, 3), 2).shape
    (1, 8, 4)
    """
    pair = lambda v: tuple(v) if isinstance(v, (tuple, list)) else (v, v)  # noqa: E731
    (kh, kw), (dh, dw), (ph, pw), (sh, sw) = map(pair, (kernel_size, dilation, padding, stride))
    batched = input.ndim == 4
    if input.ndim not in (3, 4):
        raise ValueError(f"unfold: input must be (N, C, H, W) or (C, H, W), got shape "
                         f"{tuple(input.shape)}")
    x = input if batched else input.reshape(1, *input.shape)
    if ph or pw:
        x = ops.pad(x, (pw, pw, ph, ph))
    n, c, h, w = x.shape
    oh, ow = (h - dh * (kh - 1) - 1) // sh + 1, (w - dw * (kw - 1) - 1) // sw + 1
    if oh <= 0 or ow <= 0:
        raise ValueError(f"unfold: kernel {kh}x{kw} does not fit input {tuple(input.shape)}")
    cols = [x[:, :, i * dh: i * dh + sh * (oh - 1) + 1: sh, j * dw: j * dw + sw * (ow - 1) + 1: sw]
            for i in range(kh) for j in range(kw)]
    out = ops.stack(cols, 2).reshape(n, c * kh * kw, oh * ow)
    return out if batched else out.reshape(c * kh * kw, oh * ow)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, reduced.

    >>> margin_ranking_loss(eagerad.tensor([1.0]), eagerad.tensor([2.0]), eagerad.tensor([1.0])).item()
    1.0
    """
    return _reduce_loss(ops.relu(-target * (input1 - input2) + margin), reduction,
                        "margin_ranking_loss")


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, reduced.

    >>> round(soft_margin_loss(eagerad.tensor([0.0]), eagerad.tensor([1.0])).item(), 4)
    0.6931
    """
    return _reduce_loss(ops.softplus(-target * input), reduction, "soft_margin_loss")


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``.

    >>> hinge_embedding_loss(eagerad.tensor([0.3, 0.3]), eagerad.tensor([1.0, -1.0]), reduction="sum").item()
    1.0
    """
    zero = input * 0
    loss = ops.where(target != 1, ops.relu(margin - input), zero) + \
        ops.where(target != -1, input, zero)
    return _reduce_loss(loss, reduction, "hinge_embedding_loss")


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Binary cross-entropy with logits per class, averaged over the classes (last dim).

    >>> round(multilabel_soft_margin_loss(eagerad.tensor([[0.0, 0.0]]), eagerad.tensor([[1.0, 0.0]])).item(), 4)
    0.6931
    """
    loss = -(target * ops.log_sigmoid(input) + (1 - target) * ops.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    return _reduce_loss(loss.mean(axis=-1), reduction, "multilabel_soft_margin_loss")


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Poisson negative log-likelihood: ``exp(input) - target * input`` for log-rates
    (else ``input - target * log(input + eps)``); ``full`` adds Stirling's term.

    >>> poisson_nll_loss(eagerad.tensor([0.0]), eagerad.tensor([2.0])).item()
    1.0
    """
    if log_input:
        loss = ops.exp(input) - target * input
    else:
        loss = input - target * ops.log(input + eps)
    if full:
        safe = ops.where(target > 1, target, target * 0 + 2)
        stirling = safe * ops.log(safe) - safe + 0.5 * ops.log(2 * 3.141592653589793 * safe)
        loss = loss + ops.where(target > 1, stirling, stirling * 0)
    return _reduce_loss(loss, reduction, "poisson_nll_loss")


def rms_norm(input, normalized_shape, weight=None, eps=None):
    """``input / sqrt(mean(input^2) + eps)`` over the trailing ``normalized_shape``, times
    ``weight``; ``eps`` defaults to the dtype's machine epsilon.

    >>> rms_norm(eagerad.tensor([[3.0, -3.0]]), (2,)).tolist()
    [[1.0, -1.0]]
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if tuple(input.shape[input.ndim - len(shape):]) != shape:
        raise ValueError(f"rms_norm: normalized_shape {shape} does not end input shape "
                         f"{tuple(input.shape)}")
    if eps is None:
        import numpy as _np
        eps = float(_np.finfo(_np.dtype(str(input.dtype).replace("torch.", ""))).eps)
    axes = tuple(range(input.ndim - len(shape), input.ndim))
    out = input * ops.rsqrt((input * input).mean(axis=axes, keepdims=True) + eps)
    return out * weight if weight is not None else out


def pdist(input, p=2.0):
    """``p``-norm distances between every pair of rows ``i < j`` (``torch.pdist``).

    >>> import eagerad
    >>> pdist(eagerad.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).tolist()
    [5.0, 1.0, 4.242640495300293]
    """
    n = input.shape[0]
    first = [i for i in range(n) for _ in range(i + 1, n)]
    second = [j for i in range(n) for j in range(i + 1, n)]
    if not first:
        return input.reshape(-1)[:0]
    diff = input[_index(first)] - input[_index(second)]
    return _vector_norm(diff, float(p), (1,), False)


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos`` for ``target == 1``, ``max(0, cos - margin)`` for ``target == -1``
    (cosine along the last dimension).

    >>> cosine_embedding_loss(eagerad.tensor([[1.0, 0.0]]), eagerad.tensor([[0.0, 1.0]]), eagerad.tensor([1.0])).item()
    1.0
    """
    eps = 1e-12
    dim = input1.ndim - 1
    dot = (input1 * input2).sum(axis=dim)
    sq1 = (input1 * input1).sum(axis=dim) + eps
    sq2 = (input2 * input2).sum(axis=dim) + eps
    cos = dot / ops.sqrt(sq1 * sq2)
    zero = cos * 0
    loss = ops.where(target == 1, 1 - cos, zero) + \
        ops.where(target == -1, ops.relu(cos - margin), zero)
    return _reduce_loss(loss, reduction, "cosine_embedding_loss")


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(anchor, positive) - d(anchor, negative))`` with ``d`` the
    ``pairwise_distance``; ``swap`` uses the smaller of ``d(a, n)`` and ``d(p, n)``.

    >>> triplet_margin_loss(eagerad.tensor([[0.0]]), eagerad.tensor([[0.0]]), eagerad.tensor([[3.0]]), eps=0.0).item()
    0.0
    """
    d_ap = pairwise_distance(anchor, positive, p, eps)
    d_an = pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_an = ops.minimum(d_an, pairwise_distance(positive, negative, p, eps))
    return _reduce_loss(ops.relu(margin + d_ap - d_an), reduction, "triplet_margin_loss")


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Gaussian negative log-likelihood ``0.5 (log var + (input - target)^2 / var)``
    (+ ``0.5 log 2 pi`` when ``full``); ``var`` is floored at ``eps`` without stopping its
    gradient, and may omit the last dimension or have size 1 there.

    >>> gaussian_nll_loss(eagerad.tensor([1.0]), eagerad.tensor([1.0]), eagerad.tensor([1.0])).item()
    0.0
    """
    import math
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.reshape(tuple(var.shape) + (1,))
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError(f"gaussian_nll_loss: var of shape {tuple(var.shape)} does not fit "
                             f"input of shape {tuple(input.shape)}")
    var = var + (ops.clamp(var.detach(), eps, None) - var.detach())
    loss = 0.5 * (ops.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce_loss(loss, reduction, "gaussian_nll_loss")


def prelu(input, weight):
    """``torch.prelu``: ``x`` where positive, else ``weight * x`` (one weight, or one per
    channel, the channel dimension being 1).

    >>> import eagerad
    >>> prelu(eagerad.tensor([-2.0, 3.0]), eagerad.tensor([0.5])).tolist()
    [-1.0, 3.0]
    """
    if weight.numel() > 1 and input.ndim >= 2:
        weight = weight.reshape((1, -1) + (1,) * (input.ndim - 2))
    elif weight.numel() == 1:
        weight = weight.reshape(())
    return ops.where(input > 0, input, weight * input)


def bilinear(input1, input2, weight, bias=None):
    """``y_o = input1 W_o input2 + b_o`` for ``weight`` of shape ``(out, in1, in2)``.

    >>> bilinear(eagerad.ones(1, 2), eagerad.ones(1, 3), eagerad.ones(4, 2, 3)).shape
    (1, 4)
    """
    out = ops.einsum("...i,oij,...j->...o", input1, weight, input2)
    return out + bias if bias is not None else out


def channel_shuffle(input, groups):
    """Channels (dimension 1) regrouped: ``(N, g * k, ...)`` read as ``(N, k, g, ...)``.

    >>> channel_shuffle(eagerad.arange(4.0).reshape(1, 4, 1), 2).reshape(-1).tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    n, c = input.shape[0], input.shape[1]
    if c % groups:
        raise ValueError(f"channel_shuffle: {c} channels are not divisible by groups={groups}")
    rest = tuple(input.shape[2:])
    x = input.reshape((n, groups, c // groups) + rest).swapaxes(1, 2)
    return x.reshape((n, c) + rest)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with any ``distance_function`` (default
    ``pairwise_distance``).

    >>> triplet_margin_with_distance_loss(eagerad.tensor([[0.0]]), eagerad.tensor([[0.0]]), eagerad.tensor([[0.5]])).item()
    0.5
    """
    d = distance_function if distance_function is not None else pairwise_distance
    d_ap, d_an = d(anchor, positive), d(anchor, negative)
    if swap:
        d_an = ops.minimum(d_an, d(positive, negative))
    return _reduce_loss(ops.relu(margin + d_ap - d_an), reduction,
                        "triplet_margin_with_distance_loss")


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss ``sum_{j != y} max(0, margin - x_y + x_j)^p / C`` per sample
    (``weight[y]`` scales a sample's terms).

    >>> multi_margin_loss(eagerad.tensor([[0.1, 0.2, 0.4, 0.8]]), eagerad.tensor([3])).item()
    0.325
    """
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p}")
    x = input if input.ndim == 2 else input.reshape(1, -1)
    t = target.reshape(-1, 1)
    picked = ops.take_along_dim(x, t, 1)
    hinge = ops.relu(margin - picked + x)
    if p == 2:
        hinge = hinge * hinge
    if weight is not None:
        hinge = hinge * weight[target.reshape(-1)].reshape(-1, 1)
    not_target = ops.arange(x.shape[1]).reshape(1, -1) != t
    per = ops.where(not_target, hinge, hinge * 0).sum(axis=1) / x.shape[1]
    return _reduce_loss(per if input.ndim == 2 else per.reshape(()), reduction,
                        "multi_margin_loss")


def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    """``x / (k + alpha * mean of x^2 over `size` neighbouring channels)^beta``.

    >>> local_response_norm(eagerad.ones(1, 3, 2), 2, alpha=1.0, beta=1.0, k=1.0)[0, :, 0].tolist()
    [0.667, 0.5, 0.5]
    """
    if input.ndim < 3:
        raise ValueError(f"local_response_norm: input must be (N, C, ...), got shape "
                         f"{tuple(input.shape)}")
    sq = input * input
    c = input.shape[1]
    pads = [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2]
    padded = ops.pad(sq, tuple(pads))
    window = ops.narrow(padded, 1, 0, c)
    for shift in range(1, size):
        window = window + ops.narrow(padded, 1, shift, c)
    return input / (k + alpha * window / size) ** beta


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    """Each (sample, channel) normalized over its spatial dimensions, then scaled by
    ``weight`` and shifted by ``bias`` per channel.  Running statistics are used only
    when ``use_input_stats`` is False (they are not updated here).

    >>> instance_norm(eagerad.tensor([[[1.0, 3.0]]])).tolist()
    [[[-0.999995, 0.999995]]]
    """
    shape = (1, -1) + (1,) * (input.ndim - 2)
    if use_input_stats:
        axes = tuple(range(2, input.ndim))
        mean = input.mean(axis=axes, keepdims=True)
        var = ((input - mean) ** 2).mean(axis=axes, keepdims=True)
    else:
        if running_mean is None or running_var is None:
            raise ValueError("instance_norm: use_input_stats=False needs running_mean and "
                             "running_var")
        mean, var = running_mean.reshape(shape), running_var.reshape(shape)
    out = (input - mean) / ops.sqrt(var + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    return out + bias.reshape(shape) if bias is not None else out
