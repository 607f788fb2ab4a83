"""``torch.backends.mps``: eagerad has no Metal backend.

>>> import eagerad.torch as torch
>>> torch.backends.mps.is_available(), torch.backends.mps.is_built()
(False, False)
"""


def is_available():
    """False: no Apple-GPU backend."""
    return False


def is_built():
    """False: no Apple-GPU backend."""
    return False
