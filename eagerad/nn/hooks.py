"""Cell/Module hooks: forward pre/post hooks and backward (pre) hooks with removable
handles, in the shape both frameworks give them (MindSpore's ``Cell`` and PyTorch's
``Module`` pass the same arguments):

* forward pre-hook ``hook(cell, inputs) -> new inputs or None``
* forward hook ``hook(cell, inputs, output) -> new output or None``
* backward pre-hook ``hook(cell, grad_output) -> new grad_output or None``
* backward hook ``hook(cell, grad_input, grad_output) -> new grad_input or None``

Backward hooks wrap the cell's tensor inputs and outputs in identity nodes (one
``autograd.Function`` each side), so ``grad_input`` holds the gradients with respect to
the cell's inputs as a whole, as PyTorch's full backward hooks do.  The frameworks
differ when a forward hook replaces the output: PyTorch's ``grad_output`` is the
gradient of the replaced output (what the backward pre-hooks saw), MindSpore's that
of ``construct``'s own output; eagerad follows the face current at the call (see
``eagerad.printing``).

>>> import eagerad
>>> seen = []
>>> lin = eagerad.nn.Dense(2, 1)
>>> h = lin.register_forward_hook(lambda cell, inputs, out: seen.append(out.shape))
>>> _ = lin(eagerad.ones(3, 2)); h.remove(); _ = lin(eagerad.ones(1, 2))
>>> seen
[(3, 1)]
"""
import itertools
from collections import OrderedDict

from ..autograd.function import Function
from ..checkpoint import checkpoint
from ..tensor import Tensor

_ids = itertools.count()
KINDS = ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks", "_backward_hooks")


class RemovableHandle:
    """What ``register_*_hook`` returns: ``handle.remove()`` unregisters the hook
    (PyTorch's ``torch.utils.hooks.RemovableHandle``; also a context manager).

    >>> hooks = OrderedDict(); h = add_hook(hooks, print); len(hooks)
    1
    >>> h.remove(); len(hooks)
    0
    """

    def __init__(self, hooks, key):
        self._hooks, self.id = hooks, key

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def add_hook(hooks, fn):
    """Register ``fn`` in the ordered dict ``hooks``; returns its handle."""
    if not callable(fn):
        raise TypeError(f"a hook must be callable, got {type(fn).__name__}")
    key = next(_ids)
    hooks[key] = fn
    return RemovableHandle(hooks, key)


class _GradHook(Function):
    """Identity on tensors whose backward passes the gradients through ``fn``."""

    @staticmethod
    def forward(ctx, fn, *tensors):
        ctx.fn = fn
        return tensors

    @staticmethod
    def backward(ctx, *grads):
        return (None,) + tuple(ctx.fn(grads))


def _as_tuple(value):
    return value if isinstance(value, tuple) else (value,)


def _through(fn, values):
    """Run the tensors among ``values`` (a tuple, or a single tensor) through
    ``_GradHook`` with ``fn``; other entries stay as they are."""
    items = _as_tuple(values)
    where = [i for i, v in enumerate(items) if isinstance(v, Tensor) and v.requires_grad]
    if not where:
        return values, False
    wrapped = _GradHook.apply(fn, *(items[i] for i in where))
    out = list(items)
    for i, w in zip(where, wrapped):
        out[i] = w
    return (tuple(out) if isinstance(values, tuple) else out[0]), True


def _replace(hooks, cell, first, *rest):
    """Call ``hook(cell, first, *rest)`` for each hook; a non-None result replaces ``first``."""
    for hook in list(hooks.values()):
        result = hook(cell, first, *rest)
        if result is not None:
            first = result
    return first


def call_with_hooks(cell, args, kwargs):
    """Run ``cell.construct`` with the cell's hooks around it (through ``checkpoint``
    after ``cell.recompute()``)."""
    d = cell.__dict__
    pre, post, bpre, back = (d.get(k) for k in KINDS)
    if pre:
        for hook in list(pre.values()):
            result = hook(cell, args)
            if result is not None:
                args = _as_tuple(result)
    backward = bool(bpre or back)
    if backward:
        state = {"grad_output": None, "inputs_hooked": False}

        def on_inputs(grads):
            return _as_tuple(_replace(back or {}, cell, tuple(grads), state["grad_output"]))
        args, state["inputs_hooked"] = _through(on_inputs, tuple(args))
    if d.get("_recompute"):
        out = checkpoint(lambda *a: cell.construct(*a, **kwargs), *args)
    else:
        out = cell.construct(*args, **kwargs)
    raw = backward and cell.raw_grad_output()
    if backward:
        n_inputs = sum(isinstance(a, Tensor) for a in args)

        def record(grads):
            state["grad_output"] = grads
            if not state["inputs_hooked"]:     # no input needs a gradient: report None
                _replace(back or {}, cell, (None,) * n_inputs, grads)
            return grads

        def on_outputs(grads):
            grads = _as_tuple(_replace(bpre or {}, cell, tuple(grads)))
            return grads if raw else record(grads)
        if raw:     # MindSpore's grad_output: the gradient of construct's own output
            out, _ = _through(lambda grads: record(tuple(grads)), out)
    for hook in list(post.values()) if post else ():
        result = hook(cell, args, out)          # a non-None result replaces the output
        if result is not None:
            out = result
    if backward:
        out, _ = _through(on_outputs, out)
    return out
