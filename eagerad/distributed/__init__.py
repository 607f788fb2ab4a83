"""Data-parallel training over MPI (``pip install 'eagerad[distributed]'``): the process
group, collectives on tensors, ``DistributedDataParallel``, ``DistributedSampler``,
MindSpore's communication/context/``DistributedGradReducer`` names, and a launcher
(``python -m eagerad.distributed.run --nproc 2 train.py``).  The faces re-export these
under their own paths (``eagerad.torch.distributed``, ``eagerad.mindspore.communication``).

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
