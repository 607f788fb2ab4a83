"""``mindspore.dataset``: eagerad's pipelines, whose iterators yield MindSpore tensors.

>>> import numpy as np, eagerad.mindspore as ms
>>> pipe = ms.dataset.NumpySlicesDataset({'x': np.arange(4.0)}, shuffle=False).batch(2)
>>> next(pipe.create_dict_iterator())['x']
Tensor(shape=[2], dtype=Float64, value= [ 0.00000000e+00,  1.00000000e+00])
"""
import sys

from ...dataset import Dataset, config, transforms, vision  # noqa: F401
from ...dataset import GeneratorDataset as _generator, NumpySlicesDataset as _slices
from .._face import MINDSPORE


def _speaking(source):
    def make(*args, **kwargs):
        pipe = source(*args, **kwargs)
        pipe._face = MINDSPORE
        return pipe
    make.__name__, make.__doc__, make.__wrapped__ = source.__name__, source.__doc__, source
    return make


NumpySlicesDataset = _speaking(_slices)
GeneratorDataset = _speaking(_generator)

# ``import mindspore.dataset.vision as CV`` and ``from mindspore.dataset.transforms import
# TypeCast`` name these as modules: the face's are the engine's own.
for _name, _module in (("vision", vision), ("transforms", transforms), ("config", config)):
    sys.modules.setdefault(f"{__name__}.{_name}", _module)
del _name, _module
