"""Samplers refuse the parameters PyTorch refuses, with the argument named: a negative
``std`` drew mirrored samples, ``uniform_(2, 1)`` drew from [1, 2), ``bernoulli_(1.5)``
all ones, ``exponential_(-1)`` negatives, ``geometric_(1.5)`` a bare math domain error --
silently or unclearly.  Valid edge values still draw."""
import pytest

import eagerad
import eagerad.torch as torch

BAD = [
    ("normal_", (0.0, -1.0), "normal_: std must be >= 0, got -1.0"),
    ("uniform_", (2.0, 1.0), r"uniform_: expects a \[from, to\) range, got from=2.0 > to=1.0"),
    ("bernoulli_", (1.5,), r"bernoulli_: p must lie in \[0, 1\], got 1.5"),
    ("exponential_", (-1.0,), "exponential_: lambd must be > 0, got -1.0"),
    ("exponential_", (0.0,), "exponential_: lambd must be > 0, got 0.0"),
    ("geometric_", (1.5,), r"geometric_ expects p to be in \(0, 1\), but got p=1.5"),
    ("log_normal_", (0.0, -1.0), r"log_normal_ expects std > 0.0, but found std=-1.0"),
    ("cauchy_", (0.0, -1.0), r"cauchy_ expects sigma > 0.0, but found sigma=-1.0"),
]


@pytest.mark.parametrize("method, args, message", BAD)
def test_bad_parameters_raise_naming_them(method, args, message):
    x = torch.zeros(3)
    with pytest.raises(ValueError, match=message):
        getattr(x, method)(*args)
    assert x.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("method, args, message", BAD)
def test_pytorch_refuses_them_too_where_installed(method, args, message):
    real = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        getattr(real.zeros(3), method)(*args)


def test_edge_values_still_draw():
    assert torch.zeros(3).normal_(2.0, 0.0).tolist() == [2.0, 2.0, 2.0]
    assert torch.zeros(3).uniform_(1.0, 1.0).tolist() == [1.0, 1.0, 1.0]
    assert torch.zeros(3).bernoulli_(1.0).tolist() == [1.0, 1.0, 1.0]
    assert torch.zeros(3).bernoulli_(0.0).tolist() == [0.0, 0.0, 0.0]


def test_the_mindspore_style_normal_initialiser_refuses_a_negative_sigma():
    with pytest.raises(ValueError, match="normal: std must be >= 0, got -0.1"):
        eagerad.nn.init.normal((2, 2), sigma=-0.1)
