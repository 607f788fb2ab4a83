"""``mindspore.nn``: eagerad's layers with MindSpore's signatures, defaults, parameter
names and modes.

Every cell class here is a ``Cell``, starts in inference mode (``set_train()``), binds
MindSpore's signature where the frameworks' differ (``Dropout(keep_prob)``,
``Conv2d(..., pad_mode='same', has_bias=False)``, ``BatchNorm2d``'s ``gamma``/``beta``/
``moving_mean``/``moving_variance``) and stamps its parameters with MindSpore's face.

>>> import eagerad.mindspore as ms
>>> [p.name for p in ms.nn.BatchNorm2d(3).get_parameters()]
['moving_mean', 'moving_variance', 'gamma', 'beta']
>>> ms.nn.Dropout(0.8).p
0.19999999999999996
"""
from ... import nn as _nn
from ...nn.cell import Cell as _Cell
from .._face import MINDSPORE, Parameter  # noqa: F401


class Cell(_Cell):
    """``mindspore.nn.Cell``: write ``construct``; starts in inference mode.

    >>> import eagerad.mindspore as ms
    >>> class Twice(Cell):
    ...     def construct(self, x):
    ...         return 2 * x
    >>> Twice()(ms.Tensor([1.0])), Twice().training
    (Tensor(shape=[1], dtype=Float32, value= [ 2.00000000e+00]), False)
    """
    _face = MINDSPORE
    _starts_training = False
    _raw_grad_output = True
    _signature = "mindspore"

    def __repr__(self):
        """MindSpore 2.x's layout: ``Name(settings)``, or with sub-cells ``Name(`` then the
        settings and ``(name): child`` lines indented, then ``)``.

        >>> SequentialCell(Dense(2, 3), ReLU())
        SequentialCell(
          (0): Dense(input_channels=2, output_channels=3, has_bias=True)
          (1): ReLU()
        )
        """
        return _layout(self)


def _layout(cell):
    """``repr`` of ``cell`` and its sub-cells (eagerad's own included) in MindSpore's layout."""
    extra = cell.extend_repr()
    children = [f"({name}): {_layout(child)}" for name, child in cell.name_cells().items()]
    if not children:
        return f"{type(cell).__name__}({extra})"
    lines = ([extra] if extra else []) + children
    return f"{type(cell).__name__}(\n  " + "\n".join(lines).replace("\n", "\n  ") + "\n)"


def _face_class(core):
    """``core`` (an eagerad cell) as a MindSpore ``Cell`` subclass of the same name."""
    doc = f"MindSpore's ``nn.{core.__name__}``: ``eagerad.nn.{core.__name__}`` with MindSpore's " \
          "signature and defaults."
    return type(core.__name__, (core, Cell), {"__module__": __name__, "__qualname__": core.__name__,
                                              "__doc__": doc})


_CELLS = """Dense Identity Flatten Dropout SequentialCell CellList ReLU Sigmoid Tanh Softmax LogSoftmax
    CELU ELU SELU SeLU HSigmoid HSwish Hardtanh LogSigmoid Mish ReLU6 SiLU Softplus Softsign
    Tanhshrink L1Loss MSELoss BCELoss BCEWithLogitsLoss CrossEntropyLoss HuberLoss KLDivLoss
    NLLLoss SoftmaxCrossEntropyWithLogits LossBase GRU LSTM AdaptiveAvgPool2d AvgPool2d
    BatchNorm1d BatchNorm2d Conv1d Conv2d Conv2dTranspose Embedding GroupNorm LayerNorm
    MaxPool2d WithLossCell TrainOneStepWithLossScaleCell LeakyReLU GELU
    SmoothL1Loss MultiheadAttention""".split()
for _name in _CELLS:
    globals()[_name] = _face_class(getattr(_nn, _name))
del _name

from ...nn import (SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, Momentum, NAdam,  # noqa: E402
                   Optimizer, RMSprop, CosineDecayLR, ExponentialDecayLR, InverseDecayLR,
                   LearningRateSchedule, NaturalExpDecayLR, PolynomialDecayLR, WarmUpLR,
                   cosine_decay_lr, exponential_decay_lr, inverse_decay_lr, natural_exp_decay_lr,
                   piecewise_constant_lr, polynomial_decay_lr, warmup_lr, get_activation)

from ._cells import (AdaptiveMaxPool2d, AvgPool1d, BatchNorm1d, BatchNorm2d,  # noqa: E402,F401
                     BiDense, ClipByNorm, ConstantPad2d, Conv1d, CosineEmbeddingLoss, DiceLoss, Dropout2d,
                     Embedding, FocalLoss, GaussianNLLLoss, GLU, GroupNorm, GRU, LSTM, Hardtanh, HShrink, KLDivLoss,
                     MarginRankingLoss, MaxPool1d, MultiLabelSoftMarginLoss, MultiMarginLoss, Norm,
                     OneHot, PixelShuffle, PoissonNLLLoss, PReLU, ReflectionPad2d, GRUCell, LSTMCell, RNN,
                     RNNCell,
                     SoftmaxCrossEntropyWithLogits, Softmin, SoftShrink, Threshold, Tril, Triu,
                     Upsample, ZeroPad2d)
from ._optimizers import (ASGD, SGD, Adam, AdaMax, Adagrad, AdamWeightDecay,  # noqa: E402,F401
                          Momentum, ProximalAdagrad, RMSProp, Rprop)
from ...distributed.grad_reducer import DistributedGradReducer as _GradReducer  # noqa: E402
DistributedGradReducer = _face_class(_GradReducer)


class TrainOneStepCell(_face_class(_nn.TrainOneStepCell)):
    """MindSpore's ``nn.TrainOneStepCell``: in data-parallel training (``set_auto_parallel_
    context(parallel_mode=DATA_PARALLEL)``) the gradients pass its grad reducer, averaged
    across ranks before the update."""

    def reduce_gradients(self, grads):
        from ...distributed.grad_reducer import grad_reducer_for
        reducer = self.__dict__.get("_grad_reducer")
        if reducer is None:
            reducer = self.__dict__["_grad_reducer"] = grad_reducer_for(self.weights)
        return reducer(grads)

from ...train import MAE, MSE, Accuracy, Loss, Metric  # noqa: E402,F401  (MindSpore keeps nn.Accuracy)
