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
makemore = pytest.importorskip("torch_makemore")
mnist = pytest.importorskip("torch_mnist")
dcgan = pytest.importorskip("torch_dcgan")
time_sequence = pytest.importorskip("torch_time_sequence")
d2l = pytest.importorskip("torch_d2l")


@pytest.fixture(autouse=True)
def _one_torch_thread():
    """PyTorch's thread pool spins against the other processes of a 2-core machine
    (the L-BFGS program ran 30x slower); one thread keeps the comparisons quick."""
    threads = pt.get_num_threads()
    pt.set_num_threads(1)
    yield
    pt.set_num_threads(threads)


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


def test_makemore_gpt():
    pt.manual_seed(3407)
    reference, _ = makemore.build(pt)
    mine, samples = makemore.train(etorch, *makemore.build(etorch, reference), makemore.fixed_order())
    _same_losses(mine, makemore.train(pt, *makemore.build(pt, reference), makemore.fixed_order())[0])
    assert len(samples) == 3 and all(isinstance(s, str) for s in samples)


def test_makemore_endless_sampler_as_shipped():
    etorch.manual_seed(0)
    losses, _ = makemore.train(etorch, *makemore.build(etorch))
    assert len(losses) == makemore.STEPS and all(np.isfinite(losses))


def test_mnist_cnn_adadelta_steplr():
    pt.manual_seed(1)
    reference = mnist.model_class(pt)()
    mine, mine_tests = mnist.run(etorch, reference, dropout=False)
    theirs, their_tests = mnist.run(pt, reference, dropout=False)
    _same_losses(mine, theirs)
    assert [c for _, c in mine_tests] == [c for _, c in their_tests]
    np.testing.assert_allclose([v for v, _ in mine_tests], [v for v, _ in their_tests], rtol=1e-4)


def test_dcgan():
    pt.manual_seed(999)
    reference = dcgan.build(pt)
    mine, theirs = dcgan.run(etorch, reference), dcgan.run(pt, reference)
    for column in range(5):
        _same_losses([h[column] for h in mine], [h[column] for h in theirs])


def test_time_sequence_lstmcell_lbfgs():
    pt.manual_seed(0)
    reference = time_sequence.model_class(pt)().double()
    mine, theirs = time_sequence.run(etorch, reference), time_sequence.run(pt, reference)
    assert len(mine[0]) == len(theirs[0])          # L-BFGS evaluated the closure as often
    _same_losses(mine[0], theirs[0], rtol=1e-7)     # float64 all the way
    _same_losses(mine[1], theirs[1], rtol=1e-7)


def test_d2l_chapter_3_and_6_programs():
    pt.manual_seed(0)
    refs = (pt.nn.Sequential(pt.nn.Flatten(), pt.nn.Linear(784, 10)), d2l.lenet(pt))
    mine, theirs = d2l.run_all(etorch, refs), d2l.run_all(pt, refs)
    for program in mine:
        _same_losses(mine[program], theirs[program])
