"""RAdam (Liu et al. 2019, PyTorch's ``optim.RAdam``): Adam whose adaptive step is switched
on, and scaled by the rectifier ``r_t``, once the variance of the adaptive rate is
tractable (``rho_t > 5``); before that it steps with the bias-corrected momentum alone,
which tames Adam's first steps without a warm-up schedule.

>>> import eagerad
>>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
>>> RAdam([w], lr=0.1)((eagerad.tensor([2.0]),)), round(w.item(), 6)   # momentum alone: -lr g
(True, 0.8)
"""
import math

from .optim import Optimizer, _betas, _moments, _number, _torch_options


class RAdam(Optimizer):
    """PyTorch's RAdam: ``lr=1e-3``, ``betas=(0.9, 0.999)``, ``eps=1e-8``; ``weight_decay``
    as an L2 term in the gradient, or decoupled (AdamW's) with
    ``decoupled_weight_decay=True``.

    >>> import eagerad
    >>> RAdam([eagerad.Parameter(eagerad.zeros(1))]).param_groups[0]['lr']
    0.001
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 decoupled_weight_decay=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False):
        defaults = _betas(None, lr, 1e-3, None, None, betas)
        defaults.update(_torch_options("RAdam", maximize, foreach, capturable, differentiable,
                                       None))
        defaults.update(eps=_number("eps", eps), weight_decay=_number("weight_decay", weight_decay),
                        decoupled_weight_decay=bool(decoupled_weight_decay))
        super().__init__(params, defaults)

    def update(self, p, g, state, group):
        """The RAdam-updated value of ``p``; moments and the step count live in ``state``.

        >>> import eagerad
        >>> opt = RAdam([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> new = opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), {}, opt.param_groups[0])
        >>> round(new.item(), 6)
        1.3
        """
        lr, wd, b1, b2 = group["lr"], group["weight_decay"], group["beta1"], group["beta2"]
        t = state["step"] = state.get("step", 0) + 1
        if group.get("maximize"):
            g = -g
        if wd and group["decoupled_weight_decay"]:
            p = p * (1.0 - lr * wd)
        elif wd:
            g = g + p * wd
        m, v = _moments(state, g, b1, b2)
        correction2 = 1.0 - b2 ** t
        step = m * (lr / (1.0 - b1 ** t))
        rho_inf = 2.0 / (1.0 - b2) - 1.0
        rho = rho_inf - 2.0 * t * b2 ** t / correction2
        if rho <= 5.0:
            return p - step
        rect = math.sqrt((rho - 4) * (rho - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho))
        return p - step * rect * math.sqrt(correction2) / (v.sqrt() + group["eps"])
