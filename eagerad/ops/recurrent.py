"""Fused recurrences: an LSTM layer's scan over time as one op (``lstm_scan``).

Run op by op, an LSTM step records ~30 nodes (two linears, four slices, sigmoid/tanh,
the cell update), so a 2-layer, 32-step layer is ~2000 nodes and as many Python
dispatches each way.  ``lstm_scan`` takes the input projections of every step at once
(``x @ W_ih.T + b_ih``, one big matmul done by the caller) and runs the recurrence in
one backend call (``B.lstm_scan``); its first-order backward is one call too
(``B.lstm_scan_backward``).  Two ops make it: ``lstm_scan`` gives the hidden states
(L, N, H), which the next layer reads as they are (no slicing node, whose gradient would
be a zero-filled scatter), and ``lstm_scan_cell`` the final cell state, read from the
gates the scan kept behind its output (a second scan only where that output came from
elsewhere).  A graph that differentiates both runs the backward scan once for each.

Higher order: the vjp rules re-run the recurrence op by op and differentiate that, so a
graph of the backward (``create_graph``) is an ordinary differentiable graph; the jvp
rules push tangents through the linearised cell.

>>> import eagerad
>>> xw = eagerad.zeros(5, 2, 12)                   # L=5, N=2, H=3
>>> h0 = eagerad.zeros(2, 3)
>>> out, (h, c) = lstm_scan(xw, h0, h0, eagerad.zeros(12, 3), eagerad.zeros(12))
>>> out.shape, h.shape, c.shape
((5, 2, 3), (2, 3), (2, 3))
"""
import threading

from .math import sigmoid, tanh
from .registry import Case, U, defop, loop_batch, move_batch
from .shape import broadcast_to, concat, stack


def _gates(z, size):
    return (z[..., k * size:(k + 1) * size] for k in range(4))


def scan_by_ops(xw, h0, c0, w_hh, b_hh, reverse=False):
    """The recurrence written op by op (the differentiable reference the fused ops'
    higher-order rules differentiate): per step ``[h, c, i, f, g, o]`` (L, N, 6H), in the
    order of ``xw``'s steps.

    >>> h0 = eagerad.zeros(1, 1)
    >>> scan_by_ops(eagerad.ones(2, 1, 4), h0, h0, eagerad.zeros(4, 1), eagerad.zeros(4)).shape
    (2, 1, 6)
    """
    from .losses import linear
    if reverse:
        return scan_by_ops(xw.flip(0), h0, c0, w_hh, b_hh).flip(0)
    size = h0.shape[-1]
    h, c = h0, c0
    rows = []
    for t in range(xw.shape[0]):
        zi, zf, zg, zo = _gates(xw[t] + linear(h, w_hh, b_hh), size)
        i, f, g, o = sigmoid(zi), sigmoid(zf), tanh(zg), sigmoid(zo)
        c = f * c + i * g
        h = o * tanh(c)
        rows.append(concat([h, c, i, f, g, o], -1))
    return stack(rows, 0)


def _pick(rows, cell, reverse):
    """From ``scan_by_ops``'s rows: the hidden states, or (``cell``) the final c."""
    size = rows.shape[-1] // 6
    return rows[0 if reverse else -1, :, size:2 * size] if cell else rows[..., :size]


def _vjp(k, cell):
    def rule(g, ans, xw, h0, c0, w_hh, b_hh, *carrier, reverse=False):
        from ..autograd import enable_grad, grad
        args = (xw, h0, c0, w_hh, b_hh)
        with enable_grad():
            out = _pick(scan_by_ops(*args, reverse), cell, reverse)
        return grad(out, args[k], g, create_graph=True)[0]
    return rule


def _tangent_rows(k, t, rows, xw, h0, c0, w_hh, b_hh):
    """Tangent of ``scan_by_ops``'s rows (forward order) from argument ``k``'s tangent
    ``t``: the linearised cell, step by step, reading the gates from ``rows``."""
    from .losses import linear
    size = h0.shape[-1]
    dh = t if k == 1 else None
    dc = t if k == 2 else None
    out = []
    for s in range(rows.shape[0]):
        h_prev = h0 if s == 0 else rows[s - 1, :, :size]
        c_prev = c0 if s == 0 else rows[s - 1, :, size:2 * size]
        row = rows[s]
        c = row[:, size:2 * size]
        i, f, g, o = _gates(row[:, 2 * size:], size)
        dz = t[s] if k == 0 else linear(h_prev, t) if k == 3 else t if k == 4 else None
        if dh is not None:
            dz = linear(dh, w_hh) if dz is None else dz + linear(dh, w_hh)
        if dz is None:                       # only c0 moves: the gates stay put
            di = df = dg = do = 0 * i
        else:
            zi, zf, zg, zo = _gates(dz, size)
            di, df, dg, do = zi * i * (1 - i), zf * f * (1 - f), zg * (1 - g * g), zo * o * (1 - o)
        dc = df * c_prev + di * g + i * dg + (0 if dc is None else f * dc)
        tc = tanh(c)
        dh = do * tc + o * (1 - tc * tc) * dc
        out.append(concat([dh, dc, di, df, dg, do], -1))
    return stack(out, 0)


def _jvp(k, cell):
    def rule(t, ans, xw, h0, c0, w_hh, b_hh, *carrier, reverse=False):
        """Output tangent from argument ``k``'s tangent ``t`` (the gates recomputed op by
        op: the fused output keeps them as bare arrays)."""
        if reverse:
            xw = xw.flip(0)
            t = t.flip(0) if k == 0 else t
        rows = scan_by_ops(xw, h0, c0, w_hh, b_hh)
        tangent = _tangent_rows(k, t, rows, xw, h0, c0, w_hh, b_hh)
        return _pick(tangent, cell, False) if cell or not reverse else \
            _pick(tangent, False, False).flip(0)
    return rule


def _array_rule(k, last, backward):
    """Array rule for argument ``k`` of a scan op: one backend call ``backward(B, g, ans,
    args, kw) -> (hs, thunk)`` gives all the node's gradients (``thunk()``), and the rules
    of its other arguments reuse them; rule ``last`` runs last on every node (the bias
    always wants a gradient) and drops them."""
    def rule(B, g, ans, *args, **kw):
        hs, run = backward(B, g, ans, args, kw)
        held = _LAST.__dict__
        if held.get("g") is not g or held.get("hs") is not hs:
            held.update(g=g, hs=hs, grads=run())
        grads = held["grads"]
        if k == last:
            held.clear()
        return grads[k]
    return rule


# per thread: (g, hs, gradients) of the node whose rules are running (``g`` and ``hs``
# are held, so their identity names that node's call)
_LAST = threading.local()


def _lstm_backward(cell):
    def backward(B, g, ans, args, kw):
        hs = args[5] if cell else ans
        return hs, lambda: B.lstm_scan_backward(None if cell else g, g if cell else None, hs,
                                                *args[:5], kw.get("reverse", False))
    return backward


def _fold(args, bdims, size, states=2):
    """vmap with shared weights: the batch folded into the rows (N) of one scan (``xw``
    and the ``states`` initial states that follow it)."""
    xw, *init = (broadcast_to(a[None], (size,) + a.shape) if d is None else move_batch(a, d)
                 for a, d in zip(args[:1 + states], bdims[:1 + states]))
    _, steps, n, width = xw.shape
    xw = xw.swapaxes(0, 1).reshape(steps, size * n, width)
    return (xw,) + tuple(s.reshape(size * n, s.shape[-1]) for s in init)


def _batch(args, bdims, reverse=False):
    size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
    if bdims[3] is not None or bdims[4] is not None:
        return loop_batch(_lstm_scan, args, bdims, {"reverse": reverse}, size)
    xw, h0, c0 = _fold(args, bdims, size)
    out = _lstm_scan(xw, h0, c0, *args[3:5], reverse=reverse)
    return out.reshape(xw.shape[0], size, -1, out.shape[-1]), 1


def _batch_cell(args, bdims, reverse=False):
    size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
    if bdims[3] is not None or bdims[4] is not None:
        return loop_batch(_lstm_scan_cell, list(args[:5]) + [None], list(bdims[:5]) + [None],
                          {"reverse": reverse}, size)
    xw, h0, c0 = _fold(args, bdims, size)
    out = _lstm_scan_cell(xw, h0, c0, *args[3:5], None, reverse=reverse)
    return out.reshape(size, -1, out.shape[-1]), 0


_CASES = [Case(U(3, 2, 8), U(2, 2), U(2, 2), U(8, 2), U(8)),
          Case(U(1, 1, 4, low=-2.0, high=2.0), U(1, 1), U(1, 1), U(4, 1), U(4)),
          Case(U(3, 2, 8), U(2, 2), U(2, 2), U(8, 2), U(8), reverse=True)]

_lstm_scan = defop(
    "lstm_scan",
    lambda B, xw, h0, c0, w_hh, b_hh, reverse=False: B.lstm_scan(xw, h0, c0, w_hh, b_hh, reverse),
    vjp=tuple(_vjp(k, False) for k in range(5)), jvp=tuple(_jvp(k, False) for k in range(5)),
    fast=tuple(_array_rule(k, 4, _lstm_backward(False)) for k in range(5)), save_output=True, batch=_batch, cases=_CASES)

# the sixth argument is the scan's output (its saved gates), or None: no gradient flows to it
_lstm_scan_cell = defop(
    "lstm_scan_cell",
    lambda B, xw, h0, c0, w_hh, b_hh, hs, reverse=False:
        B.lstm_scan_cell(hs, xw, h0, c0, w_hh, b_hh, reverse),
    vjp=tuple(_vjp(k, True) for k in range(5)) + (None,),
    jvp=tuple(_jvp(k, True) for k in range(5)) + (None,),
    fast=tuple(_array_rule(k, 4, _lstm_backward(True)) for k in range(5)) + (None,), batch=_batch_cell,
    cases=[Case(*c.args, None, **c.kwargs) for c in _CASES])


def lstm_scan(xw, h0, c0, w_hh, b_hh, reverse=False):
    """One LSTM layer's recurrence over a sequence in one op.  ``xw`` (L, N, 4H) is
    ``x_t @ W_ih.T + b_ih`` for every step, ``h0``/``c0`` (N, H) the initial state,
    ``w_hh`` (4H, H) and ``b_hh`` (4H,) the recurrent weights, gates ordered (input,
    forget, cell, output) as PyTorch's; ``reverse`` runs from the last step to the first.
    Returns ``output, (h_n, c_n)``: the hidden state of every step (L, N, H) and the
    final state (after the last step in the direction of the scan).

    >>> h0 = eagerad.zeros(1, 1)
    >>> out, (h, c) = lstm_scan(eagerad.ones(1, 1, 4), h0, h0, eagerad.zeros(4, 1), eagerad.zeros(4))
    >>> round(out[0, 0, 0].item(), 4), round(c[0, 0].item(), 4)   # o*tanh(c), c = i*g
    (0.3696, 0.5568)
    """
    if xw.ndim != 3 or xw.shape[-1] % 4 or h0.shape != (xw.shape[1], xw.shape[-1] // 4) \
            or c0.shape != h0.shape or w_hh.shape != (xw.shape[-1], h0.shape[-1]) \
            or b_hh.shape != (xw.shape[-1],):
        raise ValueError(f"lstm_scan: expected xw (L, N, 4H), h0 and c0 (N, H), w_hh (4H, H), "
                         f"b_hh (4H,); got xw {xw.shape}, h0 {h0.shape}, c0 {c0.shape}, "
                         f"w_hh {w_hh.shape}, b_hh {b_hh.shape}")
    if xw.shape[0] == 0:
        raise ValueError("lstm_scan: the sequence xw has no steps (L = 0)")
    out = _lstm_scan(xw, h0, c0, w_hh, b_hh, reverse=reverse)
    c_n = _lstm_scan_cell(xw, h0, c0, w_hh, b_hh, out, reverse=reverse)
    return out, (out[0 if reverse else -1], c_n)


# ------------------------------------------------------------------ Elman (plain) RNN


def rnn_by_ops(xw, h0, w_hh, b_hh, relu=False, reverse=False):
    """``rnn_scan``'s recurrence op by op (what its higher-order rules differentiate).

    >>> h0 = eagerad.zeros(1, 1)
    >>> rnn_by_ops(eagerad.ones(2, 1, 1), h0, eagerad.ones(1, 1), eagerad.zeros(1), True)[:, 0, 0].tolist()
    [1.0, 2.0]
    """
    from .losses import linear
    from .math import relu as _relu
    if reverse:
        return rnn_by_ops(xw.flip(0), h0, w_hh, b_hh, relu).flip(0)
    act = _relu if relu else tanh
    h, rows = h0, []
    for t in range(xw.shape[0]):
        h = act(xw[t] + linear(h, w_hh, b_hh))
        rows.append(h)
    return stack(rows, 0)


def _vjp_by(reference, k):
    """vjp rule for argument ``k`` of a one-state scan op: differentiate ``reference``
    (its op-by-op recurrence), recording the graph."""
    def rule(g, ans, *args, **kw):
        from ..autograd import enable_grad, grad
        with enable_grad():
            out = reference(*args, **kw)
        return grad(out, args[k], g, create_graph=True)[0]
    return rule


def _rnn_jvp(k):
    def rule(t, ans, xw, h0, w_hh, b_hh, relu=False, reverse=False):
        """The linearised recurrence: ``dh_t = act'(h_t) * (d pre_t)``, the slope read from
        the output (``1 - h^2``, or ``h > 0``)."""
        from .losses import linear
        hs = ans.flip(0) if reverse else ans
        if k == 0 and reverse:
            t = t.flip(0)
        dh, rows = (t if k == 1 else None), []
        for s in range(hs.shape[0]):
            h_prev = h0 if s == 0 else hs[s - 1]
            d = t[s] if k == 0 else linear(h_prev, t) if k == 2 else t if k == 3 else None
            if dh is not None:
                d = linear(dh, w_hh) if d is None else d + linear(dh, w_hh)
            h = hs[s]
            slope = (h > 0).astype(h.dtype) if relu else 1 - h * h
            dh = slope * d
            rows.append(dh)
        out = stack(rows, 0)
        return out.flip(0) if reverse else out
    return rule


def _one_state_batch(op_of):
    """vmap rule of a one-state scan op (``op_of()`` names it; arguments xw, h0, w_hh,
    b_hh): the batch folded into the rows of one scan when the weights are shared."""
    def batch(args, bdims, **kw):
        size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
        op = op_of()
        if bdims[2] is not None or bdims[3] is not None:
            return loop_batch(op, args, bdims, kw, size)
        xw, h0 = _fold(args, bdims, size, states=1)
        out = op(xw, h0, *args[2:4], **kw)
        return out.reshape(xw.shape[0], size, -1, out.shape[-1]), 1
    return batch


_rnn_scan = defop(
    "rnn_scan",
    lambda B, xw, h0, w_hh, b_hh, relu=False, reverse=False:
        B.rnn_scan(xw, h0, w_hh, b_hh, relu, reverse),
    vjp=tuple(_vjp_by(rnn_by_ops, k) for k in range(4)), jvp=tuple(_rnn_jvp(k) for k in range(4)),
    fast=tuple(_array_rule(k, 3, lambda B, g, ans, args, kw: (ans, lambda: B.rnn_scan_backward(
        g, ans, *args, kw.get("relu", False), kw.get("reverse", False)))) for k in range(4)),
    save_output=True, batch=_one_state_batch(lambda: _rnn_scan),
    cases=[Case(U(3, 2, 2), U(2, 2), U(2, 2), U(2)),
           Case(U(3, 2, 2), U(2, 2), U(2, 2), U(2), reverse=True),
           Case(U(3, 1, 2, low=0.1), U(1, 2, low=0.1), U(2, 2, low=0.1), U(2, low=0.1), relu=True),
           Case(U(3, 1, 2, low=0.1), U(1, 2, low=0.1), U(2, 2, low=0.1), U(2, low=0.1),
                relu=True, reverse=True)])


def rnn_scan(xw, h0, w_hh, b_hh, nonlinearity="tanh", reverse=False):
    """An Elman layer's recurrence over a sequence in one op: ``h_t = act(xw_t + h_{t-1} @
    w_hh.T + b_hh)``, ``xw`` (L, N, H) being ``x_t @ W_ih.T + b_ih`` for every step and
    ``act`` tanh or relu; returns ``output, h_n`` (every step's state (L, N, H), and the
    state after the last step in the direction of the scan).

    >>> out, h = rnn_scan(eagerad.ones(2, 1, 1), eagerad.zeros(1, 1), eagerad.ones(1, 1),
    ...                   eagerad.zeros(1), "relu")
    >>> out[:, 0, 0].tolist(), h.tolist()
    ([1.0, 2.0], [[2.0]])
    """
    if nonlinearity not in ("tanh", "relu"):
        raise ValueError(f"rnn_scan: nonlinearity must be 'tanh' or 'relu', got {nonlinearity!r}")
    if xw.ndim != 3 or h0.shape != (xw.shape[1], xw.shape[-1]) \
            or w_hh.shape != (xw.shape[-1],) * 2 or b_hh.shape != (xw.shape[-1],):
        raise ValueError(f"rnn_scan: expected xw (L, N, H), h0 (N, H), w_hh (H, H), b_hh (H,); "
                         f"got xw {xw.shape}, h0 {h0.shape}, w_hh {w_hh.shape}, b_hh {b_hh.shape}")
    if xw.shape[0] == 0:
        raise ValueError("rnn_scan: the sequence xw has no steps (L = 0)")
    out = _rnn_scan(xw, h0, w_hh, b_hh, relu=nonlinearity == "relu", reverse=reverse)
    return out, out[0 if reverse else -1]


# ------------------------------------------------------------------ GRU


def gru_by_ops(xw, h0, w_hh, b_hh, reverse=False):
    """``gru_scan``'s recurrence op by op (what its higher-order rules differentiate).

    >>> gru_by_ops(eagerad.zeros(1, 1, 3), eagerad.ones(1, 1), eagerad.zeros(3, 1), eagerad.zeros(3)).tolist()
    [[[0.5]]]
    """
    from .losses import linear
    if reverse:
        return gru_by_ops(xw.flip(0), h0, w_hh, b_hh).flip(0)
    size = h0.shape[-1]
    h, rows = h0, []
    for t in range(xw.shape[0]):
        gx, gh = xw[t], linear(h, w_hh, b_hh)
        r = sigmoid(gx[:, :size] + gh[:, :size])
        z = sigmoid(gx[:, size:2 * size] + gh[:, size:2 * size])
        n = tanh(gx[:, 2 * size:] + r * gh[:, 2 * size:])
        h = (1 - z) * n + z * h
        rows.append(h)
    return stack(rows, 0)


def _gru_jvp(k):
    def rule(t, ans, xw, h0, w_hh, b_hh, reverse=False):
        """Output tangent from argument ``k``'s tangent ``t``: the linearised cell, step by
        step, its gates recomputed op by op (the fused output keeps them as bare arrays)."""
        from .losses import linear
        if reverse:
            xw = xw.flip(0)
            t = t.flip(0) if k == 0 else t
        size = h0.shape[-1]
        h, dh, rows = h0, (t if k == 1 else None), []
        for s in range(xw.shape[0]):
            gx, gh = xw[s], linear(h, w_hh, b_hh)
            r = sigmoid(gx[:, :size] + gh[:, :size])
            z = sigmoid(gx[:, size:2 * size] + gh[:, size:2 * size])
            n = tanh(gx[:, 2 * size:] + r * gh[:, 2 * size:])
            d_gh = linear(h, t) if k == 2 else broadcast_to(t, gh.shape) if k == 3 else None
            if dh is not None:
                d_gh = linear(dh, w_hh) if d_gh is None else d_gh + linear(dh, w_hh)
            d_gx = t[s] if k == 0 else None
            d_pre = d_gx if d_gh is None else d_gh if d_gx is None else d_gx + d_gh
            if d_pre is None:                    # nothing moves (cannot happen for k < 4)
                d_pre = 0 * gh
            dr = r * (1 - r) * d_pre[:, :size]
            dz = z * (1 - z) * d_pre[:, size:2 * size]
            d_inner = dr * gh[:, 2 * size:] + (0 if d_gx is None else d_gx[:, 2 * size:])
            if d_gh is not None:
                d_inner = d_inner + r * d_gh[:, 2 * size:]
            dn = (1 - n * n) * d_inner
            new = dz * (h - n) + (1 - z) * dn
            dh = new if dh is None else new + z * dh
            h = (1 - z) * n + z * h
            rows.append(dh)
        out = stack(rows, 0)
        return out.flip(0) if reverse else out
    return rule


_gru_scan = defop(
    "gru_scan",
    lambda B, xw, h0, w_hh, b_hh, reverse=False: B.gru_scan(xw, h0, w_hh, b_hh, reverse),
    vjp=tuple(_vjp_by(gru_by_ops, k) for k in range(4)), jvp=tuple(_gru_jvp(k) for k in range(4)),
    fast=tuple(_array_rule(k, 3, lambda B, g, ans, args, kw: (ans, lambda: B.gru_scan_backward(
        g, ans, *args, kw.get("reverse", False)))) for k in range(4)),
    save_output=True, batch=_one_state_batch(lambda: _gru_scan),
    cases=[Case(U(3, 2, 6), U(2, 2), U(6, 2), U(6)),
           Case(U(3, 2, 6), U(2, 2), U(6, 2), U(6), reverse=True)])


def gru_scan(xw, h0, w_hh, b_hh, reverse=False):
    """A GRU layer's recurrence over a sequence in one op: ``xw`` (L, N, 3H) is ``x_t @
    W_ih.T + b_ih`` for every step, ``h0`` (N, H), ``w_hh`` (3H, H), ``b_hh`` (3H,), gates
    (reset, update, new) as PyTorch's; returns ``output, h_n`` (every step's state, and
    the state after the last step in the direction of the scan).

    >>> out, h = gru_scan(eagerad.zeros(2, 1, 3), eagerad.ones(1, 1), eagerad.zeros(3, 1),
    ...                   eagerad.zeros(3))
    >>> out[:, 0, 0].tolist(), h.tolist()     # h' = (h + tanh(0)) / 2
    ([0.5, 0.25], [[0.25]])
    """
    if xw.ndim != 3 or xw.shape[-1] % 3 or h0.shape != (xw.shape[1], xw.shape[-1] // 3) \
            or w_hh.shape != (xw.shape[-1], h0.shape[-1]) or b_hh.shape != (xw.shape[-1],):
        raise ValueError(f"gru_scan: expected xw (L, N, 3H), h0 (N, H), w_hh (3H, H), b_hh "
                         f"(3H,); got xw {xw.shape}, h0 {h0.shape}, w_hh {w_hh.shape}, "
                         f"b_hh {b_hh.shape}")
    if xw.shape[0] == 0:
        raise ValueError("gru_scan: the sequence xw has no steps (L = 0)")
    out = _gru_scan(xw, h0, w_hh, b_hh, reverse=reverse)
    return out, out[0 if reverse else -1]
