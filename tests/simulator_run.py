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


def run_checks(namespace, marker):
    """Script mode of a checks file: run every ``check_*`` function of ``namespace`` (a
    module's globals) on this process's numba.cuda -- the simulator, or the real GPU when
    ``NUMBA_ENABLE_CUDASIM`` is unset -- and print one line ``<marker> <json verdict>``.
    Returns True when every check passed."""
    import time
    import traceback
    sys.setswitchinterval(1e-5)      # the simulator's barrier loop polls: switch often
    import eagerad
    verdict = {}
    for name in sorted(n for n in list(namespace) if n.startswith("check_")):
        eagerad.set_seed(0)
        start = time.perf_counter()
        try:
            namespace[name]()
            verdict[name] = "ok"
        except Exception:
            verdict[name] = traceback.format_exc()
        print(f"{name}: {time.perf_counter() - start:.1f} s "
              f"{'ok' if verdict[name] == 'ok' else 'FAILED'}", file=sys.stderr)
    print(f"{marker} " + json.dumps(verdict))
    return all(v == "ok" for v in verdict.values())


def checks_on_simulator(path, marker):
    """The pytest side: run checks file ``path`` as a script on the simulator and return its
    verdict (skipped without numba-cuda or when the simulator cannot be imported)."""
    if importlib.util.find_spec("numba_cuda") is None:
        pytest.skip("numba-cuda is not installed (pip install numba-cuda): no CUDA simulator")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, os.path.abspath(path)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    line = next((ln for ln in proc.stdout.splitlines() if ln.startswith(marker + " ")), None)
    if line is None:
        if "numba" in proc.stderr and "ImportError" in proc.stderr:
            pytest.skip(f"the CUDA simulator could not be imported:\n{proc.stderr[-2000:]}")
        pytest.fail(f"simulator run crashed (rc={proc.returncode}):\n{proc.stderr[-4000:]}")
    return json.loads(line[len(marker) + 1:])
