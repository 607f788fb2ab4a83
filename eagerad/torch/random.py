"""``torch.random``: the global generator's seed and state, and ``fork_rng``.

>>> import eagerad.torch as torch
>>> with torch.random.fork_rng():
...     a = torch.rand(1)
>>> b = torch.rand(1); bool((a == b).all())
True
"""
import contextlib

from ._random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state  # noqa: F401


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Draws inside the block leave the global generator where it was."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
