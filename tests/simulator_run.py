"""Run a script on Numba's CUDA simulator, which must be switched on before numba is
imported, so in a subprocess (``NUMBA_ENABLE_CUDASIM=1``, this checkout and its tests first on
the path, so a script can import helpers of its test module).
The script prints one line ``<marker> <json>``; the test gets the JSON back."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def run_on_simulator(script, marker):
    """The value the script printed as JSON after ``marker`` (the test is skipped without
    numba-cuda and fails with the script's stderr when no such line came)."""
    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed: no CUDA simulator")
    path = os.pathsep.join([ROOT, os.path.join(ROOT, "tests"), os.environ.get("PYTHONPATH", "")])
    # EAGERAD_SIMULATOR_TESTS_ON_GPU=1 (benchmarks/device_check.sh) runs the same script on
    # the real GPU instead
    on_gpu = os.environ.get("EAGERAD_SIMULATOR_TESTS_ON_GPU") == "1"
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="0" if on_gpu else "1", PYTHONPATH=path)
    proc = subprocess.run([sys.executable, "-c", script], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker + " ")), None)
    assert line is not None, proc.stderr[-3000:]
    return json.loads(line[len(marker) + 1:])
