"""Fused recurrences: the LSTM layer's scan over time as one op (``lstm_scan``).

Run op by op, an LSTM step records ~30 nodes (two linears, four slices, sigmoid/tanh,
the cell update), so a 2-layer, 32-step layer is ~2000 nodes and as many Python
dispatches each way.  ``lstm_scan`` takes the input projections of every step at once
(``x @ W_ih.T + b_ih``, one big matmul done by the caller) and runs the recurrence in
one backend call (``B.lstm_scan``); its first-order backward is one call too
(``B.lstm_scan_backward``).  Its output packs, per step, ``[h, c, i, f, g, o]`` along the
last axis: callers slice ``h`` (and the last ``c``), the gates are kept for the backward.

Higher order: the vjp rules re-run the recurrence op by op and differentiate that, so a
graph of the backward (``create_graph``) is an ordinary differentiable graph; the jvp
rule pushes tangents through the linearised cell.

>>> import eagerad
>>> xw = eagerad.zeros(5, 2, 12)                   # L=5, N=2, H=3
>>> h0 = eagerad.zeros(2, 3)
>>> lstm_scan(xw, h0, h0, eagerad.zeros(12, 3), eagerad.zeros(12)).shape
(5, 2, 18)
"""
import threading

from .math import sigmoid, tanh
from .registry import Case, U, defop, loop_batch, move_batch
from .shape import broadcast_to, concat, stack


def _gates(z, size):
    return (z[..., k * size:(k + 1) * size] for k in range(4))


def scan_by_ops(xw, h0, c0, w_hh, b_hh):
    """The recurrence of ``lstm_scan`` written op by op (the differentiable reference the
    fused op's higher-order rules differentiate).

    >>> h0 = eagerad.zeros(1, 1)
    >>> scan_by_ops(eagerad.ones(2, 1, 4), h0, h0, eagerad.zeros(4, 1), eagerad.zeros(4)).shape
    (2, 1, 6)
    """
    from .losses import linear
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


def _vjp(k):
    def rule(g, ans, *args):
        from ..autograd import enable_grad, grad
        with enable_grad():
            out = scan_by_ops(*args)
        return grad(out, args[k], g, create_graph=True)[0]
    return rule


def _jvp(k):
    def rule(t, ans, xw, h0, c0, w_hh, b_hh):
        """Output tangent from argument ``k``'s tangent ``t``: the linearised cell, step
        by step, reading the gates from ``ans``."""
        from .losses import linear
        size = h0.shape[-1]
        dh = t if k == 1 else None
        dc = t if k == 2 else None
        rows = []
        for s in range(ans.shape[0]):
            h_prev = h0 if s == 0 else ans[s - 1, :, :size]
            c_prev = c0 if s == 0 else ans[s - 1, :, size:2 * size]
            row = ans[s]
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
            rows.append(concat([dh, dc, di, df, dg, do], -1))
        return stack(rows, 0)
    return rule


def _fast(k):
    """Array rule for argument ``k``: one ``B.lstm_scan_backward`` call gives all five
    gradients; the rules of the other arguments of the same node reuse it."""
    def rule(B, g, ans, xw, h0, c0, w_hh, b_hh):
        held = _LAST.__dict__
        if held.get("g") is not g or held.get("ans") is not ans:
            held.update(g=g, ans=ans, grads=B.lstm_scan_backward(g, ans, h0, c0, w_hh))
        grads = held["grads"]
        if k == 4:           # the bias is every node's last rule: drop the arrays
            held.clear()
        return grads[k]
    return rule


# per thread: (g, ans, gradients) of the node whose rules are running (``g`` and ``ans``
# are held, so their identity names that node's call)
_LAST = threading.local()


def _batch(args, bdims):
    """vmap: with shared weights the batch folds into the rows (N) of one scan."""
    size = next(a.shape[d] for a, d in zip(args, bdims) if d is not None)
    if bdims[3] is not None or bdims[4] is not None:
        return loop_batch(_lstm_scan, args, bdims, {}, size)
    xw, h0, c0 = (broadcast_to(a[None], (size,) + a.shape) if d is None else move_batch(a, d)
                  for a, d in zip(args[:3], bdims[:3]))
    _, steps, n, four = xw.shape
    xw = xw.swapaxes(0, 1).reshape(steps, size * n, four)
    out = _lstm_scan(xw, h0.reshape(size * n, four // 4), c0.reshape(size * n, four // 4),
                     *args[3:])
    return out.reshape(steps, size, n, out.shape[-1]), 1


_lstm_scan = defop(
    "lstm_scan", lambda B, xw, h0, c0, w_hh, b_hh: B.lstm_scan(xw, h0, c0, w_hh, b_hh),
    vjp=tuple(_vjp(k) for k in range(5)), jvp=tuple(_jvp(k) for k in range(5)),
    fast=tuple(_fast(k) for k in range(5)), save_output=True, batch=_batch,
    cases=[Case(U(3, 2, 8), U(2, 2), U(2, 2), U(8, 2), U(8)),
           Case(U(1, 1, 4, low=-2.0, high=2.0), U(1, 1), U(1, 1), U(4, 1), U(4))])


def lstm_scan(xw, h0, c0, w_hh, b_hh):
    """One LSTM layer's recurrence over a sequence in one op.  ``xw`` (L, N, 4H) is
    ``x_t @ W_ih.T + b_ih`` for every step, ``h0``/``c0`` (N, H) the initial state,
    ``w_hh`` (4H, H) and ``b_hh`` (4H,) the recurrent weights, gates ordered (input,
    forget, cell, output) as PyTorch's; returns (L, N, 6H), per step ``[h, c, i, f, g,
    o]`` (gates after their sigmoid/tanh).

    >>> h0 = eagerad.zeros(1, 1)
    >>> out = lstm_scan(eagerad.ones(1, 1, 4), h0, h0, eagerad.zeros(4, 1), eagerad.zeros(4))
    >>> round(out[0, 0, 0].item(), 4)             # sigmoid(1) * tanh(sigmoid(1) * tanh(1))
    0.3696
    """
    if xw.ndim != 3 or xw.shape[-1] % 4 or h0.shape != (xw.shape[1], xw.shape[-1] // 4) \
            or c0.shape != h0.shape or w_hh.shape != (xw.shape[-1], h0.shape[-1]) \
            or b_hh.shape != (xw.shape[-1],):
        raise ValueError(f"lstm_scan: expected xw (L, N, 4H), h0 and c0 (N, H), w_hh (4H, H), "
                         f"b_hh (4H,); got xw {xw.shape}, h0 {h0.shape}, c0 {c0.shape}, "
                         f"w_hh {w_hh.shape}, b_hh {b_hh.shape}")
    return _lstm_scan(xw, h0, c0, w_hh, b_hh)

