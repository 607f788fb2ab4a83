"""PyTorch's ``torch.utils`` paths: ``benchmark.Timer``, ``checkpoint.checkpoint`` and
``data.DataLoader`` (the last two are eagerad's own ``checkpoint`` and ``data``).

>>> from eagerad.utils.data import DataLoader
>>> DataLoader.__module__
'eagerad.data'
"""
import importlib
import sys

from .. import data
from . import benchmark

# the module, not the function that ``eagerad.checkpoint`` names
checkpoint = sys.modules[__name__ + ".checkpoint"] = importlib.import_module("eagerad.checkpoint")
sys.modules[__name__ + ".data"] = data
