"""tutorials/cnn_synthetic.py, shortened: both faces learn the bar images well above
chance (1/3) within three short epochs.  (Their numbers differ: each face's Adam is its
framework's rule.)"""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                                "tutorials"))
cnn = pytest.importorskip("cnn_synthetic")


def test_bar_images_are_balanced_and_labelled():
    x, y = cnn.bar_images(300)
    assert x.shape == (300, 1, 12, 12) and x.dtype == "float32"
    assert set(y.tolist()) == {0, 1, 2} and min((y == k).mean() for k in range(3)) > 0.25


def test_both_faces_learn_well_above_chance(capsys):
    data = cnn.bar_images(600, seed=0), cnn.bar_images(150, seed=1)
    torch_acc = cnn.train_pytorch(data, epochs=3)
    ms_acc = cnn.train_mindspore(data, epochs=3)
    assert torch_acc > 0.8 and ms_acc > 0.8
    assert "[pytorch] epoch 3/3" in capsys.readouterr().out
