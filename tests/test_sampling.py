"""Random draws of the PyTorch face (``torch.multinomial``, ``normal``, ``bernoulli``,
``poisson``, ``randperm``, the sampling Tensor methods, the generator's state): their
frequencies against the distributions (seeded, bounds of several standard errors),
PyTorch's argument conventions, and clear errors on bad weights."""
import numpy as np
import pytest

import eagerad
import eagerad.torch as torch


@pytest.fixture(autouse=True)
def _seeded():
    torch.manual_seed(1234)


def test_multinomial_with_replacement_frequencies_follow_weights():
    w = torch.tensor([1.0, 2.0, 0.0, 7.0])
    draws = torch.multinomial(w, 20000, replacement=True).numpy()
    freq = np.bincount(draws, minlength=4) / draws.size
    np.testing.assert_allclose(freq, [0.1, 0.2, 0.0, 0.7], atol=0.015)


def test_multinomial_without_replacement_first_draw_follows_weights_and_never_repeats():
    w = torch.tensor([[1.0, 3.0, 0.0, 4.0]] * 6000)
    draws = torch.multinomial(w, 3).numpy()
    assert draws.shape == (6000, 3) and draws.dtype == np.int64
    assert all(len(set(row)) == 3 and 2 not in row for row in draws)    # zero weight never drawn
    np.testing.assert_allclose(np.bincount(draws[:, 0], minlength=4) / 6000,
                               [1 / 8, 3 / 8, 0.0, 4 / 8], atol=0.02)


def test_multinomial_is_reproducible_under_manual_seed_and_a_generator():
    w = torch.rand(3, 5)
    torch.manual_seed(7)
    a = torch.multinomial(w, 4, True)
    torch.manual_seed(7)
    assert (a == torch.multinomial(w, 4, True)).all()
    g1, g2 = torch.Generator().manual_seed(3), torch.Generator().manual_seed(3)
    assert (torch.multinomial(w, 4, True, generator=g1) ==
            torch.multinomial(w, 4, True, generator=g2)).all()


@pytest.mark.parametrize("weights, n, message", [
    ([0.0, 0.0], 1, "no positive weight"),
    ([1.0, -1.0], 1, "non-negative"),
    ([1.0, float("nan")], 1, "finite"),
    ([1.0, 0.0], 2, "without replacement"),
])
def test_multinomial_refuses_bad_weights(weights, n, message):
    with pytest.raises(ValueError, match=message):
        torch.multinomial(torch.tensor(weights), n)


def test_normal_broadcasts_tensor_parameters_and_matches_moments():
    mean = torch.tensor([[-3.0], [5.0]])
    std = torch.tensor([0.5, 2.0, 1.0])
    draws = np.stack([torch.normal(mean, std).numpy() for _ in range(4000)])
    assert draws.shape == (4000, 2, 3)
    np.testing.assert_allclose(draws.mean(0), np.broadcast_to([[-3.0], [5.0]], (2, 3)), atol=0.1)
    np.testing.assert_allclose(draws.std(0), np.broadcast_to([0.5, 2.0, 1.0], (2, 3)), rtol=0.06)
    assert torch.normal(2.0, 1.0, size=(3, 4)).shape == (3, 4)
    with pytest.raises(TypeError, match="size="):
        torch.normal(0.0, 1.0)


def test_bernoulli_and_poisson_means():
    p = torch.full((50000,), 0.3)
    assert abs(torch.bernoulli(p).mean().item() - 0.3) < 0.01
    assert abs(torch.poisson(torch.full((50000,), 4.0)).mean().item() - 4.0) < 0.05
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        torch.bernoulli(torch.tensor([1.5]))


def test_randperm_is_a_permutation():
    p = torch.randperm(100)
    assert p.dtype == torch.int64 and sorted(p.tolist()) == list(range(100))


def test_rng_state_round_trip_replays_every_draw():
    state = torch.get_rng_state()
    first = (torch.rand(3), torch.multinomial(torch.ones(5), 2), torch.randn(2))
    torch.set_rng_state(state)
    again = (torch.rand(3), torch.multinomial(torch.ones(5), 2), torch.randn(2))
    assert all((a == b).all() for a, b in zip(first, again))
    with pytest.raises(ValueError, match="new_state"):
        torch.set_rng_state(torch.tensor([1, 2, 3], dtype=torch.uint8))


def test_sampling_methods_fill_in_place_with_the_right_support():
    x = torch.zeros(20000)
    assert x.random_(3) is x and set(x.tolist()) == {0.0, 1.0, 2.0}
    ints = torch.zeros(1000, dtype=torch.int64).random_(5, 8)
    assert set(ints.tolist()) == {5, 6, 7}
    g = torch.zeros(20000).geometric_(0.25)
    assert g.min().item() >= 1 and abs(g.mean().item() - 4.0) < 0.15     # mean 1/p
    c = torch.zeros(20001).cauchy_(2.0, 0.5)
    assert abs(c.median().item() - 2.0) < 0.05
    ln = torch.zeros(20000).log_normal_(0.0, 0.25)
    assert abs(ln.log().mean().item()) < 0.01 and (ln > 0).all()
    assert torch.tensor([0.0, 1.0]).bernoulli().tolist() == [0.0, 1.0]
    assert sorted(torch.tensor([1.0, 1.0]).multinomial(2).tolist()) == [0, 1]


def test_neutral_tensors_say_which_face_has_a_sampling_method():
    with pytest.raises(AttributeError, match="eagerad.torch"):
        eagerad.tensor([1.0]).multinomial(1)
