"""``DistributedDataParallel``: wrap a model so that each rank trains a replica on its own
shard of the batch while backward averages the gradients across ranks (PyTorch's
``torch.nn.parallel.DistributedDataParallel`` over MPI).

At construction the ranks check that their models have the same parameters and buffers
(names, shapes, dtypes) and take rank 0's values.  Each forward (with gradients enabled and
outside ``no_sync``) prepares the bucketed, overlapped all-reduce of the next backward
(``eagerad.distributed.reducer``); after ``loss.backward()`` every parameter's ``.grad``
is the mean over the ranks, so the optimizer steps stay identical on every rank.

``state_dict()`` has PyTorch's ``module.`` prefix; ``ddp.module.state_dict()`` is the
bare model's.

>>> net = DistributedDataParallel(eagerad.nn.Linear(2, 1))
>>> net(eagerad.ones(4, 2)).sum().backward()
>>> net.module.weight.grad.tolist()
[[4.0, 4.0]]
"""
import contextlib

from ..autograd.grad_mode import state as grad_state
from ..nn.cell import Cell
from . import process_group as pg
from .collectives import agree, broadcast, describe
from .reducer import Reducer


class DistributedDataParallel(Cell):
    """Data-parallel wrapper of ``module`` (see the module docstring).

    ``bucket_cap_mb`` sizes the gradient buckets; ``find_unused_parameters=True`` allows
    parameters that a forward does not use; ``broadcast_buffers`` re-sends rank 0's
    buffers (running statistics) and frozen parameters before each forward.  ``device_ids`` and
    ``output_device`` are accepted for PyTorch's signature (the module stays where it is).

    >>> ddp = DistributedDataParallel(eagerad.nn.Linear(3, 2))
    >>> type(ddp.module).__name__, [n for n, _ in ddp.named_parameters()]
    ('Linear', ['module.weight', 'module.bias'])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=True, process_group=None, bucket_cap_mb=25,
                 find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        self.__dict__["_auto_prefix"] = False    # the model's parameter names stay its own
        if not isinstance(module, Cell):
            raise TypeError(f"DistributedDataParallel: module must be an eagerad Module/Cell, "
                            f"got {type(module).__name__}")
        if not isinstance(bucket_cap_mb, (int, float)) or bucket_cap_mb <= 0:
            raise ValueError(f"DistributedDataParallel: bucket_cap_mb must be positive, got "
                             f"{bucket_cap_mb!r}")
        g = pg.group()
        self.module = module
        named = list(module.named_parameters())
        buffers = list(module.named_buffers()) if hasattr(module, "named_buffers") else []
        agree(g, "DistributedDataParallel",
              "; ".join(f"{n}: {describe(p)}" for n, p in named + buffers))
        for _, t in named + buffers:
            broadcast(t, src=0)
        trainable = [(n, p) for n, p in named if p.requires_grad]
        # state that no gradient keeps in step: rank 0's is sent before each forward
        self.__dict__["_frozen"] = [p for _, p in named if not p.requires_grad] + \
            [b for _, b in buffers]
        self.__dict__["reducer"] = Reducer([p for _, p in trainable], [n for n, _ in trainable],
                                           g, int(bucket_cap_mb * 2 ** 20), find_unused_parameters)
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.require_backward_grad_sync = True
        self.device_ids, self.output_device, self.dim = device_ids, output_device, dim

    def forward(self, *inputs, **kwargs):
        """Run the module; prepare the gradient all-reduce of the following backward.

        >>> DistributedDataParallel(eagerad.nn.Linear(2, 1, bias=False))(eagerad.ones(1, 2)).shape
        (1, 1)
        """
        if self.broadcast_buffers:
            for p in self._frozen:
                broadcast(p, src=0)
        out = self.module(*inputs, **kwargs)
        if self.require_backward_grad_sync and grad_state.enabled:
            self.reducer.prepare(out)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Within this block forwards do not prepare an all-reduce: backward accumulates
        the local gradients in ``.grad``; the first backward after the block averages the
        accumulated sum (gradient accumulation with one communication).

        >>> ddp = DistributedDataParallel(eagerad.nn.Linear(1, 1))
        >>> with ddp.no_sync():
        ...     ddp(eagerad.ones(1, 1)).sum().backward()
        >>> ddp(eagerad.ones(1, 1)).sum().backward(); ddp.module.bias.grad.tolist()
        [2.0]
        """
        previous = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = previous
