"""cpu backend: one recurrent layer's recurrence over a whole sequence, forward and
backward one call each: the LSTM (``ops/recurrent.py``'s ``lstm_scan`` and
``lstm_scan_cell``), the GRU (``gru_scan``) and the Elman RNN (``rnn_scan``).

The forward writes one buffer per layer: the hidden states ``hs`` (L, N, H) first (the
op's output, contiguous, so the next layer's input projection reads it as is) and behind
them, per step, the gates (N, 4H), ``c`` and ``tanh c`` (N, H) for the backward, each
contiguous.  ``hs`` is a view of that buffer, so the backward finds the gates through
``hs.base`` (``saved_state``); an ``hs`` without them (copied to another device and
back) has them recomputed.  Each step is one BLAS product and, in float32, one Numba
call for all the rest (``recurrent_kernels.step_float32``, vectorised exp/tanh).  In
float64 the product uses the negated weights (it yields ``-z``, so the sigmoid is ``1 /
(1 + exp(-z))`` without a negation pass), numpy's SIMD passes give ``exp``/``tanh`` over
whole blocks and one Numba pass the rest (``recurrent_kernels.gate_math``).  The backward's
arithmetic is one Numba pass per step (``recurrent_kernels.cell_backward``) and one
product per step; the weight gradient is two products over the whole sequence.  The GRU
keeps ``r, z, n`` and ``h @ W_hn.T + b_hn`` behind its output the same way; the Elman
RNN needs nothing but its output (the activation's slope is a function of it).

>>> xw, h0 = np.zeros((3, 2, 8)), np.zeros((2, 2))
>>> hs = scan(xw, h0, h0, np.zeros((8, 2)), np.zeros(8))
>>> hs.shape, saved_state(hs).shape
((3, 2, 2), (3, 24))
"""
import numpy as np

from . import pool, threads


def _buffers(steps, n, size, dtype, extra=6):
    flat = pool.empty((steps * n * (1 + extra) * size,), dtype)
    head = steps * n * size
    return flat[:head].reshape(steps, n, size), flat[head:].reshape(steps, n * extra * size)


def _step_views(block, n, size):
    """A step's saved ``gates`` (N, 4H) (i, f, g, o after their sigmoid/tanh), ``c`` and
    ``tanh c`` (N, H), each contiguous, from its block of the saved state."""
    cut = n * 4 * size
    return (block[:cut].reshape(n, 4 * size), block[cut:cut + n * size].reshape(n, size),
            block[cut + n * size:].reshape(n, size))


def saved_state(hs, extra=6):
    """The per-step gates, ``c`` and ``tanh c`` (L, N * 6H, ``_step_views`` splits a
    step's block) that ``scan`` stored behind its output ``hs``, or None when ``hs`` is
    not such an output (``extra``: the values per unit and step kept; ``gru_scan``
    keeps 4).

    >>> saved_state(np.zeros((2, 1, 3))) is None
    True
    """
    base = hs.base if type(hs) is np.ndarray else None
    if base is None or hs.ndim != 3 or hs.size == 0 or not hs.flags.c_contiguous \
            or not base.flags.c_contiguous:
        return None
    if base.__array_interface__["data"][0] != hs.__array_interface__["data"][0] \
            or base.nbytes < (1 + extra) * hs.nbytes:
        return None
    flat = base.reshape(-1).view(np.uint8)[:(1 + extra) * hs.nbytes].view(hs.dtype)
    return flat[hs.size:].reshape(hs.shape[0], -1)


def _order(steps, reverse):
    return range(steps - 1, -1, -1) if reverse else range(steps)


def scan(xw, h0, c0, w_hh, b_hh, reverse=False):
    """The hidden states (L, N, H) of an LSTM layer: ``xw`` (L, N, 4H) is ``x_t @ W_ih.T +
    b_ih`` for every step, gates (input, forget, cell, output) as PyTorch orders them;
    ``reverse`` runs from the last step to the first (the backward direction of a
    bidirectional layer).  The gates stay behind the result (``saved_state``).

    >>> hs = scan(np.ones((1, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((4, 1)), np.zeros(4))
    >>> round(float(hs[0, 0, 0]), 4)      # sigmoid(1) * tanh(sigmoid(1) * tanh(1))
    0.3696
    """
    steps, n, four = xw.shape
    size = four // 4
    dtype = np.result_type(xw, h0, c0, w_hh, b_hh)
    hs, rest = _buffers(steps, n, size, dtype)
    if dtype == np.float32 and _kernels(xw, h0, c0, w_hh, b_hh) is not None:
        _scan_float32(hs, rest, xw, h0, c0, w_hh, b_hh, reverse)
        return hs
    neg_w = np.negative(w_hh.T, dtype=dtype)   # h @ -W.T = -(h @ W.T), exactly
    neg_xw = np.subtract(np.negative(b_hh), xw, dtype=dtype)   # -(xw + b_hh), one pass
    g_neg = np.empty((n, size), dtype)
    kernels = _kernels(neg_w, neg_xw, c0, h0)
    unit = np.ones(1, dtype)
    h, c_prev = h0, c0
    with np.errstate(over="ignore"):     # exp(-z) = inf for z < -88 (float32): sigmoid 0
        for t in _order(steps, reverse):
            gates, c, tc = _step_views(rest[t], n, size)
            np.matmul(h, neg_w, out=gates)
            gates += neg_xw[t]               # -z, contiguous: numpy's SIMD loops run whole
            np.tanh(gates[:, 2 * size:3 * size], out=g_neg)
            np.exp(gates, out=gates)         # sigmoid(z) = 1 / (1 + exp(-z))
            if kernels is not None:
                kernels.gate_math(gates, g_neg, c_prev, c, unit)
            else:
                _gate_math(gates, g_neg, c_prev, c, size)
            np.tanh(c, out=tc)
            h = hs[t]
            np.multiply(gates[:, 3 * size:], tc, out=h)
            c_prev = c
    return hs


def _all_steps(rest, n, size):
    """Every step's ``gates`` (L, N, 4H), ``c`` and ``tanh c`` (L, N, H) at once: views of
    the saved state, each step's block contiguous (``_step_views`` of all steps)."""
    cut = n * 4 * size
    return (rest[:, :cut].reshape(-1, n, 4 * size), rest[:, cut:cut + n * size].reshape(-1, n, size),
            rest[:, cut + n * size:].reshape(-1, n, size))


def _scan_float32(hs, rest, xw, h0, c0, w_hh, b_hh, reverse):
    """``scan`` for float32 operands: per step one product and one kernel call
    (``recurrent_kernels.step_float32``) doing the rest of the step."""
    from . import recurrent_kernels
    step = recurrent_kernels.step_float32
    n, size = h0.shape
    xw, b_hh = np.ascontiguousarray(xw), np.ascontiguousarray(b_hh)
    w_t = np.ascontiguousarray(w_hh.T)
    gates, cells, tanh_c = _all_steps(rest, n, size)
    h, c_prev = np.ascontiguousarray(h0), np.ascontiguousarray(c0)
    product = _step_product(h, w_t, gates[0])
    for t in _order(xw.shape[0], reverse):
        g = gates[t]
        product(h, w_t, g)
        h = hs[t]
        step(g, xw[t], b_hh, c_prev, cells[t], tanh_c[t], h)
        c_prev = cells[t]


def _gate_math(gates, g_neg, c_prev, c, size):
    """``recurrent_kernels.gate_math`` as numpy passes (dtypes it does not take)."""
    gates += 1
    np.reciprocal(gates, out=gates)
    g = gates[:, 2 * size:3 * size]
    np.negative(g_neg, out=g)                # tanh(z) = -tanh(-z)
    np.multiply(gates[:, size:2 * size], c_prev, out=c)
    c += gates[:, :size] * g


def _state(hs, xw, h0, c0, w_hh, b_hh, reverse):
    """``(hs, saved_state(hs))``, recomputing both when ``hs`` lost its gates."""
    rest = None if hs is None else saved_state(hs)
    if rest is None:
        hs = scan(xw, h0, c0, w_hh, b_hh, reverse)
        rest = saved_state(hs)
    return hs, rest


def last_cell(hs, xw, h0, c0, w_hh, b_hh, reverse=False):
    """The final cell state (N, H) of the scan whose output is ``hs`` (read from its saved
    state, or recomputed when ``hs`` is None or carries none); the last step in the
    direction of the scan.

    >>> args = np.ones((2, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((4, 1)), np.zeros(4)
    >>> float(last_cell(None, *args)[0, 0]) == float(saved_state(scan(*args))[1, 4])
    True
    """
    if xw.shape[0] == 0:
        return np.array(c0, np.result_type(xw, h0, c0, w_hh, b_hh))
    hs, rest = _state(hs, xw, h0, c0, w_hh, b_hh, reverse)
    n, size = hs.shape[1:]
    return _step_views(rest[0 if reverse else -1], n, size)[1].copy()


def _kernels(*arrays):
    """The Numba cell kernels for float32/float64 operands of one dtype, else None (the
    numpy passes then run)."""
    dtype = arrays[0].dtype
    if dtype.char not in "fd" or any(a.dtype != dtype for a in arrays):
        return None
    from . import recurrent_kernels
    return recurrent_kernels


def scan_backward(g_h, g_c, hs, xw, h0, c0, w_hh, b_hh, reverse=False):
    """Gradients ``(d xw, d h0, d c0, d w_hh, d b_hh)`` of the scan from the gradient
    ``g_h`` (L, N, H) of its output ``hs`` and/or ``g_c`` (N, H) of its final cell state
    (either may be None): one pass back through time, one (N, 4H) @ (4H, H) product per
    step.

    >>> args = np.ones((2, 1, 4)), np.zeros((1, 1)), np.zeros((1, 1)), np.ones((4, 1)), np.zeros(4)
    >>> [a.shape for a in scan_backward(np.ones((2, 1, 1)), None, None, *args)]
    [(2, 1, 4), (1, 1), (1, 1), (4, 1), (4,)]
    """
    steps, n, four = xw.shape
    size = four // 4
    dtype = np.result_type(xw, h0, c0, w_hh, b_hh)
    if steps == 0 or n == 0 or size == 0:         # nothing runs: only c0 reaches c_n
        dc0 = np.zeros((n, size), dtype) if g_c is None or steps else np.array(g_c, dtype)
        return (np.zeros(xw.shape, dtype), np.zeros((n, size), dtype), dc0,
                np.zeros(w_hh.shape, dtype), np.zeros(four, dtype))
    hs, rest = _state(hs, xw, h0, c0, w_hh, b_hh, reverse)
    dz = pool.empty((steps, n, four), dtype)
    dh = np.zeros((n, size), dtype)
    dc = np.zeros((n, size), dtype) if g_c is None else np.array(g_c, dtype)
    g_h = np.zeros((steps, n, size), dtype) if g_h is None else g_h
    kernels = _kernels(g_h, rest, h0, c0, w_hh, dh)
    order = _order(steps, reverse)
    first = order[0]
    if kernels is not None:
        _backward_steps(kernels.cell_backward, np.ascontiguousarray(g_h), rest, dz, dh, dc,
                        c0, w_hh, order)
    for t in reversed(order if kernels is None else ()):
        gates, _, tc = _step_views(rest[t], n, size)
        z = dz[t]
        c_prev = c0 if t == first else _step_views(rest[t + (1 if reverse else -1)], n, size)[1]
        i, f, g, o = (gates[:, k * size:(k + 1) * size] for k in range(4))
        h_bar = dh + g_h[t]
        c_bar = dc + h_bar * o * (1 - tc * tc)
        dc = c_bar * f
        z[:, :size] = c_bar * g * i * (1 - i)
        z[:, size:2 * size] = c_bar * c_prev * f * (1 - f)
        z[:, 2 * size:3 * size] = c_bar * i * (1 - g * g)
        z[:, 3 * size:] = h_bar * tc * o * (1 - o)
        dh = z @ w_hh
    d_w = _weight_grad(dz, hs, h0, reverse)
    return dz, dh, dc, d_w.astype(dtype, copy=False), dz.reshape(-1, four).sum(0)


def _backward_steps(cell_backward, g_h, rest, dz, dh, dc, c0, w_hh, order):
    """``scan_backward``'s pass back through time with the Numba cell kernel: per step
    one kernel call and one product (``dh`` and ``dc`` updated in place, ``dz`` filled)."""
    n, size = dh.shape
    gates, cells, tanh_c = _all_steps(rest, n, size)
    back = 1 if order.step < 0 else -1          # the step before t in the scan's direction
    first = order[0]
    product = _step_product(dz[0], w_hh, dh)
    for t in reversed(order):
        z = dz[t]
        cell_backward(g_h[t], gates[t], tanh_c[t], c0 if t == first else cells[t + back], dh, dc, z)
        product(z, w_hh, dh)


def _step_product(a, b, out):
    """``f(a, b, out)`` writing ``a @ b`` into ``out`` for every step's operands (laid
    out like these): split over threads as ``threads.matmul`` splits it (an LSTM
    step's 16x128 @ 128x512 runs on two), prepared once for the sequence."""
    return threads.product_plan(a, b, out) or _product


def _product(a, b, out):
    if threads.matmul(a, b, out) is None:
        np.matmul(a, b, out=out)


def _weight_grad(d_pre, hs, h0, reverse):
    """The recurrent weight's gradient ``sum_t d_pre_t.T @ h_prev_t`` (``h_prev`` of step
    t is the state of the step before it in the scan's direction, ``h0`` for the first):
    one product over all later steps, split over the pool where large
    (``threads.matmul``, bit-identical to one call), plus the first step's.

    >>> d = np.ones((2, 1, 3)); float(_weight_grad(d, np.ones((2, 1, 2)), np.zeros((1, 2)), False)[0, 0])
    1.0
    """
    later, earlier = (slice(None, -1), slice(1, None)) if reverse else (slice(1, None), slice(None, -1))
    first = d_pre[-1 if reverse else 0].T @ h0 if h0.any() else None   # (h0 = 0: no term)
    if d_pre.shape[0] == 1:
        return first if first is not None else np.zeros((d_pre.shape[-1], h0.shape[-1]),
                                                        np.result_type(d_pre, h0))
    a = d_pre[later].reshape(-1, d_pre.shape[-1]).T
    b = hs[earlier].reshape(-1, hs.shape[-1])
    rest = threads.matmul(a, b)
    rest = a @ b if rest is None else rest
    return rest if first is None else first + rest


def rnn_scan(xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """The hidden states (L, N, H) of an Elman layer, ``h_t = act(xw_t + h_{t-1} @ w_hh.T
    + b_hh)`` with ``act`` tanh (or relu): one product and two passes per step.

    >>> rnn_scan(np.ones((2, 1, 1)), np.zeros((1, 1)), np.ones((1, 1)), np.zeros(1), True)[:, 0, 0].tolist()
    [1.0, 2.0]
    """
    steps, n, size = xw.shape
    dtype = np.result_type(xw, h0, w_hh, b_hh)
    hs = pool.empty((steps, n, size), dtype)
    xwb = np.add(xw, b_hh, dtype=dtype)
    w_t = w_hh.T.astype(dtype, copy=False)
    h = h0
    for t in _order(steps, reverse):
        out = hs[t]
        np.matmul(h, w_t, out=out)
        out += xwb[t]
        if relu:
            np.maximum(out, 0, out=out)
        else:
            np.tanh(out, out=out)
        h = out
    return hs


def rnn_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """Gradients ``(d xw, d h0, d w_hh, d b_hh)`` of ``rnn_scan`` from the gradient
    ``g_h`` of its output ``hs``; the activation's slope comes from ``hs`` itself
    (``1 - h^2``, or ``h > 0``).

    >>> args = np.ones((2, 1, 1)), np.zeros((1, 1)), np.ones((1, 1)), np.zeros(1)
    >>> [float(a.ravel()[0]) for a in rnn_scan_backward(np.ones((2, 1, 1)), rnn_scan(*args, True), *args, True)]
    [2.0, 2.0, 1.0, 3.0]
    """
    steps, n, size = xw.shape
    dtype = hs.dtype
    dpre = pool.empty((steps, n, size), dtype)
    dh = np.zeros((n, size), dtype)
    if steps == 0 or n == 0 or size == 0:
        return (np.zeros(xw.shape, dtype), dh, np.zeros(w_hh.shape, dtype),
                np.zeros(size, dtype))
    order = _order(steps, reverse)
    for t in reversed(order):
        d = dpre[t]
        np.add(g_h[t], dh, out=d)
        h = hs[t]
        if relu:
            d *= h > 0
        else:
            d *= 1 - h * h
        dh = d @ w_hh
    d_w = _weight_grad(dpre, hs, h0, reverse)
    return dpre, dh.astype(dtype, copy=False), d_w.astype(dtype, copy=False), \
        dpre.reshape(-1, size).sum(0)


def gru_scan(xw, h0, w_hh, b_hh, reverse=False):
    """The hidden states (L, N, H) of a GRU layer: ``xw`` (L, N, 3H) is ``x_t @ W_ih.T +
    b_ih`` for every step, gates (reset, update, new) as PyTorch's, ``n = tanh(xw_n + r *
    (h @ W_hn.T + b_hn))`` and ``h' = (1 - z) * n + z * h``.  Kept behind the result per
    step (``saved_state(hs, 4)``): ``r, z, n`` and ``h @ W_hn.T + b_hn``, (N, H) each.

    >>> gru_scan(np.zeros((1, 1, 3)), np.ones((1, 1)), np.zeros((3, 1)), np.zeros(3)).tolist()
    [[[0.5]]]
    """
    steps, n, three = xw.shape
    size = three // 3
    dtype = np.result_type(xw, h0, w_hh, b_hh)
    hs, rest = _buffers(steps, n, size, dtype, 4)
    w_t = w_hh.T.astype(dtype, copy=False)
    hw = np.empty((n, three), dtype)
    h = h0
    if dtype == np.float32 and _kernels(xw, h0, w_hh, b_hh) is not None:
        from .recurrent_kernels import gru_step_float32
        xw, b_hh, h = np.ascontiguousarray(xw), np.ascontiguousarray(b_hh), np.ascontiguousarray(h0)
        blocks = rest.reshape(steps, n, 4 * size)
        for t in _order(steps, reverse):
            np.matmul(h, w_t, out=hw)
            gru_step_float32(hw, b_hh, xw[t], h, blocks[t], hs[t])
            h = hs[t]
        return hs
    with np.errstate(over="ignore"):
        for t in _order(steps, reverse):
            block = rest[t].reshape(n, 4 * size)       # [r, z, n, hn] of the step
            np.matmul(h, w_t, out=hw)
            hw += b_hh
            rz = block[:, :2 * size]
            np.add(xw[t, :, :2 * size], hw[:, :2 * size], out=rz)
            np.negative(rz, out=rz)
            np.exp(rz, out=rz)
            rz += 1
            np.reciprocal(rz, out=rz)
            hn = block[:, 3 * size:]
            hn[...] = hw[:, 2 * size:]
            new = block[:, 2 * size:3 * size]
            np.multiply(block[:, :size], hn, out=new)
            new += xw[t, :, 2 * size:]
            np.tanh(new, out=new)
            out = hs[t]
            np.subtract(1, block[:, size:2 * size], out=out)    # (1 - z) * n + z * h
            out *= new
            out += block[:, size:2 * size] * h
            h = out
    return hs


def gru_scan_backward(g_h, hs, xw, h0, w_hh, b_hh, reverse=False):
    """Gradients ``(d xw, d h0, d w_hh, d b_hh)`` of ``gru_scan`` from the gradient ``g_h``
    of its output ``hs`` (the gates recomputed when ``hs`` does not carry them).

    >>> args = np.zeros((1, 1, 3)), np.ones((1, 1)), np.zeros((3, 1)), np.zeros(3)
    >>> [a.ravel().tolist() for a in gru_scan_backward(np.ones((1, 1, 1)), None, *args)]
    [[0.0, 0.25, 0.5], [0.5], [0.0, 0.25, 0.25], [0.0, 0.25, 0.25]]
    """
    steps, n, three = xw.shape
    size = three // 3
    dtype = np.result_type(xw, h0, w_hh, b_hh)
    if steps == 0 or n == 0 or size == 0:
        return (np.zeros(xw.shape, dtype), np.zeros((n, size), dtype),
                np.zeros(w_hh.shape, dtype), np.zeros(three, dtype))
    rest = None if hs is None else saved_state(hs, 4)
    if rest is None:
        hs = gru_scan(xw, h0, w_hh, b_hh, reverse)
        rest = saved_state(hs, 4)
    d_xw = pool.empty((steps, n, three), dtype)
    d_hw = pool.empty((steps, n, three), dtype)
    dh = np.zeros((n, size), dtype)
    order = _order(steps, reverse)
    first = order[0]
    if _kernels(g_h, rest, h0, w_hh, dh) is not None:
        from .recurrent_kernels import gru_cell_backward
        g_h, h0 = np.ascontiguousarray(g_h), np.ascontiguousarray(h0)
        blocks, product = rest.reshape(steps, n, 4 * size), np.empty((n, size), dtype)
        for t in reversed(order):
            gru_cell_backward(g_h[t], dh, blocks[t], h0 if t == first else hs[t + (1 if reverse else -1)],
                              d_xw[t], d_hw[t])
            dh += np.matmul(d_hw[t], w_hh, out=product)
        order = ()
    for t in reversed(order):
        r, z, new, hn = (rest[t].reshape(n, 4 * size)[:, k * size:(k + 1) * size]
                         for k in range(4))
        h_prev = h0 if t == first else hs[t + (1 if reverse else -1)]
        dx, dw = d_xw[t], d_hw[t]
        h_bar = dh + g_h[t]
        d_new = h_bar * (1 - z) * (1 - new * new)
        dx[:, 2 * size:] = d_new
        dw[:, 2 * size:] = d_new * r
        dx[:, :size] = d_new * hn * r * (1 - r)
        dx[:, size:2 * size] = h_bar * (h_prev - new) * z * (1 - z)
        dw[:, :2 * size] = dx[:, :2 * size]
        dh = h_bar * z + dw @ w_hh
    d_w = _weight_grad(d_hw, hs, h0, reverse)
    return (d_xw, dh.astype(dtype, copy=False), d_w.astype(dtype, copy=False),
            d_hw.reshape(-1, three).sum(0))
