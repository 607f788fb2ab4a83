"""Doctest set-up: every docstring example sees ``eagerad`` and ``np`` and starts from seed 0.

pytest reads this file only when it collects the package's docstrings (setup.cfg adds
``--doctest-modules``); importing eagerad never imports it.
"""
import numpy as np
import pytest

import eagerad

# The CUDA backend's examples need a GPU or the numba-cuda simulator: tests/test_cuda_sim.py covers it.
collect_ignore = ["backend/cuda"]


@pytest.fixture(autouse=True)
def _doctest_namespace(doctest_namespace):
    doctest_namespace["eagerad"] = eagerad
    doctest_namespace["np"] = np
    eagerad.set_seed(0)
    np.random.seed(0)
