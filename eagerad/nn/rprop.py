"""Rprop (Riedmiller & Braun 1993, PyTorch's ``optim.Rprop``): each weight moves by its own
step size in the direction against the gradient's sign; the step grows by ``etaplus``
while the sign holds and shrinks by ``etaminus`` when it flips (that step is then
skipped), within ``step_sizes``.  Only signs are used: full-batch training.

>>> import eagerad
>>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
>>> Rprop([w], lr=0.1)((eagerad.tensor([2.0]),)), round(w.item(), 6)
(True, 0.9)
"""
from .optim import Optimizer, _number, _torch_options


class Rprop(Optimizer):
    """PyTorch's Rprop: ``lr=1e-2`` (the first step size), ``etas=(0.5, 1.2)``,
    ``step_sizes=(1e-6, 50)``.

    >>> import eagerad
    >>> Rprop([eagerad.Parameter(eagerad.zeros(1))]).param_groups[0]['etas']
    (0.5, 1.2)
    """

    def __init__(self, params, lr=1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable=False, foreach=None, maximize=False, differentiable=False):
        etaminus, etaplus = etas
        if not 0.0 < etaminus < 1.0 < etaplus:
            raise ValueError(f"Rprop: etas must satisfy 0 < etaminus < 1 < etaplus, got {etas}")
        defaults = {"lr": _number("lr", lr), "etas": (etaminus, etaplus),
                    "step_sizes": tuple(step_sizes), "weight_decay": 0.0}
        defaults.update(_torch_options("Rprop", maximize, foreach, capturable, differentiable,
                                       None))
        super().__init__(params, defaults)

    def update(self, p, g, state, group):
        """The Rprop-updated value of ``p``; the last gradient and the step sizes live in
        ``state``.

        >>> import eagerad
        >>> opt = Rprop([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> state = {}
        >>> group = opt.param_groups[0]
        >>> _ = opt.update(eagerad.tensor([0.0]), eagerad.tensor([1.0]), state, group)
        >>> round(opt.update(eagerad.tensor([0.0]), eagerad.tensor([1.0]), state, group).item(), 6)
        -0.12
        """
        etaminus, etaplus = group["etas"]
        low, high = group["step_sizes"]
        if group.get("maximize"):
            g = -g
        state["step"] = state.get("step", 0) + 1
        prev, size = state.get("prev"), state.get("step_size")
        if prev is None:
            prev, size = g * 0.0, g * 0.0 + group["lr"]
        agree = (g * prev).sign()
        grew, shrank = (agree > 0).astype(g.dtype), (agree < 0).astype(g.dtype)   # (not float32)
        factor = grew * (etaplus - 1.0) + shrank * (etaminus - 1.0) + 1.0
        size = state["step_size"] = (size * factor).clamp(low, high)
        g = g * (agree >= 0)                  # a flipped sign: no step, and no memory of it
        state["prev"] = g
        return p - g.sign() * size
