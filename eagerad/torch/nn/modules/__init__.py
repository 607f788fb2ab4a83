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
    "conv": "Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d LazyConv1d "
            "LazyConv2d LazyConvTranspose2d",
    "loss": "L1Loss MSELoss BCELoss BCEWithLogitsLoss CrossEntropyLoss HuberLoss KLDivLoss "
            "NLLLoss SmoothL1Loss CosineEmbeddingLoss GaussianNLLLoss HingeEmbeddingLoss "
            "MarginRankingLoss MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss "
            "PoissonNLLLoss SoftMarginLoss TripletMarginLoss TripletMarginWithDistanceLoss CTCLoss",
    "activation": "ReLU Sigmoid Tanh Softmax LogSoftmax CELU ELU GELU SELU Hardsigmoid Hardswish "
                  "Hardtanh LeakyReLU LogSigmoid Mish ReLU6 SiLU Softplus Softsign Tanhshrink "
                  "MultiheadAttention GLU Threshold Softmin Softmax2d Hardshrink Softshrink PReLU RReLU",
    "container": "Sequential ModuleList ModuleDict ParameterList ParameterDict",
    "batchnorm": "BatchNorm1d BatchNorm2d BatchNorm3d",
    "normalization": "LayerNorm GroupNorm LocalResponseNorm RMSNorm",
    "instancenorm": "InstanceNorm1d InstanceNorm2d InstanceNorm3d",
    "dropout": "Dropout Dropout1d Dropout2d Dropout3d AlphaDropout FeatureAlphaDropout",
    "rnn": "RNN LSTM GRU RNNCell LSTMCell GRUCell",
    "transformer": "Transformer TransformerEncoder TransformerDecoder TransformerEncoderLayer "
                   "TransformerDecoderLayer",
    "pooling": "MaxPool1d MaxPool2d MaxPool3d AvgPool1d AvgPool2d AvgPool3d AdaptiveAvgPool1d "
               "AdaptiveAvgPool2d AdaptiveAvgPool3d AdaptiveMaxPool1d AdaptiveMaxPool2d "
               "AdaptiveMaxPool3d FractionalMaxPool2d FractionalMaxPool3d LPPool1d LPPool2d LPPool3d "
               "MaxUnpool1d MaxUnpool2d "
               "MaxUnpool3d",
    "padding": "ZeroPad1d ZeroPad2d ZeroPad3d ConstantPad1d ConstantPad2d ConstantPad3d "
               "ReflectionPad1d ReflectionPad2d ReflectionPad3d ReplicationPad1d ReplicationPad2d "
               "ReplicationPad3d CircularPad1d CircularPad2d CircularPad3d",
    "distance": "CosineSimilarity PairwiseDistance",
    "fold": "Fold Unfold",
    "channelshuffle": "ChannelShuffle",
    "sparse": "Embedding EmbeddingBag",
    "flatten": "Flatten Unflatten",
    "pixelshuffle": "PixelShuffle PixelUnshuffle",
    "upsampling": "Upsample UpsamplingNearest2d UpsamplingBilinear2d",
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
