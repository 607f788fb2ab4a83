"""``torch.utils.tensorboard``: ``from torch.utils.tensorboard import SummaryWriter``
raises an ImportError naming the missing ``tensorboard`` package (as PyTorch's does),
so ``try: ... except ImportError`` fallbacks in programs work.  eagerad has no event
file writer of its own, so with the package installed the ImportError says that.

>>> from eagerad.torch.utils.tensorboard import SummaryWriter
Traceback (most recent call last):
ImportError: torch.utils.tensorboard...
"""
import importlib.util


def __getattr__(name):
    if name not in ("SummaryWriter", "FileWriter"):
        raise AttributeError(f"module 'torch.utils.tensorboard' has no attribute {name!r}")
    if importlib.util.find_spec("tensorboard") is None:
        raise ImportError(f"torch.utils.tensorboard.{name} needs the 'tensorboard' package, "
                          "which is not installed (pip install tensorboard)")
    raise ImportError(f"torch.utils.tensorboard.{name}: eagerad has no tensorboard writer (the "
                      "'tensorboard' package is installed, but eagerad does not write its event "
                      "files); log with print or a CSV file instead")
