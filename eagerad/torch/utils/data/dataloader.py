"""``torch.utils.data.dataloader``'s import path; its batches speak PyTorch.

>>> from eagerad.torch.utils.data.dataloader import DataLoader, default_collate
>>> DataLoader([1, 2], batch_size=2).batch_size
2
>>> print(next(iter(DataLoader([1, 2, 3], batch_size=3))))
tensor([1, 2, 3])
"""
from ....data import DataLoader as _DataLoader, default_collate as _default_collate
from ....face import speaking
from ....loader_workers import WorkerInfo, get_worker_info  # noqa: F401
from ..._face import TORCH

default_collate = speaking(_default_collate, TORCH)


class DataLoader(_DataLoader):
    """``torch.utils.data.DataLoader`` (see ``eagerad.data.DataLoader``): its batches
    speak PyTorch.

    >>> [b.tolist() for b in DataLoader(range(5), batch_size=2, drop_last=True)]
    [[0, 1], [2, 3]]
    """
    _face = TORCH
