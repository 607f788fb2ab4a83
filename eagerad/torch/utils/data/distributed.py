"""``torch.utils.data.distributed``: ``DistributedSampler`` (each rank's share of a data set,
padded to equal lengths; ``set_epoch`` reshuffles).

>>> from eagerad.torch.utils.data.distributed import DistributedSampler
>>> list(DistributedSampler(range(5), num_replicas=2, rank=0, shuffle=False))
[0, 2, 4]
"""
from ....distributed.sampler import DistributedSampler  # noqa: F401
