"""Run every seed tutorial in the seeds' order and print what each prints.

This is the project's main job: the examples of MindSpore's autodiff tutorials and
its PyTorch migration guide (``shared/seeds/``), run on eagerad with only the
imports changed.  Usage: ``python tutorials/run_seeds.py [name-filter]``.
"""
import pathlib
import runpy
import sys
import warnings

HERE = pathlib.Path(__file__).resolve().parent


def seed_scripts(pattern=""):
    return [p for p in sorted(HERE.glob("seed*_*.py")) if pattern in p.name]


def main(argv):
    scripts = seed_scripts(argv[1] if len(argv) > 1 else "")
    if not scripts:
        raise SystemExit(f"no seed tutorial matches {argv[1]!r}")
    with warnings.catch_warnings():
        # seed 001 asks for GRAPH_MODE on a GPU; eagerad says once that it runs eagerly
        # on the CPU. The message is noise when replaying every example in a row.
        warnings.simplefilter("ignore", UserWarning)
        for path in scripts:
            print(f"===== {path.name} " + "=" * max(0, 60 - len(path.name)))
            runpy.run_path(str(path), run_name="__main__")
            print()
    print(f"ran {len(scripts)} seed tutorials")


if __name__ == "__main__":
    main(sys.argv)
