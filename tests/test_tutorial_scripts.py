"""Run the tutorial scripts that restate the official autodiff tutorials and read their checks.

Each script prints ``check <what>: max error <e> (tolerance <tol>) ok`` for every value it
compares with a closed form, finite differences or a loop (``tutorials/checks.py``).
Here every script runs in a fresh interpreter; it must exit 0, print at least the expected
number of checks, and every printed error must lie within its printed tolerance (read
back from the output, so a script that stopped printing or loosened nothing is caught).
"""
import os
import pathlib
import re
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
CHECK = re.compile(r"^check (.+): max error (\S+) \(tolerance (\S+)\) (ok|FAILED)$", re.M)

# script -> the number of checks it prints
SCRIPTS = {
    "torch_autograd_basics.py": 5,
    "torch_leaf_nonleaf.py": 5,
    "torch_polynomial_four_ways.py": 7,
    "torch_double_backward_function.py": 7,
    "torch_forward_ad.py": 5,
    "torch_numpy_extension.py": 4,
    "ms_autograd.py": 9,
    "ms_derivation.py": 13,
    "ms_jacobians_hessians_vmap.py": 9,
    "ms_per_sample_gradients.py": 7,
    "ms_hooks.py": 5,
    "torch_dynamic_net.py": 3,
    "torch_jacobians_hessians.py": 9,
    "ms_cell_hooks.py": 5,
}


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_tutorial_prints_passing_checks(script):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, str(ROOT / "tutorials" / script)], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    checks = CHECK.findall(done.stdout)
    assert len(checks) == SCRIPTS[script], done.stdout
    for label, err, tol, status in checks:
        assert status == "ok" and float(err) <= float(tol), f"{script}: {label}: {err} > {tol}"
