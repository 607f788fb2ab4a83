"""MindSpore's ``ops.HookBackward``: an identity op whose backward shows the gradient
to a function (which may return a replacement), built on tensor hooks.

>>> import eagerad
>>> from eagerad import ops
>>> seen = []
>>> hook = ops.HookBackward(lambda grad: seen.append(grad[0].item()))
>>> x = eagerad.Tensor(2.0)
>>> eagerad.grad(lambda x: hook(x * 3) * 5)(x).item(), seen
(15.0, [5.0])
"""
from ..tensor import Tensor
from .registry import export
from .shape import alias


@export
class HookBackward:
    """``HookBackward(hook_fn)(*inputs)``: the inputs unchanged; during backward
    ``hook_fn`` receives the gradient of each as a 1-tuple ``(grad,)`` (MindSpore's
    convention) and may return a tuple (or Tensor) to use instead.

    >>> h = HookBackward(lambda g: (g[0] * 10,))
    >>> w = eagerad.tensor(1.0, requires_grad=True); h(w * 2).backward(); w.grad.item()
    20.0
    """

    def __init__(self, hook_fn, cell_id=""):
        if not callable(hook_fn):
            raise TypeError(f"HookBackward: hook_fn must be callable, got {type(hook_fn).__name__}")
        self.hook_fn, self.cell_id = hook_fn, cell_id

    def _hook(self, grad):
        new = self.hook_fn((grad,))
        if new is None:
            return None
        return new[0] if isinstance(new, (tuple, list)) else new

    def __call__(self, *inputs):
        outs = []
        for x in inputs:
            if isinstance(x, Tensor) and x.requires_grad:
                x = alias(x)
                x.register_hook(self._hook)
            outs.append(x)
        return outs[0] if len(outs) == 1 else tuple(outs)

    def __repr__(self):
        return f"HookBackward({getattr(self.hook_fn, '__name__', self.hook_fn)!r})"
