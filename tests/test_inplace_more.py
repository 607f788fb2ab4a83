"""The in-place twins PyTorch programs use (``x.acos_()``, ``x.eq_(y)``, ``x.tril_()``,
``x.index_fill_(...)``, ``x.masked_scatter_(...)`` ...): the values equal PyTorch's, the
tensor is the one returned, and gradients flow through the rewritten value."""
import numpy as np
import pytest

import eagerad.torch as torch

pt = pytest.importorskip("torch")
X = np.array([[0.3, -0.6], [0.9, 0.1]])

CASES = [
    ("acos_", ()), ("asinh_", ()), ("sinh_", ()), ("erfinv_", ()), ("log2_", ()),
    ("tril_", ()), ("triu_", (1,)), ("cumsum_", (0,)), ("deg2rad_", ()), ("sgn_", ()),
    ("xlogy_", (2.0,)), ("copysign_", (-1.0,)), ("divide_", (4.0,)), ("float_power_", (2,)),
    ("eq_", ("same",)), ("lt_", (0.2,)), ("greater_equal_", (0.1,)),
]


@pytest.mark.parametrize("name, args", CASES, ids=[c[0] for c in CASES])
def test_in_place_twin_matches_torch(name, args):
    results = []
    for fw in (torch, pt):
        x = fw.tensor(np.abs(X) if name in ("log2_", "xlogy_") else X)
        call = [x.clone() if a == "same" else a for a in args]
        out = getattr(x, name)(*call)
        assert out is x
        results.append(x.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_gradient_flows_through_an_in_place_rewrite():
    for fw in (torch, pt):
        w = fw.tensor(X, requires_grad=True)
        y = w * 2
        y.tril_()
        y.sinh_()
        y.sum().backward()
        if fw is torch:
            mine = w.grad.numpy()
        else:
            np.testing.assert_allclose(mine, w.grad.numpy(), rtol=1e-12)


def test_index_fill_and_masked_scatter():
    d = torch.zeros(3).index_fill_(0, torch.tensor([0, 2]), 5.0)
    assert d.tolist() == [5.0, 0.0, 5.0]
    e = torch.zeros(4).masked_scatter_(torch.tensor([True, False, True, False]),
                                       torch.tensor([7.0, 8.0]))
    assert e.tolist() == [7.0, 0.0, 8.0, 0.0]
