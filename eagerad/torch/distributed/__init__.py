"""``torch.distributed`` over MPI (``pip install 'eagerad[distributed]'``): the process
group and the collectives, with ``async_op=True`` returning a waitable ``Work``.  Start the
ranks with ``python -m eagerad.distributed.run --nproc N script.py`` (or ``mpiexec``).

>>> import eagerad.torch as torch
>>> import eagerad.torch.distributed as dist
>>> dist.init_process_group(backend="mpi"); dist.get_rank(), dist.get_world_size()
(0, 1)
>>> t = torch.tensor([1.0, 2.0]); dist.all_reduce(t, op=dist.ReduceOp.SUM); t
tensor([1., 2.])
>>> dist.destroy_process_group()
"""
from ...distributed import (DistributedTimeout, ReduceOp, Work, all_gather,  # noqa: F401
                            all_gather_into_tensor, all_reduce, barrier, broadcast,
                            destroy_process_group, get_backend, get_rank, get_world_size,
                            init_process_group, is_available, is_initialized, reduce_scatter,
                            reduce_scatter_tensor)

is_mpi_available = is_available
