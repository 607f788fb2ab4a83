"""``torch.utils.data.dataset``'s import path.

>>> from eagerad.torch.utils.data.dataset import Subset
>>> Subset('abc', [2])[0]
'c'
"""
from ....data import Dataset, IterableDataset, TensorDataset  # noqa: F401
from ....dataset_ops import ChainDataset, ConcatDataset, Subset, random_split  # noqa: F401
