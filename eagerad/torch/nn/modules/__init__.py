"""``torch.nn.modules`` and its submodules (``from torch.nn.modules.linear import
Linear``, ``torch.nn.modules.module.Module``, ...): PyTorch's import paths for the
layers of ``torch.nn``.  Each submodule is made here from the table below.

>>> from eagerad.torch.nn.modules.rnn import LSTMCell
>>> import eagerad.torch as torch
>>> LSTMCell is torch.nn.LSTMCell
True
"""
import sys
import types

from ... import nn as _nn

_SUBMODULES = {
    "module": "Module",
    "linear": "Linear Identity Bilinear LazyLinear",
    "conv": "Conv1d Conv2d ConvTranspose2d LazyConv1d LazyConv2d LazyConvTranspose2d",
    "loss": "L1Loss MSELoss BCELoss BCEWithLogitsLoss CrossEntropyLoss HuberLoss KLDivLoss "
            "NLLLoss SmoothL1Loss",
    "activation": "ReLU Sigmoid Tanh Softmax LogSoftmax CELU ELU GELU SELU Hardsigmoid Hardswish "
                  "Hardtanh LeakyReLU LogSigmoid Mish ReLU6 SiLU Softplus Softsign Tanhshrink "
                  "MultiheadAttention",
    "container": "Sequential ModuleList ModuleDict ParameterList ParameterDict",
    "batchnorm": "BatchNorm1d BatchNorm2d",
    "normalization": "LayerNorm GroupNorm",
    "dropout": "Dropout",
    "rnn": "RNN LSTM GRU RNNCell LSTMCell GRUCell",
    "transformer": "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer "
                   "TransformerDecoderLayer",
    "pooling": "MaxPool2d AvgPool2d AdaptiveAvgPool2d",
    "sparse": "Embedding",
    "flatten": "Flatten Unflatten",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "upsampling": "Upsample",
}

__all__ = []
for _sub, _names in _SUBMODULES.items():
    _module = types.ModuleType(f"{__name__}.{_sub}", f"``torch.nn.modules.{_sub}``'s import path.")
    _module.__all__ = _names.split()
    for _name in _module.__all__:
        setattr(_module, _name, getattr(_nn, _name))
        globals()[_name] = getattr(_nn, _name)
    sys.modules[_module.__name__] = _module
    globals()[_sub] = _module
    __all__ += _module.__all__
del _sub, _names, _module, _name
