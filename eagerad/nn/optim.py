"""Optimizers with PyTorch's documented update rules: SGD, Momentum, Adam (AMSGrad),
AdamW, RMSprop, Adagrad, Adadelta, Adamax, NAdam, and LBFGS (in ``lbfgs.py``).

Two calling styles share one update:

* MindSpore: ``optimizer(grads)`` with a tuple of gradients aligned with
  ``optimizer.parameters`` (what ``value_and_grad(..., weights=...)`` returns);
* PyTorch: ``loss.backward(); optimizer.step(); optimizer.zero_grad()`` reading ``.grad``.

Updates run under ``no_grad`` and are written into the parameters' buffers in place
(``nn.inplace.assign``), so no graph grows across steps and views stay valid.
Constructors take MindSpore's names (``learning_rate``, ``beta1``/``beta2``) and
PyTorch's (``lr``, ``betas``); ``params`` may be a list of dicts (parameter groups)
overriding ``lr``/``learning_rate`` and ``weight_decay``.  MindSpore's dynamic
learning rates work too: ``learning_rate`` may be a list of per-step values or a
schedule Cell (``nn.CosineDecayLR(...)``) called with the step count.
``state_dict()``/``load_state_dict()`` save and resume every optimizer exactly
(PyTorch's layout: ``{'state': {index: {...}}, 'param_groups': [...]}``).

>>> import eagerad
>>> from eagerad import nn
>>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
>>> opt = nn.SGD([w], learning_rate=0.5)
>>> opt((eagerad.tensor([2.0]),)); w.tolist()
True
[0.0]
"""
import copy
import math

import numpy as np

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


def _copied(value):
    """A copy of one optimizer state entry that later steps cannot change: tensors are
    cloned, containers and numpy arrays (LBFGS's history) deep-copied."""
    if isinstance(value, Tensor):
        return value.clone()
    return copy.deepcopy(value)


def _check_state_dict(state_dict, owner):
    """TypeError unless ``state_dict`` has the layout ``Optimizer.state_dict()`` returns."""
    if not isinstance(state_dict, dict):
        raise TypeError(f"{owner}.load_state_dict: state_dict must be the dict returned by "
                        f"optimizer.state_dict() (keys 'state' and 'param_groups'), got "
                        f"{type(state_dict).__name__}")
    missing = [k for k in ("state", "param_groups") if k not in state_dict]
    if missing:
        raise ValueError(f"{owner}.load_state_dict: state_dict lacks {missing}; it must be what "
                         f"optimizer.state_dict() returns, got keys {sorted(map(str, state_dict))}")
    if not isinstance(state_dict["state"], dict) or not isinstance(state_dict["param_groups"], list) \
            or not all(isinstance(g, dict) and "params" in g for g in state_dict["param_groups"]):
        raise TypeError(f"{owner}.load_state_dict: state_dict['state'] must be a dict and "
                        "state_dict['param_groups'] a list of dicts with 'params'")


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
        self.defaults = dict(defaults)
        self.learning_rate = self.defaults["lr"]
        self.dynamic_lr = _is_schedule(self.learning_rate)
        if self.dynamic_lr:
            self.defaults["lr"] = _schedule_value(self.learning_rate, 0)
        self.global_step = 0
        self.param_groups = []
        self.state = {}
        for group in _groups(params):
            self.add_param_group(group)
        self.loss_scale = _number("loss_scale", loss_scale, low=1e-30)

    @property
    def parameters(self):
        """Every parameter, in group order (what MindSpore-style ``grads`` align with).

        >>> len(SGD([eagerad.Parameter(eagerad.zeros(1))]).parameters)
        1
        """
        return ParameterTuple(p for g in self.param_groups for p in g["params"])

    def add_param_group(self, group):
        """Add a group (a dict with ``'params'``; other keys override the defaults).

        >>> opt = SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> opt.add_param_group({'params': [eagerad.Parameter(eagerad.zeros(2))], 'lr': 0.5})
        >>> [g['lr'] for g in opt.param_groups]
        [0.1, 0.5]
        """
        (group,) = _groups([group])
        merged = dict(self.defaults)
        merged.update(group)
        merged["lr"] = _number("learning_rate", merged["lr"])
        merged["weight_decay"] = _number("weight_decay", merged["weight_decay"])
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if len(seen | {id(p) for p in merged["params"]}) != len(seen) + len(merged["params"]):
            raise ValueError("a parameter appears more than once in the optimizer's params")
        self.param_groups.append(merged)

    def state_dict(self):
        """The optimizer's state in PyTorch's layout: per-parameter state keyed by the
        parameter's index, and the groups' settings with parameter indices.  Tensors
        in it are copies, so training on does not change a saved state.

        >>> w = eagerad.Parameter(eagerad.zeros(1))
        >>> opt = Adam([w], lr=0.1); opt((eagerad.tensor([1.0]),))
        True
        >>> sd = opt.state_dict(); sd['state'][0]['step'], sd['param_groups'][0]['params']
        (1, [0])
        """
        index = {id(p): i for i, p in enumerate(self.parameters)}
        state = {index[id(p)]: {k: _copied(v) for k, v in s.items()}
                 for p, s in self.state.items() if id(p) in index}
        groups = []
        for g in self.param_groups:
            saved = {k: v for k, v in g.items() if k != "params"}
            saved["params"] = [index[id(p)] for p in g["params"]]
            groups.append(saved)
        return {"state": state, "param_groups": groups, "global_step": self.global_step}

    def load_state_dict(self, state_dict):
        """Resume from ``state_dict()`` of an optimizer of the same class over parameters
        of the same shapes (a ValueError says which group or parameter differs).

        >>> w = eagerad.Parameter(eagerad.zeros(1))
        >>> opt = SGD([w], lr=0.1, momentum=0.9); opt((eagerad.tensor([1.0]),))
        True
        >>> opt2 = SGD([w], lr=0.5, momentum=0.9); opt2.load_state_dict(opt.state_dict())
        >>> opt2.param_groups[0]['lr'], opt2.state[w]['momentum_buffer'].tolist()
        (0.1, [1.0])
        """
        _check_state_dict(state_dict, type(self).__name__)
        groups = state_dict["param_groups"]
        if len(groups) != len(self.param_groups):
            raise ValueError(f"loaded state dict has {len(groups)} parameter groups, the optimizer "
                             f"has {len(self.param_groups)}")
        params = self.parameters
        for i, (saved, group) in enumerate(zip(groups, self.param_groups)):
            if len(saved["params"]) != len(group["params"]):
                raise ValueError(f"parameter group {i}: the loaded state has "
                                 f"{len(saved['params'])} parameters, the optimizer "
                                 f"{len(group['params'])}")
        self.state = {}
        for idx, s in state_dict["state"].items():
            if not 0 <= int(idx) < len(params):
                raise ValueError(f"loaded state refers to parameter {idx}, the optimizer has "
                                 f"{len(params)} parameters")
            p = params[int(idx)]
            entry = {}
            for k, v in s.items():
                if k == "step" and isinstance(v, Tensor) and v.ndim == 0:
                    v = int(round(v.item()))     # PyTorch keeps the count as a float tensor
                if isinstance(v, Tensor):
                    if v.shape != p.shape and v.ndim == p.ndim:
                        raise ValueError(f"state {k!r} of parameter {idx} has shape {v.shape}, "
                                         f"the parameter {p.shape}")
                    v = v.to(p.device)
                entry[k] = _copied(v)
            self.state[p] = entry
        for saved, group in zip(groups, self.param_groups):
            group.update({k: v for k, v in saved.items() if k != "params"})
        self.global_step = state_dict.get("global_step", 0)

    def get_lr(self):
        """The learning rate of the first parameter group (for a dynamic learning rate:
        the value the next step uses).

        >>> SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.25).get_lr()
        0.25
        """
        return self.param_groups[0]["lr"]

    def __call__(self, grads):
        """MindSpore style: apply ``grads`` (aligned with ``self.parameters``; None skips)."""
        grads = tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)
        count = sum(len(group["params"]) for group in self.param_groups)
        if len(grads) != count:
            raise ValueError(f"optimizer got {len(grads)} gradients for {count} "
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
        self._apply([p.grad for group in self.param_groups for p in group["params"]])
        return loss

    def zero_grad(self, set_to_none=True):
        """Clear ``.grad`` of every parameter (None by default, or zeros).

        >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
        >>> (w * 2).sum().backward()
        >>> SGD([w]).zero_grad(); w.grad is None
        True
        """
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is not None:
                    p.grad = None if set_to_none else p.grad * 0

    def _apply(self, grads):
        if self.dynamic_lr:
            lr = _schedule_value(self.learning_rate, self.global_step)
            for group in self.param_groups:
                group["lr"] = lr
        self.global_step += 1
        scale = self.loss_scale
        states = self.state
        self._scalars = {}      # this step's kernel scalars per group (``_step_scalars``)
        try:
            with no_grad():
                it = iter(grads)
                for group in self.param_groups:
                    for p in group["params"]:
                        g = next(it)
                        if g is None:
                            continue
                        if not isinstance(g, Tensor):
                            g = Tensor(g, dtype=p.dtype)
                        if g._data.shape != p._data.shape:
                            raise ValueError(f"gradient of shape {g.shape} does not match "
                                             f"parameter {p.name} of shape {p.shape}")
                        if scale != 1.0:
                            g = g.detach() / scale
                        state = states.get(p)
                        if state is None:
                            state = states[p] = {}
                        if _plain_arrays(p, g) and self.update_arrays(p, g._data, state, group):
                            p._version[0] += 1
                            continue
                        new = self.update(p.detach(), g.detach(), state, group)
                        if new is not None:
                            assign(p, new)
        finally:
            self._scalars = None

    def update_arrays(self, p, g, state, group):
        """The update on arrays, written into ``p._data`` in place with the arithmetic
        of ``update`` (the same numbers, without a Tensor op per line): True when done,
        False to run ``update``.  Called for float32/float64 CPU parameters whose
        gradient array ``g`` has their dtype; the base class has none.

        >>> Optimizer.update_arrays(None, None, None, {}, {})
        False
        """
        return False

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


def _plain_arrays(p, g):
    """Whether ``update_arrays`` may run: a float32/float64 CPU parameter and a numpy
    gradient of its dtype."""
    data = p._data
    return p._device.type == "cpu" and type(data) is np.ndarray and data.dtype.char in "fd" \
        and type(g._data) is np.ndarray and g._data.dtype == data.dtype


def _state_array(state, key, value):
    """``state[key]`` as a Tensor holding the array ``value`` (what ``state_dict`` saves)."""
    state[key] = Tensor._make(value)
    return value


def _in_place_ok(data, *held):
    """Whether the update kernels may write ``data`` (a parameter's array) and the held
    state tensors (None: not made yet) in place: C-contiguous, of data's dtype and shape."""
    if not data.flags.c_contiguous:
        return False
    for t in held:
        if t is not None:
            a = t._data
            if type(a) is not np.ndarray or a.dtype != data.dtype or a.shape != data.shape \
                    or not a.flags.c_contiguous:
                return False
    return True


def _step_scalars(opt, key, make):
    """The scalars ``make()`` of the array kernels, made once per group and step while
    ``_apply`` runs (a group's settings do not change within a step); made afresh when
    ``update_arrays`` is called on its own."""
    cache = opt.__dict__.get("_scalars")
    if cache is None:
        return make()
    held = cache.get(key)
    if held is None:
        held = cache[key] = make()
    return held


def _kernels():
    """``backend.cpu.optim_kernels``, imported at the first step (importing eagerad
    compiles nothing), as the other callers of the CPU kernels import theirs."""
    from ..backend.cpu import optim_kernels
    return optim_kernels


def _torch_options(name, maximize, foreach, capturable, differentiable, fused):
    """PyTorch's implementation switches (``foreach``, ``fused``, ``capturable``): accepted,
    one implementation runs whichever is asked for (the same numbers); ``maximize`` ascends
    (the gradient's sign flipped first); ``differentiable=True`` (a graph through the step)
    is refused.  Returns the group entries they make."""
    if differentiable:
        raise NotImplementedError(f"{name}: differentiable=True (autograd through the update) "
                                  "is not supported; the step runs on bare arrays")
    for option, value in (("foreach", foreach), ("capturable", capturable), ("fused", fused)):
        if value not in (None, True, False):
            raise TypeError(f"{name}: {option} must be a bool or None, got {value!r}")
    return {"maximize": bool(maximize)}


def _is_schedule(lr):
    """A MindSpore dynamic learning rate: a list/array of per-step values or a schedule."""
    if isinstance(lr, Tensor):
        return lr.ndim > 0
    return isinstance(lr, (list, tuple, np.ndarray)) or callable(lr)


def _schedule_value(lr, step):
    """The learning rate of ``step`` from a per-step list (its last value past the end) or
    a schedule called with the step as a 0-d int32 Tensor (MindSpore's global_step)."""
    if callable(lr) and not isinstance(lr, Tensor):
        value = lr(Tensor(np.array(step, dtype=np.int32)))
    else:
        values = lr.numpy() if isinstance(lr, Tensor) else np.asarray(lr, dtype=np.float64)
        value = values[min(step, len(values) - 1)]
    return float(value.item() if hasattr(value, "item") else value)


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
                 weight_decay=0.0, nesterov=False, loss_scale=1.0, lr=None, *, maximize=False,
                 foreach=None, differentiable=False, fused=None):
        momentum = _number("momentum", momentum)
        dampening = _number("dampening", dampening)
        if nesterov and (momentum == 0.0 or dampening != 0.0):
            raise ValueError(f"nesterov momentum needs momentum > 0 and dampening = 0, got "
                             f"momentum={momentum}, dampening={dampening}")
        defaults = {"lr": _choose("learning_rate", learning_rate, "lr", lr, 0.1),
                    "momentum": momentum, "dampening": dampening,
                    "weight_decay": weight_decay, "nesterov": bool(nesterov)}
        defaults.update(_torch_options("SGD", maximize, foreach, None, differentiable, fused))
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """One SGD step written into ``p`` in place (so returns None); momentum lives in ``state``.

        >>> opt = SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.5, weight_decay=1.0)
        >>> p = eagerad.tensor([1.0])
        >>> opt.update(p, eagerad.tensor([1.0]), {}, opt.param_groups[0]), p.tolist()   # g + wd p = 2
        (None, [0.0])
        """
        if group.get("maximize"):
            g = -g
        if group["weight_decay"]:
            g = g + p * group["weight_decay"]
        momentum = group["momentum"]
        if momentum:
            buf = state.get("momentum_buffer")
            buf = g.clone() if buf is None else buf * momentum + g * (1.0 - group["dampening"])
            state["momentum_buffer"] = buf
            g = g + buf * momentum if group["nesterov"] else buf
        p.sub_(g * group["lr"])     # in place: the same numbers as ``p - g * lr``, one pass less

    def update_arrays(self, p, g, state, group):
        """``update`` on arrays (the same numbers).

        >>> w = eagerad.Parameter(eagerad.tensor([1.0]))
        >>> opt = SGD([w], lr=0.5, momentum=0.5)
        >>> opt.update_arrays(w, np.array([1.0]), opt.state.setdefault(w, {}), opt.param_groups[0])
        True
        >>> w.tolist(), opt.state[w]['momentum_buffer'].tolist()
        ([0.5], [1.0])
        """
        data = p._data
        momentum = group["momentum"]
        held = state.get("momentum_buffer") if momentum else None
        if not _in_place_ok(data, held):
            return False
        if momentum and held is None:
            buf = _state_array(state, "momentum_buffer", np.empty_like(data))
        else:
            buf = data if held is None else held._data
        coef = _step_scalars(self, (id(group), data.dtype.char), lambda: np.array(
            [group["weight_decay"], momentum, 1.0 - group["dampening"], group["lr"]],
            data.dtype))
        _kernels().sgd(data.reshape(-1), g.reshape(-1), buf.reshape(-1), coef, held is None,
                       bool(momentum), bool(group.get("maximize")), bool(group["nesterov"]))
        return True


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


def _betas(learning_rate, lr, default_lr, beta1, beta2, betas, b1_default=0.9, b2_default=0.999):
    """``lr``, ``beta1``, ``beta2`` from MindSpore's or PyTorch's spelling."""
    b1, b2 = betas if betas is not None else (None, None)
    return {"lr": _choose("learning_rate", learning_rate, "lr", lr, default_lr),
            "beta1": _number("beta1", _choose("beta1", beta1, "betas[0]", b1, b1_default),
                             high=1.0, high_open=True),
            "beta2": _number("beta2", _choose("beta2", beta2, "betas[1]", b2, b2_default),
                             high=1.0, high_open=True)}


def _moments(state, g, b1, b2):
    """Adam's moment estimates updated with ``g`` (started at the first step) and stored in
    ``state`` as ``exp_avg`` and ``exp_avg_sq``: ``(m, v)``."""
    m, v = state.get("exp_avg"), state.get("exp_avg_sq")
    m = state["exp_avg"] = g * (1.0 - b1) if m is None else m * b1 + g * (1.0 - b1)
    v = state["exp_avg_sq"] = g * g * (1.0 - b2) if v is None else v * b2 + g * g * (1.0 - b2)
    return m, v


def _decayed(g, p, group):
    """``g + weight_decay * p`` (L2 penalty folded into the gradient), as PyTorch."""
    return g + p * group["weight_decay"] if group["weight_decay"] else g


class Adam(Optimizer):
    """The first step moves each weight by about ``lr`` whatever the gradient's scale:

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> Adam([w], lr=0.1)((eagerad.tensor([100.0]),)), round(w.item(), 6)
    (True, 0.9)
    """

    decoupled = False
    default_weight_decay = 0.0

    def __init__(self, params, learning_rate=None, beta1=None, beta2=None, eps=1e-8,
                 weight_decay=None, loss_scale=1.0, lr=None, betas=None, amsgrad=False,
                 use_amsgrad=None, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        defaults = _betas(learning_rate, lr, 1e-3, beta1, beta2, betas)
        defaults.update(_torch_options(type(self).__name__, maximize, foreach, capturable,
                                       differentiable, fused))
        defaults.update(eps=_number("eps", eps), amsgrad=bool(amsgrad or use_amsgrad),
                        weight_decay=self.default_weight_decay if weight_decay is None
                        else weight_decay)
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
        if group.get("maximize"):
            g = -g
        if wd and self.decoupled:
            p = p * (1.0 - lr * wd)
        elif wd:
            g = g + p * wd
        m, v = _moments(state, g, b1, b2)
        if group.get("amsgrad"):
            best = state.get("max_exp_avg_sq")
            v = state["max_exp_avg_sq"] = v if best is None else best.maximum(v)
        denom = v.sqrt() / math.sqrt(1.0 - b2 ** t) + group["eps"]
        return p - m / denom * (lr / (1.0 - b1 ** t))

    def update_arrays(self, p, g, state, group):
        """``update`` on arrays, the moments updated in place (the same numbers); AMSGrad
        runs ``update``.

        >>> w = eagerad.Parameter(eagerad.tensor([1.0]))
        >>> opt = Adam([w], lr=0.1)
        >>> opt.update_arrays(w, np.array([-3.0]), opt.state.setdefault(w, {}), opt.param_groups[0])
        True
        >>> round(w.item(), 6), opt.state[w]['step']
        (1.1, 1)
        """
        if group.get("amsgrad"):
            return False
        data = p._data
        m, v = state.get("exp_avg"), state.get("exp_avg_sq")
        if (m is None) != (v is None) or not _in_place_ok(data, m, v):
            return False
        lr, wd, b1, b2 = group["lr"], group["weight_decay"], group["beta1"], group["beta2"]
        t = state["step"] = state.get("step", 0) + 1
        first = m is None
        if first:
            m = _state_array(state, "exp_avg", np.empty_like(data))
            v = _state_array(state, "exp_avg_sq", np.empty_like(data))
        else:
            m, v = m._data, v._data
        decoupled = bool(wd) and self.decoupled
        coef = _step_scalars(self, (id(group), t, data.dtype.char), lambda: np.array(
            [wd if wd and not decoupled else 0.0, 1.0 - lr * wd if decoupled else 1.0, b1,
             1.0 - b1, b2, 1.0 - b2, math.sqrt(1.0 - b2 ** t), group["eps"],
             lr / (1.0 - b1 ** t)], data.dtype))
        _kernels().adam(data.reshape(-1), g.reshape(-1), m.reshape(-1), v.reshape(-1), coef,
                        first, bool(group.get("maximize")))
        return True


class AdamW(Adam):
    """Adam with decoupled weight decay (Loshchilov & Hutter): ``p *= 1 - lr * wd`` before
    the Adam step instead of adding ``wd * p`` to g; ``weight_decay`` defaults to 0.01.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> AdamW([w], lr=0.1, weight_decay=0.5)((eagerad.tensor([0.0]),)), round(w.item(), 6)   # 1 - 0.1 * 0.5
    (True, 0.95)
    """

    decoupled = True
    default_weight_decay = 0.01


class RMSprop(Optimizer):
    """RMSprop (PyTorch's rule): ``v = alpha v + (1 - alpha) g^2``, step ``g / (sqrt(v) + eps)``
    (``centered``: the running mean of g is subtracted from v first), optional momentum.
    MindSpore spells ``alpha`` as ``decay`` and puts ``eps`` inside the square root
    (``sqrt(v + eps)``), which ``eps_inside_sqrt=True`` (MindSpore's spelling) selects.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> RMSprop([w], lr=0.01)((eagerad.tensor([2.0]),)), round(w.item(), 6)   # 1 - 0.01 / sqrt(0.01)
    (True, 0.9)
    """

    def __init__(self, params, learning_rate=None, decay=None, momentum=0.0, epsilon=None,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0, lr=None,
                 alpha=None, eps=None):
        mindspore = decay is not None or epsilon is not None
        defaults = {"lr": _choose("learning_rate", learning_rate, "lr", lr, 1e-2),
                    "alpha": _number("alpha", _choose("decay", decay, "alpha", alpha, 0.99),
                                     high=1.0),
                    "eps": _number("eps", _choose("epsilon", epsilon, "eps", eps,
                                                  1e-10 if mindspore else 1e-8)),
                    "momentum": _number("momentum", momentum), "centered": bool(centered),
                    "eps_inside_sqrt": mindspore, "weight_decay": weight_decay}
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """The RMSprop-updated value of ``p``; averages live in ``state``.

        >>> opt = RMSprop([eagerad.Parameter(eagerad.zeros(1))], lr=0.1, alpha=0.0)
        >>> round(opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), {}, opt.param_groups[0]).item(), 6)
        1.1
        """
        g = _decayed(g, p, group)
        alpha, eps = group["alpha"], group["eps"]
        v = state.get("square_avg")
        v = state["square_avg"] = g * g * (1.0 - alpha) if v is None else v * alpha + g * g * (1.0 - alpha)
        if group["centered"]:
            m = state.get("grad_avg")
            m = state["grad_avg"] = g * (1.0 - alpha) if m is None else m * alpha + g * (1.0 - alpha)
            v = v - m * m
        avg = (v + eps).sqrt() if group["eps_inside_sqrt"] else v.sqrt() + eps
        step = g / avg
        if group["momentum"]:
            buf = state.get("momentum_buffer")
            step = state["momentum_buffer"] = step if buf is None else buf * group["momentum"] + step
        return p - step * group["lr"]


class Adagrad(Optimizer):
    """Adagrad (PyTorch's rule): ``sum += g^2``, step ``lr / (1 + (t - 1) lr_decay) * g /
    (sqrt(sum) + eps)``; MindSpore's ``accum`` is ``initial_accumulator_value``.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> Adagrad([w], lr=0.5)((eagerad.tensor([2.0]),)), round(w.item(), 6)
    (True, 0.5)
    """

    def __init__(self, params, accum=None, learning_rate=None, update_slots=True, loss_scale=1.0,
                 weight_decay=0.0, lr=None, lr_decay=0.0, initial_accumulator_value=None,
                 eps=1e-10):
        defaults = {"lr": _choose("learning_rate", learning_rate, "lr", lr, 1e-2),
                    "lr_decay": _number("lr_decay", lr_decay),
                    "initial_accumulator_value": _number("initial_accumulator_value", _choose(
                        "accum", accum, "initial_accumulator_value", initial_accumulator_value,
                        0.0)),
                    "eps": _number("eps", eps), "weight_decay": weight_decay}
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """The Adagrad-updated value of ``p``; the sum of squares lives in ``state``.

        >>> opt = Adagrad([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> round(opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), {}, opt.param_groups[0]).item(), 6)
        1.1
        """
        g = _decayed(g, p, group)
        t = state["step"] = state.get("step", 0) + 1
        total = state.get("sum")
        if total is None:
            total = p * 0 + group["initial_accumulator_value"]
        total = state["sum"] = total + g * g
        lr = group["lr"] / (1.0 + (t - 1) * group["lr_decay"])
        return p - g / (total.sqrt() + group["eps"]) * lr


class Adadelta(Optimizer):
    """Adadelta (PyTorch's rule): ``v = rho v + (1 - rho) g^2``, ``delta = sqrt(u + eps) /
    sqrt(v + eps) * g``, ``u = rho u + (1 - rho) delta^2``, ``p -= lr * delta``.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> Adadelta([w], lr=1.0, rho=0.0, eps=0.0)((eagerad.tensor([2.0]),)), w.tolist()
    (True, [1.0])
    """

    def __init__(self, params, learning_rate=None, rho=0.9, epsilon=None, loss_scale=1.0,
                 weight_decay=0.0, lr=None, eps=None):
        defaults = {"lr": _choose("learning_rate", learning_rate, "lr", lr, 1.0),
                    "rho": _number("rho", rho, high=1.0),
                    "eps": _number("eps", _choose("epsilon", epsilon, "eps", eps, 1e-6)),
                    "weight_decay": weight_decay}
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """The Adadelta-updated value of ``p``; both running averages live in ``state``.

        >>> opt = Adadelta([eagerad.Parameter(eagerad.zeros(1))], rho=0.0, eps=0.0)
        >>> opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), {}, opt.param_groups[0]).tolist()
        [1.0]
        """
        g = _decayed(g, p, group)
        rho, eps = group["rho"], group["eps"]
        v, u = state.get("square_avg"), state.get("acc_delta")
        v = state["square_avg"] = g * g * (1.0 - rho) if v is None else v * rho + g * g * (1.0 - rho)
        delta = ((u if u is not None else 0.0) + eps) ** 0.5 / (v + eps).sqrt() * g
        state["acc_delta"] = delta * delta * (1.0 - rho) if u is None else \
            u * rho + delta * delta * (1.0 - rho)
        return p - delta * group["lr"]


class Adamax(Optimizer):
    """Adamax (PyTorch's rule): ``m = b1 m + (1 - b1) g``, ``u = max(b2 u, |g| + eps)``,
    ``p -= lr / (1 - b1^t) * m / u``.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> Adamax([w], lr=0.1)((eagerad.tensor([2.0]),)), round(w.item(), 6)
    (True, 0.9)
    """

    def __init__(self, params, learning_rate=None, beta1=None, beta2=None, eps=1e-8,
                 weight_decay=0.0, loss_scale=1.0, lr=None, betas=None):
        defaults = _betas(learning_rate, lr, 2e-3, beta1, beta2, betas)
        defaults.update(eps=_number("eps", eps), weight_decay=weight_decay)
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """The Adamax-updated value of ``p``; moments and the step count live in ``state``.

        >>> opt = Adamax([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> round(opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), {}, opt.param_groups[0]).item(), 6)
        1.1
        """
        g = _decayed(g, p, group)
        b1, b2 = group["beta1"], group["beta2"]
        t = state["step"] = state.get("step", 0) + 1
        m, u = state.get("exp_avg"), state.get("exp_inf")
        m = state["exp_avg"] = g * (1.0 - b1) if m is None else m * b1 + g * (1.0 - b1)
        bound = g.abs() + group["eps"]
        u = state["exp_inf"] = bound if u is None else (u * b2).maximum(bound)
        return p - m / u * (group["lr"] / (1.0 - b1 ** t))


class NAdam(Optimizer):
    """NAdam (PyTorch's rule, Dozat 2016, with momentum decay ``psi``): momentum factors
    ``mu_t = b1 (1 - 0.5 * 0.96^(t psi))`` applied Nesterov-style to Adam's step.

    >>> w = eagerad.Parameter(eagerad.tensor([1.0]), name='w')
    >>> NAdam([w], lr=0.1)((eagerad.tensor([2.0]),)), round(w.item(), 4)   # Adam's 0.9, plus look-ahead
    (True, 0.8944)
    """

    def __init__(self, params, lr=None, betas=None, eps=1e-8, weight_decay=0.0,
                 momentum_decay=4e-3, loss_scale=1.0, learning_rate=None):
        defaults = _betas(learning_rate, lr, 2e-3, None, None, betas)
        defaults.update(eps=_number("eps", eps), weight_decay=weight_decay,
                        momentum_decay=_number("momentum_decay", momentum_decay))
        super().__init__(params, defaults, loss_scale)

    def update(self, p, g, state, group):
        """The NAdam-updated value of ``p``; moments, step and momentum product in ``state``.

        >>> opt = NAdam([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> round(opt.update(eagerad.tensor([1.0]), eagerad.tensor([-3.0]), {}, opt.param_groups[0]).item(), 4)
        1.1056
        """
        g = _decayed(g, p, group)
        b1, b2, psi = group["beta1"], group["beta2"], group["momentum_decay"]
        t = state["step"] = state.get("step", 0) + 1
        mu = b1 * (1.0 - 0.5 * 0.96 ** (t * psi))
        mu_next = b1 * (1.0 - 0.5 * 0.96 ** ((t + 1) * psi))
        product = state["mu_product"] = state.get("mu_product", 1.0) * mu
        m, v = _moments(state, g, b1, b2)
        denom = (v / (1.0 - b2 ** t)).sqrt() + group["eps"]
        lr = group["lr"]
        return p - g / denom * (lr * (1.0 - mu) / (1.0 - product)) \
            - m / denom * (lr * mu_next / (1.0 - product * mu_next))
