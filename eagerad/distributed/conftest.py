"""Doctest set-up for eagerad.distributed: without mpi4py (the ``[distributed]`` extra is
not installed) only the modules that need no MPI are collected."""
import importlib.util

NEEDS_MPI = ["buckets.py", "collectives.py", "communication.py", "ddp.py", "grad_reducer.py",
             "process_group.py", "reducer.py", "run.py", "__init__.py"]

collect_ignore = [] if importlib.util.find_spec("mpi4py") else NEEDS_MPI
