"""torch.scatter_reduce against PyTorch: values, first and second order gradients."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")

RNG = np.random.default_rng(0)
INPUT = RNG.normal(size=(4, 3))
SRC = RNG.normal(size=(6, 3))
SRC[1, :] = SRC[0, :]                  # ties for amax/amin
SRC[2, 0] = 0.0                        # a zero for prod
INDEX = np.array([[0, 1, 2], [0, 1, 2], [3, 1, 0], [0, 0, 0], [2, 2, 1], [0, 3, 3]])
INDEX[0] = INDEX[1]                    # tied values aimed at the same targets
WEIGHTS = np.arange(12.0).reshape(4, 3)


def run(lib, reduce, include_self, order):
    a = lib.tensor(INPUT, requires_grad=True)
    b = lib.tensor(SRC, requires_grad=True)
    out = a.scatter_reduce(0, lib.tensor(INDEX), b, reduce, include_self=include_self)
    loss = (out * lib.tensor(WEIGHTS)).sum()
    if order == 0:
        return [out]
    ga, gb = (pt if lib is pt else torch).autograd.grad(loss, (a, b), create_graph=True)
    if order == 1:
        return [ga, gb]
    return list((pt if lib is pt else torch).autograd.grad((ga * ga).sum() + (gb * gb).sum(),
                                                           (a, b), allow_unused=True))


CASES = [(r, s, o) for r in ("sum", "prod", "mean", "amax", "amin") for s in (True, False)
         for o in (0, 1, 2) if o < 2 or r == "prod"]   # the others are piecewise linear


@pytest.mark.parametrize("reduce,include_self,order", CASES)
def test_matches_pytorch(reduce, include_self, order):
    for ours, theirs in zip(run(torch, reduce, include_self, order),
                            run(pt, reduce, include_self, order)):
        if theirs is None:
            assert ours is None or not np.asarray(ours.detach()._data).any()
            continue
        np.testing.assert_allclose(np.asarray(ours.detach()._data), theirs.detach().numpy(),
                                   atol=1e-10)


def test_in_place_and_errors():
    x = torch.zeros(3)
    assert x.scatter_reduce_(0, torch.tensor([1, 1]), torch.tensor([2.0, 3.0]), "sum") is x
    assert x.tolist() == [0.0, 5.0, 0.0]
    with pytest.raises(ValueError, match="reduce"):
        x.scatter_reduce(0, torch.tensor([0]), torch.tensor([1.0]), "max")
    with pytest.raises(IndexError, match="out of range"):
        x.scatter_reduce(0, torch.tensor([3]), torch.tensor([1.0]), "sum")
