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
from .layers import (CellList, Dense, Dropout, Flatten, Identity, Linear, LogSoftmax, ModuleList,
                     ReLU, Sequential, SequentialCell, Sigmoid, Softmax, Tanh, get_activation)
from .loss import CrossEntropyLoss, L1Loss, LossBase, MSELoss, SoftmaxCrossEntropyWithLogits
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
