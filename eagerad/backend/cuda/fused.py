"""cuda backend: the fused LSTM scan, as a documented host fallback.

The scan is a loop of small (N, 4H) steps, each a GEMM and a few elementwise passes; on
the GPU that is a launch-bound loop either way, and a persistent-kernel LSTM is a project
of its own.  Until one exists, ``lstm_scan`` and ``lstm_scan_backward`` copy their operands
to the host, run the CPU kernels and copy the results back: the same numbers as the CPU,
correct on every device, and one graph node instead of ~30 per step.  Every name in
``__all__`` becomes ``B.<name>``.
"""
from ..cpu import fused as _cpu

__all__ = ["lstm_scan", "lstm_scan_backward"]


def _host(fn, *arrays):
    from . import from_numpy, to_numpy
    out = fn(*(to_numpy(a) for a in arrays))
    return tuple(from_numpy(o) for o in out) if isinstance(out, tuple) else from_numpy(out)


def lstm_scan(xw, h0, c0, w_hh, b_hh):
    """``cpu.fused.lstm_scan`` on device arrays (through the host)."""
    return _host(_cpu.lstm_scan, xw, h0, c0, w_hh, b_hh)


def lstm_scan_backward(grad, out, h0, c0, w_hh):
    """``cpu.fused.lstm_scan_backward`` on device arrays (through the host)."""
    return _host(_cpu.lstm_scan_backward, grad, out, h0, c0, w_hh)
