"""MindSpore's ``mindspore.communication`` over MPI: ``init``, ``get_rank``,
``get_group_size``, ``release`` (the same process group as the PyTorch spelling).

>>> init(); get_rank(), get_group_size()
(0, 1)
>>> release()
"""
from . import process_group as pg

GlobalComm = type("GlobalComm", (), {"WORLD_COMM_GROUP": "hccl_world_group",
                                     "BACKEND": "mpi", "INITED": False})
GlobalComm.__doc__ = "MindSpore's names of the world group and backend (the world group only)."
HCCL_WORLD_COMM_GROUP = NCCL_WORLD_COMM_GROUP = GlobalComm.WORLD_COMM_GROUP


def _world(group, what):
    if group not in (None, GlobalComm.WORLD_COMM_GROUP, "nccl_world_group"):
        raise ValueError(f"{what}: only the world group exists over MPI, got group={group!r}")


def init(backend_name=None):
    """Join the job (MindSpore's ``init``); ``backend_name`` ('hccl', 'nccl', 'mpi') is
    accepted and the collectives run over MPI.  Calling it again does nothing.

    >>> init("nccl"); get_group_size()
    1
    >>> release()
    """
    if backend_name not in (None, "hccl", "nccl", "mpi"):
        raise ValueError(f"init: backend_name must be 'hccl', 'nccl' or 'mpi', got {backend_name!r}")
    if not pg.is_initialized():
        pg.init_process_group(backend="mpi")
    GlobalComm.INITED = True


def get_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """This process's rank in the world group.

    >>> init(); get_rank()
    0
    >>> release()
    """
    _world(group, "get_rank")
    return pg.get_rank()


def get_group_size(group=GlobalComm.WORLD_COMM_GROUP):
    """The number of ranks in the world group.

    >>> init(); get_group_size()
    1
    >>> release()
    """
    _world(group, "get_group_size")
    return pg.get_world_size()


def get_local_rank(group=GlobalComm.WORLD_COMM_GROUP):
    """The rank among this machine's processes (from MPI's shared-memory split).

    >>> init(); get_local_rank()
    0
    >>> release()
    """
    _world(group, "get_local_rank")
    comm = pg.group()["comm"]
    local = comm.Split_type(pg.mpi().COMM_TYPE_SHARED)
    try:
        return local.Get_rank()
    finally:
        local.Free()


def release():
    """Leave the job's process group (MindSpore's ``release``).

    >>> init(); release(); pg.is_initialized()
    False
    """
    pg.destroy_process_group()
    GlobalComm.INITED = False
