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
"""
from ..cpu import fused as _cpu

__all__ = ["lstm_scan", "lstm_scan_backward", "max_pool", "max_pool_gather", "max_pool_scatter",
           "gelu", "gelu_backward", "max_pool_argmax", "pool_take", "pool_put",
           "layer_norm", "layer_norm_backward", "softmax_inplace", "softmax_backward",
           "conv2d_gemm", "conv2d_gemm_grad_input", "conv2d_gemm_grad_weight"]


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
    """No fused GELU gradient on CUDA yet: None, so the differentiable rule runs."""
    return None


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
    """The CUDA backend's own ``softmax`` (the buffer reuse is the CPU's concern)."""
    from . import softmax
    return softmax(x, axis)


def softmax_backward(g, ans, axis):
    """``ans * (g - sum(g * ans, axis))`` with the CUDA backend's own kernels."""
    from . import binary, reduce
    return binary("mul", ans, binary("sub", g, reduce("sum", binary("mul", g, ans), (axis,), True)))


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
