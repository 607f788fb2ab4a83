"""torch.mode / nanmedian / nanquantile (functions and methods) against PyTorch."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")

NAN = float("nan")
DATA = np.array([[1.0, NAN, 3.0, 2.0, 7.0], [NAN, NAN, NAN, NAN, NAN],
                 [5.0, 4.0, NAN, 0.5, 9.0]])


def same(ours, theirs):
    np.testing.assert_allclose(np.asarray(ours.detach()._data, np.float64),
                               theirs.detach().numpy().astype(np.float64), atol=1e-6)


@pytest.mark.parametrize("dim,keepdim", [(0, False), (1, False), (1, True), (-1, True)])
def test_nanmedian_along_dim(dim, keepdim):
    ours = torch.tensor(DATA).nanmedian(dim, keepdim)
    theirs = pt.tensor(DATA).nanmedian(dim, keepdim)
    same(ours.values, theirs.values)
    rows = ~np.isnan(np.asarray(theirs.values))          # PyTorch's index of an all-NaN row is arbitrary
    assert (np.asarray(ours.indices._data)[rows] == theirs.indices.numpy()[rows]).all()


def test_nanmedian_whole_and_gradient():
    same(torch.nanmedian(torch.tensor(DATA)), pt.nanmedian(pt.tensor(DATA)))
    x = torch.tensor(DATA[0], requires_grad=True)
    torch.nanmedian(x).backward()
    assert x.grad.tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]   # the lower median 2.0 of 1, 2, 3, 7


@pytest.mark.parametrize("q", [0.0, 0.3, 0.5, 1.0, [0.25, 0.9]])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "midpoint", "nearest"])
@pytest.mark.parametrize("dim,keepdim", [(None, False), (1, False), (0, True), (None, True)])
def test_nanquantile(q, interpolation, dim, keepdim):
    qo = torch.tensor(q, dtype=torch.float64) if isinstance(q, list) else q
    qt = pt.tensor(q, dtype=pt.float64) if isinstance(q, list) else q
    ours = torch.nanquantile(torch.tensor(DATA), qo, dim, keepdim, interpolation=interpolation)
    theirs = pt.nanquantile(pt.tensor(DATA), qt, dim, keepdim, interpolation=interpolation)
    assert tuple(ours.shape) == tuple(theirs.shape)
    same(ours, theirs)


def test_nanquantile_gradient_matches():
    a = torch.tensor(DATA[2], requires_grad=True)
    b = pt.tensor(DATA[2], requires_grad=True)
    torch.nanquantile(a, 0.4).backward()
    pt.nanquantile(b, 0.4).backward()
    same(a.grad, b.grad)


@pytest.mark.parametrize("data", [[[1.0, 2.0, 2.0, 3.0, 3.0, 1.0], [5.0, 5.0, 4.0, 4.0, 4.0, 5.0]],
                                  [[3.0, 1.0, 2.0, 4.0, 2.0, 9.0], [0.0, 0.0, 0.0, 1.0, 1.0, 1.0]]])
@pytest.mark.parametrize("dim,keepdim", [(1, False), (0, False), (-1, True)])
def test_mode(data, dim, keepdim):
    ours = torch.mode(torch.tensor(data), dim, keepdim)
    theirs = pt.mode(pt.tensor(data), dim, keepdim)
    same(ours.values, theirs.values)
    assert ours.indices.tolist() == theirs.indices.tolist()
