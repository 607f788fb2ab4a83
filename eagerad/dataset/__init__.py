"""``mindspore.dataset`` for eagerad: data pipelines that feed training loops.

``NumpySlicesDataset`` and ``GeneratorDataset`` make datasets; ``map``, ``batch``,
``shuffle``, ``repeat``, ``project`` chain operations; ``create_tuple_iterator`` /
``create_dict_iterator`` (or plain iteration) give Tensors.  ``vision`` and
``transforms`` hold the common per-sample transforms, ``config.set_seed`` seeds the
pipeline's randomness.

>>> import numpy as np
>>> from eagerad import dataset as ds
>>> images = np.zeros((4, 2, 2, 3), np.uint8)
>>> pipe = ds.NumpySlicesDataset({'image': images, 'label': np.arange(4)}, shuffle=False)
>>> pipe = pipe.map([ds.vision.Rescale(1 / 255, 0), ds.vision.HWC2CHW()], 'image').batch(2)
>>> [(b['image'].shape, b['label'].tolist()) for b in pipe.create_dict_iterator()]
[((2, 3, 2, 2), [0, 1]), ((2, 3, 2, 2), [2, 3])]
"""
from . import config, transforms, vision
from .engine import Dataset, GeneratorDataset, NumpySlicesDataset

__all__ = ["Dataset", "GeneratorDataset", "NumpySlicesDataset", "config", "transforms", "vision"]
