"""Convolution, pooling, normalisation, embedding and attention layers, in both spellings.

eagerad has one ``nn`` namespace for its PyTorch and MindSpore faces, and some
layers share a name but not their defaults.  The rule: **a layer follows
MindSpore when the call uses a keyword only MindSpore has** (``pad_mode``,
``group``, ``has_bias``, ``weight_init``, ``bias_init``, ``data_format``,
``gamma_init``, ``beta_init``, ``moving_mean_init``, ``moving_var_init``,
``use_batch_statistics``, ``begin_norm_axis``, ``epsilon``, ``vocab_size``,
``embedding_table``, ...) or passes ``'pad'`` as the fifth positional argument
of a convolution; **otherwise it follows PyTorch**.  So

- ``nn.Conv2d(3, 16, 3)`` is PyTorch's (padding 0, with bias) and
  ``nn.Conv2d(3, 16, 3, pad_mode='same')`` MindSpore's (its defaults: 'same'
  padding, no bias); MindSpore code relying on all defaults must name one
  MindSpore keyword (``pad_mode='same'`` is the usual one).
- ``nn.BatchNorm2d(16)`` is PyTorch's.  Momentum conventions are opposite:
  PyTorch's ``momentum`` (default 0.1) weighs the new batch, MindSpore's (default
  0.9) the old running value; with the defaults both give ``running = 0.9 *
  running + 0.1 * batch``.  A MindSpore keyword selects MindSpore's meaning; a
  ``momentum`` above 0.5 without one is read as PyTorch's and warned about.
- Parameters take the face's names: ``weight``/``bias``/``running_mean``/
  ``running_var`` for PyTorch, ``gamma``/``beta``/``moving_mean``/
  ``moving_variance`` for MindSpore (so checkpoints of either load by name).

Data layout is NCHW (MindSpore's ``data_format='NHWC'`` is refused).  Running
statistics are Parameters with ``requires_grad=False`` (in ``state_dict`` and
``parameters_and_names``, not in ``trainable_params``).

>>> import eagerad
>>> from eagerad.nn.conv_layers import Conv2d
>>> Conv2d(3, 8, 3, bias=True)(eagerad.ones(2, 3, 8, 8)).shape, Conv2d(3, 8, 3, pad_mode='same').bias
((2, 8, 6, 6), None)
"""
import inspect
import math
import warnings

import numpy as np

from .. import ops
from ..ops import convolution as conv
from ..ops import convolution_nd
from ..ops import losses as lf
from ..ops import normalization as norm
from ..ops import recurrent
from . import packed
from ..tensor import Parameter, Tensor, zeros
from ..face import ambiguous, stamp
from .cell import Cell
from .init import he_uniform, initializer, normal, uniform
from .layers import Dense

_MINDSPORE_KEYWORDS = {"pad_mode", "group", "has_bias", "weight_init", "bias_init", "data_format",
                       "gamma_init", "beta_init", "moving_mean_init", "moving_var_init",
                       "use_batch_statistics", "begin_norm_axis", "begin_params_axis", "epsilon",
                       "vocab_size", "embedding_size", "use_one_hot", "embedding_table"}


def _bind(layer, torch_sig, ms_sig, args, kwargs, ms=False, agree=()):
    """The layer's arguments bound to its framework's signature: (is_mindspore, {name:
    value} with defaults).  A face's layer class says its framework (``_signature``);
    the engine's own layer (``eagerad.nn``) takes the one its keywords identify, or
    PyTorch's when the call gives every argument in ``agree`` (which makes both read it
    alike), and raises where the call reads differently in the two frameworks."""
    cls_name = type(layer).__name__
    face = type(layer)._signature
    if face is None:
        ms = ms or bool(_MINDSPORE_KEYWORDS & kwargs.keys())
        names = list(inspect.signature(torch_sig).parameters)
        torch_only = set(names) - inspect.signature(ms_sig).parameters.keys()
        given = set(kwargs) | set(names[:len(args)])
        if not ms and not torch_only & kwargs.keys() and not (agree and given >= set(agree)):
            raise ambiguous(f"nn.{cls_name}({', '.join(map(repr, args))})", "PyTorch's defaults and parameter names",
                            "MindSpore's defaults and parameter names",
                            "pass " + (" and ".join(f"{n}=" for n in agree) if agree else
                                       f"a keyword only one framework has ({sorted(torch_only)[0]}="
                                       " or one of MindSpore's)"))
    else:
        ms = face == "mindspore"
    sig = inspect.signature(ms_sig if ms else torch_sig)
    try:
        bound = sig.bind(*args, **kwargs)
    except TypeError as err:
        face = "MindSpore" if ms else "PyTorch"
        raise TypeError(f"{cls_name}{sig} ({face}'s signature): {err}") from None
    bound.apply_defaults()
    return ms, bound.arguments


def _check_nchw(cls_name, data_format):
    if data_format != "NCHW":
        raise ValueError(f"{cls_name}: data_format={data_format!r} is not supported; eagerad "
                         "layers use NCHW")


def _parameter(init, shape, default, name, dtype, requires_grad=True):
    kw = {} if dtype is None else {"dtype": dtype}
    data = default(shape, **kw) if init is None else initializer(init, shape, **kw)
    return Parameter(data, name=name, requires_grad=requires_grad)


# ------------------------------------------------------------------ convolutions


def _torch_conv(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1,
                bias=True, padding_mode="zeros", device=None, dtype=None):
    """PyTorch's ``Conv1d``/``Conv2d`` signature."""


def _ms_conv(in_channels, out_channels, kernel_size, stride=1, pad_mode="same", padding=0,
             dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None,
             data_format="NCHW", dtype=None):
    """MindSpore's ``Conv1d``/``Conv2d`` signature."""


def _torch_conv_transpose(in_channels, out_channels, kernel_size, stride=1, padding=0,
                          output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                          device=None, dtype=None):
    """PyTorch's ``ConvTranspose2d`` signature."""


def _ms_conv_transpose(in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                       padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                       weight_init=None, bias_init=None, data_format="NCHW", dtype=None):
    """MindSpore's ``Conv2dTranspose`` signature."""


_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _Conv(Cell):
    """Shared set-up of the convolution layers: binds either face's arguments."""
    _dims = 2
    _transposed = False
    padding_mode = "zeros"

    def _padded(self, x):
        """``x`` padded as PyTorch's ``padding_mode`` asks (reflect, replicate, circular;
        zeros is the convolution's own) and the padding left for the convolution."""
        if self.padding_mode == "zeros":
            return x, self.padding
        one = (1,) * (2 - self._dims)       # a 1-D layer as 2-D with a unit H axis
        padding = conv._1d_padding(self.padding) if self._dims == 1 else self.padding
        pads = conv.conv_pads(padding, one + x.shape[-self._dims:], one + self.kernel_size,
                              one + self.stride, one + self.dilation)
        widths = pads[2:] + (pads[:2] if self._dims == 2 else ())   # F.pad: last axis first
        return ops.pad(x, widths, mode=self.padding_mode), 0

    def __init__(self, *args, **kwargs):
        super().__init__()
        name = type(self).__name__
        sigs = (_torch_conv_transpose, _ms_conv_transpose) if self._transposed \
            else (_torch_conv, _ms_conv)
        ms, a = _bind(self, *sigs, args, kwargs, ms=len(args) > 4 and args[4] == "pad")
        self.mindspore = ms
        c_in, c_out = a["in_channels"], a["out_channels"]
        groups = a["group"] if ms else a["groups"]
        for what, v in (("in_channels", c_in), ("out_channels", c_out), ("groups", groups)):
            if not isinstance(v, int) or isinstance(v, bool) or v <= 0:
                raise ValueError(f"{name}: {what} must be a positive int, got {v!r}")
        if c_in % groups or c_out % groups:
            raise ValueError(f"{name}: groups={groups} must divide in_channels={c_in} and "
                             f"out_channels={c_out}")
        if ms:
            _check_nchw(name, a["data_format"])
            self.padding = conv._ms_padding(name, a["pad_mode"], a["padding"])
        else:
            modes = ("zeros",) if self._transposed else _PADDING_MODES
            if a["padding_mode"] not in modes:
                raise ValueError(f"{name}: padding_mode={a['padding_mode']!r} is not one of "
                                 f"{modes}")
            self.padding_mode = a["padding_mode"]
            self.padding = a["padding"]
        self.in_channels, self.out_channels, self.groups = c_in, c_out, groups
        self.kernel_size = conv._positive(conv._ints(a["kernel_size"], self._dims, "kernel_size"),
                                          f"{name}: kernel_size")
        self.stride = conv._ints(a["stride"], self._dims, "stride")
        self.dilation = conv._ints(a["dilation"], self._dims, "dilation")
        self.output_padding = a.get("output_padding", 0)
        shape = (c_in, c_out // groups) if self._transposed else (c_out, c_in // groups)
        shape += self.kernel_size
        self.weight = _parameter(a.get("weight_init"), shape, he_uniform, "weight", a["dtype"])
        fan_in = shape[1] * math.prod(self.kernel_size)
        has_bias = a["has_bias"] if ms else a["bias"]
        self.bias = _parameter(a.get("bias_init"), (c_out,),
                               lambda s, **kw: uniform(s, 1.0 / math.sqrt(fan_in), **kw),
                               "bias", a["dtype"]) if has_bias else None

    def extend_repr(self):
        """Sizes and geometry in ``repr``.

        >>> Conv2d(1, 2, 3, bias=True)
        Conv2d<in_channels=1, out_channels=2, kernel_size=(3, 3), stride=(1, 1), padding=0, has_bias=True>
        """
        return (f"in_channels={self.in_channels}, out_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding!r}, "
                f"has_bias={self.bias is not None}")


class Conv2d(_Conv):
    """2-D convolution layer over NCHW input; PyTorch's ``Conv2d(in, out, kernel_size,
    stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')`` (or
    'reflect', 'replicate', 'circular') or MindSpore's
    ``Conv2d(in_channels, out_channels, kernel_size, stride=1, pad_mode='same',
    padding=0, dilation=1, group=1, has_bias=False, weight_init=None, bias_init=None)``
    (see the module docstring for how the face is chosen).

    >>> Conv2d(3, 4, 3, padding=1, bias=False)(eagerad.ones(1, 3, 5, 5)).shape
    (1, 4, 5, 5)
    """

    def construct(self, x):
        """The convolution of ``x`` (N, C, H, W).

        >>> Conv2d(1, 1, 2, weight_init='ones', has_bias=False, pad_mode='valid').construct(
        ...     eagerad.ones(1, 1, 2, 2)).tolist()
        [[[[4.0]]]]
        """
        x, padding = self._padded(x)
        return conv._conv("Conv2d", x, self.weight, self.bias, self.stride, padding,
                          self.dilation, self.groups)


class Conv1d(_Conv):
    """1-D convolution layer over (N, C, L) input, in either face (as ``Conv2d``).

    >>> Conv1d(2, 4, 3, bias=True)(eagerad.ones(1, 2, 10)).shape
    (1, 4, 8)
    """
    _dims = 1

    def construct(self, x):
        """The convolution of ``x`` (N, C, L).

        >>> Conv1d(1, 1, 3, padding=1, bias=False).construct(eagerad.ones(1, 1, 4)).shape
        (1, 1, 4)
        """
        x, padding = self._padded(x)
        return conv.conv1d(x, self.weight, self.bias, self.stride, padding, self.dilation,
                           self.groups)


class ConvTranspose2d(_Conv):
    """Transposed 2-D convolution (learned upsampling): PyTorch's ``ConvTranspose2d(in,
    out, kernel_size, stride=1, padding=0, output_padding=0, groups=1, bias=True,
    dilation=1)`` or MindSpore's ``Conv2dTranspose`` (``pad_mode='same'`` gives
    ``H * stride``), weight (in, out/groups, kh, kw).

    >>> ConvTranspose2d(2, 1, 2, stride=2, bias=True)(eagerad.ones(1, 2, 3, 3)).shape
    (1, 1, 6, 6)
    """
    _transposed = True

    def construct(self, x):
        """The transposed convolution of ``x`` (N, C, H, W).

        >>> Conv2dTranspose(1, 1, 3, stride=2, pad_mode='same').construct(eagerad.ones(1, 1, 3, 3)).shape
        (1, 1, 6, 6)
        """
        size = x.shape[2:]
        if self.padding in ("same", "valid"):
            pads = []
            for n, k, s, d in zip(size, self.kernel_size, self.stride, self.dilation):
                total = d * (k - 1) + 1 - s if self.padding == "same" else 0
                if total < 0:
                    raise ValueError(f"ConvTranspose2d: pad_mode='same' needs stride {s} <= the "
                                     f"dilated kernel {d * (k - 1) + 1}")
                pads += [total // 2, total - total // 2]
            pads = tuple(pads)
        else:
            pads = conv.conv_pads(self.padding, size, self.kernel_size, self.stride,
                                  self.dilation)
        return conv.transposed_conv("ConvTranspose2d", x, self.weight, self.bias, self.stride,
                                    pads, self.output_padding, self.groups, self.dilation)


class Conv2dTranspose(ConvTranspose2d):
    """MindSpore's name of the transposed convolution: binds MindSpore's signature.

    >>> Conv2dTranspose(1, 1, 3, stride=2).construct(eagerad.ones(1, 1, 3, 3)).shape
    (1, 1, 6, 6)
    """
    _signature = "mindspore"


ConvTranspose2d._signature = "torch"      # PyTorch's name: its signature

# ----------------------------------------------------------------------- pooling


def _torch_max_pool(kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                    ceil_mode=False):
    """PyTorch's ``MaxPool2d`` signature."""


def _ms_max_pool(kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
    """MindSpore's ``MaxPool2d`` signature."""


def _torch_avg_pool(kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                    divisor_override=None):
    """PyTorch's ``AvgPool2d`` signature."""


def _ms_avg_pool(kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
    """MindSpore's ``AvgPool2d`` signature."""


class _ConvNd(_Conv):
    """Layers over ``ops.convolution_nd`` (3-D, and the transposed 1-D/3-D ones), with
    PyTorch's signatures; a ``padding_mode`` other than zeros pads with ``F.pad`` first."""

    def construct(self, x):
        padding = self.padding
        if self.padding_mode != "zeros":
            if isinstance(padding, str):
                raise ValueError(f"{type(self).__name__}: padding_mode={self.padding_mode!r} "
                                 "needs numeric padding")
            each = conv._ints(padding, self._dims, "padding")
            x = ops.pad(x, tuple(w for p in reversed(each) for w in (p, p)), mode=self.padding_mode)
            padding = 0
        if self._transposed:
            return self._function(x, self.weight, self.bias, self.stride, padding,
                                  self.output_padding, self.groups, self.dilation)
        return self._function(x, self.weight, self.bias, self.stride, padding, self.dilation,
                              self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over (N, C, D, H, W): PyTorch's ``Conv3d(in, out, kernel_size,
    stride=1, padding=0, dilation=1, groups=1, bias=True, padding_mode='zeros')``.

    >>> Conv3d(2, 3, 2, bias=False)(eagerad.ones(1, 2, 3, 3, 3)).shape
    (1, 3, 2, 2, 2)
    """
    _dims = 3
    _function = staticmethod(convolution_nd.conv3d)


class ConvTranspose1d(_ConvNd):
    """Transposed 1-D convolution: PyTorch's ``ConvTranspose1d(in, out, kernel_size,
    stride=1, padding=0, output_padding=0, groups=1, bias=True, dilation=1)``.

    >>> ConvTranspose1d(2, 1, 2, stride=2, bias=True)(eagerad.ones(1, 2, 3)).shape
    (1, 1, 6)
    """
    _dims, _transposed = 1, True
    _function = staticmethod(convolution_nd.conv_transpose1d)


class ConvTranspose3d(_ConvNd):
    """Transposed 3-D convolution: PyTorch's ``ConvTranspose3d`` arguments (as
    ``ConvTranspose1d``).

    >>> ConvTranspose3d(1, 1, 2, stride=2, bias=True)(eagerad.ones(1, 1, 2, 2, 2)).shape
    (1, 1, 4, 4, 4)
    """
    _dims, _transposed = 3, True
    _function = staticmethod(convolution_nd.conv_transpose3d)


class _Pool(Cell):
    """Binds a pooling layer's arguments in either face; MindSpore's ``pad_mode``
    'valid', 'pad' or 'same' (as TensorFlow's: ceil(n / stride) windows, the padding
    never counted in an average)."""

    def __init__(self, torch_sig, ms_sig, args, kwargs):
        super().__init__()
        name = type(self).__name__
        ms, a = _bind(self, torch_sig, ms_sig, args, kwargs, agree=("stride",))
        if ms:
            _check_nchw(name, a.pop("data_format"))
            mode = a.pop("pad_mode")
            if mode not in ("valid", "pad", "same"):
                raise ValueError(f"{name}: pad_mode={mode!r} is not one of 'valid', 'same', "
                                 "'pad'")
            if mode != "pad" and a["padding"] not in (0, (0, 0)):
                raise ValueError(f"{name}: padding={a['padding']!r} needs pad_mode='pad', got "
                                 f"pad_mode={mode!r}")
            if mode == "same":
                a["padding"] = "same"
                if "count_include_pad" in a:
                    a["count_include_pad"] = False
        self.mindspore = ms
        self.args = a

    def extend_repr(self):
        """The pooling arguments in ``repr``.

        >>> MaxPool2d(2, 2)
        MaxPool2d<kernel_size=2, stride=2, padding=0, dilation=1, return_indices=False, ceil_mode=False>
        """
        return ", ".join(f"{k}={v!r}" for k, v in self.args.items())


class MaxPool2d(_Pool):
    """Max pooling over NCHW windows: PyTorch's ``MaxPool2d(kernel_size, stride=None
    (= kernel_size), padding=0, dilation=1, return_indices=False, ceil_mode=False)`` or,
    with ``pad_mode``/``data_format``, MindSpore's (``stride=1`` default).

    >>> MaxPool2d(2, 2)(eagerad.ones(1, 1, 4, 4)).shape
    (1, 1, 2, 2)
    """

    def __init__(self, *args, **kwargs):
        super().__init__(_torch_max_pool, _ms_max_pool, args, kwargs)

    def construct(self, x):
        """Window maxima of ``x`` (gradient to the first maximum).

        >>> MaxPool2d(2, 2).construct(eagerad.tensor([[[[1.0, 2.0], [3.0, 0.0]]]])).tolist()
        [[[[3.0]]]]
        """
        return conv.max_pool2d(x, **self.args)


class AvgPool2d(_Pool):
    """Average pooling over NCHW windows: PyTorch's ``AvgPool2d(kernel_size, stride=None,
    padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None)`` or
    MindSpore's (with ``pad_mode``).

    >>> AvgPool2d(2, 2)(eagerad.ones(1, 1, 4, 4)).tolist()
    [[[[1.0, 1.0], [1.0, 1.0]]]]
    """

    def __init__(self, *args, **kwargs):
        super().__init__(_torch_avg_pool, _ms_avg_pool, args, kwargs)

    def construct(self, x):
        """Window means of ``x``.

        >>> AvgPool2d(2, 2).construct(eagerad.tensor([[[[1.0, 2.0], [3.0, 6.0]]]])).tolist()
        [[[[3.0]]]]
        """
        return conv.avg_pool2d(x, **self.args)


class AdaptiveAvgPool2d(Cell):
    """Average into a fixed ``output_size`` grid whatever the input size (e.g. before a
    classifier head).

    >>> AdaptiveAvgPool2d(1)(eagerad.ones(2, 3, 5, 7)).shape
    (2, 3, 1, 1)
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, x):
        """``adaptive_avg_pool2d(x, output_size)``.

        >>> AdaptiveAvgPool2d((2, 1)).construct(eagerad.ones(1, 1, 4, 4)).shape
        (1, 1, 2, 1)
        """
        return conv.adaptive_avg_pool2d(x, self.output_size)

# ------------------------------------------------------------------ normalisation


def _torch_batch_norm(num_features, eps=1e-5, momentum=0.1, affine=True, track_running_stats=True,
                      device=None, dtype=None):
    """PyTorch's ``BatchNorm1d``/``BatchNorm2d`` signature."""


def _ms_batch_norm(num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                   beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                   use_batch_statistics=None, data_format="NCHW", dtype=None):
    """MindSpore's ``BatchNorm1d``/``BatchNorm2d`` signature."""


class _BatchNorm(Cell):
    """Batch normalisation with running statistics, in either face."""
    _ndims = (4,)

    def __init__(self, *args, **kwargs):
        super().__init__()
        name = type(self).__name__
        ms, a = _bind(self, _torch_batch_norm, _ms_batch_norm, args, kwargs)
        c, dtype = a["num_features"], a["dtype"]
        if not isinstance(c, int) or c <= 0:
            raise ValueError(f"{name}: num_features must be a positive int, got {c!r}")
        momentum = a["momentum"]
        if not 0.0 <= momentum <= 1.0:
            raise ValueError(f"{name}: momentum must lie in [0, 1], got {momentum}")
        self.mindspore, self.num_features, self.eps = ms, c, a["eps"]
        names = ("gamma", "beta", "moving_mean", "moving_variance") if ms \
            else ("weight", "bias", "running_mean", "running_var")
        self._names = names
        if ms:
            _check_nchw(name, a["data_format"])
            self.momentum = 1.0 - momentum          # stored with PyTorch's meaning
            self.use_batch_statistics = a["use_batch_statistics"]
            inits = (a["gamma_init"], a["beta_init"], a["moving_mean_init"], a["moving_var_init"])
            track = True
        else:
            if momentum > 0.5:
                warnings.warn(f"{name}: momentum={momentum} is read with PyTorch's meaning (the "
                              "weight of the new batch); for MindSpore's (the weight of the old "
                              "value) also pass a MindSpore keyword such as "
                              "use_batch_statistics=None", UserWarning, stacklevel=3)
            self.momentum = momentum
            self.use_batch_statistics = None if a["track_running_stats"] else True
            inits = ("ones", "zeros", "zeros", "ones")
            track = a["track_running_stats"]
        for i, (pname, init) in enumerate(zip(names, inits)):
            if i < 2 and not a["affine"] or i >= 2 and not track:
                object.__setattr__(self, pname, None)
                continue
            if i >= 2 and not ms:       # PyTorch: running statistics are buffers
                kw = {} if dtype is None else {"dtype": dtype}
                self.register_buffer(pname, initializer(init, (c,), **kw))
                continue
            setattr(self, pname, _parameter(init, (c,), None, pname, dtype, requires_grad=i < 2))
        if not ms and track:
            self.register_buffer("num_batches_tracked", Tensor(np.zeros((), np.int64)))

    def construct(self, x):
        """Normalise ``x`` with batch statistics in training (updating the running ones)
        or with the running statistics in eval mode.

        >>> bn = BatchNorm1d(2, track_running_stats=True)
        >>> bn.construct(eagerad.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
        [[-0.99999..., -0.99999...], [0.99999..., 0.99999...]]
        """
        if x.ndim not in self._ndims:
            raise ValueError(f"{type(self).__name__}: expected a {' or '.join(map(str, self._ndims))}"
                             f"-D input, got shape {x.shape}")
        if x.shape[1] != self.num_features:
            raise ValueError(f"{type(self).__name__}: input of shape {x.shape} has {x.shape[1]} "
                             f"channels, the layer expects num_features={self.num_features}")
        w, b, rm, rv = (getattr(self, n) for n in self._names)
        batch = self.training if self.use_batch_statistics is None else self.use_batch_statistics
        if batch:
            if self.training and "num_batches_tracked" in self._buffer_registry():
                self.num_batches_tracked._data[...] += 1
            return norm.batch_norm(x, rm, rv, w, b, True, self.momentum, self.eps)
        return norm.batch_norm(x, rm, rv, w, b, False, self.momentum, self.eps)

    def extend_repr(self):
        """Features, eps and momentum (PyTorch's meaning) in ``repr``.

        >>> BatchNorm2d(4, track_running_stats=True)
        BatchNorm2d<num_features=4, eps=1e-05, momentum=0.1>
        """
        return f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum:g}"


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of NCHW input per channel, PyTorch's or MindSpore's.

    >>> BatchNorm2d(3, track_running_stats=True)(eagerad.randn(4, 3, 2, 2)).shape
    (4, 3, 2, 2)
    """


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of (N, C, D, H, W) input per channel.

    >>> BatchNorm3d(2, track_running_stats=True)(eagerad.randn(3, 2, 2, 2, 2)).shape
    (3, 2, 2, 2, 2)
    """
    _ndims = (5,)


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of (N, C) or (N, C, L) input per channel.

    >>> BatchNorm1d(3, momentum=0.1, track_running_stats=True)(eagerad.randn(4, 3)).shape
    (4, 3)
    """
    _ndims = (2, 3)


def _torch_layer_norm(normalized_shape, eps=1e-5, elementwise_affine=True, bias=True, device=None,
                      dtype=None):
    """PyTorch's ``LayerNorm`` signature."""


def _ms_layer_norm(normalized_shape, begin_norm_axis=-1, begin_params_axis=-1, gamma_init="ones",
                   beta_init="zeros", epsilon=1e-7, dtype=None):
    """MindSpore's ``LayerNorm`` signature."""


class LayerNorm(Cell):
    """Normalise over the trailing ``normalized_shape`` axes with an elementwise affine:
    PyTorch's ``LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=True,
    bias=True)`` or MindSpore's (``begin_norm_axis``, ``epsilon=1e-7``, ``gamma``/``beta``).

    >>> LayerNorm(2, eps=1e-5)(eagerad.tensor([[1.0, 3.0]])).tolist()
    [[-0.99999..., 0.99999...]]
    """

    def __init__(self, *args, **kwargs):
        super().__init__()
        ms, a = _bind(self, _torch_layer_norm, _ms_layer_norm, args, kwargs)
        shape = a["normalized_shape"]
        self.normalized_shape = (shape,) if isinstance(shape, int) else tuple(shape)
        self.mindspore = ms
        if ms:
            if a["begin_norm_axis"] != a["begin_params_axis"]:
                raise ValueError("LayerNorm: begin_norm_axis and begin_params_axis must be equal")
            self.begin_norm_axis, self.eps = a["begin_norm_axis"], a["epsilon"]
            self.gamma = _parameter(a["gamma_init"], self.normalized_shape, None, "gamma", a["dtype"])
            self.beta = _parameter(a["beta_init"], self.normalized_shape, None, "beta", a["dtype"])
            self._names = ("gamma", "beta")
            return
        self.begin_norm_axis, self.eps = None, a["eps"]
        affine = a["elementwise_affine"]
        self.weight = _parameter("ones", self.normalized_shape, None, "weight", a["dtype"]) \
            if affine else None
        self.bias = _parameter("zeros", self.normalized_shape, None, "bias", a["dtype"]) \
            if affine and a["bias"] else None
        self._names = ("weight", "bias")

    def construct(self, x):
        """``layer_norm`` of ``x`` over its trailing ``normalized_shape`` axes.

        >>> LayerNorm((2,), epsilon=0.0).construct(eagerad.tensor([[1.0, 3.0]])).tolist()
        [[-1.0, 1.0]]
        """
        if self.begin_norm_axis is not None:
            k = x.ndim - self.begin_norm_axis % x.ndim
            if k != len(self.normalized_shape):
                raise ValueError(f"LayerNorm: begin_norm_axis={self.begin_norm_axis} normalises "
                                 f"{k} axes of input {x.shape}, normalized_shape "
                                 f"{self.normalized_shape} has {len(self.normalized_shape)}")
        w, b = (getattr(self, n) for n in self._names)
        return norm.layer_norm(x, self.normalized_shape, w, b, self.eps)


class GroupNorm(Cell):
    """Normalise groups of channels per sample (independent of the batch size):
    ``GroupNorm(num_groups, num_channels, eps=1e-5, affine=True)``; MindSpore's
    ``gamma_init``/``beta_init`` name the parameters ``gamma``/``beta``.

    >>> GroupNorm(2, 4)(eagerad.randn(3, 4, 5)).shape
    (3, 4, 5)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init=None,
                 beta_init=None, dtype=None):
        super().__init__()
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_groups={num_groups} must divide "
                             f"num_channels={num_channels}")
        self.num_groups, self.num_channels, self.eps = num_groups, num_channels, eps
        ms = gamma_init is not None or beta_init is not None
        self._names = ("gamma", "beta") if ms else ("weight", "bias")
        for pname, init in zip(self._names, (gamma_init or "ones", beta_init or "zeros")):
            setattr(self, pname, _parameter(init, (num_channels,), None, pname, dtype)
                    if affine else None)
            if not affine:
                object.__setattr__(self, pname, None)

    def construct(self, x):
        """``group_norm`` of ``x`` (N, C, ...).

        >>> GroupNorm(1, 2).construct(eagerad.tensor([[1.0, 3.0]])).tolist()
        [[-0.99999..., 0.99999...]]
        """
        w, b = (getattr(self, n) for n in self._names)
        return norm.group_norm(x, self.num_groups, w, b, self.eps)

# ------------------------------------------------------------------- embedding


def _torch_embedding(num_embeddings, embedding_dim, padding_idx=None, dtype=None):
    """PyTorch's ``Embedding`` signature (max_norm and sparse are not supported)."""


def _ms_embedding(vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                  dtype=None, padding_idx=None):
    """MindSpore's ``Embedding`` signature."""


class Embedding(Cell):
    """A lookup table of ``num_embeddings`` vectors of size ``embedding_dim`` (PyTorch:
    N(0, 1) init, parameter ``weight``) or MindSpore's ``Embedding(vocab_size,
    embedding_size, embedding_table='normal')`` (parameter ``embedding_table``);
    ``padding_idx``'s row starts at zero and gets no gradient.

    >>> Embedding(num_embeddings=10, embedding_dim=3)(eagerad.tensor([[1, 2]])).shape
    (1, 2, 3)
    """

    def __init__(self, *args, **kwargs):
        super().__init__()
        ms, a = _bind(self, _torch_embedding, _ms_embedding, args, kwargs)
        n, d = (a["vocab_size"], a["embedding_size"]) if ms else \
            (a["num_embeddings"], a["embedding_dim"])
        self._name = "embedding_table" if ms else "weight"
        kw = {} if a["dtype"] is None or ms else {"dtype": a["dtype"]}
        table = initializer(a["embedding_table"], (n, d)) if ms else \
            normal((n, d), sigma=1.0, **kw)
        pad = a["padding_idx"]
        if pad is not None:
            pad = pad + n if pad < 0 else pad
            data = table.numpy().copy()
            data[pad] = 0
            table = Tensor(data)
        self.padding_idx = pad
        setattr(self, self._name, Parameter(table, name=self._name))

    def construct(self, ids):
        """The rows of the table picked by the integer ``ids``.

        >>> Embedding(num_embeddings=3, embedding_dim=2, padding_idx=0).construct(eagerad.tensor([0])).tolist()
        [[0.0, 0.0]]
        """
        return lf.embedding(ids, getattr(self, self._name), self.padding_idx)

# ------------------------------------------------------------------- attention


class MultiheadAttention(Cell):
    """PyTorch's ``MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=True,
    batch_first=False)``: packed ``in_proj_weight`` (3E, E), ``out_proj``; returns
    ``(output, weights averaged over heads)`` (or None with ``need_weights=False``).

    >>> mha = MultiheadAttention(4, 2, batch_first=True)
    >>> out, w = mha(eagerad.ones(1, 3, 4), eagerad.ones(1, 3, 4), eagerad.ones(1, 3, 4))
    >>> out.shape, w.shape
    ((1, 3, 4), (1, 3, 3))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, batch_first=False,
                 dtype=None):
        super().__init__()
        if embed_dim % num_heads:
            raise ValueError(f"MultiheadAttention: num_heads={num_heads} must divide "
                             f"embed_dim={embed_dim}")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.batch_first = batch_first
        kw = {} if dtype is None else {"dtype": dtype}
        bound = math.sqrt(6.0 / (embed_dim + 3 * embed_dim))       # xavier_uniform, as PyTorch
        self.in_proj_weight = Parameter(uniform((3 * embed_dim, embed_dim), bound, **kw),
                                        name="in_proj_weight")
        self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), **kw),
                                      name="in_proj_bias") if bias else None
        self.out_proj = Dense(embed_dim, embed_dim, has_bias=bias, bias_init="zeros", dtype=dtype)

    def _heads(self, x, batch):
        """(L, N, E) -> (N, heads, L, E/heads)."""
        h = self.num_heads
        return x.reshape(x.shape[0], batch, h, self.embed_dim // h).transpose(1, 2, 0, 3)

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True, is_causal=False):
        """Attention of ``query`` over ``key``/``value``; boolean masks mark positions to
        hide (PyTorch's meaning of True in ``attn_mask`` and ``key_padding_mask``).

        >>> mha = MultiheadAttention(2, 1)
        >>> mha.construct(eagerad.ones(3, 1, 2), eagerad.ones(3, 1, 2), eagerad.ones(3, 1, 2),
        ...               need_weights=False)[1] is None
        True
        """
        if self.batch_first:
            query, key, value = (t.swapaxes(0, 1) for t in (query, key, value))
        e = self.embed_dim
        w, b = self.in_proj_weight, self.in_proj_bias
        q, k, v = (lf.linear(t, w[i * e:(i + 1) * e], None if b is None else b[i * e:(i + 1) * e])
                   for i, t in enumerate((query, key, value)))
        n, length, s = query.shape[1], query.shape[0], key.shape[0]
        q, k, v = self._heads(q, n), self._heads(k, n), self._heads(v, n)
        bias = np.zeros((n, 1, length, s))
        if is_causal and attn_mask is None:
            attn_mask = np.triu(np.ones((length, s), bool), 1)
        for mask in (attn_mask, key_padding_mask):
            if mask is None:
                continue
            m = mask.numpy() if isinstance(mask, Tensor) else np.asarray(mask)
            if mask is key_padding_mask:
                m = m.reshape(n, 1, 1, s)
            elif m.ndim == 3:
                m = m.reshape(n, self.num_heads, length, s)
            bias = bias + (np.where(m, -np.inf, 0.0) if m.dtype == bool else m)
        scale = 1.0 / math.sqrt(e // self.num_heads)
        if not need_weights and not (self.training and self.dropout > 0):
            # the weights stay inside: one attention op (ops/attention.py), the same numbers
            from ..ops.attention import scaled_dot_product_attention
            out = scaled_dot_product_attention(q, k, v, Tensor(bias, dtype=q.dtype, device=q.device),
                                               scale=scale)
            out = self.out_proj(out.transpose(2, 0, 1, 3).reshape(length, n, e))
            return (out.swapaxes(0, 1) if self.batch_first else out), None
        scores = ops.matmul(q, k.swapaxes(-1, -2)) * scale
        weights = ops.softmax(scores + Tensor(bias, dtype=scores.dtype, device=scores.device), -1)
        if self.training and self.dropout > 0:
            weights = lf.dropout(weights, self.dropout)
        out = ops.matmul(weights, v).transpose(2, 0, 1, 3).reshape(length, n, e)
        out = self.out_proj(out)
        if self.batch_first:
            out = out.swapaxes(0, 1)
        if not need_weights:
            return out, None
        return out, weights.mean(axis=1) if average_attn_weights else weights

# ------------------------------------------------------------------ recurrent


class _Recurrent(Cell):
    """Stacked, optionally bidirectional recurrent layers with PyTorch's parameter
    names (``weight_ih_l0``, ``weight_hh_l0_reverse``, ...) and U(-1/sqrt(H), 1/sqrt(H))
    initialisation; each step is ordinary ops (float layers run one fused scan op per
    layer and direction instead), so any order of derivative works."""
    _gates = 1

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, has_bias=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.num_layers = input_size, hidden_size, num_layers
        self.batch_first, self.dropout = batch_first, dropout
        self.directions = 2 if bidirectional else 1
        bias = bias if has_bias is None else has_bias
        kw = {} if dtype is None else {"dtype": dtype}
        bound = 1.0 / math.sqrt(hidden_size)
        rows = self._gates * hidden_size
        for layer in range(num_layers):
            width = input_size if layer == 0 else hidden_size * self.directions
            for suffix in self._suffixes(layer):
                for pname, shape in (("weight_ih", (rows, width)), ("weight_hh", (rows, hidden_size)),
                                     ("bias_ih", (rows,)), ("bias_hh", (rows,))):
                    if pname.startswith("bias") and not bias:
                        object.__setattr__(self, pname + suffix, None)
                        continue
                    setattr(self, pname + suffix,
                            Parameter(uniform(shape, bound, **kw), name=pname + suffix))

    def _suffixes(self, layer):
        return [f"_l{layer}", f"_l{layer}_reverse"][:self.directions]

    def _initial(self, x, hx):
        """Per (layer, direction) initial states, each a tuple of (N, H) tensors."""
        raise NotImplementedError

    def construct(self, x, hx=None):
        """Run the sequence ``x`` ((L, N, in), or (N, L, in) with ``batch_first``);
        returns ``output`` (all top-layer states) and the final states.

        >>> out, h = GRU(3, 4)(eagerad.ones(5, 2, 3))
        >>> out.shape, h.shape
        ((5, 2, 4), (1, 2, 4))
        """
        if isinstance(x, packed.PackedSequence):
            return self._packed(x, hx)
        if x.ndim != 3 or x.shape[-1] != self.input_size:
            raise ValueError(f"{type(self).__name__}: input must be (L, N, {self.input_size}) "
                             f"(batch_first={self.batch_first}), got shape {x.shape}")
        if self.batch_first:
            x = x.swapaxes(0, 1)
        return self._layers(x, hx, None)

    def _packed(self, sequence, hx):
        """A ``PackedSequence`` in, one out: every sequence stops at its own length (the
        final states are those of its last step), in the caller's batch order."""
        x, lengths = packed.pad_packed_sequence(sequence)
        out, finals = self._layers(x, hx, lengths.numpy())
        repacked = packed.pack_padded_sequence(out, lengths, batch_first=self.batch_first,
                                               enforce_sorted=sequence.sorted_indices is None)
        return repacked, finals

    def _layers(self, x, hx, lengths):
        """Every layer and direction over ``x`` (L, N, in); ``lengths``: valid steps per
        sequence (None: all)."""
        states = self._initial(x, hx)
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d, suffix in enumerate(self._suffixes(layer)):
                p = [getattr(self, n + suffix) for n in ("weight_ih", "weight_hh", "bias_ih", "bias_hh")]
                seq, state = self._sequence(x, states[layer * self.directions + d], p, d == 1,
                                            lengths)
                outs.append(seq)
                finals.append(state)
            x = outs[0] if len(outs) == 1 else ops.concat(outs, -1)
            if self.training and self.dropout > 0 and layer < self.num_layers - 1:
                x = lf.dropout(x, self.dropout)
        out = x.swapaxes(0, 1) if self.batch_first else x
        return out, self._pack(finals)

    def _sequence(self, x, state, p, reverse, lengths=None):
        """One layer in one direction, step by step: (all states h (L, N, H), final state).
        With ``lengths``, a sequence keeps its state past its last step (and, reversed,
        starts from the initial state at that step)."""
        steps = range(x.shape[0]) if not reverse else range(x.shape[0] - 1, -1, -1)
        seq = [None] * x.shape[0]
        for t in steps:
            new = self._step(x[t], state, *p)
            if lengths is not None:
                running = stamp(Tensor((lengths > t)[:, None], device=x.device), x._face)
                new = tuple(ops.where(running, a, b) for a, b in zip(new, state))
            state = new
            seq[t] = state[0]
        return ops.stack(seq, 0), state

    @staticmethod
    def _fused_params(x, p, lengths):
        """The weights ``(w_ih, w_hh, b_ih, b_hh)`` (``b_hh`` zeros when the layer has no
        biases) when the layer runs as one fused scan op (float32/float64, a non-empty
        sequence, no per-sequence lengths), else None: the input projections of every
        step then are one matmul, the recurrence and its backward one backend call each."""
        if x.shape[0] == 0 or x.dtype.name not in ("float32", "float64") or lengths is not None:
            return None
        w_ih, w_hh, b_ih, b_hh = p
        if b_hh is None:
            b_hh = zeros(w_hh.shape[0], dtype=x.dtype, device=x.device)
        return w_ih, w_hh, b_ih, b_hh


class LSTM(_Recurrent):
    """Long short-term memory, PyTorch's ``LSTM(input_size, hidden_size, num_layers=1,
    bias=True, batch_first=False, dropout=0.0, bidirectional=False)`` (MindSpore's
    ``has_bias`` accepted); gates (input, forget, cell, output); returns
    ``output, (h_n, c_n)``.

    >>> out, (h, c) = LSTM(3, 4, batch_first=True)(eagerad.ones(2, 5, 3))
    >>> out.shape, h.shape, c.shape
    ((2, 5, 4), (1, 2, 4), (1, 2, 4))
    """
    _gates = 4

    def _initial(self, x, hx):
        n = self.num_layers * self.directions
        if hx is None:
            zero = zeros(x.shape[1], self.hidden_size, dtype=x.dtype, device=x.device)
            return [(zero, zero)] * n
        h0, c0 = hx
        return [(h0[i], c0[i]) for i in range(n)]

    def _sequence(self, x, state, p, reverse, lengths=None):
        """The layer as one fused ``lstm_scan`` op where ``_fused_params`` allows."""
        fused = self._fused_params(x, p, lengths)
        if fused is None:
            return super()._sequence(x, state, p, reverse, lengths)
        w_ih, w_hh, b_ih, b_hh = fused
        return recurrent.lstm_scan(lf.linear(x, w_ih, b_ih), *state, w_hh, b_hh, reverse=reverse)

    @staticmethod
    def _step(x, state, w_ih, w_hh, b_ih, b_hh):
        h, c = state
        z = lf.linear(x, w_ih, b_ih) + lf.linear(h, w_hh, b_hh)
        i, f, g, o = (z[:, k * h.shape[1]:(k + 1) * h.shape[1]] for k in range(4))
        c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
        return ops.sigmoid(o) * ops.tanh(c), c

    @staticmethod
    def _pack(finals):
        return ops.stack([s[0] for s in finals], 0), ops.stack([s[1] for s in finals], 0)


class GRU(_Recurrent):
    """Gated recurrent unit, PyTorch's ``GRU`` arguments (as ``LSTM``); gates (reset,
    update, new) with ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``; returns
    ``output, h_n``.

    >>> GRU(3, 4, num_layers=2, bidirectional=True)(eagerad.ones(5, 2, 3))[1].shape
    (4, 2, 4)
    """
    _gates = 3

    def _initial(self, x, hx):
        n = self.num_layers * self.directions
        if hx is None:
            return [(zeros(x.shape[1], self.hidden_size, dtype=x.dtype, device=x.device),)] * n
        return [(hx[i],) for i in range(n)]

    def _sequence(self, x, state, p, reverse, lengths=None):
        """The layer as one fused ``gru_scan`` op where ``_fused_params`` allows."""
        fused = self._fused_params(x, p, lengths)
        if fused is None:
            return super()._sequence(x, state, p, reverse, lengths)
        w_ih, w_hh, b_ih, b_hh = fused
        out, h = recurrent.gru_scan(lf.linear(x, w_ih, b_ih), state[0], w_hh, b_hh, reverse)
        return out, (h,)

    @staticmethod
    def _step(x, state, w_ih, w_hh, b_ih, b_hh):
        h, = state
        gi, gh = lf.linear(x, w_ih, b_ih), lf.linear(h, w_hh, b_hh)
        size = h.shape[1]
        r = ops.sigmoid(gi[:, :size] + gh[:, :size])
        z = ops.sigmoid(gi[:, size:2 * size] + gh[:, size:2 * size])
        n = ops.tanh(gi[:, 2 * size:] + r * gh[:, 2 * size:])
        return ((1 - z) * n + z * h,)

    @staticmethod
    def _pack(finals):
        return ops.stack([s[0] for s in finals], 0)
