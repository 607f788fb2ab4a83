"""``torch.utils.data.sampler``'s import path.

>>> from eagerad.torch.utils.data.sampler import SequentialSampler
>>> list(SequentialSampler('ab'))
[0, 1]
"""
from ....samplers import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                          SubsetRandomSampler, WeightedRandomSampler)
