"""Doctest set-up for eagerad.distributed.

Without mpi4py (the ``[distributed]`` extra is not installed) only the modules that need
no MPI are collected.  The examples of the modules below run inside a process group of
one (this process), set up here and left afterwards, with the group's module as ``pg``.
"""
import pytest

NEEDS_MPI = ["buckets.py", "collectives.py", "communication.py", "ddp.py", "grad_reducer.py",
             "primitives.py", "process_group.py", "reducer.py", "run.py", "__init__.py"]
IN_A_GROUP = ("collectives", "buckets", "reducer", "ddp", "primitives")

try:
    import mpi4py      # noqa: F401  (the package only: MPI is initialised on first use)
    MPI_MISSING = False
except ImportError:
    MPI_MISSING = True
collect_ignore = NEEDS_MPI if MPI_MISSING else []


@pytest.fixture(autouse=True)
def _process_group(request, doctest_namespace):
    name = request.node.name
    if not any(name.startswith(f"eagerad.distributed.{m}") for m in IN_A_GROUP):
        yield
        return
    from eagerad.distributed import process_group as pg
    doctest_namespace["pg"] = pg
    pg.init_process_group()
    try:
        yield
    finally:
        pg.destroy_process_group()
