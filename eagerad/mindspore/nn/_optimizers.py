"""MindSpore's optimizers whose update rules are MindSpore's own (not PyTorch's).

========================  ==================================================================
optimizer                 MindSpore's rule (state starts at 0 unless said)
========================  ==================================================================
``Adagrad``               ``accum`` starts at 0.1; ``accum += g^2``; ``w -= lr g / sqrt(accum)``
``RMSProp``               ``ms`` starts at 1; ``ms = decay ms + (1 - decay) g^2``;
                          ``mom = momentum mom + lr g / sqrt(ms + eps)`` (centered: ``ms - mg^2``)
``AdamWeightDecay``       Adam without bias correction; ``w -= lr (m / (sqrt(v) + eps) + wd w)``
``AdaMax``                ``m = b1 m + (1 - b1) g``; ``u = max(b2 u, |g|)``;
                          ``w -= lr / (1 - b1^t) m / (u + eps)``
``ProximalAdagrad``       Adagrad step, then the l1/l2 proximal map
``Rprop``, ``ASGD``       PyTorch's rules with MindSpore's argument names
``Adam``                  ``m += (g - m)(1 - b1)``, ``v += (g^2 - v)(1 - b2)``,
                          ``w -= lr sqrt(1 - b2^t) / (1 - b1^t) m / (sqrt(v) + eps)``: eps is
                          not bias-corrected (PyTorch adds it to the corrected ``sqrt(v)``);
                          ``use_nesterov`` puts ``b1 m + (1 - b1) g`` for ``m``
========================  ==================================================================

Every optimizer here (and ``SGD``, ``Momentum``) follows MindSpore's weight-decay rule:
given a plain list of parameters, ``weight_decay`` skips those whose name holds ``beta``
or ``gamma`` (normalisation shifts and scales); in parameter groups each group's
``weight_decay`` applies to all of its parameters.

>>> import eagerad.mindspore as ms
>>> w = ms.Parameter(ms.Tensor([1.0]), name='w')
>>> opt = AdamWeightDecay([w], learning_rate=0.1); _ = opt((ms.Tensor([2.0]),))
>>> round(float(w.numpy()[0]), 4)
0.6838
"""
import numpy as np

from ... import ops as _ops
from ...nn import optim as _optim

__all__ = ["Adagrad", "RMSProp", "AdamWeightDecay", "AdaMax", "ProximalAdagrad", "Rprop", "ASGD",
           "Adam", "SGD", "Momentum"]


class _DecayFilter:
    """MindSpore's weight-decay filter, mixed into an eagerad optimizer: with a plain list of
    parameters, those named ``*beta*`` / ``*gamma*`` get no weight decay (their state is
    marked at construction; ``update`` sees their group with ``weight_decay`` 0)."""

    def __init__(self, params, *args, **kwargs):
        params = list(params) if not isinstance(params, (list, tuple)) else params
        super().__init__(params, *args, **kwargs)
        if params and not isinstance(params[0], dict):
            for p in params:
                name = getattr(p, "name", None) or ""
                if "beta" in name or "gamma" in name:
                    self.state.setdefault(p, {})["no_weight_decay"] = True

    def __init_subclass__(cls, **kwargs):
        # a subclass's own update rule sees the filtered group too
        super().__init_subclass__(**kwargs)
        for name in ("update", "update_arrays"):
            rule = cls.__dict__.get(name)
            if rule is not None:
                setattr(cls, name, _filtered(rule))

    @staticmethod
    def _group_for(state, group):
        if state.get("no_weight_decay") and group.get("weight_decay"):
            return dict(group, weight_decay=0.0)
        return group

    def update(self, p, g, state, group):
        return super().update(p, g, state, self._group_for(state, group))

    def update_arrays(self, p, g, state, group):
        return super().update_arrays(p, g, state, self._group_for(state, group))


def _filtered(rule):
    """``rule(self, p, g, state, group)`` called with the decay-filtered group."""
    def update(self, p, g, state, group):
        return rule(self, p, g, state, _DecayFilter._group_for(state, group))
    update.__name__, update.__doc__, update.__wrapped__ = rule.__name__, rule.__doc__, rule
    return update


class _Optimizer(_DecayFilter, _optim.Optimizer):
    """Base of this module's optimizers: eagerad's Optimizer with MindSpore's decay filter."""


class SGD(_DecayFilter, _optim.SGD):
    """MindSpore's ``nn.SGD``: eagerad's SGD with MindSpore's weight-decay filter.

    >>> import eagerad.mindspore as ms
    >>> g = ms.Parameter(ms.Tensor([1.0]), name='bn.gamma'); w = ms.Parameter(ms.Tensor([1.0]), name='w')
    >>> _ = SGD([g, w], 0.1, weight_decay=0.5)((ms.Tensor([1.0]), ms.Tensor([1.0])))
    >>> [round(float(p.asnumpy()[0]), 6) for p in (g, w)]
    [0.9, 0.85]
    """


class Momentum(_DecayFilter, _optim.Momentum):
    """MindSpore's ``nn.Momentum``: eagerad's Momentum with MindSpore's weight-decay filter.

    >>> import eagerad.mindspore as ms
    >>> b = ms.Parameter(ms.Tensor([1.0]), name='ln.beta')
    >>> _ = Momentum([b], 0.1, 0.9, weight_decay=0.5)((ms.Tensor([1.0]),)); round(float(b.asnumpy()[0]), 6)
    0.9
    """


def _defaults(learning_rate, weight_decay, **more):
    return dict(lr=learning_rate, weight_decay=weight_decay, **more)


def _l2(g, p, group):
    return g + p * group["weight_decay"] if group["weight_decay"] else g


class Adagrad(_Optimizer):
    """MindSpore's ``nn.Adagrad``: ``accum`` starts at ``accum`` (0.1), no epsilon.

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = Adagrad([w], learning_rate=0.1)((ms.Tensor([0.3]),))
    >>> round(float(w.numpy()[0]), 6)
    0.9
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, accum=accum,
                                           update_slots=update_slots), loss_scale)

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        g = _l2(g, p, group)
        accum = state.get("accum")
        accum = p * 0 + group["accum"] if accum is None else accum
        if group["update_slots"]:
            accum = accum + g * g
        state["accum"] = accum
        return p - g * group["lr"] / accum.sqrt()


class RMSProp(_Optimizer):
    """MindSpore's ``nn.RMSProp`` (mean square starts at 1; the learning rate inside the
    momentum).

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = RMSProp([w], learning_rate=0.1, decay=0.0)((ms.Tensor([2.0]),))
    >>> round(float(w.numpy()[0]), 6)
    0.9
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, decay=decay,
                                           momentum=momentum, epsilon=epsilon,
                                           centered=centered), loss_scale)

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        g = _l2(g, p, group)
        rho = group["decay"]
        ms = state.get("mean_square")
        ms = state["mean_square"] = (p * 0 + 1.0 if ms is None else ms) * rho + g * g * (1 - rho)
        denom = ms
        if group["centered"]:
            mg = state.get("mean_grad")
            mg = state["mean_grad"] = (p * 0 if mg is None else mg) * rho + g * (1 - rho)
            denom = ms - mg * mg
        step = g * group["lr"] / (denom + group["epsilon"]).sqrt()
        mom = state.get("moment")
        mom = state["moment"] = step if mom is None else mom * group["momentum"] + step
        return p - mom


class AdamWeightDecay(_Optimizer):
    """MindSpore's ``nn.AdamWeightDecay``: Adam moments without bias correction and a
    decoupled weight decay inside the step.

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = AdamWeightDecay([w], 0.1)((ms.Tensor([2.0]),))
    >>> round(float(w.numpy()[0]), 4)
    0.6838
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, beta1=beta1, beta2=beta2,
                                           eps=eps))

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        b1, b2 = group["beta1"], group["beta2"]
        m, v = state.get("m"), state.get("v")
        m = state["m"] = (p * 0 if m is None else m) * b1 + g * (1 - b1)
        v = state["v"] = (p * 0 if v is None else v) * b2 + g * g * (1 - b2)
        step = m / (v.sqrt() + group["eps"])
        if group["weight_decay"]:
            step = step + p * group["weight_decay"]
        return p - step * group["lr"]


class AdaMax(_Optimizer):
    """MindSpore's ``nn.AdaMax``: the infinity-norm Adam with bias-corrected first moment.

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = AdaMax([w], 0.1)((ms.Tensor([2.0]),))
    >>> round(float(w.numpy()[0]), 4)
    0.9
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, beta1=beta1, beta2=beta2,
                                           eps=eps))

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        g = _l2(g, p, group)
        b1, b2 = group["beta1"], group["beta2"]
        t = state["step"] = state.get("step", 0) + 1
        m, u = state.get("m"), state.get("u")
        m = state["m"] = (p * 0 if m is None else m) * b1 + g * (1 - b1)
        u = state["u"] = _ops.maximum((p * 0 if u is None else u) * b2, g.abs())
        return p - m / (u + group["eps"]) * (group["lr"] / (1 - b1 ** t))


class ProximalAdagrad(_Optimizer):
    """MindSpore's ``nn.ProximalAdagrad``: an Adagrad step (``accum`` from 0.1), then
    ``sign(v) / (1 + lr l2) * max(|v| - lr l1, 0)``.

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = ProximalAdagrad([w], learning_rate=0.1)((ms.Tensor([0.3]),))
    >>> round(float(w.numpy()[0]), 6)
    0.9
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, l1=0.0, l2=0.0, use_locking=False,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, accum=accum, l1=l1, l2=l2),
                         loss_scale)

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        g = _l2(g, p, group)
        accum = state.get("accum")
        accum = state["accum"] = (p * 0 + group["accum"] if accum is None else accum) + g * g
        lr = group["lr"]
        v = p - g * lr / accum.sqrt()
        if not group["l1"] and not group["l2"]:
            return v
        shrunk = _ops.relu(v.abs() - lr * group["l1"])
        return _ops.sign(v) * shrunk / (1 + lr * group["l2"])


class Rprop(_Optimizer):
    """MindSpore's ``nn.Rprop``: per-element step sizes (from ``learning_rate``) grow by
    ``etas[1]`` while the gradient keeps its sign and shrink by ``etas[0]`` when it flips
    (that step then skips the element); ``w -= sign(g) * step``.

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = Rprop([w], learning_rate=0.1)((ms.Tensor([3.0]),))
    >>> round(float(w.numpy()[0]), 6)
    0.9
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0),
                 weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, etas=tuple(etas),
                                           step_sizes=tuple(step_sizes)))

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        g = _l2(g, p, group)
        prev = state.get("prev")
        size = state.get("step_size")
        prev = p * 0 if prev is None else prev
        size = p * 0 + group["lr"] if size is None else size
        (down, up), (low, high) = group["etas"], group["step_sizes"]
        turn = _ops.sign(g * prev)
        size = _ops.where(turn > 0, _ops.clip_by_value(size * up, None, high),
                          _ops.where(turn < 0, _ops.clip_by_value(size * down, low, None), size))
        g = _ops.where(turn < 0, 0.0, g)
        state["prev"], state["step_size"] = g, size
        return p - _ops.sign(g) * size


class ASGD(_Optimizer):
    """MindSpore's ``nn.ASGD``: ``w = w (1 - lambd eta) - eta g`` with
    ``eta = lr / (1 + lambd lr t)^alpha`` after each step (the average ``ax`` is kept in the
    state, from step ``t0``).

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w'); _ = ASGD([w], learning_rate=0.1, lambd=0.0)((ms.Tensor([2.0]),))
    >>> round(float(w.numpy()[0]), 6)
    0.8
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(params, _defaults(learning_rate, weight_decay, lambd=lambd, alpha=alpha,
                                           t0=t0))

    def update(self, p, g, state, group):
        """The new value of ``p``."""
        g = _l2(g, p, group)
        t = state["step"] = state.get("step", 0) + 1
        eta, mu = state.get("eta", group["lr"]), state.get("mu", 1.0)
        new = p * (1 - group["lambd"] * eta) - g * eta
        ax = state.get("ax")
        state["ax"] = new if mu == 1 or ax is None else ax + (new - ax) * mu
        state["eta"] = group["lr"] / (1 + group["lambd"] * group["lr"] * t) ** group["alpha"]
        state["mu"] = 1.0 / max(1.0, t - group["t0"])
        return new


def _in_unit_interval(name, value):
    if not 0.0 < value < 1.0:
        raise ValueError(f"Adam: {name} must be in (0, 1), got {value}")
    return float(value)


class Adam(_Optimizer):
    """MindSpore's ``nn.Adam`` (its ``ApplyAdam`` kernel): the bias corrections fold into the
    learning rate, ``lr_t = lr sqrt(1 - b2^t) / (1 - b1^t)`` (the powers kept in float32, as
    MindSpore's ``beta1_power``/``beta2_power`` parameters are), and ``eps`` is added to the
    uncorrected ``sqrt(v)``; the weight decay is added to the gradient (L2).

    >>> import eagerad.mindspore as ms
    >>> w = ms.Parameter(ms.Tensor([1.0]), name='w')
    >>> _ = Adam([w], learning_rate=0.1)((ms.Tensor([1e-7]),)); round(float(w.asnumpy()[0]), 5)
    0.97597
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        if use_amsgrad:
            raise NotImplementedError("Adam: use_amsgrad is not supported")
        if not eps > 0:
            raise ValueError(f"Adam: eps must be positive, got {eps}")
        super().__init__(params, _defaults(learning_rate, weight_decay,
                                           beta1=_in_unit_interval("beta1", beta1),
                                           beta2=_in_unit_interval("beta2", beta2),
                                           eps=float(eps), use_nesterov=bool(use_nesterov)),
                         loss_scale)

    def update(self, p, g, state, group):
        """The new value of ``p``; ``moment1``, ``moment2`` and the beta powers in ``state``."""
        g = _l2(g, p, group)
        b1, b2, f32 = group["beta1"], group["beta2"], np.float32
        p1 = state["beta1_power"] = f32(state.get("beta1_power", f32(1.0)) * f32(b1))
        p2 = state["beta2_power"] = f32(state.get("beta2_power", f32(1.0)) * f32(b2))
        lr_t = float(f32(group["lr"]) * np.sqrt(f32(1.0) - p2) / (f32(1.0) - p1))
        m, v = state.get("moment1"), state.get("moment2")
        m, v = (p * 0 if m is None else m), (p * 0 if v is None else v)
        c1, c2 = float(f32(1.0) - f32(b1)), float(f32(1.0) - f32(b2))   # float32, as MindSpore
        m = state["moment1"] = m + (g - m) * c1
        v = state["moment2"] = v + (g * g - v) * c2
        direction = m * b1 + g * c1 if group["use_nesterov"] else m
        return p - direction / (v.sqrt() + group["eps"]) * lr_t
