"""MindSpore ``nn`` cells that the core lacks or whose MindSpore behaviour differs, built on
the MindSpore face's ops (so they share its semantics: ``Hardtanh`` splits the gradient at
its ends, ``KLDivLoss`` gives no gradient to the labels, ...).

BatchNorm cells list ``moving_mean``, ``moving_variance`` before ``gamma``, ``beta`` as
MindSpore does; ``Embedding(padding_idx=...)`` zeroes that row at the start but, as
MindSpore, still trains it.

>>> import eagerad.mindspore as ms
>>> ms.nn.SoftShrink()(ms.Tensor([0.3, -1.5])).numpy().tolist()
[0.0, -1.0]
"""
import numpy as np

from ... import nn as _nn
from ... import ops as _core
from ...ops import convolution as _conv
from ...ops.nn_ops import reduce_loss as _reduce_loss
from .._face import Parameter, Tensor
from .. import ops as F
from . import Cell, _face_class


class _Elementwise(Cell):
    """A cell applying one face function with fixed keyword arguments."""
    _fn = None
    _names = ()

    def __init__(self, *args, **kwargs):
        super().__init__()
        self._kw = dict(zip(self._names, args))
        self._kw.update(kwargs)

    def construct(self, x):
        """The function applied to ``x``."""
        return type(self)._fn(x, **self._kw)


def _elementwise(name, fn, names=(), doc=""):
    return type(name, (_Elementwise,), {"_fn": staticmethod(fn), "_names": names,
                                         "__module__": "eagerad.mindspore.nn",
                                         "__doc__": f"MindSpore's ``nn.{name}``: {doc}"})


Softmin = _elementwise("Softmin", F.softmin, ("axis",), "``ops.softmin``.")
SoftShrink = _elementwise("SoftShrink", F.softshrink, ("lambd",), "``ops.softshrink``.")
HShrink = _elementwise("HShrink", F.hardshrink, ("lambd",), "``ops.hardshrink``.")
GLU = _elementwise("GLU", F.glu, ("axis",), "``ops.glu``.")
Hardtanh = _elementwise("Hardtanh", F.hardtanh, ("min_val", "max_val"),
                        "``ops.hardtanh`` (gradient 1/2 at the ends).")
PixelShuffle = _elementwise("PixelShuffle", F.pixel_shuffle, ("upscale_factor",),
                            "``ops.pixel_shuffle``.")
AdaptiveMaxPool2d = _elementwise("AdaptiveMaxPool2d", F.adaptive_max_pool2d,
                                 ("output_size", "return_indices"), "``ops.adaptive_max_pool2d``.")


class Threshold(Cell):
    """``x`` where ``x > threshold``, else ``value``.

    >>> import eagerad.mindspore as ms
    >>> Threshold(0.1, 20.0)(ms.Tensor([0.0, 3.0])).numpy().tolist()
    [20.0, 3.0]
    """

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold, self.value = threshold, value

    def construct(self, input_x):
        """The thresholded tensor."""
        return F.threshold(input_x, self.threshold, self.value)


class _Band(Cell):
    def construct(self, x, k=0):
        """The triangle of ``x`` on and below (``Tril``) or above (``Triu``) diagonal ``k``."""
        return type(self)._fn(x, k)


class Tril(_Band):
    """``ops.tril`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> Tril()(ms.ops.ones((2, 2))).numpy().tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    _fn = staticmethod(_core.tril)


class Triu(_Band):
    """``ops.triu`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> Triu()(ms.ops.ones((2, 2))).numpy().tolist()
    [[1.0, 1.0], [0.0, 1.0]]
    """
    _fn = staticmethod(_core.triu)


class PReLU(Cell):
    """``x`` where positive, else ``w * x``; ``w`` (``channel`` slopes, 0.25) is a parameter
    (named ``a``, as MindSpore names it).

    >>> import eagerad.mindspore as ms
    >>> PReLU()(ms.Tensor([-2.0, 1.0])).numpy().tolist()
    [-0.5, 1.0]
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        self.w = Parameter(Tensor(np.full((channel,), w, dtype=np.float32)), name="a")

    def construct(self, x):
        """The activation."""
        return F.prelu(x, self.w)


class BiDense(Cell):
    """``x1^T W x2 + b`` with ``weight`` ``(out, in1, in2)`` and ``bias`` ``(out,)``.

    >>> import eagerad.mindspore as ms
    >>> BiDense(2, 3, 4)(ms.ops.ones((5, 2)), ms.ops.ones((5, 3))).shape
    (5, 4)
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True):
        super().__init__()
        bound = 1.0 / np.sqrt(in1_channels)
        rng = np.random.default_rng()
        self.weight = Parameter(Tensor(rng.uniform(-bound, bound, (
            out_channels, in1_channels, in2_channels)).astype(np.float32)), name="weight")
        self.has_bias = has_bias
        if has_bias:
            self.bias = Parameter(Tensor(rng.uniform(-bound, bound, (out_channels,)).astype(
                np.float32)), name="bias")

    def construct(self, input1, input2):
        """The bilinear map of the two inputs."""
        out = _core.einsum("ni,oij,nj->no", input1, self.weight, input2)
        return out + self.bias if self.has_bias else out


class Dropout2d(Cell):
    """Zeroes whole channels with probability ``p`` while training; identity in inference.

    >>> import eagerad.mindspore as ms
    >>> Dropout2d(0.5)(ms.ops.ones((1, 2, 1, 1))).numpy().ravel().tolist()
    [1.0, 1.0]
    """

    def __init__(self, p=0.5):
        super().__init__()
        self.p = p

    def construct(self, x):
        """``x`` (inference) or ``x`` with channels dropped and the rest scaled."""
        if not self.training or self.p == 0:
            return x
        keep = np.random.default_rng().random(tuple(x.shape[:2]) + (1,) * (x.ndim - 2)) >= self.p
        return x * Tensor((keep / (1 - self.p)).astype(np.dtype(x.dtype)))


class _Pool1d(Cell):
    def __init__(self, kernel_size=1, stride=1, pad_mode="valid"):
        super().__init__()
        if str(pad_mode).lower() != "valid":
            raise ValueError(f"{type(self).__name__}: only pad_mode='valid' is supported, got "
                             f"{pad_mode!r}")
        self.kernel_size, self.stride = kernel_size, stride

    def construct(self, x):
        """The pooled tensor."""
        return type(self)._fn(x, self.kernel_size, self.stride)


class MaxPool1d(_Pool1d):
    """Max over windows of ``kernel_size`` every ``stride`` (``pad_mode='valid'``).

    >>> import eagerad.mindspore as ms
    >>> MaxPool1d(2, 2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy().tolist()
    [[[3.0, 2.0]]]
    """
    _fn = staticmethod(_core.max_pool1d)


class AvgPool1d(_Pool1d):
    """Mean over windows of ``kernel_size`` every ``stride`` (``pad_mode='valid'``).

    >>> import eagerad.mindspore as ms
    >>> AvgPool1d(2, 2)(ms.Tensor([[[1.0, 3.0, 2.0, 0.0]]])).numpy().tolist()
    [[[2.0, 1.0]]]
    """
    _fn = staticmethod(_core.avg_pool1d)


class _Pad2d(Cell):
    mode = "constant"

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = (padding,) * 4 if isinstance(padding, int) else tuple(padding)
        self.value = value

    def construct(self, x):
        """``x`` padded on its last two axes (left, right, top, bottom)."""
        if self.mode == "constant":
            return _core.pad(x, self.padding, "constant", self.value)
        return _core.pad(x, self.padding, self.mode)


class ZeroPad2d(_Pad2d):
    """Zeros around the last two axes (left, right, top, bottom).

    >>> import eagerad.mindspore as ms
    >>> ZeroPad2d((1, 0, 0, 0))(ms.ops.ones((1, 1, 1, 1))).numpy().tolist()
    [[[[0.0, 1.0]]]]
    """

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ConstantPad2d(_Pad2d):
    """``value`` around the last two axes (left, right, top, bottom).

    >>> import eagerad.mindspore as ms
    >>> ConstantPad2d((1, 0, 0, 0), 0.5)(ms.ops.ones((1, 1, 1, 1))).numpy().tolist()
    [[[[0.5, 1.0]]]]
    """


class ReflectionPad2d(_Pad2d):
    """Reflection of the last two axes at their edges.

    >>> import eagerad.mindspore as ms
    >>> ReflectionPad2d((1, 0, 0, 0))(ms.Tensor([[[[1.0, 2.0]]]])).numpy().tolist()
    [[[[2.0, 1.0, 2.0]]]]
    """
    mode = "reflect"


class Upsample(Cell):
    """``ops.interpolate`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> Upsample(scale_factor=2.0)(ms.ops.ones((1, 1, 1, 1))).shape
    (1, 1, 2, 2)
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor
        self.mode, self.align_corners = mode, align_corners

    def construct(self, x):
        """``x`` resized."""
        return _core.interpolate(x, self.size, self.scale_factor, self.mode, self.align_corners)


class ClipByNorm(Cell):
    """``x * clip_norm / max(||x||, clip_norm)`` (the L2 norm over ``axis``, all by default).

    >>> import eagerad.mindspore as ms
    >>> ClipByNorm()(ms.Tensor([3.0, 4.0]), ms.Tensor([1.0])).numpy().tolist()
    [0.6000000238418579, 0.800000011920929]
    """

    def __init__(self, axis=None):
        super().__init__()
        self.axis = axis

    def construct(self, x, clip_norm):
        """``x`` scaled down to norm ``clip_norm`` if longer."""
        norm = ((x * x).sum(self.axis, keepdims=True)).sqrt()
        return x * clip_norm / _core.maximum(norm, clip_norm)


class Norm(Cell):
    """The L2 norm over ``axis`` (all when ``()``).

    >>> import eagerad.mindspore as ms
    >>> Norm()(ms.Tensor([3.0, 4.0])).numpy().tolist()
    5.0
    """

    def __init__(self, axis=(), keep_dims=False):
        super().__init__()
        self.axis = None if axis == () else axis
        self.keep_dims = keep_dims

    def construct(self, x):
        """The norm."""
        return ((x * x).sum(self.axis, keepdims=self.keep_dims)).sqrt()


class OneHot(Cell):
    """``ops.one_hot`` as a cell (``depth``, ``on_value``, ``off_value``, ``axis``).

    >>> import eagerad.mindspore as ms
    >>> OneHot(depth=3)(ms.Tensor(np.array([2]))).numpy().tolist()
    [[0.0, 0.0, 1.0]]
    """

    def __init__(self, axis=-1, depth=1, on_value=1.0, off_value=0.0, dtype=np.float32):
        super().__init__()
        self.axis, self.depth, self.dtype = axis, depth, dtype
        self.on_value, self.off_value = on_value, off_value

    def construct(self, indices):
        """The one-hot tensor."""
        on = np.asarray(self.on_value, dtype=self.dtype)
        off = np.asarray(self.off_value, dtype=self.dtype)
        return F.one_hot(indices, self.depth, on, off, self.axis)


class _Loss(Cell):
    """A loss cell calling one face function with its stored keyword arguments."""
    _fn = None

    def __init__(self, **kwargs):
        super().__init__()
        self._kw = kwargs

    def construct(self, *inputs):
        """The loss."""
        return type(self)._fn(*inputs, **self._kw)


class _MarginLoss(_Loss):
    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(margin=margin, reduction=reduction)


class MarginRankingLoss(_MarginLoss):
    """``ops.margin_ranking_loss`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> float(MarginRankingLoss()(ms.Tensor([1.0]), ms.Tensor([2.0]), ms.Tensor([1.0])).numpy())
    1.0
    """
    _fn = staticmethod(F.margin_ranking_loss)


class CosineEmbeddingLoss(_MarginLoss):
    """``ops.cosine_embedding_loss`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> float(CosineEmbeddingLoss()(ms.Tensor([[1.0, 0.0]]), ms.Tensor([[1.0, 0.0]]), ms.Tensor([1.0])).numpy())
    0.0
    """
    _fn = staticmethod(F.cosine_embedding_loss)


class MultiMarginLoss(_Loss):
    """``ops.multi_margin_loss`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> float(MultiMarginLoss()(ms.Tensor([[0.0, 0.0]]), ms.Tensor(np.array([0]))).numpy())
    0.5
    """
    _fn = staticmethod(F.multi_margin_loss)

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(p=p, margin=margin, reduction=reduction, weight=weight)


class MultiLabelSoftMarginLoss(_Loss):
    """``ops.multilabel_soft_margin_loss`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> round(float(MultiLabelSoftMarginLoss()(ms.Tensor([[0.0]]), ms.Tensor([[1.0]])).numpy()), 5)
    0.69315
    """
    _fn = staticmethod(F.multilabel_soft_margin_loss)

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(weight=weight, reduction=reduction)


class GaussianNLLLoss(_Loss):
    """``ops.gaussian_nll_loss`` as a cell.

    >>> import eagerad.mindspore as ms
    >>> float(GaussianNLLLoss()(ms.Tensor([1.0]), ms.Tensor([1.0]), ms.Tensor([1.0])).numpy())
    0.0
    """
    _fn = staticmethod(F.gaussian_nll_loss)

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(full=full, eps=eps, reduction=reduction)


def _reduce(loss, reduction):
    return _reduce_loss(loss, reduction, "loss")


class PoissonNLLLoss(Cell):
    """``exp(x) - target * x`` (``log_input``) or ``x - target * log(x + eps)``, plus the
    Stirling term when ``full``, reduced.

    >>> import eagerad.mindspore as ms
    >>> float(PoissonNLLLoss()(ms.Tensor([0.0]), ms.Tensor([1.0])).numpy())
    1.0
    """

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__()
        self.log_input, self.full, self.eps, self.reduction = log_input, full, eps, reduction

    def construct(self, input, target):
        """The loss."""
        if self.log_input:
            loss = _core.exp(input) - target * input
        else:
            loss = input - target * _core.log(input + self.eps)
        if self.full:
            t = target.numpy()
            stirling = np.where(t > 1, t * np.log(np.where(t > 1, t, 1)) - t
                                + 0.5 * np.log(2 * np.pi * np.where(t > 1, t, 1)), 0)
            loss = loss + Tensor(stirling.astype(t.dtype))
        return _reduce(loss, self.reduction)


class FocalLoss(Cell):
    """MindSpore's focal loss ``-(1 - p)^gamma log p`` with ``p`` the softmax over axis 1:
    labels of ``logits``' shape weight every element (then the mean over all elements);
    labels with axis 1 of size 1 pick the class.

    >>> import eagerad.mindspore as ms
    >>> round(float(FocalLoss(gamma=0.0)(ms.Tensor([[0.0, 0.0]]), ms.Tensor([[0.0, 1.0]])).numpy()), 5)
    0.34657
    """

    def __init__(self, weight=None, gamma=2.0, reduction="mean"):
        super().__init__()
        self.weight, self.gamma, self.reduction = weight, gamma, reduction

    def construct(self, logits, labels):
        """The loss."""
        logp = _core.log_softmax(logits, 1)
        y = labels.numpy()
        if y.shape[1] == 1 and logits.shape[1] != 1:
            logp = _core.gather_elements(logp, 1, Tensor(y.astype(np.int64)))
            scale = None
        else:
            scale = Tensor(y.astype(np.dtype(logits.dtype)))
        loss = -((1 - _core.exp(logp)) ** self.gamma) * logp
        if scale is not None:
            loss = loss * scale
        if self.weight is not None:
            shape = (1, -1) + (1,) * (logits.ndim - 2)
            loss = loss * self.weight.reshape(shape)
        return _reduce(loss, self.reduction)


class DiceLoss(Cell):
    """``1 - (2 sum(x y) + smooth) / (sum(x^2) + sum(y^2) + smooth)``.

    >>> import eagerad.mindspore as ms
    >>> round(float(DiceLoss()(ms.Tensor([[1.0, 0.0]]), ms.Tensor([[1.0, 0.0]])).numpy()), 5)
    0.0
    """

    def __init__(self, smooth=1e-5):
        super().__init__()
        self.smooth = smooth

    def construct(self, logits, label):
        """The loss."""
        inter = (logits * label).sum()
        union = (logits * logits).sum() + (label * label).sum()
        return 1 - (2 * inter + self.smooth) / (union + self.smooth)


class KLDivLoss(_face_class(_nn.KLDivLoss)):
    """MindSpore's ``nn.KLDivLoss``: no gradient to the labels."""

    def construct(self, logits, labels):
        """The loss."""
        return super().construct(logits, labels.detach())


class SoftmaxCrossEntropyWithLogits(_face_class(_nn.SoftmaxCrossEntropyWithLogits)):
    """MindSpore's ``nn.SoftmaxCrossEntropyWithLogits``: no gradient to the labels."""

    def construct(self, logits, labels):
        """The loss."""
        return super().construct(logits, labels.detach())


def _listed(core, prefixes, listing):
    """``core`` as a face class listing its parameters in MindSpore's order: by the first of
    ``prefixes`` each name starts with (stable), then the rest."""

    class Listed(_face_class(core)):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            names = self._registry()[0]
            rank = {n: (next((i for i, k in enumerate(prefixes) if n.startswith(k)),
                             len(prefixes)), j) for j, n in enumerate(names)}
            names.sort(key=rank.__getitem__)
    Listed.__name__ = Listed.__qualname__ = core.__name__
    Listed.__module__ = "eagerad.mindspore.nn"
    Listed.__doc__ = f"MindSpore's ``nn.{core.__name__}``: parameters listed {listing}."
    return Listed


_MOVING_FIRST = ("moving_mean", "moving_variance", "gamma", "beta")
BatchNorm1d = _listed(_nn.BatchNorm1d, _MOVING_FIRST, "moving_mean, moving_variance, gamma, beta")
BatchNorm2d = _listed(_nn.BatchNorm2d, _MOVING_FIRST, "moving_mean, moving_variance, gamma, beta")


class Embedding(_face_class(_nn.Embedding)):
    """MindSpore's ``nn.Embedding``: the ``padding_idx`` row starts at zero but is trained."""

    def construct(self, ids):
        """The rows of the table picked by ``ids``."""
        return _core.embedding(ids, getattr(self, self._name))


class _RecurrentCell(Cell):
    """Shared parameters of the single-step recurrent cells: ``weight_ih`` (gates*hidden,
    input), ``weight_hh`` (gates*hidden, hidden), ``bias_ih``, ``bias_hh``, initialised
    U(-1/sqrt(hidden), 1/sqrt(hidden))."""
    _gates = 1

    def __init__(self, input_size, hidden_size, has_bias=True, nonlinearity="tanh", dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.has_bias = input_size, hidden_size, has_bias
        self.nonlinearity = nonlinearity
        bound = 1.0 / np.sqrt(hidden_size)
        rng = np.random.default_rng()
        rows = self._gates * hidden_size

        def param(shape, name):
            return Parameter(Tensor(rng.uniform(-bound, bound, shape).astype(np.float32)), name=name)
        self.weight_ih = param((rows, input_size), "weight_ih")
        self.weight_hh = param((rows, hidden_size), "weight_hh")
        if has_bias:
            self.bias_ih = param((rows,), "bias_ih")
            self.bias_hh = param((rows,), "bias_hh")

    def _affine(self, x, h):
        gi = _core.matmul(x, self.weight_ih.T)
        gh = _core.matmul(h, self.weight_hh.T)
        if self.has_bias:
            gi, gh = gi + self.bias_ih, gh + self.bias_hh
        return gi, gh


class RNNCell(_RecurrentCell):
    """``h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` (or relu).

    >>> import eagerad.mindspore as ms
    >>> RNNCell(3, 4)(ms.ops.ones((2, 3)), ms.ops.zeros((2, 4))).shape
    (2, 4)
    """

    def construct(self, x, hx):
        """The next hidden state."""
        gi, gh = self._affine(x, hx)
        return _core.tanh(gi + gh) if self.nonlinearity == "tanh" else _core.relu(gi + gh)


class GRUCell(_RecurrentCell):
    """The GRU step (gates r, z, n): ``h' = (1 - z) n + z h``.

    >>> import eagerad.mindspore as ms
    >>> GRUCell(3, 4)(ms.ops.ones((2, 3)), ms.ops.zeros((2, 4))).shape
    (2, 4)
    """
    _gates = 3

    def construct(self, x, hx):
        """The next hidden state."""
        gi, gh = self._affine(x, hx)
        ir, iz, in_ = _core.chunk(gi, 3, 1)
        hr, hz, hn = _core.chunk(gh, 3, 1)
        r, z = _core.sigmoid(ir + hr), _core.sigmoid(iz + hz)
        n = _core.tanh(in_ + r * hn)
        return (1 - z) * n + z * hx


class LSTMCell(_RecurrentCell):
    """The LSTM step (gates i, f, g, o) on ``(x, (h, c))``, returning ``(h', c')``.

    >>> import eagerad.mindspore as ms
    >>> h, c = LSTMCell(3, 4)(ms.ops.ones((2, 3)), (ms.ops.zeros((2, 4)), ms.ops.zeros((2, 4))))
    >>> h.shape, c.shape
    ((2, 4), (2, 4))
    """
    _gates = 4

    def construct(self, x, hx):
        """The next ``(h, c)``."""
        h, c = hx
        gi, gh = self._affine(x, h)
        i, f, g, o = _core.chunk(gi + gh, 4, 1)
        c2 = _core.sigmoid(f) * c + _core.sigmoid(i) * _core.tanh(g)
        return _core.sigmoid(o) * _core.tanh(c2), c2


class GroupNorm(_face_class(_nn.GroupNorm)):
    """MindSpore's ``nn.GroupNorm``: parameters ``gamma`` and ``beta``.

    >>> [p.name for p in GroupNorm(1, 2).get_parameters()]
    ['gamma', 'beta']
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=None):
        super().__init__(num_groups, num_channels, eps, affine, gamma_init, beta_init, dtype)


_KIND_BY_KIND = ("weight_ih", "weight_hh", "bias_ih", "bias_hh")
LSTM = _listed(_nn.LSTM, _KIND_BY_KIND, "kind by kind (every layer's weight_ih, then weight_hh, ...)")
GRU = _listed(_nn.GRU, _KIND_BY_KIND, "kind by kind (every layer's weight_ih, then weight_hh, ...)")


class Conv1d(_face_class(_nn.Conv1d)):
    """MindSpore's ``nn.Conv1d``: the weight is stored as MindSpore stores it,
    ``(out_channels, in_channels / group, 1, kernel_size)``.

    >>> import eagerad.mindspore as ms
    >>> Conv1d(2, 3, 3).weight.shape
    (3, 2, 1, 3)
    """

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        w = self.weight
        self.weight = Parameter(Tensor(w.numpy().reshape(w.shape[0], w.shape[1], 1, w.shape[2])),
                                name=w.name)
        names = self._registry()[0]
        names.insert(0, names.pop(names.index("weight")))

    def construct(self, x):
        """The convolution of ``x`` (N, C, L)."""
        x, padding = self._padded(x)
        w = self.weight.reshape((self.weight.shape[0], self.weight.shape[1], self.weight.shape[3]))
        return _conv.conv1d(x, w, self.bias, self.stride, padding, self.dilation, self.groups)


class RNN(Cell):
    """MindSpore's ``nn.RNN`` (Elman, unidirectional): ``h_t = tanh(x_t W_ih^T + b_ih +
    h_{t-1} W_hh^T + b_hh)`` per layer; ``construct(x, hx=None)`` returns ``(output, h_n)``.

    >>> import eagerad.mindspore as ms
    >>> out, h = RNN(3, 4, batch_first=True)(ms.ops.ones((2, 5, 3)))
    >>> out.shape, h.shape
    ((2, 5, 4), (1, 2, 4))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", has_bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, dtype=None):
        super().__init__()
        if bidirectional:
            raise ValueError("RNN: bidirectional=True is not supported by this face yet")
        self.hidden_size, self.num_layers, self.batch_first = hidden_size, num_layers, batch_first
        self._cells = []
        for layer in range(num_layers):
            cell = RNNCell(input_size if layer == 0 else hidden_size, hidden_size, has_bias,
                           nonlinearity)
            self._cells.append(cell)
            for name in ("weight_ih", "weight_hh", "bias_ih", "bias_hh"):
                if hasattr(cell, name):
                    p = getattr(cell, name)
                    p.name = f"{name}_l{layer}"
                    setattr(self, p.name, p)

    def construct(self, x, hx=None):
        """``(output, h_n)`` for the sequence ``x``."""
        seq = _core.swapaxes(x, 0, 1) if self.batch_first else x
        n = seq.shape[1]
        outs = seq
        finals = []
        for layer, cell in enumerate(self._cells):
            h = hx[layer] if hx is not None else Tensor(np.zeros((n, self.hidden_size),
                                                                 dtype=np.dtype(x.dtype)))
            steps = []
            for t in range(outs.shape[0]):
                h = cell(outs[t], h)
                steps.append(h)
            outs = _core.stack(steps, 0)
            finals.append(h)
        output = _core.swapaxes(outs, 0, 1) if self.batch_first else outs
        return output, _core.stack(finals, 0)
