"""Data-parallel training over MPI (``pip install 'eagerad[distributed]'``).

Modules: ``process_group`` (``init_process_group``, ranks, the exception hooks that stop
the job when a rank fails), ``collectives`` (checked all_reduce/broadcast/all_gather/
reduce_scatter/barrier on tensors), ``work`` (waitable results with a watchdog, and the
thread that moves MPI along during computation), ``buckets`` and ``reducer`` (gradients
averaged in buckets during backward), ``ddp`` (``DistributedDataParallel``), ``sampler``
(``DistributedSampler``, ``shard_indices``), MindSpore's ``communication``,
``parallel_context``, ``grad_reducer`` and ``primitives``, and ``run``, the launcher
(``python -m eagerad.distributed.run --nproc 2 train.py``).  The faces re-export these
under their own paths (``eagerad.torch.distributed``, ``eagerad.torch.nn.parallel``,
``eagerad.torch.utils.data.distributed``, ``eagerad.mindspore.communication``,
``eagerad.mindspore.nn.DistributedGradReducer``, ``eagerad.mindspore.ops.AllReduce``...).

Importing this package does not import mpi4py; ``init_process_group`` does.

>>> from eagerad import distributed as dist
>>> dist.is_initialized()
False
"""
from .process_group import (destroy_process_group, get_backend, get_rank, get_world_size,
                            init_process_group, is_available, is_initialized)
from .collectives import (ReduceOp, all_gather, all_gather_into_tensor, all_reduce, barrier,
                          broadcast, reduce_scatter, reduce_scatter_tensor)
from .work import DistributedTimeout, Work
from .ddp import DistributedDataParallel
from .sampler import DistributedSampler, shard_indices
