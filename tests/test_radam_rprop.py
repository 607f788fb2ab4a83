"""``optim.RAdam`` and ``optim.Rprop`` (missing from the PyTorch face): their first steps
worked by hand from the update rules, and whole trajectories against PyTorch's where
installed (RAdam: L2 and decoupled weight decay; Rprop: step growth, shrinking, clamping)."""
import math

import numpy as np
import pytest

import eagerad.torch as torch


def _step(opt_cls, grads, w0=1.0, **kw):
    w = torch.nn.Parameter(torch.tensor([w0], dtype=torch.float64))
    opt = opt_cls([w], **kw)
    out = []
    for g in grads:
        w.grad = torch.tensor([g], dtype=torch.float64)
        opt.step()
        out.append(w.item())
    return out


def test_radam_steps_with_momentum_alone_until_the_variance_is_tractable():
    # rho_t <= 5 for t <= 5 with beta2 = 0.999: the step is lr * m_hat = lr * g for constant g
    got = _step(torch.optim.RAdam, [2.0] * 5, lr=0.1)
    np.testing.assert_allclose(got, [1.0 - 0.2 * k for k in range(1, 6)], atol=1e-12)


def test_radam_rectifies_the_adaptive_step_after():
    b2, t, lr = 0.999, 6, 0.1
    rho_inf = 2 / (1 - b2) - 1
    rho = rho_inf - 2 * t * b2 ** t / (1 - b2 ** t)
    rect = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
    # constant g: m_hat = g, v_hat = g^2, so the step is lr * rect * g / (|g| + eps')
    got = _step(torch.optim.RAdam, [2.0] * 6, lr=lr)
    eps = 1e-8 / (math.sqrt(1 - b2 ** t) * 2.0)
    np.testing.assert_allclose(got[-1] - got[-2], -lr * rect / (1 + eps), rtol=1e-9)


def test_rprop_grows_shrinks_and_skips_a_flipped_step():
    got = _step(torch.optim.Rprop, [1.0, 1.0, -1.0, -1.0], lr=0.1)
    # steps: 0.1, then 0.12 (sign held), then the flip: size 0.06 and no move, then 0.06
    np.testing.assert_allclose(got, [0.9, 0.78, 0.78, 0.84], rtol=1e-12)


def test_rprop_clamps_its_step_sizes():
    got = _step(torch.optim.Rprop, [1.0] * 4, lr=0.1, step_sizes=(1e-6, 0.13))
    np.testing.assert_allclose(np.diff([1.0] + got), [-0.1, -0.12, -0.13, -0.13], rtol=1e-12)
    with pytest.raises(ValueError, match="0 < etaminus < 1 < etaplus"):
        torch.optim.Rprop([torch.nn.Parameter(torch.ones(1))], etas=(1.5, 1.2))


CASES = {
    "radam": lambda fw, w: fw.optim.RAdam([w], lr=0.01),
    "radam l2": lambda fw, w: fw.optim.RAdam([w], lr=0.01, weight_decay=0.1),
    "radam decoupled": lambda fw, w: fw.optim.RAdam([w], lr=0.01, weight_decay=0.1,
                                                   decoupled_weight_decay=True),
    "rprop": lambda fw, w: fw.optim.Rprop([w], lr=0.01),
    "rprop bounded": lambda fw, w: fw.optim.Rprop([w], lr=0.05, etas=(0.3, 1.5),
                                                  step_sizes=(1e-3, 0.1)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_the_same_trajectory_as_pytorch_where_installed(name):
    real = pytest.importorskip("torch")
    rng = np.random.default_rng(0)
    w0, x, y = rng.standard_normal((3, 4)), rng.standard_normal((5, 3)), rng.standard_normal((5, 4))
    ends = []
    for fw in (torch, real):
        w = fw.nn.Parameter(fw.tensor(w0.copy()))
        opt = CASES[name](fw, w)
        for _ in range(30):
            opt.zero_grad()
            ((fw.tensor(x) @ w - fw.tensor(y)) ** 2).mean().backward()
            opt.step()
        ends.append(w.detach().numpy())
    np.testing.assert_allclose(ends[0], ends[1], rtol=1e-12, atol=1e-14)
