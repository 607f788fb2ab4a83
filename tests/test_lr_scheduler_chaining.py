"""PyTorch's schedulers compose: two on one optimizer, a rate set by hand, ``SequentialLR``
(warm-up then decay) and ``ChainedScheduler``.  The schedulers wrote their closed forms,
so ``ConstantLR`` + ``ExponentialLR`` started at 1.0 instead of PyTorch's 0.1 (a silent
wrong rate); the figures here are PyTorch's recursive forms, worked by hand, and PyTorch's
own where installed."""
import math

import numpy as np
import pytest

import eagerad
from eagerad import nn
from eagerad.optim import lr_scheduler as sched


def _optimizer(lr=1.0):
    return nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=lr)


def _rates(opt, schedulers, steps, poke=None):
    """The rate before the first step and after each; ``poke``: step after which the rate
    is halved by hand."""
    out = [opt.param_groups[0]["lr"]]
    for k in range(steps):
        opt.step()
        for s in schedulers:
            s.step()
        if k == poke:
            opt.param_groups[0]["lr"] *= 0.5
        out.append(opt.param_groups[0]["lr"])
    return out


def test_two_schedulers_on_one_optimizer_compose():
    opt = _optimizer()
    both = [sched.ConstantLR(opt, factor=0.1, total_iters=2), sched.ExponentialLR(opt, gamma=0.9)]
    np.testing.assert_allclose(_rates(opt, both, 4), [0.1, 0.09, 0.81, 0.729, 0.6561], rtol=1e-12)


def test_a_rate_set_by_hand_is_carried_on():
    opt = _optimizer()
    got = _rates(opt, [sched.StepLR(opt, step_size=2, gamma=0.1)], 4, poke=0)
    np.testing.assert_allclose(got, [1.0, 0.5, 0.05, 0.05, 0.005], rtol=1e-12)


def test_cosine_scales_the_distance_to_eta_min():
    opt = _optimizer()
    got = _rates(opt, [sched.CosineAnnealingLR(opt, T_max=4, eta_min=0.2)], 6, poke=1)
    want = [1.0, 0.2 + 0.8 * (1 + math.cos(math.pi / 4)) / 2]
    cos = [(1 + math.cos(math.pi * e / 4)) / 2 for e in range(7)]
    want.append(0.2 + (0.2 + 0.8 * cos[1] - 0.2) * cos[2] / cos[1])      # after the step
    want[-1] = 0.5 * want[-1]                                            # then halved by hand
    for e in (3, 4):
        want.append(0.2 + (want[-1] - 0.2) * cos[e] / cos[e - 1])
    want.append(want[-1] + 0.8 * (cos[5] - cos[4]))     # past T_max: back up, by the difference
    want.append(0.2 + (want[-1] - 0.2) * cos[6] / cos[5])
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_sequential_lr_warms_up_then_restarts_the_next_at_its_epoch_0():
    opt = _optimizer()
    warm = sched.LinearLR(opt, start_factor=0.1, total_iters=3)
    decay = sched.CosineAnnealingLR(opt, T_max=4)
    s = sched.SequentialLR(opt, [warm, decay], milestones=[3])
    got = _rates(opt, [s], 6)
    want = [0.1, 0.4, 0.7, 1.0] + [(1 + math.cos(math.pi * e / 4)) / 2 for e in (1, 2, 3)]
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert s.get_last_lr() == [got[-1]]


def test_sequential_lr_state_round_trips():
    opt = _optimizer()
    s = sched.SequentialLR(opt, [sched.ConstantLR(opt, 0.5, 2), sched.ExponentialLR(opt, 0.5)], [2])
    for _ in range(3):
        s.step()
    state = s.state_dict()
    assert state["last_epoch"] == 3 and len(state["_schedulers"]) == 2
    opt2 = _optimizer()
    s2 = sched.SequentialLR(opt2, [sched.ConstantLR(opt2, 0.5, 2), sched.ExponentialLR(opt2, 0.5)],
                            [2])
    s2.load_state_dict(state)
    opt2.param_groups[0]["lr"] = opt.param_groups[0]["lr"]
    s.step()
    s2.step()
    assert s2.get_last_lr() == s.get_last_lr() == [0.25]


def test_chained_scheduler_steps_all_of_them():
    opt = _optimizer()
    s = sched.ChainedScheduler([sched.ConstantLR(opt, factor=0.1, total_iters=2),
                                sched.ExponentialLR(opt, gamma=0.9)])
    np.testing.assert_allclose(_rates(opt, [s], 3), [0.1, 0.09, 0.81, 0.729], rtol=1e-12)
    assert s.get_last_lr() == [opt.param_groups[0]["lr"]]


def test_composites_refuse_bad_arguments_naming_them():
    opt, other = _optimizer(), _optimizer()
    a, b = sched.StepLR(opt, 2), sched.StepLR(other, 2)
    with pytest.raises(ValueError, match="one more than the number of milestone points"):
        sched.SequentialLR(opt, [a, sched.StepLR(opt, 2)], milestones=[1, 2])
    with pytest.raises(ValueError, match="same optimizer.*StepLR at index 1"):
        sched.SequentialLR(opt, [a, b], milestones=[1])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        sched.ChainedScheduler([a, sched.ReduceLROnPlateau(opt)])
    with pytest.raises(ValueError, match="at least one scheduler"):
        sched.ChainedScheduler([])


def _torch_cases(lr_scheduler):
    L = lr_scheduler
    return {
        "constant+exponential": lambda o: [L.ConstantLR(o, factor=0.1, total_iters=2),
                                           L.ExponentialLR(o, gamma=0.9)],
        "linear+cosine": lambda o: [L.LinearLR(o, start_factor=0.1, total_iters=3),
                                    L.CosineAnnealingLR(o, T_max=5, eta_min=0.05)],
        "step+multistep": lambda o: [L.StepLR(o, 3, 0.5), L.MultiStepLR(o, [2, 5, 5], 0.1)],
        "polynomial": lambda o: [L.PolynomialLR(o, total_iters=4, power=2.0)],
        "linear to 0": lambda o: [L.LinearLR(o, start_factor=1.0, end_factor=0.0, total_iters=4)],
        "sequential": lambda o: [L.SequentialLR(o, [L.LinearLR(o, start_factor=0.1, total_iters=3),
                                                    L.CosineAnnealingLR(o, T_max=6)], [3])],
        "chained": lambda o: [L.ChainedScheduler([L.ConstantLR(o, factor=0.5, total_iters=3),
                                                  L.StepLR(o, 2, 0.5)])],
    }


@pytest.mark.parametrize("poke", [None, 4])
def test_the_same_rates_as_pytorch_where_installed(poke):
    torch = pytest.importorskip("torch")
    ours, theirs = _torch_cases(sched), _torch_cases(torch.optim.lr_scheduler)
    for name in ours:
        opt = _optimizer()
        ref_opt = torch.optim.SGD([torch.nn.Parameter(torch.zeros(1))], lr=1.0)
        got = _rates(opt, ours[name](opt), 12, poke)
        want = _rates(ref_opt, theirs[name](ref_opt), 12, poke)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-15, err_msg=name)
