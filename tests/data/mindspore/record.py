"""Record every case of ms_cases.py under real MindSpore into answers.json.

    /work/msvenv/bin/python tests/data/mindspore/record.py [ID_PREFIX ...]

(MindSpore 2.x with numpy<2, in a venv of its own, outside the repository.)  Each case
is run in PyNative mode on the CPU; its output and the gradients of sum(output * W) are
stored with the MindSpore version.  A case MindSpore itself rejects is stored with its
error, and the replay skips it: such a case is a mistake in the table, not in eagerad.
"""
import json
import os
import sys
import traceback

import numpy as np
import mindspore as ms
from mindspore import nn, ops

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ms_cases import CASES  # noqa: E402
from ms_runner import CellBackend, run_case  # noqa: E402


class MindSporeBackend(CellBackend):
    """ms_runner.py's backend contract, for real MindSpore."""

    grad_function = staticmethod(ms.grad)

    def tensor(self, array):
        return ms.Tensor(np.asarray(array))

    def parameter(self, array, name):
        return ms.Parameter(ms.Tensor(np.asarray(array)), name=name)

    def dtype(self, name):
        return getattr(ms, name)

    def resolve(self, api):
        space, name = api.split(".", 1)
        module = {"ops": ops, "nn": nn, "Tensor": ms.Tensor}[space]
        return getattr(module, name, None)

    def is_tensor(self, obj):
        return isinstance(obj, ms.Tensor)

    def to_numpy(self, t):
        return t.asnumpy()



def main(prefixes):
    ms.set_context(mode=ms.PYNATIVE_MODE)
    ms.set_device("CPU")
    path = os.path.join(HERE, "answers.json")
    answers = {}
    if prefixes and os.path.exists(path):
        answers = json.load(open(path))["cases"]
    backend = MindSporeBackend()
    failures = 0
    for case in CASES:
        if prefixes and not any(case["id"].startswith(p) for p in prefixes):
            continue
        try:
            answers[case["id"]] = run_case(case, backend)
        except Exception as err:  # noqa: BLE001 -- a table mistake, kept with its message
            failures += 1
            message = f"{type(err).__name__}: {str(err).splitlines()[0] if str(err) else ''}"
            answers[case["id"]] = {"error": message[:300]}
            if os.environ.get("RECORD_TRACE"):
                traceback.print_exc()
            print(f"MindSpore rejects {case['id']}: {message[:200]}")
    known = {c["id"] for c in CASES}
    answers = {k: v for k, v in answers.items() if k in known}
    with open(path, "w") as f:
        json.dump({"mindspore": ms.__version__, "cases": answers}, f, separators=(",", ":"),
                  sort_keys=True)
    print(f"{len(answers)} cases recorded ({failures} rejected by MindSpore) "
          f"-> {os.path.getsize(path) / 1e6:.2f} MB")


if __name__ == "__main__":
    main(sys.argv[1:])
