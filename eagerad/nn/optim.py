"""Optimizers: SGD, Momentum, Adam, AdamW with PyTorch's documented update rules.

Two calling styles share one update:

* MindSpore: ``optimizer(grads)`` with a tuple of gradients aligned with
  ``optimizer.parameters`` (what ``value_and_grad(..., weights=...)`` returns);
* PyTorch: ``loss.backward(); optimizer.step(); optimizer.zero_grad()`` reading ``.grad``.

Updates run under ``no_grad`` and are written into the parameters' buffers in place
(``nn.inplace.assign``), so no graph grows across steps and views stay valid.
Constructors take MindSpore's names (``learning_rate``, ``beta1``/``beta2``) and
PyTorch's (``lr``, ``betas``); ``params`` may be a list of dicts (parameter groups)
overriding ``lr``/``learning_rate`` and ``weight_decay``.

>>> import eagerad
>>> from eagerad import nn
>>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
>>> opt = nn.SGD([w], learning_rate=0.5)
>>> opt((eagerad.tensor([2.0]),)); w.tolist()
True
[0.0]
"""
import math

from ..autograd import enable_grad, no_grad
from ..tensor import ParameterTuple, Tensor
from .inplace import assign


def _choose(name, mindspore_value, torch_name, torch_value, default):
    """One hyper-parameter given under either spelling (not both)."""
    if mindspore_value is not None and torch_value is not None:
        raise ValueError(f"give {name} or {torch_name}, not both")
    value = mindspore_value if mindspore_value is not None else torch_value
    return default if value is None else value


def _number(name, value, low=0.0, high=math.inf, high_open=False):
    """A float hyper-parameter in ``[low, high]`` (or ``[low, high)``), else ValueError."""
    if isinstance(value, Tensor):
        value = value.item()
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, got {type(value).__name__}")
    if not (low <= value <= high) or (high_open and value == high):
        bracket = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in [{low}, {high}{bracket}, got {value}")
    return float(value)


def _groups(params):
    """``params`` as a list of group dicts, each with a list under ``'params'``."""
    if isinstance(params, Tensor):
        raise TypeError("params must be an iterable of Parameters (e.g. net.trainable_params()), "
                        "got a single Tensor")
    params = list(params)
    if not params:
        raise ValueError("optimizer got an empty parameter list")
    groups = params if isinstance(params[0], dict) else [{"params": params}]
    out = []
    for i, group in enumerate(groups):
        if not isinstance(group, dict) or "params" not in group:
            raise TypeError(f"parameter group {i} must be a dict with a 'params' entry")
        group = dict(group)
        if "learning_rate" in group:
            group["lr"] = group.pop("learning_rate")
        group["params"] = list(group["params"])
        for j, p in enumerate(group["params"]):
            if not isinstance(p, Tensor):
                raise TypeError(f"parameter {j} of group {i} is {type(p).__name__}, not a Parameter")
        out.append(group)
    return out


class Optimizer:
    """Base class: parameter groups, per-parameter state, both calling styles.

    Subclasses implement ``update(p, g, state, group) -> new value of p``, written
    with eagerad ops on detached tensors (run under ``no_grad``).

    >>> class Halve(Optimizer):
    ...     def update(self, p, g, state, group):
    ...         return p * 0.5
    >>> w = eagerad.Parameter(eagerad.tensor([4.0]), name='w')
    >>> Halve([w], {'lr': 0.0, 'weight_decay': 0.0})((eagerad.tensor([0.0]),)), w.tolist()
    (True, [2.0])
    """

    def __init__(self, params, defaults, loss_scale=1.0):
        self.param_groups = []
        for group in _groups(params):
            merged = dict(defaults)
            merged.update(group)
            merged["lr"] = _number("learning_rate", merged["lr"])
            merged["weight_decay"] = _number("weight_decay", merged["weight_decay"])
            self.param_groups.append(merged)
        self.parameters = ParameterTuple(p for g in self.param_groups for p in g["params"])
        if len({id(p) for p in self.parameters}) != len(self.parameters):
            raise ValueError("a parameter appears more than once in the optimizer's params")
        self.loss_scale = _number("loss_scale", loss_scale, low=1e-30)
        self.state = {}

    def get_lr(self):
        """The learning rate of the first parameter group.

        >>> SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.25).get_lr()
        0.25
        """
        return self.param_groups[0]["lr"]

    def __call__(self, grads):
        """MindSpore style: apply ``grads`` (aligned with ``self.parameters``; None skips)."""
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        if len(grads) != len(self.parameters):
            raise ValueError(f"optimizer got {len(grads)} gradients for {len(self.parameters)} "
                             "parameters; pass one per parameter, in optimizer.parameters order")
        self._apply(grads)
        return True

    def step(self, closure=None):
        """PyTorch style: apply each parameter's ``.grad`` (parameters without one are skipped).

        ``closure`` (optional) re-evaluates the model and returns the loss.

        >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
        >>> (w * 2).sum().backward()
        >>> SGD([w], lr=0.25).step(); w.tolist()
        [0.5]
        """
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        self._apply(tuple(p.grad for p in self.parameters))
        return loss

    def zero_grad(self, set_to_none=True):
        """Clear ``.grad`` of every parameter (None by default, or zeros).

        >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
        >>> (w * 2).sum().backward()
        >>> SGD([w]).zero_grad(); w.grad is None
        True
        """
        for p in self.parameters:
            if p.grad is not None:
                p.grad = None if set_to_none else p.grad * 0

    def _apply(self, grads):
        with no_grad():
            it = iter(grads)
            for group in self.param_groups:
                for p in group["params"]:
                    g = next(it)
                    if g is None:
                        continue
                    if not isinstance(g, Tensor):
                        g = Tensor(g, dtype=p.dtype)
                    if g.shape != p.shape:
                        raise ValueError(f"gradient of shape {g.shape} does not match parameter "
                                         f"{p.name} of shape {p.shape}")
                    g = g.detach()
                    if self.loss_scale != 1.0:
                        g = g / self.loss_scale
                    new = self.update(p.detach(), g, self.state.setdefault(p, {}), group)
                    if new is not None:
                        assign(p, new)

    def update(self, p, g, state, group):
        """The new value of ``p`` (a detached alias of the parameter), or None when the
        update wrote it into ``p``'s buffer in place (which bumps the version).

        >>> opt = SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.5)
        >>> p = eagerad.tensor([1.0])
        >>> opt.update(p, eagerad.tensor([2.0]), {}, opt.param_groups[0]), p.tolist()
        (None, [0.0])
        """
        raise NotImplementedError

    def __repr__(self):
        settings = {k: v for k, v in self.param_groups[0].items() if k != "params"}
        return f"{type(self).__name__}({len(self.parameters)} parameters, {settings})"


class SGD(Optimizer):
    """Stochastic gradient descent with optional (Nesterov) momentum and L2 decay.

    Per step: ``g += wd * p``; ``buf = g`` on the first step, then
    ``buf = momentum * buf + (1 - dampening) * g``; ``g = g + momentum * buf`` if
    nesterov else ``buf``; ``p -= lr * g``.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> opt = SGD([w], lr=0.1, momentum=0.9)
    >>> opt((eagerad.tensor([1.0]),)) and opt((eagerad.tensor([1.0]),))   # buf: 1, then 1.9
    True
    >>> round(w.item(), 6)
    0.71
    """

    def __init__(self, params, learning_rate=None, momentum=0.0, dampening=0.0,
                 weight_decay=0.0, nesterov=False, loss_scale=1.0, lr=None):
        momentum = _number("momentum", momentum)
        dampening = _number("dampening", dampening)
        if nesterov and (momentum == 0.0 or dampening != 0.0):
            raise ValueError(f"nesterov momentum needs momentum > 0 and dampening = 0, got "
                             f"momentum={momentum}, dampening={dampening}")
        defaults = {"lr": _choose("learning_rate", learning_rate, "lr", lr, 0.1),
                    "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": bool(nesterov)}
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """One SGD step written into ``p`` in place (so returns None); momentum lives in ``state``.

        >>> opt = SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.5, weight_decay=1.0)
        >>> p = eagerad.tensor([1.0])
        >>> opt.update(p, eagerad.tensor([1.0]), {}, opt.param_groups[0]), p.tolist()   # g + wd p = 2
        (None, [0.0])
        """
        if group["weight_decay"]:
            g = g + p * group["weight_decay"]
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            buf = g.clone() if buf is None else buf * momentum + g * (1.0 - group["dampening"])
            state["momentum_buffer"] = buf
            g = g + buf * momentum if group["nesterov"] else buf
        p.sub_(g * group["lr"])     # in place: the same numbers as ``p - g * lr``, one pass less


class Momentum(SGD):
    """MindSpore's ``Momentum(params, learning_rate, momentum)``: SGD with momentum.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> Momentum([w], 0.1, 0.9)((eagerad.tensor([1.0]),)), round(w.item(), 6)
    (True, 0.9)
    """

    def __init__(self, params, learning_rate=None, momentum=None, weight_decay=0.0,
                 loss_scale=1.0, use_nesterov=False, lr=None):
        if momentum is None:
            raise TypeError("Momentum needs a momentum value, e.g. Momentum(params, 0.1, 0.9)")
        if learning_rate is None and lr is None:
            raise TypeError("Momentum needs a learning_rate, e.g. Momentum(params, 0.1, 0.9)")
        super().__init__(params, learning_rate, momentum, 0.0, weight_decay, use_nesterov,
                         loss_scale, lr)


class Adam(Optimizer):
    """The first step moves each weight by about ``lr`` whatever the gradient's scale:

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> Adam([w], lr=0.1)((eagerad.tensor([100.0]),)), round(w.item(), 6)
    (True, 0.9)
    """

    decoupled = False
    default_weight_decay = 0.0

    def __init__(self, params, learning_rate=None, beta1=None, beta2=None, eps=1e-8,
                 weight_decay=None, loss_scale=1.0, lr=None, betas=None):
        b1, b2 = betas if betas is not None else (None, None)
        defaults = {"lr": _choose("learning_rate", learning_rate, "lr", lr, 1e-3),
                    "beta1": _number("beta1", _choose("beta1", beta1, "betas[0]", b1, 0.9),
                                     high=1.0, high_open=True),
                    "beta2": _number("beta2", _choose("beta2", beta2, "betas[1]", b2, 0.999),
                                     high=1.0, high_open=True),
                    "eps": _number("eps", eps),
                    "weight_decay": self.default_weight_decay if weight_decay is None else weight_decay}
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """The Adam-updated value of ``p``; moments and the step count live in ``state``.

        >>> opt = Adam([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> state = {}
        >>> new = opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), state, opt.param_groups[0])
        >>> round(new.item(), 6), state['step']
        (1.1, 1)
        """
        lr, wd, b1, b2 = group["lr"], group["weight_decay"], group["beta1"], group["beta2"]
        t = state["step"] = state.get("step", 0) + 1
        if wd and self.decoupled:
            p = p * (1.0 - lr * wd)
        elif wd:
            g = g + p * wd
        m, v = state.get("exp_avg"), state.get("exp_avg_sq")
        m = g * (1.0 - b1) if m is None else m * b1 + g * (1.0 - b1)
        v = g * g * (1.0 - b2) if v is None else v * b2 + g * g * (1.0 - b2)
        state["exp_avg"], state["exp_avg_sq"] = m, v
        denom = v.sqrt() / math.sqrt(1.0 - b2 ** t) + group["eps"]
        return p - m / denom * (lr / (1.0 - b1 ** t))


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * wd`` before
    the Adam step instead of adding ``wd * p`` to g; ``weight_decay`` defaults to 0.01.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> AdamW([w], lr=0.1, weight_decay=0.5)((eagerad.tensor([0.0]),)), round(w.item(), 6)   # 1 - 0.1 * 0.5
    (True, 0.95)
    """

    decoupled = True
    default_weight_decay = 0.01
