"""Record the MindSpore tutorial programs' per-step losses under real MindSpore into
program_answers.json.

    /work/msvenv/bin/python tests/data/mindspore/record_programs.py [PROGRAM ...]

(MindSpore 2.x with numpy<2, in a venv of its own, outside the repository.)  Each
program of ms_programs.RUNNERS runs the tutorial file itself, its import lines pointed at
``mindspore``, in PyNative mode on the CPU, from the numpy-drawn initial weights;
tests/test_mindspore_programs.py runs the same under eagerad and compares.
"""
import json
import os
import sys

import mindspore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ms_programs import RUNNERS  # noqa: E402


def main(names):
    mindspore.set_context(mode=mindspore.PYNATIVE_MODE)
    mindspore.set_device("CPU")
    path = os.path.join(HERE, "program_answers.json")
    answers = json.load(open(path))["programs"] if os.path.exists(path) else {}
    for name in names or RUNNERS:
        answers[name] = RUNNERS[name]("mindspore", mindspore)
        losses = answers[name]["losses"]
        print(f"{name}: {len(losses)} steps, loss {losses[0]:.6f} -> {losses[-1]:.6f}")
    with open(path, "w") as f:
        json.dump({"mindspore": mindspore.__version__, "programs": answers}, f, indent=1,
                  sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1:])
