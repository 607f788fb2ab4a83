"""Doctests of ``torch.distributed`` need mpi4py (the ``[distributed]`` extra)."""
from eagerad.distributed.conftest import MPI_MISSING

collect_ignore = ["__init__.py"] if MPI_MISSING else []
