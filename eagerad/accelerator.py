"""PyTorch's ``torch.accelerator``: which accelerator (if any) eagerad can use.

eagerad's only accelerator is CUDA (numba-cuda); these never raise.

>>> import eagerad
>>> eagerad.accelerator.is_available() == eagerad.cuda.is_available()
True
"""
from . import cuda
from .device import Device


def is_available():
    """Whether an accelerator (a usable CUDA GPU) is present.

    >>> isinstance(is_available(), bool)
    True
    """
    return cuda.is_available()


def current_accelerator(check_available=False):
    """The accelerator as a device (``.type == 'cuda'``), or None without one.

    >>> acc = current_accelerator(); acc is None or acc.type == 'cuda'
    True
    """
    return Device("cuda") if is_available() else None


def device_count():
    """How many accelerators there are (0 without one).

    >>> device_count() >= 0
    True
    """
    return cuda.device_count()


def synchronize(device=None):
    """Wait for queued accelerator work (a no-op without one).

    >>> synchronize()
    """
    cuda.synchronize(device)
