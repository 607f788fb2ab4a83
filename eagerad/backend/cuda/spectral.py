"""cuda backend: complex-number and Fourier-transform kernels.

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``).
Until a cuFFT binding is in the ``cuda`` extra, each is a documented host round trip
(as ``linalg``): the operands are copied to the host, the CPU backend's kernel runs
there, and the results are copied back.  The numbers are the CPU backend's; the cost
is two transfers.
"""
from .. import cpu
from .linalg import on_host

__all__ = list(cpu.spectral.__all__)

globals().update({name: on_host(name, cpu.spectral) for name in __all__})
