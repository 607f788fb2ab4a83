"""MindSpore's tutorial programs under ``eagerad.mindspore``: the quick start
(tutorials/ms_quick_start.py: dataset pipeline, MLP, ``value_and_grad`` + SGD), LeNet5
(tutorials/ms_lenet.py: ``Model.train`` with ModelCheckpoint, LossMonitor and a callback of
its own, ``Model.eval``) and a custom loop (tutorials/ms_custom_loop.py: a train-step
Cell, gradient clipping, Adam on a schedule, BatchNorm, metrics).

From the same initial weights and data, every step's loss and the evaluation metrics
equal those MindSpore 2.10 computed running the same files with their import lines
pointed at ``mindspore`` (tests/data/mindspore/record_programs.py ->
program_answers.json), to float32 round-off.  The scripts also run as programs.
"""
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import eagerad.mindspore as ms

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATA = os.path.join(HERE, "data", "mindspore")
sys.path.insert(0, DATA)
from ms_programs import RUNNERS  # noqa: E402

with open(os.path.join(DATA, "program_answers.json")) as _f:
    ANSWERS = json.load(_f)["programs"]


def _same_digest(mine, theirs, what):
    """Two {name: [shape, sum, sum of squares]} digests describe the same arrays."""
    assert sorted(mine) == sorted(theirs), what
    for name in theirs:
        assert mine[name][0] == theirs[name][0], f"{what} {name}: shape"
        np.testing.assert_allclose(mine[name][1:], theirs[name][1:], rtol=1e-9, atol=1e-9,
                                   err_msg=f"{what} {name}")


@pytest.fixture(scope="module")
def results():
    return {}


@pytest.mark.parametrize("name", sorted(RUNNERS))
def test_losses_equal_mindspore(name, results, capsys):
    theirs = ANSWERS[name]
    mine = results[name] = RUNNERS[name]("eagerad", ms)
    _same_digest(mine["weights"], theirs["weights"], "initial weights")
    if "data" in theirs:
        _same_digest(mine["data"], theirs["data"], "first batch")
    losses, expected = np.array(mine["losses"]), np.array(theirs["losses"])
    assert losses.shape == expected.shape and len(expected) >= 20
    assert expected[-1] < 0.85 * expected[0]           # training moved the loss
    np.testing.assert_allclose(losses, expected, rtol=1e-5)


def test_quick_start_test_loop_equals_mindspore(results):
    mine = results.get("quick_start") or RUNNERS["quick_start"]("eagerad", ms)
    for (acc, loss), (their_acc, their_loss) in zip(mine["tests"], ANSWERS["quick_start"]["tests"]):
        assert acc == their_acc
        np.testing.assert_allclose(loss, their_loss, rtol=1e-5)


@pytest.mark.parametrize("name", ["lenet", "custom_loop"])
def test_eval_metrics_equal_mindspore(name, results):
    mine = results.get(name) or RUNNERS[name]("eagerad", ms)
    theirs = ANSWERS[name]["eval"]
    assert sorted(mine["eval"]) == sorted(theirs)
    for key, value in theirs.items():
        if "accuracy" in key.lower():
            assert mine["eval"][key] == value, key
        else:
            np.testing.assert_allclose(mine["eval"][key], value, rtol=1e-5, err_msg=key)


EXPECTED_LINES = {
    "ms_quick_start.py": ["['image', 'label']", "Shape of image [N, C, H, W]: (64, 1, 28, 28)",
                          "Epoch 3", "Done!", "Saved Model to model.ckpt", "[]", "Predicted: "],
    "ms_lenet.py": ["epoch: 1 step: 10, loss is ", "epoch 2: mean loss ",
                    "============== Accuracy:{'Accuracy': ",
                    "checkpoints: ['checkpoint_lenet-1_16.ckpt', 'checkpoint_lenet-2_16.ckpt', "
                    "'checkpoint_lenet-2_8.ckpt']", "parameters not loaded: []"],
    "ms_custom_loop.py": ["epoch 3: last loss ", "Model.eval: {'accuracy': ", "nn.Accuracy: "],
}


def test_tutorials_run_as_programs():
    # three programs side by side: one BLAS thread each
    env = dict(os.environ, PYTHONPATH=ROOT, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    runs = {script: subprocess.Popen([sys.executable, os.path.join(ROOT, "tutorials", script)],
                                     env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     text=True, cwd=ROOT)
            for script in EXPECTED_LINES}
    for script, run in runs.items():
        out, _ = run.communicate(timeout=300)
        assert run.returncode == 0, out
        for line in EXPECTED_LINES[script]:
            assert line in out, f"{script} did not print {line!r}:\n{out}"
