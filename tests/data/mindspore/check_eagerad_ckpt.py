"""Does real MindSpore read what eagerad writes?  (run with /work/msvenv/bin/python)

    /work/msvenv/bin/python tests/data/mindspore/check_eagerad_ckpt.py

Loads eagerad's ckpt writer straight from its file (eagerad/ckpt_format.py needs only
numpy), writes the fixed weights of ms_ckpt_nets.py with it, then has MindSpore's own
``load_checkpoint`` + ``load_param_into_net`` read them into the equivalent Cell and
compares every value.  The verdict, with the sha256 of the bytes checked, goes to
eagerad_ckpt_verdict.json; tests/test_mindspore_ckpt.py asserts that eagerad still writes
those very bytes and that the verdict is a pass.
"""
import hashlib
import importlib.util
import json
import os
import sys
import tempfile

import numpy as np
import mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
sys.path.insert(0, HERE)
from ms_ckpt_nets import mixed_values, net_weights  # noqa: E402
from ms_ckpt_nets import make_net  # noqa: E402


def eagerad_writer():
    spec = importlib.util.spec_from_file_location("ckpt_format", os.path.join(ROOT, "eagerad", "ckpt_format.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    fmt = eagerad_writer()
    verdict = {"mindspore": ms.__version__, "files": {}}
    cases = {"net_float32": net_weights(np.float32), "mixed": mixed_values()}
    for label, arrays in cases.items():
        data = fmt.ckpt_bytes(arrays)
        path = os.path.join(tempfile.mkdtemp(), f"{label}.ckpt")
        with open(path, "wb") as f:
            f.write(data)
        loaded = ms.load_checkpoint(path)
        problems = []
        for name, want in arrays.items():
            got = loaded[name].asnumpy() if name in loaded else None
            if got is None or got.dtype != want.dtype or got.shape != want.shape or not np.array_equal(got, want):
                problems.append(f"{name}: got {None if got is None else (got.dtype, got.shape)}")
        if label.startswith("net"):
            net = make_net(ms.nn)
            not_loaded, _ = ms.load_param_into_net(net, loaded)
            if not_loaded:
                problems.append(f"load_param_into_net left {not_loaded}")
            for name, param in net.parameters_and_names():
                if not np.array_equal(param.asnumpy(), arrays[name]):
                    problems.append(f"Cell parameter {name} differs")
        verdict["files"][label] = {"sha256": hashlib.sha256(data).hexdigest(),
                                   "ok": not problems, "problems": problems}
    with open(os.path.join(HERE, "eagerad_ckpt_verdict.json"), "w") as f:
        json.dump(verdict, f, indent=1, sort_keys=True)
    print(json.dumps(verdict, indent=1))


if __name__ == "__main__":
    main()
