"""PyTorch's ``torch.utils`` paths: ``benchmark.Timer``, ``checkpoint.checkpoint`` and
``data.DataLoader`` (the last two are eagerad's own ``checkpoint`` and ``data``).

>>> from eagerad.utils.data import DataLoader
>>> DataLoader.__module__
'eagerad.data'
"""
import sys

from .. import checkpoint as _, data  # noqa: F401  (imports the module eagerad.checkpoint)
from . import benchmark

checkpoint = sys.modules[__name__ + ".checkpoint"] = sys.modules["eagerad.checkpoint"]
sys.modules[__name__ + ".data"] = data
