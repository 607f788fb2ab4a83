"""``parallel``'s pause: launches that do not pay against the single-threaded way's time
(or, without one, against their fastest) pause the splits that have a single-threaded
way; a launch that pays ends the doubling."""
import pytest

from eagerad.backend.cpu import parallel


@pytest.fixture(autouse=True)
def fresh():
    parallel.reset()
    yield
    parallel.reset()


def test_two_misses_in_a_row_against_the_single_threaded_time_pause():
    key = ("work", 1)
    parallel.measured(key, 1e-3)
    parallel._note(key, 0.5e-3)                 # paid
    parallel._note(key, 2e-3)                   # a miss
    assert not parallel.paused()
    parallel._note(key, 0.5e-3)                 # paid: the count starts again
    parallel._note(key, 2e-3)
    assert not parallel.paused()
    parallel._note(key, 2e-3)                   # the second miss in a row
    assert parallel.paused() and parallel._pause["wait"] == 1e-3


def test_pauses_double_up_to_the_cap_and_a_paying_launch_ends_the_doubling():
    key = ("work", 2)
    parallel.measured(key, 1e-3)
    for _ in range(40):
        parallel._note(key, 5e-3)
    assert parallel._pause["wait"] == parallel.PAUSE_MAX
    parallel._note(key, 0.2e-3)
    assert parallel._pause["wait"] == 0.0


def test_without_a_reference_misses_are_against_the_fastest_launch():
    key = ("work", 3)
    parallel._note(key, 1e-3)
    parallel._note(key, 2e-3)                   # under MISS times the fastest
    parallel._note(key, 2.5e-3)
    assert not parallel.paused()
    parallel._note(key, 4e-3)
    parallel._note(key, 4e-3)
    assert parallel.paused()


def test_short_launches_are_never_misses():
    key = ("work", 4)
    parallel.measured(key, 1e-6)
    for _ in range(5):
        parallel._note(key, parallel.MIN_SECONDS / 2)
    assert not parallel.paused()
