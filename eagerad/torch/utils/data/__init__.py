"""``torch.utils.data``: datasets, samplers and the DataLoader.

>>> import eagerad.torch as torch
>>> ds = torch.utils.data.TensorDataset(torch.arange(4.0))
>>> [b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=2)]
[[0.0, 1.0], [2.0, 3.0]]
"""
from ....data import Dataset, IterableDataset, TensorDataset  # noqa: F401
from ....dataset_ops import ChainDataset, ConcatDataset, Subset, random_split  # noqa: F401
from ....loader_workers import WorkerInfo, get_worker_info  # noqa: F401
from ....samplers import (BatchSampler, RandomSampler, Sampler, SequentialSampler,  # noqa: F401
                          SubsetRandomSampler, WeightedRandomSampler)
from .dataloader import DataLoader, default_collate  # noqa: F401
from . import dataloader, dataset, sampler  # noqa: F401
from . import distributed  # noqa: E402,F401
from .distributed import DistributedSampler  # noqa: E402,F401
