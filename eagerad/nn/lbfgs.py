"""L-BFGS, the quasi-Newton optimizer scientists reach for (PyTorch's ``optim.LBFGS``).

It needs the loss several times per step, so ``step(closure)`` takes a closure that
clears the gradients, computes the loss, calls ``backward()`` and returns the loss.
The algorithm is PyTorch's: the two-loop recursion over the last ``history_size``
curvature pairs, a first step scaled to ``min(1, 1 / |g|_1) * lr``, and optionally a
line search satisfying the strong Wolfe conditions (cubic interpolation and zoom, as in
Nocedal & Wright, Algorithms 3.5 and 3.6).  The arithmetic runs on one flat numpy
vector in the parameters' dtype.

>>> import eagerad
>>> from eagerad import nn
>>> x = eagerad.Parameter(eagerad.tensor([3.0, -2.0], dtype=eagerad.float64))
>>> opt = nn.LBFGS([x], line_search_fn="strong_wolfe")
>>> def closure():
...     opt.zero_grad()
...     loss = ((x - 1.0) ** 2).sum()
...     loss.backward()
...     return loss
>>> _ = opt.step(closure)
>>> [round(v, 6) for v in x.tolist()]
[1.0, 1.0]
"""
import math

import numpy as np

from ..autograd import enable_grad
from .inplace import assign
from .optim import Optimizer, _number


def _cubic_minimum(x1, f1, g1, x2, f2, g2, bounds=None):
    """Minimiser of the cubic through (x1, f1, g1) and (x2, f2, g2), clipped to ``bounds``
    (default: between x1 and x2); the midpoint when the cubic has no minimum."""
    low, high = bounds if bounds is not None else (min(x1, x2), max(x1, x2))
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    disc = d1 * d1 - g1 * g2
    if disc < 0:
        return (low + high) / 2.0
    d2 = math.sqrt(disc)
    if x1 <= x2:
        t = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        t = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(t, low), high)


def strong_wolfe(evaluate, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9, max_ls=25):
    """A step length ``t`` along ``d`` meeting the strong Wolfe conditions.

    ``evaluate(t) -> (loss, flat gradient)`` at ``x + t d``.  Returns
    ``(loss, gradient, t, evaluations)``.

    >>> evaluate = lambda t: ((1 - t) ** 2, np.array([2 * (t - 1)]))   # x = 0, d = 1
    >>> f, g, t, n = strong_wolfe(evaluate, 0.05, np.array([1.0]), 1.0, np.array([-2.0]), -2.0)
    >>> round(t, 6), n      # 0.05 is too short; the extrapolation (at most 10x) meets both
    (0.5, 2)
    """
    d_norm = float(np.abs(d).max())
    f_new, g_new = evaluate(t)
    evals, ls_iter = 1, 0
    gtd_new = float(g_new.dot(d))
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    while ls_iter < max_ls:        # bracketing phase
        if f_new > f + c1 * t * gtd or (ls_iter > 1 and f_new >= f_prev):
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, done = [[t, f_new, g_new, gtd_new]], True
            break
        if gtd_new >= 0:
            bracket = [[t_prev, f_prev, g_prev, gtd_prev], [t, f_new, g_new, gtd_new]]
            break
        t_next = _cubic_minimum(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals, ls_iter = evals + 1, ls_iter + 1
        gtd_new = float(g_new.dot(d))
    else:
        bracket = [[0.0, f, g, gtd], [t, f_new, g_new, gtd_new]]
    # zoom phase: shrink the bracket until the conditions hold
    stalled = False
    low, high = (0, 1) if bracket[0][1] <= bracket[-1][1] else (1, 0)
    while not done and ls_iter < max_ls:
        (t0, f0, _, gtd0), (t1, f1, _, gtd1) = bracket
        if abs(t1 - t0) * d_norm < tolerance_change:
            break
        t = _cubic_minimum(t0, f0, gtd0, t1, f1, gtd1)
        top, bottom = max(t0, t1), min(t0, t1)
        margin = 0.1 * (top - bottom)
        if min(top - t, t - bottom) < margin:       # too close to an end: move inside
            if stalled or t >= top or t <= bottom:
                t = top - margin if abs(t - top) < abs(t - bottom) else bottom + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t)
        evals, ls_iter = evals + 1, ls_iter + 1
        gtd_new = float(g_new.dot(d))
        if f_new > f + c1 * t * gtd or f_new >= bracket[low][1]:
            bracket[high] = [t, f_new, g_new, gtd_new]
            low, high = (0, 1) if bracket[0][1] <= bracket[1][1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high][0] - bracket[low][0]) >= 0:
                bracket[high] = bracket[low]
            bracket[low] = [t, f_new, g_new, gtd_new]
    t, f_new, g_new, _ = bracket[low]
    return f_new, g_new, t, evals


class LBFGS(Optimizer):
    """Limited-memory BFGS (PyTorch's ``torch.optim.LBFGS``; ``step`` needs a closure).

    ``lr`` scales each step, ``max_iter`` bounds iterations per ``step``, ``max_eval``
    loss evaluations (default ``1.25 * max_iter``); iteration stops early when the
    largest gradient entry is below ``tolerance_grad`` or the step or the loss change
    is below ``tolerance_change``.  ``line_search_fn``: None (fixed steps) or
    ``'strong_wolfe'``.

    >>> w = eagerad.Parameter(eagerad.tensor([0.0], dtype=eagerad.float64))
    >>> opt = LBFGS([w])
    >>> def closure():
    ...     opt.zero_grad(); loss = ((w - 2.0) ** 2).sum(); loss.backward(); return loss
    >>> round(opt.step(closure).item(), 6)     # the loss before the step
    4.0
    >>> round(w.item(), 6)
    2.0
    """

    def __init__(self, params, lr=1.0, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        if line_search_fn not in (None, "strong_wolfe"):
            raise ValueError(f"line_search_fn must be None or 'strong_wolfe', got {line_search_fn!r}")
        max_iter = int(max_iter)
        defaults = {"lr": lr, "weight_decay": 0.0, "max_iter": max_iter,
                    "max_eval": int(max_eval) if max_eval is not None else max_iter * 5 // 4,
                    "tolerance_grad": _number("tolerance_grad", tolerance_grad),
                    "tolerance_change": _number("tolerance_change", tolerance_change),
                    "history_size": int(history_size), "line_search_fn": line_search_fn}
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")

    # ------------------------------------------------------------ flat vectors
    def _flat_grad(self):
        parts = [np.zeros(p.size, p.dtype) if p.grad is None else p.grad.numpy().reshape(-1)
                 for p in self.parameters]
        return np.concatenate(parts) if parts else np.zeros(0)

    def _flat_params(self):
        return np.concatenate([p.numpy().reshape(-1) for p in self.parameters])

    def _set_params(self, flat):
        offset = 0
        for p in self.parameters:
            assign(p, flat[offset:offset + p.size].reshape(p.shape).astype(p.dtype, copy=False))
            offset += p.size

    def _evaluate(self, closure):
        with enable_grad():
            loss = closure()
        return float(loss), self._flat_grad(), loss

    def step(self, closure=None):
        """Run up to ``max_iter`` iterations; returns the loss the first closure call gave.

        >>> LBFGS([eagerad.Parameter(eagerad.zeros(1))]).step()
        Traceback (most recent call last):
        ...
        TypeError: LBFGS.step needs a closure that computes the loss and its gradients
        """
        if closure is None:
            raise TypeError("LBFGS.step needs a closure that computes the loss and its gradients")
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        # the whole optimizer's state sits with the first parameter (PyTorch's layout), so
        # state_dict()/load_state_dict() carry it like any other optimizer's
        state = self.state.setdefault(self.parameters[0], {"func_evals": 0, "n_iter": 0})
        loss, flat_grad, first_loss = self._evaluate(closure)
        evals = 1
        state["func_evals"] += 1
        if np.abs(flat_grad).max(initial=0.0) <= tol_grad:
            return first_loss
        d, t = state.get("d"), state.get("t")
        dirs, steps, rho = state.get("old_dirs", []), state.get("old_stps", []), state.get("ro", [])
        h_diag, prev_grad, prev_loss = state.get("H_diag", 1.0), state.get("prev_flat_grad"), \
            state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, rho, h_diag = -flat_grad, [], [], [], 1.0
            else:
                d, h_diag = self._direction(flat_grad, prev_grad, d * t, dirs, steps, rho, h_diag,
                                            group["history_size"])
            prev_grad, prev_loss = flat_grad.copy(), loss
            t = min(1.0, 1.0 / np.abs(flat_grad).sum()) * lr if state["n_iter"] == 1 else lr
            gtd = float(flat_grad.dot(d))
            if gtd > -tol_change:
                break
            spent = 0
            if group["line_search_fn"] == "strong_wolfe":
                x0 = self._flat_params()

                def evaluate(step):
                    self._set_params(x0 + step * d)
                    return self._evaluate(closure)[:2]
                loss, flat_grad, t, spent = strong_wolfe(evaluate, t, d, loss, flat_grad, gtd,
                                                         tolerance_change=tol_change)
                self._set_params(x0 + t * d)
            else:
                self._set_params(self._flat_params() + t * d)
                if n_iter != max_iter:
                    loss, flat_grad, _ = self._evaluate(closure)
                    spent = 1
            evals += spent
            state["func_evals"] += spent
            if n_iter == max_iter or evals >= max_eval:
                break
            if np.abs(flat_grad).max(initial=0.0) <= tol_grad:
                break
            if np.abs(d * t).max() <= tol_change or abs(loss - prev_loss) < tol_change:
                break
        state.update(d=d, t=t, old_dirs=dirs, old_stps=steps, ro=rho, H_diag=h_diag,
                     prev_flat_grad=prev_grad, prev_loss=prev_loss)
        return first_loss

    @staticmethod
    def _direction(g, prev_g, s, dirs, steps, rho, h_diag, history):
        """The L-BFGS direction ``-H g`` by the two-loop recursion, after adding the newest
        curvature pair ``(y, s)`` when it is positive (else the history is kept)."""
        y = g - prev_g
        ys = float(y.dot(s))
        if ys > 1e-10:
            if len(dirs) == history:
                dirs.pop(0), steps.pop(0), rho.pop(0)
            dirs.append(y), steps.append(s), rho.append(1.0 / ys)
            h_diag = ys / float(y.dot(y))
        alphas = [0.0] * len(dirs)
        q = -g
        for i in range(len(dirs) - 1, -1, -1):
            alphas[i] = float(steps[i].dot(q)) * rho[i]
            q = q - alphas[i] * dirs[i]
        r = q * h_diag
        for i in range(len(dirs)):
            beta = float(dirs[i].dot(r)) * rho[i]
            r = r + steps[i] * (alphas[i] - beta)
        return r, h_diag
