"""``mindspore.communication`` over MPI (``pip install 'eagerad[distributed]'``):
``init``, ``get_rank``, ``get_group_size``, ``get_local_rank``, ``release``.  Start the
ranks with ``python -m eagerad.distributed.run --nproc N script.py`` (or ``mpiexec``).

>>> from eagerad.mindspore.communication import init, get_rank, get_group_size, release
>>> init(); get_rank(), get_group_size()
(0, 1)
>>> release()
"""
from ...distributed.communication import (GlobalComm, HCCL_WORLD_COMM_GROUP,  # noqa: F401
                                          NCCL_WORLD_COMM_GROUP, get_group_size,
                                          get_local_rank, get_rank, init, release)
from . import management  # noqa: F401,E402
