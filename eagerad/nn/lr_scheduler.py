"""Learning-rate schedules in both faces.

PyTorch (``eagerad.optim.lr_scheduler``): a scheduler wraps an optimizer, sets each
group's ``lr`` at construction (epoch 0) and again at every ``step()``; the formulas
are PyTorch's closed forms.  MindSpore: schedule Cells (``nn.CosineDecayLR(...)``)
that map the global step to a learning rate, and functions (``nn.cosine_decay_lr(...)``)
that return the per-step list; either is passed as an optimizer's ``learning_rate``.

>>> import eagerad
>>> from eagerad import nn
>>> opt = nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
>>> sched = StepLR(opt, step_size=2, gamma=0.5)
>>> for _ in range(4):
...     opt.step(); sched.step()
>>> sched.get_last_lr()
[0.25]
"""
import bisect
import math

from ..tensor import Tensor
from .cell import Cell


def _check_optimizer(optimizer, who):
    """TypeError unless ``optimizer`` is an optimizer (has ``param_groups``), the first
    argument of every PyTorch scheduler (``StepLR(opt, step_size=...)``)."""
    groups = getattr(optimizer, "param_groups", None)
    if not isinstance(groups, list):
        raise TypeError(f"{who}: optimizer expected as the first argument (e.g. "
                        f"{who}(optimizer, ...)), got {type(optimizer).__name__} {optimizer!r:.40}")


def _positive_int(who, name, value):
    """``value`` when it is an int >= 1, else a ValueError naming the argument."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{who}: {name} must be a positive int, got {value!r}")
    return value


class LRScheduler:
    """Base: subclasses give ``lr_at(base_lr, epoch, group_index)`` (a closed form);
    ``step()`` advances ``last_epoch`` and writes each group's ``lr``.

    ``chainable`` schedulers step as PyTorch's recursive forms do: the group's current
    rate moves by this schedule's own change (its factor, about ``floor``), so two
    schedulers on one optimizer compose and a rate set by hand is carried on -- writing the
    closed form instead made ``ConstantLR`` + ``ExponentialLR`` start at 1.0, not 0.1.
    ``step(epoch)`` jumps to the closed form, as PyTorch's does.

    >>> class Halving(LRScheduler):
    ...     def lr_at(self, base_lr, epoch, i):
    ...         return base_lr / 2 ** epoch
    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = Halving(opt); s.step(); s.get_last_lr()
    [0.5]
    """

    chainable = False
    floor = 0.0            # (a chainable schedule scales the rate's distance to this)

    def __init__(self, optimizer, last_epoch=-1):
        _check_optimizer(optimizer, type(self).__name__)
        self.optimizer = optimizer
        for group in optimizer.param_groups:
            if last_epoch == -1:
                group.setdefault("initial_lr", group["lr"])
            elif "initial_lr" not in group:
                raise KeyError("param 'initial_lr' is not specified in param_groups when resuming "
                               "an optimizer (last_epoch != -1)")
        self.base_lrs = [group["initial_lr"] for group in optimizer.param_groups]
        self.last_epoch = last_epoch
        self.step()

    def lr_at(self, base_lr, epoch, i):
        """The learning rate of group ``i`` at ``epoch``."""
        raise NotImplementedError

    def _values(self):
        return [self.lr_at(base, self.last_epoch, i) for i, base in enumerate(self.base_lrs)]

    def step(self, epoch=None):
        """Advance one epoch (or jump to ``epoch``) and set the groups' learning rates.

        >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
        >>> s = ExponentialLR(opt, gamma=0.5); s.step(3); opt.param_groups[0]['lr']
        0.125
        """
        previous = self.last_epoch
        self.last_epoch = previous + 1 if epoch is None else epoch
        values = self._values()
        if self.chainable and epoch is None:
            olds = self.base_lrs if previous < 0 else \
                [self.lr_at(base, previous, i) for i, base in enumerate(self.base_lrs)]
            values = [self._chain(group["lr"], new, old)
                      for group, new, old in zip(self.optimizer.param_groups, values, olds)]
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = list(values)

    def _chain(self, current, new, old):
        """``current`` moved as the closed form moved from ``old`` to ``new`` (PyTorch's
        recursive step; from ``floor`` on, by the difference, as its cosine restarts)."""
        if new == old:
            return current
        if old == self.floor:
            return current + (new - old)
        return self.floor + (current - self.floor) * ((new - self.floor) / (old - self.floor))

    def get_last_lr(self):
        """The learning rates the last ``step`` set, one per parameter group.

        >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> StepLR(opt, 1).get_last_lr()
        [0.1]
        """
        return list(self._last_lr)

    def state_dict(self):
        """Everything but the optimizer and functions (PyTorch's convention).

        >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> StepLR(opt, 1).state_dict()['last_epoch']
        0
        """
        return {k: v for k, v in self.__dict__.items() if k != "optimizer" and not callable(v)}

    def load_state_dict(self, state_dict):
        """Restore from ``state_dict()``.

        >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.1)
        >>> s = StepLR(opt, 1); s.load_state_dict({'last_epoch': 5}); s.last_epoch
        5
        """
        self.__dict__.update(state_dict)


_LRScheduler = LRScheduler


class LambdaLR(LRScheduler):
    """``base_lr * lr_lambda(epoch)`` (one function, or one per group).

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = LambdaLR(opt, lambda e: 0.9 ** e); s.step(); s.get_last_lr()
    [0.9]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        _check_optimizer(optimizer, type(self).__name__)
        n = len(optimizer.param_groups)
        self.lr_lambdas = list(lr_lambda) if isinstance(lr_lambda, (list, tuple)) else [lr_lambda] * n
        if len(self.lr_lambdas) != n:
            raise ValueError(f"expected {n} lr_lambdas, got {len(self.lr_lambdas)}")
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return base_lr * self.lr_lambdas[i](epoch)


class MultiplicativeLR(LambdaLR):
    """Multiply the current rate by ``lr_lambda(epoch)`` at each step after the first.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = MultiplicativeLR(opt, lambda e: 0.5); s.step(); s.step(); s.get_last_lr()
    [0.25]
    """

    def _values(self):
        if self.last_epoch <= 0:
            return list(self.base_lrs) if self.last_epoch == 0 else \
                [g["lr"] for g in self.optimizer.param_groups]
        return [g["lr"] * self.lr_lambdas[i](self.last_epoch)
                for i, g in enumerate(self.optimizer.param_groups)]


class StepLR(LRScheduler):
    """``base_lr * gamma ** (epoch // step_size)``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = StepLR(opt, step_size=3, gamma=0.1); s.step(3); s.get_last_lr()
    [0.1]
    """
    chainable = True

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        _check_optimizer(optimizer, "StepLR")
        self.step_size, self.gamma = _positive_int("StepLR", "step_size", step_size), gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return base_lr * self.gamma ** (epoch // self.step_size)


class MultiStepLR(LRScheduler):
    """``base_lr * gamma ** (number of milestones <= epoch)``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = MultiStepLR(opt, milestones=[2, 5], gamma=0.5); s.step(5); s.get_last_lr()
    [0.25]
    """
    chainable = True

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = sorted(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return base_lr * self.gamma ** bisect.bisect_right(self.milestones, epoch)


class ConstantLR(LRScheduler):
    """``base_lr * factor`` until ``total_iters``, then ``base_lr``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> ConstantLR(opt, factor=0.5, total_iters=2).get_last_lr()
    [0.5]
    """
    chainable = True

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if not 0 <= factor <= 1:
            raise ValueError(f"factor must lie in [0, 1], got {factor}")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return base_lr * (self.factor if epoch < self.total_iters else 1.0)


class LinearLR(LRScheduler):
    """The factor goes linearly from ``start_factor`` to ``end_factor`` over ``total_iters``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = LinearLR(opt, start_factor=0.5, total_iters=2); s.step(); s.get_last_lr()
    [0.75]
    """
    chainable = True

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if not 0 < start_factor <= 1 or not 0 <= end_factor <= 1:
            raise ValueError(f"start_factor must lie in (0, 1] and end_factor in [0, 1], got "
                             f"{start_factor}, {end_factor}")
        self.start_factor, self.end_factor, self.total_iters = start_factor, end_factor, total_iters
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        done = min(epoch, self.total_iters) / self.total_iters
        return base_lr * (self.start_factor + (self.end_factor - self.start_factor) * done)


class ExponentialLR(LRScheduler):
    """``base_lr * gamma ** epoch``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = ExponentialLR(opt, gamma=0.9); s.step(); s.get_last_lr()
    [0.9]
    """
    chainable = True

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return base_lr * self.gamma ** epoch


class PolynomialLR(LRScheduler):
    """``base_lr * (1 - min(epoch, total_iters) / total_iters) ** power``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = PolynomialLR(opt, total_iters=4, power=2.0); s.step(2); s.get_last_lr()
    [0.25]
    """
    chainable = True

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return base_lr * (1.0 - min(epoch, self.total_iters) / self.total_iters) ** self.power


def _cosine(low, high, fraction):
    """From ``high`` (fraction 0) down to ``low`` (fraction 1) along half a cosine."""
    return low + (high - low) * (1 + math.cos(math.pi * fraction)) / 2


class CosineAnnealingLR(LRScheduler):
    """``eta_min + (base_lr - eta_min) (1 + cos(pi epoch / T_max)) / 2`` (SGDR without restarts).

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = CosineAnnealingLR(opt, T_max=4); s.step(2); s.get_last_lr()
    [0.5]
    """
    chainable = True

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):
        if isinstance(T_max, bool) or not isinstance(T_max, (int, float)) or not T_max > 0:
            raise ValueError(f"CosineAnnealingLR: T_max must be a positive number, got {T_max!r}")
        self.T_max, self.eta_min, self.floor = T_max, eta_min, eta_min
        super().__init__(optimizer, last_epoch)

    def lr_at(self, base_lr, epoch, i):
        return _cosine(self.eta_min, base_lr, epoch / self.T_max)


class CosineAnnealingWarmRestarts(LRScheduler):
    """Cosine annealing restarted after ``T_0`` epochs, each period ``T_mult`` times longer.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = CosineAnnealingWarmRestarts(opt, T_0=2)
    >>> [round(s.get_last_lr()[0], 6) for _ in range(4) if s.step() is None]
    [0.5, 1.0, 0.5, 1.0]
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):
        if T_0 <= 0 or not isinstance(T_0, int) or T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"T_0 must be a positive int and T_mult an int >= 1, got {T_0}, {T_mult}")
        self.T_0, self.T_mult, self.eta_min = T_0, T_mult, eta_min
        super().__init__(optimizer, last_epoch)

    def _period(self, epoch):
        """(epochs into the current period, its length)."""
        if self.T_mult == 1:
            return epoch % self.T_0, self.T_0
        n = int(math.log(epoch / self.T_0 * (self.T_mult - 1) + 1, self.T_mult))
        start = self.T_0 * (self.T_mult ** n - 1) // (self.T_mult - 1)
        return epoch - start, self.T_0 * self.T_mult ** n

    def lr_at(self, base_lr, epoch, i):
        t_cur, t_i = self._period(max(epoch, 0))
        return _cosine(self.eta_min, base_lr, t_cur / t_i)


class OneCycleLR(LRScheduler):
    """The 1cycle policy (Smith & Topin): warm up from ``max_lr / div_factor`` to ``max_lr``
    over ``pct_start`` of ``total_steps``, then anneal to ``initial / final_div_factor``
    (``three_phase``: back to the initial rate first); momentum (or Adam's beta1) cycles
    inversely between ``max_momentum`` and ``base_momentum``.  Call ``step()`` per batch.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=0.1, momentum=0.9)
    >>> s = OneCycleLR(opt, max_lr=1.0, total_steps=10)
    >>> round(s.get_last_lr()[0], 6), opt.param_groups[0]['momentum']
    (0.04, 0.95)
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if total_steps is None:
            if epochs is None or steps_per_epoch is None:
                raise ValueError("OneCycleLR needs total_steps, or epochs and steps_per_epoch")
            total_steps = epochs * steps_per_epoch
        if total_steps <= 0:
            raise ValueError(f"total_steps must be positive, got {total_steps}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError(f"anneal_strategy must be 'cos' or 'linear', got {anneal_strategy!r}")
        _check_optimizer(optimizer, "OneCycleLR")
        self.total_steps = total_steps
        self.anneal_strategy = anneal_strategy
        n = len(optimizer.param_groups)
        max_lrs = list(max_lr) if isinstance(max_lr, (list, tuple)) else [max_lr] * n
        up = float(pct_start * total_steps) - 1
        if three_phase:
            self.phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                           (2 * up, "max_lr", "initial_lr", "base_momentum", "max_momentum"),
                           (total_steps - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self.phases = [(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                           (total_steps - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        self.momentum_key = None
        if cycle_momentum:
            group = optimizer.param_groups[0]
            self.momentum_key = "beta1" if "beta1" in group else "momentum" if "momentum" in group \
                else None
            if self.momentum_key is None:
                raise ValueError("optimizer must support momentum (or beta1) with cycle_momentum")
        for group, top in zip(optimizer.param_groups, max_lrs):
            if last_epoch == -1:
                group.update(initial_lr=top / div_factor, max_lr=top,
                             min_lr=top / div_factor / final_div_factor)
                if self.momentum_key:
                    group.update(max_momentum=max_momentum, base_momentum=base_momentum)
                    group[self.momentum_key] = max_momentum
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, fraction):
        if self.anneal_strategy == "linear":
            return start + (end - start) * fraction
        return _cosine(end, start, fraction)

    def _values(self):
        step = self.last_epoch
        if step >= self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total steps "
                             f"is {self.total_steps}")
        values = []
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, (end, lr0, lr1, m0, m1) in enumerate(self.phases):
                if step <= end or i == len(self.phases) - 1:
                    fraction = (step - start) / (end - start)
                    values.append(self._anneal(group[lr0], group[lr1], fraction))
                    if self.momentum_key:
                        group[self.momentum_key] = self._anneal(group[m0], group[m1], fraction)
                    break
                start = end
        return values


def _same_optimizer(who, schedulers, optimizer):
    """``schedulers`` as a list, checked to drive ``optimizer`` (None: the first's)."""
    schedulers = list(schedulers)
    if not schedulers:
        raise ValueError(f"{who} expects at least one scheduler")
    optimizer = schedulers[0].optimizer if optimizer is None else optimizer
    for i, scheduler in enumerate(schedulers):
        if isinstance(scheduler, ReduceLROnPlateau):
            raise ValueError(f"{who} does not support `ReduceLROnPlateau` scheduler as it requires "
                             f"additional kwargs to be specified when calling `step`, but got one "
                             f"at index {i} in the given schedulers sequence.")
        if getattr(scheduler, "optimizer", None) is not optimizer:
            raise ValueError(f"{who} expects all schedulers to belong to the same optimizer, but "
                             f"got scheduler {type(scheduler).__name__} at index {i} with another "
                             "optimizer")
    return schedulers, optimizer


class _Composite:
    """What ``SequentialLR`` and ``ChainedScheduler`` share: the rates, and a state
    holding each inner scheduler's state."""

    def get_last_lr(self):
        """The rates the last step set, one per parameter group."""
        return list(self._last_lr)

    def state_dict(self):
        """PyTorch's layout: the own fields, and ``_schedulers``: each inner one's state."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "_schedulers")}
        state["_schedulers"] = [s.state_dict() for s in self._schedulers]
        return state

    def load_state_dict(self, state_dict):
        """Restore from ``state_dict()``, the inner schedulers too."""
        state = dict(state_dict)
        inner = state.pop("_schedulers")
        self.__dict__.update(state)
        for scheduler, saved in zip(self._schedulers, inner):
            scheduler.load_state_dict(saved)


class SequentialLR(_Composite):
    """Hand over from one scheduler to the next at each epoch of ``milestones`` (warm-up,
    then decay); the next starts at its epoch 0.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> warm = LinearLR(opt, start_factor=0.5, total_iters=2)
    >>> s = SequentialLR(opt, [warm, ExponentialLR(opt, gamma=0.5)], milestones=[2])
    >>> [s.get_last_lr()[0] for _ in range(4) if s.step() is None]
    [0.75, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        _check_optimizer(optimizer, "SequentialLR")
        self._schedulers, self.optimizer = _same_optimizer("SequentialLR", schedulers, optimizer)
        if len(milestones) != len(self._schedulers) - 1:
            raise ValueError("Sequential Schedulers expects number of schedulers provided to be "
                             "one more than the number of milestone points, but got number of "
                             f"schedulers {len(self._schedulers)} and the number of milestones "
                             f"to be equal to {len(milestones)}")
        self._milestones = list(milestones)
        self.last_epoch = last_epoch + 1
        for group in optimizer.param_groups:      # undo what building the others did
            group["lr"] = group["initial_lr"]
        for scheduler in self._schedulers:
            scheduler.last_epoch -= 1
        self._schedulers[0].step()
        self._last_lr = self._schedulers[0].get_last_lr()

    def step(self):
        """One epoch of the scheduler whose stretch this is (restarted at a milestone)."""
        self.last_epoch += 1
        index = bisect.bisect_right(self._milestones, self.last_epoch)
        scheduler = self._schedulers[index]
        if index > 0 and self._milestones[index - 1] == self.last_epoch:
            scheduler.step(0)
        else:
            scheduler.step()
        self._last_lr = scheduler.get_last_lr()


class ChainedScheduler(_Composite):
    """Step every scheduler of ``schedulers`` at once; their changes compose.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = ChainedScheduler([ConstantLR(opt, factor=0.5, total_iters=1), ExponentialLR(opt, 0.5)])
    >>> s.get_last_lr(), s.step(), s.get_last_lr()
    ([0.5], None, [0.5])
    """

    def __init__(self, schedulers, optimizer=None):
        self._schedulers, self.optimizer = _same_optimizer("ChainedScheduler", schedulers,
                                                           optimizer)
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]

    def step(self):
        """One step of each scheduler, in order."""
        for scheduler in self._schedulers:
            scheduler.step()
        self._last_lr = [group["lr"] for group in self.optimizer.param_groups]


class ReduceLROnPlateau:
    """Multiply the rate by ``factor`` when ``step(metric)`` has not improved for
    ``patience`` epochs (improvement: relative or absolute ``threshold``, ``mode``
    'min' or 'max'), then wait ``cooldown`` epochs; never below ``min_lr``.

    >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
    >>> s = ReduceLROnPlateau(opt, patience=1)
    >>> for loss in (1.0, 1.0, 1.0):
    ...     s.step(loss)
    >>> s.get_last_lr()
    [0.1]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0.0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError(f"factor should be < 1.0, got {factor}")
        if mode not in ("min", "max") or threshold_mode not in ("rel", "abs"):
            raise ValueError(f"mode must be 'min' or 'max' and threshold_mode 'rel' or 'abs', got "
                             f"{mode!r}, {threshold_mode!r}")
        _check_optimizer(optimizer, "ReduceLROnPlateau")
        self.optimizer = optimizer
        n = len(optimizer.param_groups)
        self.min_lrs = list(min_lr) if isinstance(min_lr, (list, tuple)) else [min_lr] * n
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.eps = cooldown, eps
        self.best = math.inf if mode == "min" else -math.inf
        self.num_bad_epochs = self.cooldown_counter = 0
        self.last_epoch = 0
        self._last_lr = [g["lr"] for g in optimizer.param_groups]

    def _better(self, value):
        if self.mode == "min":
            bound = self.best * (1 - self.threshold) if self.threshold_mode == "rel" \
                else self.best - self.threshold
            return value < bound
        bound = self.best * (1 + self.threshold) if self.threshold_mode == "rel" \
            else self.best + self.threshold
        return value > bound

    def step(self, metrics):
        """Record this epoch's ``metrics`` (a number or a 0-d Tensor) and maybe reduce.

        >>> opt = eagerad.nn.SGD([eagerad.Parameter(eagerad.zeros(1))], lr=1.0)
        >>> s = ReduceLROnPlateau(opt, patience=0); s.step(eagerad.tensor(2.0)); s.num_bad_epochs
        0
        """
        value = float(metrics.item() if isinstance(metrics, Tensor) else metrics)
        self.last_epoch += 1
        if self._better(value):
            self.best, self.num_bad_epochs = value, 0
        else:
            self.num_bad_epochs += 1
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            for group, low in zip(self.optimizer.param_groups, self.min_lrs):
                new = max(group["lr"] * self.factor, low)
                if group["lr"] - new > self.eps:
                    group["lr"] = new
            self.cooldown_counter, self.num_bad_epochs = self.cooldown, 0
        self._last_lr = [g["lr"] for g in self.optimizer.param_groups]

    get_last_lr = LRScheduler.get_last_lr
    state_dict = LRScheduler.state_dict
    load_state_dict = LRScheduler.load_state_dict


# ----------------------------------------------------------------- MindSpore face

def _step_number(global_step):
    return float(global_step.item() if isinstance(global_step, Tensor) else global_step)


class LearningRateSchedule(Cell):
    """MindSpore's base of schedule Cells: ``construct(global_step)`` returns the rate as a
    0-d float32 Tensor; subclasses give ``rate(step)`` on a Python float.

    >>> class Half(LearningRateSchedule):
    ...     def rate(self, step):
    ...         return 0.5
    >>> Half()(eagerad.tensor(3)).item()
    0.5
    """

    def construct(self, global_step):
        return Tensor(self.rate(_step_number(global_step)), dtype="float32")

    def rate(self, step):
        raise NotImplementedError


def _progress(step, decay_steps, is_stair):
    p = step / decay_steps
    return math.floor(p) if is_stair else p


class ExponentialDecayLR(LearningRateSchedule):
    """``learning_rate * decay_rate ** p`` with ``p = step / decay_steps`` (floored if stair).

    >>> round(ExponentialDecayLR(0.1, 0.9, 4)(eagerad.tensor(2)).item(), 6)
    0.094868
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        self.learning_rate, self.decay_rate = learning_rate, decay_rate
        self.decay_steps, self.is_stair = decay_steps, is_stair

    def rate(self, step):
        return self.learning_rate * self.decay_rate ** _progress(step, self.decay_steps,
                                                                 self.is_stair)


class NaturalExpDecayLR(ExponentialDecayLR):
    """``learning_rate * exp(-decay_rate * p)``.

    >>> round(NaturalExpDecayLR(0.1, 0.5, 2)(eagerad.tensor(2)).item(), 6)
    0.060653
    """

    def rate(self, step):
        return self.learning_rate * math.exp(-self.decay_rate * _progress(
            step, self.decay_steps, self.is_stair))


class InverseDecayLR(ExponentialDecayLR):
    """``learning_rate / (1 + decay_rate * p)``.

    >>> round(InverseDecayLR(0.1, 0.5, 2)(eagerad.tensor(2)).item(), 6)
    0.066667
    """

    def rate(self, step):
        return self.learning_rate / (1 + self.decay_rate * _progress(step, self.decay_steps,
                                                                     self.is_stair))


class CosineDecayLR(LearningRateSchedule):
    """``min_lr + (max_lr - min_lr) (1 + cos(pi min(step, decay_steps) / decay_steps)) / 2``.

    >>> round(CosineDecayLR(0.01, 0.1, 4)(eagerad.tensor(2)).item(), 6)
    0.055
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        if not 0 <= min_lr < max_lr:
            raise ValueError(f"need 0 <= min_lr < max_lr, got {min_lr}, {max_lr}")
        self.min_lr, self.max_lr, self.decay_steps = min_lr, max_lr, decay_steps

    def rate(self, step):
        return _cosine(self.min_lr, self.max_lr, min(step, self.decay_steps) / self.decay_steps)


class PolynomialDecayLR(LearningRateSchedule):
    """``(lr - end) (1 - min(step, decay_steps) / decay_steps) ** power + end``
    (``update_decay_steps``: ``decay_steps`` grows to the next multiple past ``step``).

    >>> round(PolynomialDecayLR(0.1, 0.01, 4, 1.0)(eagerad.tensor(2)).item(), 6)
    0.055
    """

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        self.learning_rate, self.end_learning_rate = learning_rate, end_learning_rate
        self.decay_steps, self.power, self.update_decay_steps = decay_steps, power, update_decay_steps

    def rate(self, step):
        steps = self.decay_steps
        if self.update_decay_steps:
            steps *= max(math.ceil(step / steps), 1)
        else:
            step = min(step, steps)
        return (self.learning_rate - self.end_learning_rate) * (1 - step / steps) ** self.power \
            + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``.

    >>> WarmUpLR(0.1, 4)(eagerad.tensor(2)).item()
    0.05000000074505806
    """

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        self.learning_rate, self.warmup_steps = learning_rate, warmup_steps

    def rate(self, step):
        return self.learning_rate * min(step, self.warmup_steps) / self.warmup_steps


def _per_step(total_step, step_per_epoch, decay_epoch, rate):
    """The list ``rate(epoch fraction)`` for each of ``total_step`` steps (MindSpore's
    ``*_decay_lr`` functions: the epoch is ``floor(i / step_per_epoch)``)."""
    for name, v in (("total_step", total_step), ("step_per_epoch", step_per_epoch),
                    ("decay_epoch", decay_epoch)):
        if not isinstance(v, int) or v < 0:
            raise TypeError(f"{name} must be a non-negative int, got {v!r}")
    return [rate(math.floor(i / step_per_epoch), decay_epoch) for i in range(total_step)]


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """Per-step rates ``learning_rate * decay_rate ** (epoch / decay_epoch)``.

    >>> [round(v, 6) for v in exponential_decay_lr(0.1, 0.9, 6, 2, 1)]
    [0.1, 0.1, 0.09, 0.09, 0.081, 0.081]
    """
    return _per_step(total_step, step_per_epoch, decay_epoch, lambda e, d: learning_rate *
                     decay_rate ** (math.floor(e / d) if is_stair else e / d))


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """Per-step rates ``learning_rate * exp(-decay_rate * epoch / decay_epoch)``.

    >>> [round(v, 6) for v in natural_exp_decay_lr(0.1, 0.5, 4, 2, 2, is_stair=True)]
    [0.1, 0.1, 0.1, 0.1]
    """
    return _per_step(total_step, step_per_epoch, decay_epoch, lambda e, d: learning_rate *
                     math.exp(-decay_rate * (math.floor(e / d) if is_stair else e / d)))


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """Per-step rates ``learning_rate / (1 + decay_rate * epoch / decay_epoch)``.

    >>> [round(v, 6) for v in inverse_decay_lr(0.1, 0.5, 4, 1, 1)]
    [0.1, 0.066667, 0.05, 0.04]
    """
    return _per_step(total_step, step_per_epoch, decay_epoch, lambda e, d: learning_rate /
                     (1 + decay_rate * (math.floor(e / d) if is_stair else e / d)))


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """Per-step rates along half a cosine from ``max_lr`` to ``min_lr`` over ``decay_epoch``.

    >>> [round(v, 6) for v in cosine_decay_lr(0.01, 0.1, 6, 2, 2)]
    [0.1, 0.1, 0.055, 0.055, 0.01, 0.01]
    """
    if not 0 <= min_lr < max_lr:
        raise ValueError(f"need 0 <= min_lr < max_lr, got {min_lr}, {max_lr}")
    return _per_step(total_step, step_per_epoch, decay_epoch,
                     lambda e, d: _cosine(min_lr, max_lr, e / d))


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch, decay_epoch,
                        power, update_decay_epoch=False):
    """Per-step rates ``(lr - end) (1 - epoch / decay_epoch) ** power + end`` (epoch capped
    at ``decay_epoch``, or ``decay_epoch`` stretched when ``update_decay_epoch``).

    >>> [round(v, 6) for v in polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5)]
    [0.1, 0.1, 0.07364, 0.07364, 0.01, 0.01]
    """
    def rate(epoch, decay):
        if update_decay_epoch:
            decay *= max(math.ceil(epoch / decay), 1)
        else:
            epoch = min(epoch, decay)
        return (learning_rate - end_learning_rate) * (1 - epoch / decay) ** power + end_learning_rate
    return _per_step(total_step, step_per_epoch, decay_epoch, rate)


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """Per-step rates ``learning_rate * min(epoch, warmup_epoch) / warmup_epoch``.

    >>> warmup_lr(0.1, 6, 2, 2)
    [0.0, 0.0, 0.05, 0.05, 0.1, 0.1]
    """
    return _per_step(total_step, step_per_epoch, warmup_epoch,
                     lambda e, d: learning_rate * min(e, d) / d)


def piecewise_constant_lr(milestone, learning_rates):
    """Per-step rates: ``learning_rates[k]`` for steps before ``milestone[k]`` (cumulative).

    >>> piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
    """
    if len(milestone) != len(learning_rates):
        raise ValueError(f"milestone ({len(milestone)}) and learning_rates "
                         f"({len(learning_rates)}) must have the same length")
    out, last = [], 0
    for end, lr in zip(milestone, learning_rates):
        if end <= last:
            raise ValueError(f"milestone must increase, got {milestone}")
        out += [lr] * (end - last)
        last = end
    return out
