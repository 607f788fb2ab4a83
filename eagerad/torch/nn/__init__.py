"""``torch.nn``: eagerad's layers with PyTorch's signatures, defaults and parameter names.

Every layer class here is a ``Module`` (``isinstance(m, torch.nn.Module)``), starts in
training mode, binds PyTorch's signature where the two frameworks' differ
(``Dropout(p)``, ``Conv2d(..., padding=0, bias=True)``, ``BatchNorm2d``'s ``weight``/
``bias``/``running_mean``/``running_var``) and stamps its parameters with PyTorch's face.

>>> import eagerad.torch as torch
>>> m = torch.nn.Dropout(0.2); m.p, isinstance(m, torch.nn.Module)
(0.2, True)
>>> [name for name, _ in torch.nn.BatchNorm2d(3).named_parameters()][:2]
['weight', 'bias']
"""
from ... import nn as _nn
from ...nn.cell import Cell as _Cell
from .._creation import Parameter
from .._face import TORCH
from . import functional, init, utils


class Module(_Cell):
    """``torch.nn.Module``: write ``forward``; starts in training mode; its parameters
    speak PyTorch.

    >>> import eagerad.torch as torch
    >>> class Twice(Module):
    ...     def forward(self, x):
    ...         return 2 * x
    >>> Twice()(torch.ones(2))
    tensor([2., 2.])
    """
    _face = TORCH
    _starts_training = True
    _raw_grad_output = False
    _signature = "torch"

    def __init__(self, *args, **kwargs):
        super().__init__()


def _face_class(core):
    """``core`` (an eagerad layer) as a PyTorch ``Module`` subclass of the same name."""
    doc = f"PyTorch's ``nn.{core.__name__}``: ``eagerad.nn.{core.__name__}`` with PyTorch's signature."
    return type(core.__name__, (core, Module), {"__module__": __name__, "__doc__": doc,
                                                "__qualname__": core.__name__})


_LAYERS = """Linear Identity Flatten Dropout Sequential ModuleList ReLU Sigmoid Tanh Softmax LogSoftmax
    CELU ELU GELU SELU Hardsigmoid Hardswish Hardtanh LeakyReLU LogSigmoid Mish ReLU6 SiLU Softplus
    Softsign Tanhshrink L1Loss MSELoss BCELoss BCEWithLogitsLoss CrossEntropyLoss HuberLoss
    KLDivLoss NLLLoss SmoothL1Loss GRU LSTM AdaptiveAvgPool2d AvgPool2d BatchNorm1d BatchNorm2d
    Conv1d Conv2d ConvTranspose2d Embedding GroupNorm LayerNorm MaxPool2d MultiheadAttention
    ModuleDict ParameterList ParameterDict RNN RNNCell LSTMCell GRUCell TransformerEncoderLayer
    TransformerDecoderLayer TransformerEncoder TransformerDecoder Transformer LazyLinear LazyConv1d
    LazyConv2d LazyConvTranspose2d Upsample Unflatten PixelShuffle PixelUnshuffle Bilinear
    PairwiseDistance Conv3d ConvTranspose1d ConvTranspose3d BatchNorm3d""".split()
for _name in _LAYERS:
    globals()[_name] = _face_class(getattr(_nn, _name))
del _name

from . import functional_layers as _functional_layers  # noqa: E402  (needs Module)
for _name in _functional_layers.LAYERS:
    globals()[_name] = getattr(_functional_layers, _name)
del _name

from . import modules, parallel  # noqa: E402  (after the layers they re-export)
from .parallel import DataParallel  # noqa: E402,F401

__all__ = (["Module", "Parameter", "functional", "init", "modules", "parallel", "utils",
            "DataParallel"] + _LAYERS + _functional_layers.LAYERS)
