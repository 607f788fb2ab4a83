"""MindSpore's documented examples, replayed under eagerad's MindSpore face.

tests/data/mindspore/ms_cases.py describes the ``Examples`` of MindSpore 2.x's differentiable
CPU APIs as data; record.py ran each one under real MindSpore and stored its outputs and
the gradients of sum(output * W) in answers.json.  Here every case runs under
``eagerad.mindspore``, and values (float32 to rtol 1e-5) and gradients (rtol 1e-4) must agree.

A case listed in expected_failures.json (with its reason) may fail; every other case
must pass, and the number passing may not drop below the recorded count.  To refresh the
list after the face has grown:  python tests/test_mindspore_docs.py --update
(without --update it prints the pass rate and the missing names only).
"""
import collections
import json
import os
import sys

import numpy as np
import pytest

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "mindspore")
sys.path.insert(0, DATA)
from ms_cases import CASES, MINDSPORE_WRONG  # noqa: E402
from ms_runner import CellBackend, MissingName, compare_result, run_case  # noqa: E402

import eagerad  # noqa: E402
import eagerad.mindspore as FACE  # noqa: E402

SPACES = {"ops": FACE.ops, "nn": FACE.nn, "Tensor": FACE.Tensor}

ANSWERS = json.load(open(os.path.join(DATA, "answers.json")))["cases"]
EXPECTED_PATH = os.path.join(DATA, "expected_failures.json")
EXPECTED = json.load(open(EXPECTED_PATH)) if os.path.exists(EXPECTED_PATH) else {
    "min_passing": 0, "failures": {}}
RUNNABLE = [c for c in CASES if c["id"] in ANSWERS and "error" not in ANSWERS[c["id"]]
            and c["id"] not in MINDSPORE_WRONG]


class FaceBackend(CellBackend):
    """ms_runner.py's backend contract, for eagerad's MindSpore face."""

    grad_function = staticmethod(FACE.grad)

    def tensor(self, array):
        return FACE.Tensor(np.asarray(array))

    def parameter(self, array, name):
        return FACE.Parameter(FACE.Tensor(np.asarray(array)), name=name)

    def dtype(self, name):
        return getattr(FACE, name)

    def resolve(self, api):
        space, name = api.split(".", 1)
        return getattr(SPACES[space], name, None)

    def is_tensor(self, obj):
        return isinstance(obj, eagerad.Tensor)

    def to_numpy(self, t):
        return t.numpy()



_RESULTS = {}


def outcome(case):
    """None when the case reproduces MindSpore, else the reason it does not (cached)."""
    if case["id"] not in _RESULTS:
        try:
            got = run_case(case, FaceBackend())
            _RESULTS[case["id"]] = compare_result(ANSWERS[case["id"]], got)
        except MissingName as err:
            _RESULTS[case["id"]] = f"missing name: {err}"
        except Exception as err:  # noqa: BLE001 -- any failure is the case's reason
            text = str(err).splitlines()[0] if str(err) else ""
            _RESULTS[case["id"]] = f"{type(err).__name__}: {text}"[:200]
    return _RESULTS[case["id"]]


@pytest.mark.parametrize("case", RUNNABLE, ids=[c["id"] for c in RUNNABLE])
def test_documented_example(case):
    problem = outcome(case)
    listed = EXPECTED["failures"].get(case["id"])
    if problem is None:
        return
    if listed is not None:
        pytest.xfail(listed)
    pytest.fail(f"{case['id']} no longer reproduces MindSpore: {problem}")


def test_pass_rate_does_not_drop(capsys):
    passing = sum(outcome(c) is None for c in RUNNABLE)
    with capsys.disabled():
        print(f"\nMindSpore documented examples: {passing}/{len(RUNNABLE)} reproduce "
              f"({100.0 * passing / len(RUNNABLE):.1f} %) under {FACE.__name__}")
    assert passing >= EXPECTED["min_passing"], (
        f"only {passing} of {len(RUNNABLE)} MindSpore examples reproduce; "
        f"{EXPECTED['min_passing']} did before")


def test_every_expected_failure_names_a_known_case_and_a_reason():
    known = {c["id"] for c in CASES}
    for case_id, reason in EXPECTED["failures"].items():
        assert case_id in known, f"{case_id} is listed but no longer in ms_cases.py"
        assert isinstance(reason, str) and reason.strip()


def _update(write=True):
    """Rewrite expected_failures.json from a fresh run (reasons from the failures);
    ``--report`` only prints the figures."""
    failures = {}
    for case in RUNNABLE:
        problem = outcome(case)
        if problem is not None:
            failures[case["id"]] = problem
    passing = len(RUNNABLE) - len(failures)
    if write:
        with open(EXPECTED_PATH, "w") as f:
            json.dump({"min_passing": passing, "failures": failures}, f, indent=1, sort_keys=True)
    missing = collections.Counter(r.split(": ", 1)[1] for r in failures.values()
                                  if r.startswith("missing name"))
    print(f"{passing}/{len(RUNNABLE)} reproduce ({100.0 * passing / len(RUNNABLE):.1f} %)")
    print("missing names:", len(missing), missing.most_common(40))
    kinds = collections.Counter(r.split(":")[0] for r in failures.values())
    print("failure kinds:", kinds.most_common(20))


if __name__ == "__main__":
    _update(write="--update" in sys.argv)
