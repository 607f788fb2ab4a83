"""``torch.serialization`` / ``torch.save`` / ``torch.load``: eagerad's safe format (no
pickle unless ``weights_only=False``), written atomically; loaded tensors speak PyTorch.

>>> import io, eagerad.torch as torch
>>> buf = io.BytesIO(); torch.save({"w": torch.ones(2)}, buf); _ = buf.seek(0)
>>> torch.load(buf)
{'w': tensor([1., 1.])}
"""
from ..serialization import save
from ..serialization import load as _load
from ..face import stamp
from ._face import TORCH


def load(f, map_location=None, pickle_module=None, *, weights_only=True, mmap=None,
         **pickle_load_args):
    """``torch.load``: what ``save`` wrote; tensors inside come back in PyTorch's face."""
    return stamp(_load(f, map_location, pickle_module, weights_only=weights_only, mmap=mmap,
                       **pickle_load_args), TORCH)
