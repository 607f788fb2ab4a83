"""``torch.utils.data.dataloader``'s import path.

>>> from eagerad.torch.utils.data.dataloader import DataLoader, default_collate
>>> DataLoader([1, 2], batch_size=2).batch_size
2
"""
from ....data import DataLoader, default_collate  # noqa: F401
from ....loader_workers import WorkerInfo, get_worker_info  # noqa: F401
