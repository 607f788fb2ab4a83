"""``torch.utils.data``: datasets and the DataLoader.

>>> import eagerad.torch as torch
>>> ds = torch.utils.data.TensorDataset(torch.arange(4.0))
>>> [b[0].tolist() for b in torch.utils.data.DataLoader(ds, batch_size=2)]
[[0.0, 1.0], [2.0, 3.0]]
"""
from ....data import DataLoader, Dataset, TensorDataset, default_collate  # noqa: F401
