"""PyTorch's layers that are one ``torch.nn.functional`` call with stored arguments
(pools, paddings, dropouts, shrinkages, losses, distances, folds...): one table row each,
the constructor bound to PyTorch's signature, ``forward`` passing the stored arguments
(and ``training`` where the function draws noise).

>>> import eagerad.torch as torch
>>> torch.nn.MaxPool1d(2)(torch.tensor([[[1.0, 3.0, 2.0, 0.0]]]))
tensor([[[3., 2.]]])
>>> torch.nn.ZeroPad2d((1, 0, 0, 0))(torch.ones(1, 1, 1, 1))
tensor([[[[0., 1.]]]])
"""
import ast
import inspect

from .. import _creation
from . import Module, functional as F

_LEGACY = "size_average=None, reduce=None, reduction='mean'"

# name: (functional, constructor parameters, whether forward passes ``training``)
TABLE = {
    "MaxPool1d": ("max_pool1d", "kernel_size, stride=None, padding=0, dilation=1, "
                                "return_indices=False, ceil_mode=False", False),
    "MaxPool3d": ("max_pool3d", "kernel_size, stride=None, padding=0, dilation=1, "
                                "return_indices=False, ceil_mode=False", False),
    "AvgPool1d": ("avg_pool1d", "kernel_size, stride=None, padding=0, ceil_mode=False, "
                                "count_include_pad=True", False),
    "AvgPool3d": ("avg_pool3d", "kernel_size, stride=None, padding=0, ceil_mode=False, "
                                "count_include_pad=True, divisor_override=None", False),
    "AdaptiveAvgPool1d": ("adaptive_avg_pool1d", "output_size", False),
    "AdaptiveAvgPool3d": ("adaptive_avg_pool3d", "output_size", False),
    "AdaptiveMaxPool1d": ("adaptive_max_pool1d", "output_size, return_indices=False", False),
    "AdaptiveMaxPool2d": ("adaptive_max_pool2d", "output_size, return_indices=False", False),
    "AdaptiveMaxPool3d": ("adaptive_max_pool3d", "output_size, return_indices=False", False),
    "FractionalMaxPool2d": ("fractional_max_pool2d", "kernel_size, output_size=None, "
                            "output_ratio=None, return_indices=False, _random_samples=None", False),
    "LPPool1d": ("lp_pool1d", "norm_type, kernel_size, stride=None, ceil_mode=False", False),
    "LPPool2d": ("lp_pool2d", "norm_type, kernel_size, stride=None, ceil_mode=False", False),
    "LPPool3d": ("lp_pool3d", "norm_type, kernel_size, stride=None, ceil_mode=False", False),
    "FractionalMaxPool3d": ("fractional_max_pool3d", "kernel_size, output_size=None, "
                            "output_ratio=None, return_indices=False, _random_samples=None", False),
    "MaxUnpool1d": ("max_unpool1d", "kernel_size, stride=None, padding=0", False),
    "MaxUnpool2d": ("max_unpool2d", "kernel_size, stride=None, padding=0", False),
    "MaxUnpool3d": ("max_unpool3d", "kernel_size, stride=None, padding=0", False),
    "Dropout1d": ("dropout1d", "p=0.5, inplace=False", True),
    "Dropout2d": ("dropout2d", "p=0.5, inplace=False", True),
    "Dropout3d": ("dropout3d", "p=0.5, inplace=False", True),
    "AlphaDropout": ("alpha_dropout", "p=0.5, inplace=False", True),
    "FeatureAlphaDropout": ("feature_alpha_dropout", "p=0.5, inplace=False", True),
    "RReLU": ("rrelu", "lower=0.125, upper=0.3333333333333333, inplace=False", True),
    "GLU": ("glu", "dim=-1", False),
    "Threshold": ("threshold", "threshold, value, inplace=False", False),
    "Softmin": ("softmin", "dim=None", False),
    "Hardshrink": ("hardshrink", "lambd=0.5", False),
    "Softshrink": ("softshrink", "lambd=0.5", False),
    "LocalResponseNorm": ("local_response_norm", "size, alpha=0.0001, beta=0.75, k=1.0", False),
    "ChannelShuffle": ("channel_shuffle", "groups", False),
    "Unfold": ("unfold", "kernel_size, dilation=1, padding=0, stride=1", False),
    "Fold": ("fold", "output_size, kernel_size, dilation=1, padding=0, stride=1", False),
    "CosineSimilarity": ("cosine_similarity", "dim=1, eps=1e-08", False),
    "CosineEmbeddingLoss": ("cosine_embedding_loss", "margin=0.0, " + _LEGACY, False),
    "GaussianNLLLoss": ("gaussian_nll_loss", "*, full=False, eps=1e-06, reduction='mean'", False),
    "HingeEmbeddingLoss": ("hinge_embedding_loss", "margin=1.0, " + _LEGACY, False),
    "MarginRankingLoss": ("margin_ranking_loss", "margin=0.0, " + _LEGACY, False),
    "MultiLabelMarginLoss": ("multilabel_margin_loss", _LEGACY, False),
    "MultiLabelSoftMarginLoss": ("multilabel_soft_margin_loss", "weight=None, " + _LEGACY, False),
    "MultiMarginLoss": ("multi_margin_loss", "p=1, margin=1.0, weight=None, " + _LEGACY, False),
    "PoissonNLLLoss": ("poisson_nll_loss", "log_input=True, full=False, size_average=None, "
                                           "eps=1e-08, reduce=None, reduction='mean'", False),
    "SoftMarginLoss": ("soft_margin_loss", _LEGACY, False),
    "TripletMarginLoss": ("triplet_margin_loss", "margin=1.0, p=2.0, eps=1e-06, swap=False, "
                                                 + _LEGACY, False),
    "TripletMarginWithDistanceLoss": ("triplet_margin_with_distance_loss", "*, "
                                      "distance_function=None, margin=1.0, swap=False, "
                                      "reduction='mean'", False),
    "CTCLoss": ("ctc_loss", "blank=0, reduction='mean', zero_infinity=False", False),
}


def _signature(text):
    """An ``inspect.Signature`` from ``"a, b=1, *, c=None"`` (literal defaults only)."""
    params, kind = [], inspect.Parameter.POSITIONAL_OR_KEYWORD
    for part in filter(None, (p.strip() for p in text.split(","))):
        if part == "*":
            kind = inspect.Parameter.KEYWORD_ONLY
            continue
        name, _, default = part.partition("=")
        params.append(inspect.Parameter(name.strip(), kind, default=ast.literal_eval(default)
                                        if default else inspect.Parameter.empty))
    return inspect.Signature(params)


def _layer(name, function, params, training):
    signature = _signature(params)

    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        try:
            bound = signature.bind(*args, **kwargs)
        except TypeError as err:
            raise TypeError(f"nn.{name}{signature}: {err}") from None
        bound.apply_defaults()
        self._stored = tuple(bound.arguments)
        for key, value in bound.arguments.items():
            setattr(self, key, value)

    def forward(self, *inputs, **extra):
        kwargs = {k: getattr(self, k) for k in self._stored}
        if training:
            kwargs["training"] = self.training
        return getattr(F, function)(*inputs, **kwargs, **extra)

    def extra_repr(self):
        return ", ".join(f"{k}={getattr(self, k)!r}" for k in self._stored)

    doc = f"PyTorch's ``nn.{name}{signature}``: ``F.{function}`` with these arguments."
    return type(name, (Module,), {"__init__": __init__, "forward": forward,
                                  "extra_repr": extra_repr, "__doc__": doc,
                                  "__module__": "eagerad.torch.nn"})


for _name, (_function, _params, _training) in TABLE.items():
    globals()[_name] = _layer(_name, _function, _params, _training)
del _name, _function, _params, _training


def _padding_layer(name, dims, mode, with_value):
    def __init__(self, padding, value=0.0):
        Module.__init__(self)
        self.padding = (padding,) * (2 * dims) if isinstance(padding, int) else tuple(padding)
        if len(self.padding) != 2 * dims:
            raise ValueError(f"nn.{name}: padding must be an int or {2 * dims} ints, got "
                             f"{padding!r}")
        self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, mode, self.value if mode == "constant" else None)

    def extra_repr(self):
        return f"padding={self.padding}" + (f", value={self.value}" if with_value else "")

    init = __init__ if with_value else (lambda self, padding: __init__(self, padding))
    doc = (f"PyTorch's ``nn.{name}(padding{', value' if with_value else ''})``: "
           f"``F.pad(mode='{mode}')`` of the last {dims} dimension(s).")
    return type(name, (Module,), {"__init__": init, "forward": forward, "extra_repr": extra_repr,
                                  "__doc__": doc, "__module__": "eagerad.torch.nn"})


PADDINGS = []
for _dims in (1, 2, 3):
    for _prefix, _mode in (("Zero", "constant"), ("Constant", "constant"),
                           ("Reflection", "reflect"), ("Replication", "replicate"),
                           ("Circular", "circular")):
        _name = f"{_prefix}Pad{_dims}d"
        globals()[_name] = _padding_layer(_name, _dims, _mode, _prefix == "Constant")
        PADDINGS.append(_name)
del _dims, _prefix, _mode, _name


class Softmax2d(Module):
    """``nn.Softmax2d``: softmax over the channels of (N, C, H, W) or (C, H, W).

    >>> import eagerad.torch as torch
    >>> Softmax2d()(torch.zeros(1, 2, 1, 1)).flatten().tolist()
    [0.5, 0.5]
    """

    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: input must be 3-D or 4-D, got shape {tuple(input.shape)}")
        return F.softmax(input, dim=-3)


class UpsamplingNearest2d(Module):
    """``nn.UpsamplingNearest2d(size=None, scale_factor=None)``."""

    _mode = "nearest"

    def __init__(self, size=None, scale_factor=None):
        super().__init__()
        self.size, self.scale_factor = size, scale_factor

    def forward(self, input):
        corners = {"align_corners": True} if self._mode == "bilinear" else {}
        return F.interpolate(input, size=self.size, scale_factor=self.scale_factor,
                             mode=self._mode, **corners)


class UpsamplingBilinear2d(UpsamplingNearest2d):
    """``nn.UpsamplingBilinear2d(size=None, scale_factor=None)``: bilinear with
    ``align_corners=True``, as PyTorch."""

    _mode = "bilinear"


class EmbeddingBag(Module):
    """``nn.EmbeddingBag(num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
    scale_grad_by_freq=False, mode='mean', sparse=False, _weight=None,
    include_last_offset=False, padding_idx=None)``: sums, means or maxima of embedding
    rows per bag (``F.embedding_bag``), the weight N(0, 1) as PyTorch's.

    >>> import eagerad.torch as torch
    >>> bag = EmbeddingBag(5, 2, mode="sum", _weight=torch.arange(10.0).reshape(5, 2))
    >>> bag(torch.tensor([0, 1, 4]), torch.tensor([0, 2])).tolist()
    [[2.0, 4.0], [8.0, 9.0]]
    """

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"EmbeddingBag: mode must be 'sum', 'mean' or 'max', got {mode!r}")
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.mode = max_norm, norm_type, mode
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        self.include_last_offset, self.padding_idx = include_last_offset, padding_idx
        weight = _creation.randn(num_embeddings, embedding_dim, dtype=dtype) if _weight is None \
            else _weight.detach().clone()
        self.weight = _creation.Parameter(weight)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                               self.scale_grad_by_freq, self.mode, self.sparse,
                               per_sample_weights, self.include_last_offset, self.padding_idx)


class PReLU(Module):
    """``nn.PReLU(num_parameters=1, init=0.25)``: a learnt negative slope (one, or one per
    channel).

    >>> import eagerad.torch as torch
    >>> PReLU()(torch.tensor([-2.0, 3.0])).tolist()
    [-0.5, 3.0]
    """

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters = num_parameters
        self.weight = _creation.Parameter(_creation.full((num_parameters,), float(init),
                                                         dtype=dtype))

    def forward(self, input):
        return F.prelu(input, self.weight)


class RMSNorm(Module):
    """``nn.RMSNorm(normalized_shape, eps=None, elementwise_affine=True)``."""

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
        self.normalized_shape, self.eps = shape, eps
        self.weight = (_creation.Parameter(_creation.ones(*shape, dtype=dtype))
                       if elementwise_affine else None)

    def forward(self, input):
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)


class _InstanceNorm(Module):
    """PyTorch's ``InstanceNorm{1,2,3}d(num_features, eps=1e-05, momentum=0.1,
    affine=False, track_running_stats=False)``."""

    _dims = 2

    def __init__(self, num_features, eps=1e-05, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        self.weight = _creation.Parameter(_creation.ones(num_features, dtype=dtype)) if affine else None
        self.bias = _creation.Parameter(_creation.zeros(num_features, dtype=dtype)) if affine else None
        if track_running_stats:
            self.register_buffer("running_mean", _creation.zeros(num_features, dtype=dtype))
            self.register_buffer("running_var", _creation.ones(num_features, dtype=dtype))
        else:
            self.running_mean = self.running_var = None

    def forward(self, input):
        if input.ndim not in (self._dims + 1, self._dims + 2):
            raise ValueError(f"{type(self).__name__}: input must be {self._dims + 1}-D "
                             f"(unbatched) or {self._dims + 2}-D, got shape {tuple(input.shape)}")
        unbatched = input.ndim == self._dims + 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              use_input_stats=self.training or not self.track_running_stats,
                              momentum=self.momentum, eps=self.eps)
        return out.squeeze(0) if unbatched else out


class InstanceNorm1d(_InstanceNorm):
    __doc__ = _InstanceNorm.__doc__
    _dims = 1


class InstanceNorm2d(_InstanceNorm):
    __doc__ = _InstanceNorm.__doc__
    _dims = 2


class InstanceNorm3d(_InstanceNorm):
    __doc__ = _InstanceNorm.__doc__
    _dims = 3


LAYERS = list(TABLE) + PADDINGS + ["Softmax2d", "UpsamplingNearest2d", "UpsamplingBilinear2d",
                                   "EmbeddingBag", "PReLU", "RMSNorm", "InstanceNorm1d", "InstanceNorm2d",
                                   "InstanceNorm3d"]
