"""``torch.amp``: ``autocast`` and ``GradScaler``.

eagerad computes every op in its operands' own dtype, so ``autocast`` changes nothing:
an autocast region runs in float32 where PyTorch would round matmul inputs to
float16/bfloat16 (more accurate, never less; it warns once when enabled so a user timing
mixed precision knows).  ``GradScaler`` is the real thing: it scales the loss, unscales
the gradients, skips the step when one is inf/NaN and adapts the scale.

>>> import eagerad.torch as torch
>>> w = torch.nn.Parameter(torch.tensor([1.0])); opt = torch.optim.SGD([w], lr=0.1)
>>> scaler = torch.amp.GradScaler(init_scale=8.0)
>>> scaler.scale((w * 2).sum()).backward(); w.grad
tensor([16.])
>>> scaler.step(opt); scaler.update(); w
Parameter containing:
tensor([0.8000], requires_grad=True)
"""
import functools
import math
import warnings

from ..autograd import no_grad

_warned = [False]


class autocast:
    """``torch.autocast(device_type, dtype=None, enabled=True, cache_enabled=None)`` as a
    context manager or decorator: ops keep their operands' dtypes (see the module).

    >>> import eagerad.torch as torch
    >>> with torch.autocast("cpu", enabled=False):
    ...     (torch.ones(2) @ torch.ones(2)).dtype == torch.float32
    True
    """

    def __init__(self, device_type="cuda", dtype=None, enabled=True, cache_enabled=None):
        self.device_type, self.dtype, self.enabled = device_type, dtype, enabled

    def __enter__(self):
        if self.enabled and not _warned[0]:
            _warned[0] = True
            warnings.warn("autocast: eagerad runs ops in their operands' dtypes (no float16/"
                          "bfloat16 rounding), so this region computes in full precision",
                          stacklevel=2)
        return self

    def __exit__(self, *exc):
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with self:
                return fn(*args, **kwargs)
        return wrapper


def custom_fwd(fwd=None, *, device_type="cuda", cast_inputs=None):
    """``torch.amp.custom_fwd``: the forward unchanged (no autocast to leave)."""
    return fwd if fwd is not None else (lambda f: f)


def custom_bwd(bwd=None, *, device_type="cuda"):
    """``torch.amp.custom_bwd``: the backward unchanged."""
    return bwd if bwd is not None else (lambda f: f)


class GradScaler:
    """``torch.amp.GradScaler(device='cuda', init_scale=65536.0, growth_factor=2.0,
    backoff_factor=0.5, growth_interval=2000, enabled=True)``."""

    def __init__(self, device="cuda", init_scale=2.0 ** 16, growth_factor=2.0,
                 backoff_factor=0.5, growth_interval=2000, enabled=True):
        if growth_factor <= 1.0 or not 0.0 < backoff_factor < 1.0:
            raise ValueError("GradScaler: growth_factor must be > 1 and backoff_factor in (0, 1)")
        self._scale, self._growth, self._backoff = float(init_scale), growth_factor, backoff_factor
        self._interval, self._enabled, self._good_steps = growth_interval, enabled, 0
        self._unscaled, self._found_inf = {}, {}

    def is_enabled(self):
        return self._enabled

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def scale(self, outputs):
        """``outputs`` (a tensor or nested lists/tuples of them) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        return outputs * self._scale

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale in place (once per step)."""
        if not self._enabled:
            return
        if id(optimizer) in self._unscaled:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update()")
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(1.0 / self._scale)
                    found = found or not bool(p.grad.isfinite().all())
        self._unscaled[id(optimizer)], self._found_inf[id(optimizer)] = True, found

    def step(self, optimizer, *args, **kwargs):
        """Unscale (if not done), then ``optimizer.step()`` unless a gradient is inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if id(optimizer) not in self._unscaled:
            self.unscale_(optimizer)
        if self._found_inf[id(optimizer)]:
            return None
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None):
        """Back off after a skipped step, grow after ``growth_interval`` good ones."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale.item() if hasattr(new_scale, "item") else new_scale)
        elif any(self._found_inf.values()):
            self._scale *= self._backoff
            self._good_steps = 0
        else:
            self._good_steps += 1
            if self._good_steps == self._interval:
                self._scale = min(self._scale * self._growth, math.inf)
                self._good_steps = 0
        self._unscaled, self._found_inf = {}, {}

    def state_dict(self):
        return {"scale": self._scale, "growth_factor": self._growth,
                "backoff_factor": self._backoff, "growth_interval": self._interval,
                "_growth_tracker": self._good_steps}

    def load_state_dict(self, state):
        self._scale, self._growth = float(state["scale"]), state["growth_factor"]
        self._backoff, self._interval = state["backoff_factor"], state["growth_interval"]
        self._good_steps = state["_growth_tracker"]
