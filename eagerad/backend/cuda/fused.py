"""cuda backend: the fused LSTM scan and max-pooling, as a documented host fallback.

The scan is a loop of small (N, 4H) steps, each a GEMM and a few elementwise passes; on
the GPU that is a launch-bound loop either way, and a persistent-kernel LSTM is a project
of its own.  Until one exists, ``lstm_scan`` and ``lstm_scan_backward`` copy their operands
to the host, run the CPU kernels and copy the results back: the same numbers as the CPU,
correct on every device, and one graph node instead of ~30 per step.  The max-pooling
ops (a window scan each, and the indexed take/put of ``max_pool_argmax``) and the
fused layer normalisation take the same route until a one-thread-per-window kernel is
written.  Every name in
``__all__`` becomes ``B.<name>``.

The first-order gradients that have device kernels of their own: softmax's and
log_softmax's (``rows``: one launch per call), GELU's (``g * gelu'(x)`` in float64,
rounded once, as the CPU's) and ``fused_deriv``'s ``g * sin'(x)``, ``g * cos'(x)``
and ``g * d(x**n)/dx`` (the arithmetic of the differentiable rules in one pass, so
the same bits as the rule's kernels).
"""
import math

import numpy as np
from numba import cuda

from .. import formulas
from ..cpu import fused as _cpu
from . import rows

__all__ = ["lstm_scan", "lstm_scan_backward", "max_pool", "max_pool_gather", "max_pool_scatter",
           "gelu", "gelu_backward", "max_pool_argmax", "pool_take", "pool_put",
           "layer_norm", "layer_norm_backward", "softmax_inplace", "softmax_backward",
           "conv2d_gemm", "conv2d_gemm_grad_input", "conv2d_gemm_grad_weight",
           "log_softmax_backward"]


def _host(fn, *arrays):
    from . import from_numpy, to_numpy
    out = fn(*(to_numpy(a) for a in arrays))
    return tuple(from_numpy(o) for o in out) if isinstance(out, tuple) else from_numpy(out)


def lstm_scan(xw, h0, c0, w_hh, b_hh, reverse=False):
    """``cpu.fused.lstm_scan`` on device arrays (through the host: the gates stay there,
    the backward recomputes them)."""
    return _host(lambda *a: _cpu.lstm_scan(*a, reverse), xw, h0, c0, w_hh, b_hh)


def lstm_scan_cell(hs, xw, h0, c0, w_hh, b_hh, reverse=False):
    """``cpu.fused.lstm_scan_cell`` on device arrays (through the host, recomputed)."""
    return _host(lambda *a: _cpu.lstm_scan_cell(None, *a, reverse), xw, h0, c0, w_hh, b_hh)


def lstm_scan_backward(g_h, g_c, hs, xw, h0, c0, w_hh, b_hh, reverse=False):
    """``cpu.fused.lstm_scan_backward`` on device arrays (through the host)."""
    def run(g, *a):
        return _cpu.lstm_scan_backward(None if g_h is None else g, None if g_c is None else g,
                                       None, *a, reverse)
    return _host(run, g_h if g_h is not None else g_c, xw, h0, c0, w_hh, b_hh)


def rnn_scan(xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """``cpu.fused.rnn_scan`` on device arrays (through the host)."""
    return _host(lambda *a: _cpu.rnn_scan(*a, relu, reverse), xw, h0, w_hh, b_hh)


def rnn_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """``cpu.fused.rnn_scan_backward`` on device arrays (through the host)."""
    return _host(lambda *a: _cpu.rnn_scan_backward(*a, relu, reverse), g_h, hs, xw, h0, w_hh,
                 b_hh)


def gru_scan(xw, h0, w_hh, b_hh, reverse=False):
    """``cpu.fused.gru_scan`` on device arrays (through the host: the gates stay there,
    the backward recomputes them)."""
    return _host(lambda *a: _cpu.gru_scan(*a, reverse), xw, h0, w_hh, b_hh)


def gru_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, reverse=False):
    """``cpu.fused.gru_scan_backward`` on device arrays (through the host)."""
    return _host(lambda g, *a: _cpu.gru_scan_backward(g, None, *a, reverse), g_h, xw, h0, w_hh,
                 b_hh)


__all__ += ["lstm_scan_cell", "rnn_scan", "rnn_scan_backward", "gru_scan", "gru_scan_backward"]


def max_pool(x, geometry):
    """``cpu.fused.max_pool`` on a device array (through the host)."""
    return _host(lambda a: _cpu.max_pool(a, geometry), x)


def max_pool_gather(t, x, geometry):
    """``cpu.fused.max_pool_gather`` on device arrays (through the host)."""
    return _host(lambda a, b: _cpu.max_pool_gather(a, b, geometry), t, x)


def max_pool_scatter(g, x, geometry):
    """``cpu.fused.max_pool_scatter`` on device arrays (through the host)."""
    return _host(lambda a, b: _cpu.max_pool_scatter(a, b, geometry), g, x)


def gelu(x, approximate):
    """GELU on the device: the generic formula kernel (``special_unary``)."""
    from .special import special_unary
    return special_unary("gelu" if approximate == "none" else "gelu_tanh", x)


def gelu_backward(g, x, approximate):
    """``g * gelu'(x)`` in one kernel (float64 inside, rounded once), for float ``g`` and
    ``x`` of one dtype and shape; None otherwise, so the differentiable rule runs."""
    if not _same_floats(g, x):
        return None
    return _pointwise("gelu_tanh" if approximate != "none" else "gelu", g, x)


def max_pool_argmax(x, geometry):
    """``cpu.fused.max_pool_argmax`` on a device array (through the host)."""
    return _host(lambda a: _cpu.max_pool_argmax(a, geometry), x)


def pool_take(src, idx, fill):
    """``cpu.fused.pool_take`` on device arrays (through the host)."""
    return _host(lambda a, i: _cpu.pool_take(a, i, fill), src, idx)


def pool_put(src, idx, size):
    """``cpu.fused.pool_put`` on device arrays (through the host)."""
    return _host(lambda a, i: _cpu.pool_put(a, i, size), src, idx)


def layer_norm(x, w, b, eps):
    """``cpu.fused.layer_norm`` on device arrays (through the host)."""
    return _host(lambda a, c, d: _cpu.layer_norm(a, c, d, eps), x, w, b)


def layer_norm_backward(g, x, w, eps):
    """``cpu.fused.layer_norm_backward`` on device arrays (through the host)."""
    return _host(lambda a, c, d: _cpu.layer_norm_backward(a, c, d, eps), g, x, w)


def softmax_inplace(x, axis):
    """Softmax in one launch (``rows.softmax``; the buffer reuse is the CPU's concern)."""
    return rows.softmax(x, axis)


def softmax_backward(g, ans, axis):
    """``ans * (g - sum(g * ans, axis))`` in one launch (``rows``)."""
    return rows.softmax_backward(g, ans, axis)


def log_softmax_backward(g, ans, axis):
    """``g - exp(ans) * sum(g, axis)`` in one launch (``rows``)."""
    return rows.log_softmax_backward(g, ans, axis)


def conv2d_gemm(x, w, b, geometry):
    """``cpu.fused.conv2d_gemm`` through the host (``ops.convolution`` sends CUDA tensors
    through its op-by-op path, whose unfold/fold have kernels here)."""
    if b is None:
        return _host(lambda a, c: _cpu.conv2d_gemm(a, c, None, geometry), x, w)
    return _host(lambda a, c, d: _cpu.conv2d_gemm(a, c, d, geometry), x, w, b)


def conv2d_gemm_grad_input(g, w, size, geometry):
    """``cpu.fused.conv2d_gemm_grad_input`` through the host."""
    return _host(lambda a, c: _cpu.conv2d_gemm_grad_input(a, c, size, geometry), g, w)


def conv2d_gemm_grad_weight(g, x, shape, geometry):
    """``cpu.fused.conv2d_gemm_grad_weight`` through the host."""
    return _host(lambda a, c: _cpu.conv2d_gemm_grad_weight(a, c, shape, geometry), g, x)


def attention_forward(q, k, v, scale, mask):
    """``cpu.fused.attention_forward`` through the host (``ops/attention.py`` sends CUDA
    tensors through its op-by-op composition, which has kernels here)."""
    return _host(lambda a, b, c: _cpu.attention_forward(a, b, c, scale, mask), q, k, v)


def attention_backward(g, q, k, v, scale, mask):
    """``cpu.fused.attention_backward`` through the host."""
    return _host(lambda a, b, c, d: _cpu.attention_backward(a, b, c, d, scale, mask), g, q, k, v)


__all__ += ["attention_forward", "attention_backward"]


# ------------------------------------------------ one-pass first-order gradients
# Scalar rules ``(g, x, p, q) -> input gradient``; ``p``, ``q`` are the op's parameters in
# the operands' dtype.


def _gelu_slope(x, tanh_form):
    v = np.float64(x)
    if tanh_form:
        t = math.tanh(0.7978845608028654 * (v + 0.044715 * v * v * v))
        return 0.5 * (1 + t) + 0.5 * v * (1 - t * t) * 0.7978845608028654 * \
            (1 + 3 * 0.044715 * v * v)
    return 0.5 * math.erfc(-v * formulas.SQRT1_2) + v * math.exp(-0.5 * v * v) * \
        0.3989422804014327


_gelu_slope_dev = cuda.jit(device=True)(_gelu_slope)

_RULES = {
    "sin": lambda g, x, p, q: math.cos(x) * g,               # _sin_fast: cos(x) * g
    "cos": lambda g, x, p, q: -g * math.sin(x),              # _cos_fast: (-g) * sin(x)
    "pow": lambda g, x, p, q: (g * p) * x ** q,              # (g * n) * x ** (n - 1)
    "gelu": lambda g, x, p, q: np.float64(g) * _gelu_slope_dev(x, False),
    "gelu_tanh": lambda g, x, p, q: np.float64(g) * _gelu_slope_dev(x, True),
}
_kernels = {}


def _kernel(name):
    k = _kernels.get(name)
    if k is None:
        fn = cuda.jit(device=True)(_RULES[name])

        @cuda.jit
        def k(out, g, x, p, q):
            for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
                out[i] = fn(g[i], x[i], p, q)
        _kernels[name] = k
    return k


def _same_floats(g, x):
    return hasattr(g, "copy_to_host") and hasattr(x, "copy_to_host") and g.dtype == x.dtype \
        and g.shape == x.shape and x.dtype.kind == "f"


def _pointwise(name, g, x, p=0, q=0):
    from . import _empty, _flat, _run
    out = _empty(x.shape, x.dtype)
    t = x.dtype.type
    _run(_kernel(name), x.size, _flat(out), _flat(g), _flat(x), t(p), t(q))
    return out


def fused_deriv(op, g, x, n=None):
    """``g * op'(x)`` in one pass for ``sin``, ``cos`` and ``pow`` by a number ``n``
    (float32/float64 ``g`` and ``x`` of one shape), with the arithmetic of the rules'
    separate kernels, so the same bits; None elsewhere (the caller runs the rule)."""
    if op not in ("sin", "cos", "pow") or not _same_floats(g, x) or x.dtype == np.float16:
        return None
    if op == "pow":
        if isinstance(n, bool) or not isinstance(n, (int, float)):
            return None
        return _pointwise("pow", g, x, n, n - 1)
    return _pointwise(op, g, x)
