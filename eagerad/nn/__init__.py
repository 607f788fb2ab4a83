"""Neural-network building blocks, in MindSpore and PyTorch spellings (``eagerad.nn``).

>>> import eagerad
>>> from eagerad import nn
>>> net = nn.Dense(3, 1)
>>> loss = nn.MSELoss()(net(eagerad.ones(4, 3)), eagerad.zeros(4, 1))
>>> loss.shape
()
"""
from . import init
from .cell import Cell, Module
from .parameter import Parameter
from . import modules, parameter
from .layers import (CellList, Dense, Dropout, Flatten, Identity, Linear, LogSoftmax, ModuleList,
                     ReLU, Sequential, SequentialCell, Sigmoid, Softmax, Tanh, get_activation)
from .loss import L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits
from .losses_extra import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, KLDivLoss,
                           NLLLoss, SmoothL1Loss)
from .activation import (CELU, ELU, GELU, SELU, HSigmoid, HSwish, Hardsigmoid, Hardswish,
                         Hardtanh, LeakyReLU, LogSigmoid, Mish, ReLU6, SeLU, SiLU, Softplus,
                         Softsign, Tanhshrink)
from .activation import ACTIVATIONS as _MORE_ACTIVATIONS
from .layers import ACTIVATIONS as _ACTIVATIONS
from .conv_layers import (GRU, LSTM, AdaptiveAvgPool2d, AvgPool2d, BatchNorm1d, BatchNorm2d, BatchNorm3d,
                          Conv1d, Conv2d, Conv2dTranspose, Conv3d, ConvTranspose1d, ConvTranspose2d,
                          ConvTranspose3d, Embedding, GroupNorm,
                          LayerNorm, MaxPool2d, MultiheadAttention)
from .recurrent_cells import RNN, GRUCell, LSTMCell, RNNCell
from .transformer import (Transformer, TransformerDecoder, TransformerDecoderLayer,
                          TransformerEncoder, TransformerEncoderLayer)
from .lazy import LazyConv1d, LazyConv2d, LazyConvTranspose2d, LazyLinear
from .resampling import Bilinear, PixelShuffle, PixelUnshuffle, Unflatten, Upsample
from . import functional
from .containers import ModuleDict, ParameterDict, ParameterList
from .optim import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Momentum, NAdam, Optimizer,
                    RMSprop)
from .lbfgs import LBFGS
from . import lr_scheduler, utils
from .lr_scheduler import (CosineDecayLR, ExponentialDecayLR, InverseDecayLR, LearningRateSchedule,
                           NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR, cosine_decay_lr,
                           exponential_decay_lr, inverse_decay_lr, natural_exp_decay_lr,
                           piecewise_constant_lr, polynomial_decay_lr, warmup_lr)
from .wrappers import (TrainOneStepCell, TrainOneStepWithLossScaleCell, WithLossCell,
                       loss_and_grads)

_ACTIVATIONS.update(_MORE_ACTIVATIONS)    # get_activation("gelu") and friends
from .losses_extra import PairwiseDistance  # noqa: E402,F401  (issue 20)
