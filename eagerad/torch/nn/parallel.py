"""``torch.nn.parallel``: ``DataParallel`` (one process, one device: it runs the module
as is, as PyTorch does without several GPUs) and ``DistributedDataParallel`` (over MPI,
see ``eagerad.distributed.ddp``), both PyTorch ``Module``s.

>>> import eagerad.torch as torch
>>> net = torch.nn.parallel.DataParallel(torch.nn.Linear(2, 1))
>>> net(torch.ones(3, 2)).shape, next(iter(net.state_dict()))
(torch.Size([3, 1]), 'module.weight')
>>> issubclass(torch.nn.parallel.DistributedDataParallel, torch.nn.Module)
True
"""
from ...distributed.ddp import DistributedDataParallel as _DistributedDataParallel
from . import Module

DistributedDataParallel = type(
    "DistributedDataParallel", (_DistributedDataParallel, Module),
    {"__module__": __name__, "__qualname__": "DistributedDataParallel",
     "__doc__": "PyTorch's ``nn.parallel.DistributedDataParallel`` (see "
                "``eagerad.distributed.ddp``)."})


class DataParallel(Module):
    """PyTorch's ``DataParallel(module, device_ids=None, output_device=None, dim=0)``:
    calls ``module`` on the whole batch (eagerad has one device per process); the
    wrapped module is ``.module`` and its state-dict keys start with ``module.``.

    >>> import eagerad.torch as torch
    >>> DataParallel(torch.nn.Identity(), device_ids=[0]).module
    Identity<>
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0):
        super().__init__()
        if not isinstance(module, Module.__mro__[1]):
            raise TypeError(f"DataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        self.module, self.device_ids, self.output_device, self.dim = \
            module, device_ids, output_device, dim

    def forward(self, *inputs, **kwargs):
        """The wrapped module's output.

        >>> import eagerad.torch as torch
        >>> DataParallel(torch.nn.ReLU()).forward(torch.tensor([-1.0])).tolist()
        [0.0]
        """
        return self.module(*inputs, **kwargs)


def data_parallel(module, inputs, device_ids=None, output_device=None, dim=0, module_kwargs=None):
    """PyTorch's functional ``data_parallel``: ``module(*inputs)`` on this device.

    >>> import eagerad.torch as torch
    >>> data_parallel(torch.nn.ReLU(), torch.tensor([-2.0, 2.0])).tolist()
    [0.0, 2.0]
    """
    inputs = inputs if isinstance(inputs, tuple) else (inputs,)
    return module(*inputs, **(module_kwargs or {}))
