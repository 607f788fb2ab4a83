"""Programs modelled on pytorch/examples (tutorials/torch_*.py), run with
``import eagerad.torch as torch`` and with PyTorch from the same initial weights: the
losses agree to float32 round-off."""
import os
import sys

import numpy as np
import pytest

import eagerad.torch as etorch

pt = pytest.importorskip("torch")
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tutorials"))
regression = pytest.importorskip("torch_regression")
word_lm = pytest.importorskip("torch_word_language_model")
vae = pytest.importorskip("torch_vae")


def _same_losses(mine, theirs, rtol=1e-4):
    assert len(mine) == len(theirs) and len(mine) > 1
    np.testing.assert_allclose(mine, theirs, rtol=rtol)
    assert len(set(np.round(mine, 4))) > 1          # the loss moves: training happened


def test_regression():
    pt.manual_seed(0)
    reference = pt.nn.Linear(regression.DEGREE, 1)
    fc, mine = regression.run(etorch, reference)
    _same_losses(mine, regression.run(pt, reference)[1])


@pytest.mark.parametrize("kind", ["LSTM", "GRU", "RNN"])
def test_word_language_model(kind):
    pt.manual_seed(1)
    reference = word_lm.model_class(pt)(kind)
    _same_losses(word_lm.run(etorch, reference, kind), word_lm.run(pt, reference, kind))


def test_vae():
    pt.manual_seed(2)
    reference = vae.model_class(pt)()
    _same_losses(vae.run(etorch, reference), vae.run(pt, reference))
