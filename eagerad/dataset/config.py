"""``mindspore.dataset.config``: the seed of the data pipeline's randomness.

Shuffles and random transforms (``RandomCrop``, ``RandomHorizontalFlip``) draw from one
generator.  ``set_seed(n)`` makes them reproducible; without it they follow numpy's global
state, which ``eagerad.set_seed`` seeds.

>>> set_seed(7); get_seed()
7
>>> a = generator().integers(1000); set_seed(7); bool(a == generator().integers(1000))
True
"""
import numpy as np

_STATE = {"seed": None, "rng": None}


def set_seed(seed):
    """Seed the pipeline's shuffles and random transforms.

    >>> set_seed(1)
    """
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 32:
        raise ValueError(f"set_seed: seed must be an int in [0, 2**32), got {seed!r}")
    _STATE["seed"], _STATE["rng"] = int(seed), np.random.default_rng(int(seed))


def get_seed():
    """The seed given to ``set_seed`` (None before any).

    >>> set_seed(3); get_seed()
    3
    """
    return _STATE["seed"]


def generator():
    """The generator shuffles and random transforms draw from.

    >>> 0 <= float(generator().random()) < 1
    True
    """
    if _STATE["rng"] is None:
        return np.random.default_rng(np.random.randint(0, 2 ** 31))
    return _STATE["rng"]
