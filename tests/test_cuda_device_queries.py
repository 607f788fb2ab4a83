"""``torch.cuda.current_device``, ``set_device``, ``get_device_name``,
``get_device_capability``, ``get_device_properties`` and ``is_bf16_supported`` (missing: device-handling code stopped at the names).  Without a
GPU they raise a RuntimeError that says why; under Numba's CUDA simulator they answer for
its one device, and a device eagerad does not use is refused naming the way to it."""
import json
import os
import subprocess
import sys

import pytest

import eagerad.torch as torch


@pytest.mark.skipif(torch.cuda.is_available(), reason="checks the answers without a GPU")
@pytest.mark.parametrize("name", ["current_device", "get_device_name", "get_device_capability",
                                  "get_device_properties"])
def test_without_a_gpu_the_queries_say_why(name):
    with pytest.raises(RuntimeError, match="no CUDA device: "):
        getattr(torch.cuda, name)()


def test_bfloat16_is_not_offered():
    assert torch.cuda.is_bf16_supported() is False


SCRIPT = """
import json, eagerad.torch as torch
out = {"current": torch.cuda.current_device(), "name": torch.cuda.get_device_name(),
       "capability": list(torch.cuda.get_device_capability()),
       "set": [torch.cuda.set_device(0), torch.cuda.set_device("cuda:0")],
       "properties": vars(torch.cuda.get_device_properties(0))}
for bad in (1, "gpu"):
    try:
        torch.cuda.set_device(bad)
    except ValueError as err:
        out[str(bad)] = str(err)
print(json.dumps(out))
"""


def test_under_the_simulator_they_answer_for_device_0():
    pytest.importorskip("numba.cuda")
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1")
    done = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True,
                          cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if done.returncode and "numba-cuda" in done.stderr:
        pytest.skip("numba-cuda's simulator is not importable here")
    assert done.returncode == 0, done.stderr[-2000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["current"] == 0 and out["set"] == [None, None]
    assert isinstance(out["name"], str) and len(out["capability"]) == 2
    assert out["properties"]["name"] == out["name"]
    assert [out["properties"]["major"], out["properties"]["minor"]] == out["capability"]
    assert out["1"] == "CUDA device 1 does not exist (1 found)"
    assert out["gpu"] == "expected a CUDA device (an int, 'cuda' or 'cuda:N'), got 'gpu'"
