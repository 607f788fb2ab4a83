"""Learning-rate schedules: PyTorch schedulers against their closed forms (and the values
PyTorch's docs give), their effect on the optimizer's steps, state_dict; MindSpore
schedule Cells and per-step lists against the formulas and printed examples of its docs;
clip_grad_norm_ and flat parameter vectors."""
import math

import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.optim import lr_scheduler as sched


def make_opt(lr=1.0, **kw):
    return nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=lr, **kw)


def trace(scheduler_cls, n, *args, lr=1.0, **kw):
    opt = make_opt(lr)
    s = scheduler_cls(opt, *args, **kw)
    out = []
    for _ in range(n):
        out.append(opt.param_groups[0]["lr"])
        opt.step()
        s.step()
    return out


@pytest.mark.parametrize("cls,args,kw,formula", [
    (sched.StepLR, (3,), dict(gamma=0.5), lambda e: 0.5 ** (e // 3)),
    (sched.MultiStepLR, ([2, 5],), dict(gamma=0.1), lambda e: 0.1 ** ((e >= 2) + (e >= 5))),
    (sched.ExponentialLR, (0.9,), {}, lambda e: 0.9 ** e),
    (sched.CosineAnnealingLR, (6,), dict(eta_min=0.1),
     lambda e: 0.1 + 0.9 * (1 + math.cos(math.pi * e / 6)) / 2),
    (sched.LambdaLR, (lambda e: 1 / (1 + e),), {}, lambda e: 1 / (1 + e)),
    (sched.LinearLR, (), dict(start_factor=0.25, total_iters=4), lambda e: 0.25 + 0.75 * min(e, 4) / 4),
    (sched.ConstantLR, (), dict(factor=0.5, total_iters=3), lambda e: 0.5 if e < 3 else 1.0),
    (sched.PolynomialLR, (), dict(total_iters=5, power=2.0), lambda e: (1 - min(e, 5) / 5) ** 2),
    (sched.MultiplicativeLR, (lambda e: 0.8,), {}, lambda e: 0.8 ** e),
])
def test_scheduler_follows_closed_form(cls, args, kw, formula):
    np.testing.assert_allclose(trace(cls, 10, *args, **kw), [formula(e) for e in range(10)],
                               rtol=1e-12)


def test_warm_restarts_periods_grow_with_t_mult():
    lrs = trace(sched.CosineAnnealingWarmRestarts, 7, 1, lr=1.0, T_mult=2)
    # periods of length 1, 2, 4: the epoch into each period restarts at 1, 3
    expected = [1.0, 1.0, 0.5, 1.0, (1 + math.cos(math.pi / 4)) / 2, 0.5,
                (1 + math.cos(3 * math.pi / 4)) / 2]
    np.testing.assert_allclose(lrs, expected, rtol=1e-12, atol=1e-15)


def test_one_cycle_lr_and_momentum():
    opt = make_opt(0.1, momentum=0.9)
    s = sched.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    lrs, moms = [], []
    for _ in range(10):
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
        opt.step()
        if len(lrs) < 10:
            s.step()
    cos_anneal = lambda a, b, f: b + (a - b) / 2 * (math.cos(math.pi * f) + 1)
    lo, top, end = 0.04, 1.0, 0.04 / 1e4
    expected = [cos_anneal(lo, top, e / 2) for e in range(3)] + \
               [cos_anneal(top, end, (e - 2) / 7) for e in range(3, 10)]
    np.testing.assert_allclose(lrs, expected, rtol=1e-12)
    assert moms[0] == 0.95 and moms[2] == pytest.approx(0.85) and moms[9] == pytest.approx(0.95)
    with pytest.raises(ValueError, match="total steps is 10"):
        s.step()


def test_one_cycle_cycles_adams_beta1():
    opt = nn.Adam([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
    sched.OneCycleLR(opt, max_lr=0.5, epochs=2, steps_per_epoch=5)
    assert opt.param_groups[0]["beta1"] == 0.95


def test_scheduler_drives_the_updates():
    w = eagerad.Parameter(eagerad.tensor([0.0], dtype=eagerad.float64))
    opt = nn.SGD([w], lr=1.0)
    s = sched.StepLR(opt, step_size=1, gamma=0.5)
    for _ in range(3):
        opt.zero_grad()
        (-w).sum().backward()       # gradient -1: each step adds lr
        opt.step()
        s.step()
    assert w.item() == pytest.approx(1.0 + 0.5 + 0.25)


def test_reduce_on_plateau():
    opt = make_opt(1.0)
    s = sched.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=2, cooldown=1, min_lr=0.2)
    lrs = []
    for loss in [5, 4] + [4] * 11:
        s.step(loss)
        lrs.append(s.get_last_lr()[0])
    # the third epoch without improvement (> patience) halves the rate, the next epoch is a
    # cooldown (counts nothing), three more bad epochs halve again; then min_lr is the floor
    assert lrs == [1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.2]
    s2 = sched.ReduceLROnPlateau(make_opt(1.0), mode="max", patience=0, threshold=0.1,
                                 threshold_mode="abs")
    for acc in (0.5, 0.55):
        s2.step(eagerad.tensor(acc))
    assert s2.get_last_lr() == [pytest.approx(0.1)]


def test_scheduler_state_dict_round_trip():
    opt = make_opt(1.0)
    s = sched.StepLR(opt, 2, gamma=0.5)
    for _ in range(3):
        s.step()
    saved = s.state_dict()
    opt2 = make_opt(1.0)
    s2 = sched.StepLR(opt2, 2, gamma=0.5)
    opt2.load_state_dict(opt.state_dict())     # (the rate lives in the optimizer's state)
    s2.load_state_dict(saved)
    s2.step()
    assert s2.get_last_lr() == [0.25]


def test_mindspore_schedule_cells_follow_their_formulas():
    step = eagerad.tensor(6, dtype=eagerad.int32)
    cases = [
        (nn.ExponentialDecayLR(0.1, 0.9, 4), 0.1 * 0.9 ** 1.5),
        (nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True), 0.1 * 0.9),
        (nn.NaturalExpDecayLR(0.1, 0.9, 4), 0.1 * math.exp(-0.9 * 1.5)),
        (nn.InverseDecayLR(0.1, 0.9, 4), 0.1 / (1 + 0.9 * 1.5)),
        (nn.CosineDecayLR(0.01, 0.1, 4), 0.01),
        (nn.CosineDecayLR(0.01, 0.1, 8), 0.01 + 0.045 * (1 + math.cos(math.pi * 6 / 8))),
        (nn.PolynomialDecayLR(0.1, 0.01, 8, 2.0), 0.09 * (1 - 6 / 8) ** 2 + 0.01),
        (nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, update_decay_steps=True), 0.09 * (1 - 6 / 8) + 0.01),
        (nn.WarmUpLR(0.1, 12), 0.05),
    ]
    for cell, expected in cases:
        assert cell(step).item() == pytest.approx(expected, rel=1e-6), type(cell).__name__


def test_mindspore_lr_lists_match_documented_outputs():
    # printed in MindSpore's API documentation for these arguments
    np.testing.assert_allclose(nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2),
                               [0.1, 0.1, 0.05500000000000001, 0.05500000000000001, 0.01, 0.01])
    np.testing.assert_allclose(nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1),
                               [0.1, 0.1, 0.09000000000000001, 0.09000000000000001, 0.08100000000000002,
                                0.08100000000000002])
    assert nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == \
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    np.testing.assert_allclose(nn.warmup_lr(0.1, 6, 2, 2), [0.0, 0.0, 0.05, 0.05, 0.1, 0.1])


def test_schedule_cell_as_optimizer_learning_rate():
    w = eagerad.Parameter(eagerad.tensor([0.0], dtype=eagerad.float64))
    opt = nn.SGD([w], learning_rate=nn.WarmUpLR(1.0, 4))
    for _ in range(3):
        opt((eagerad.tensor([-1.0], dtype=eagerad.float64),))
    assert w.item() == pytest.approx(0.0 + 0.25 + 0.5)


def test_clip_grad_norm_and_vectors():
    a = eagerad.Parameter(eagerad.tensor([3.0]))
    b = eagerad.Parameter(eagerad.tensor([[4.0]]))
    ((a * a).sum() / 2 + (b * b).sum() / 2).backward()         # grads 3 and 4
    total = nn.utils.clip_grad_norm_([a, b], max_norm=1.0)
    assert total.item() == pytest.approx(5.0)
    assert a.grad.item() == pytest.approx(0.6, rel=1e-5) and b.grad.item() == pytest.approx(0.8, rel=1e-5)
    a.grad = eagerad.tensor([float("nan")])
    with pytest.raises(RuntimeError, match="nan"):
        nn.utils.clip_grad_norm_([a], 1.0, error_if_nonfinite=True)
    vec = nn.utils.parameters_to_vector([a, b])
    assert vec.tolist() == [3.0, 4.0]
    nn.utils.vector_to_parameters(eagerad.tensor([7.0, 8.0]), [a, b])
    assert a.tolist() == [7.0] and b.tolist() == [[8.0]]
    with pytest.raises(ValueError, match="2 entries"):
        nn.utils.vector_to_parameters(eagerad.tensor([1.0]), [a, b])
