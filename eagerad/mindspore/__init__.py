"""``import eagerad.mindspore as mindspore``: MindSpore 2.x's face over eagerad's engine.

Tensors made here speak MindSpore: they print as MindSpore does, and where MindSpore
and PyTorch read a name differently this face follows MindSpore:

==========================  ========================================  ====================

name                        MindSpore (this face)                     PyTorch (eagerad.torch)
==========================  ========================================  ====================

``nn.Dropout(0.8)``         keep probability ``keep_prob``            drop probability
``x.std()``, ``x.var()``    divide by n (``ddof=0``)                  unbiased
``ops.max(x)``              ``(value, index)``                        the value
``ops.flatten(x)``          ``start_dim=1``                           ``start_dim=0``
``nn.Conv2d(1, 4, 3)``      ``pad_mode='same'``, no bias              padding 0, with bias
``nn.BatchNorm2d``          gamma, beta, moving_mean, moving_variance  weight, bias, running_*
``nn.LeakyReLU()``          ``alpha=0.2``                             0.01
``nn.GELU()``               ``approximate=True`` (tanh)               the erf form
``nn.SmoothL1Loss()``       ``reduction='none'``                      'mean'
a new ``nn.Cell``           inference mode (``set_train()``)          training mode
``p.data``                  the parameter itself                      a tensor outside the graph
printing                    ``Tensor(shape=[2], dtype=Float32, ...)``  ``tensor([1., 2.])``
==========================  ========================================  ====================


More MindSpore-only rules (index dtypes, ``sort``/``median`` returns, gradients at kinks and
ties, ``mean``/``full`` dtypes) are tabled in ``eagerad.mindspore.ops._semantics``, and the
optimizers' update rules (``RMSProp``, ``AdamWeightDecay``, ``Adagrad``, ...) in
``eagerad.mindspore.nn._optimizers``.

>>> import eagerad.mindspore as ms
>>> ms.grad(ms.ops.sin)(ms.Tensor(0.0))
Tensor(shape=[], dtype=Float32, value= 1)
"""
from .. import dtype
from ..dtype import (bool_, float16, float32, float64, int8, int16, int32, int64, uint8)
from ..dtype import bool_ as bool  # noqa: A001
from ..context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401
from ..jit import jit, ms_function  # noqa: F401
from .. import context
from ..tensor import ParameterTuple, set_seed
from ..transforms import GradOperation, grad, value_and_grad  # noqa: F401
from ..functional import jvp, vjp  # noqa: F401
from ..functional import hessian, jacfwd, jacrev  # noqa: F401
from ..vectorize import vmap  # noqa: F401
from ..serialization import load_checkpoint as _load_checkpoint, load_param_into_net  # noqa: F401
from ..serialization import save_checkpoint as _save_checkpoint
from ..printing import set_printoptions  # noqa: F401
from ._face import MINDSPORE, Parameter, Tensor, stamped  # noqa: F401
from . import common, dataset, nn, ops, train  # noqa: E402
from . import _tensor_methods  # noqa: E402,F401  (registers MindSpore's Tensor methods)
from .train import Model  # noqa: E402,F401

float_, int_ = float32, int64
load_checkpoint = stamped(_load_checkpoint)


def save_checkpoint(save_obj, ckpt_file_name, *args, **kwargs):
    """MindSpore's ``save_checkpoint``: MindSpore's protobuf ``.ckpt`` format (MindSpore
    reads the file), the ``.ckpt`` suffix added when missing, written atomically.

    >>> import os, tempfile; path = os.path.join(tempfile.mkdtemp(), 'net')
    >>> save_checkpoint({'w': Tensor([1.0])}, path); sorted(load_checkpoint(path + '.ckpt'))
    ['w']
    """
    if not str(ckpt_file_name).endswith(".ckpt"):
        ckpt_file_name = f"{ckpt_file_name}.ckpt"
    _save_checkpoint(save_obj, ckpt_file_name, format="ckpt")


from . import communication  # noqa: E402,F401  (over MPI)
from ..distributed.parallel_context import (ParallelMode, get_auto_parallel_context,  # noqa: E402,F401
                                            reset_auto_parallel_context,
                                            set_auto_parallel_context)
