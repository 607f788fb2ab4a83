"""PyTorch's ``torch.cuda`` questions, answered for eagerad's CUDA backend.

``is_available()`` is True only when numba-cuda finds a usable GPU (or Numba's CUDA
simulator is switched on with ``NUMBA_ENABLE_CUDASIM=1``); it never raises.

>>> import eagerad
>>> eagerad.cuda.is_available() in (True, False)
True
"""
from .context import cuda_problem
from .tensor import manual_seed as _manual_seed


def is_available():
    """Whether tensors can be put on ``'cuda'``.

    >>> isinstance(is_available(), bool)
    True
    """
    return cuda_problem() is None


def device_count():
    """How many CUDA devices numba-cuda sees (0 without a usable GPU).

    >>> device_count() >= 0
    True
    """
    if not is_available():
        return 0
    from numba import cuda
    return len(cuda.gpus)


def synchronize(device=None):
    """Wait for all queued GPU work (a no-op without a GPU).

    >>> synchronize()
    """
    if is_available():
        from numba import cuda
        cuda.synchronize()


def manual_seed(seed):
    """Seed the random numbers drawn for CUDA tensors (they come from eagerad's one
    generator, shared with the CPU, so this is ``eagerad.manual_seed``).

    >>> manual_seed(0)
    """
    _manual_seed(seed)


manual_seed_all = manual_seed
