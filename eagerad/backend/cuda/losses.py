"""cuda backend: cross-entropy over class indices through the host (the CPU's Numba
kernels, the same numbers) until a row kernel is written.  Every name in ``__all__``
becomes ``B.<name>``."""
from ..cpu import losses as _cpu
from .fused import _host

__all__ = ["cross_entropy_index", "cross_entropy_index_backward", "embedding_rows"]


def cross_entropy_index(x, t, w, ignore_index, label_smoothing, reduction, keep=None):
    """``cpu.losses.cross_entropy_index`` on device arrays (through the host; nothing is
    kept in ``keep``: the backward computes its exponentials again)."""
    if w is None:
        return _host(lambda a, b: _cpu.cross_entropy_index(a, b, None, ignore_index,
                                                           label_smoothing, reduction), x, t)
    return _host(lambda a, b, c: _cpu.cross_entropy_index(a, b, c, ignore_index,
                                                          label_smoothing, reduction), x, t, w)


def cross_entropy_index_backward(g, x, t, w, ignore_index, label_smoothing, reduction,
                                 kept=None):
    """``cpu.losses.cross_entropy_index_backward`` on device arrays (through the host)."""
    def run(gh, a, b, *c):
        return _cpu.cross_entropy_index_backward(gh, a, b, c[0] if c else None, ignore_index,
                                                 label_smoothing, reduction)
    return _host(run, g, x, t, *(() if w is None else (w,)))


def embedding_rows(w, idx):
    """The rows of ``w`` picked by ``idx``: the backend's advanced indexing on the device."""
    from . import getitem
    return getitem(w, (idx,))
