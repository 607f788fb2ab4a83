"""``torch.nn.parallel``: ``DistributedDataParallel`` (over MPI, see
``eagerad.distributed.ddp``) as a PyTorch ``Module``.

>>> import eagerad.torch as torch
>>> from eagerad.torch.nn.parallel import DistributedDataParallel
>>> issubclass(DistributedDataParallel, torch.nn.Module)
True
"""
from ...distributed.ddp import DistributedDataParallel as _DistributedDataParallel
from . import Module as _Module

DistributedDataParallel = type(
    "DistributedDataParallel", (_DistributedDataParallel, _Module),
    {"__module__": __name__, "__qualname__": "DistributedDataParallel",
     "__doc__": "PyTorch's ``nn.parallel.DistributedDataParallel`` (see "
                "``eagerad.distributed.ddp``)."})
