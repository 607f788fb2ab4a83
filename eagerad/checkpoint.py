"""Gradient checkpointing: keep a segment's inputs, not its intermediates, and recompute
the segment during backward (PyTorch's ``torch.utils.checkpoint``, MindSpore's
``Cell.recompute()``).  Memory of a deep network falls from one activation per layer to
one per segment, for one extra forward pass of each segment.

The recomputation runs through ``eagerad.reverse`` (the reverse-mode core every
transform uses) on aliases of the inputs, so the segment's gradient flows into the rest
of the graph as usual, and with ``create_graph=True`` it is recorded and can be
differentiated again.

>>> import eagerad
>>> x = eagerad.tensor([1.0, 2.0], requires_grad=True)
>>> y = checkpoint(lambda t: (t.sin() * t).sum(), x)
>>> y.backward(); [round(v, 6) for v in x.grad.tolist()]     # sin x + x cos x
[1.381773, 0.077004]
"""
from . import reverse, tree
from .autograd import Function
from .autograd.grad_mode import is_grad_enabled
from .tensor import Tensor


class _Recompute(Function):
    """One node for the whole segment; its backward reruns the segment.  ``spec`` carries
    the function and the argument structure in, and the output structure out."""

    @staticmethod
    def forward(ctx, spec, *leaves):
        ctx.spec, ctx.leaves = spec, leaves
        ctx.save_for_backward(*[a for a in leaves if isinstance(a, Tensor)])
        outs, spec["out"] = tree.flatten(spec["fn"](*tree.unflatten(spec["args"], leaves)))
        for k, out in enumerate(outs):
            if not isinstance(out, Tensor):
                raise TypeError(f"checkpoint: the function's output leaf {k} is "
                                f"{type(out).__name__}; checkpointed functions return Tensors")
        return tuple(outs)

    @staticmethod
    def backward(ctx, *grads):
        saved = iter(ctx.saved_tensors)      # the caller's tensors, checked for in-place changes
        leaves = [next(saved) if isinstance(a, Tensor) else a for a in ctx.leaves]
        wrt = [i for i, a in enumerate(leaves) if isinstance(a, Tensor) and a.requires_grad]

        def segment(*variables):
            call = list(leaves)
            for i, v in zip(wrt, variables):
                call[i] = v
            return tree.leaves(ctx.spec["fn"](*tree.unflatten(ctx.spec["args"], call)))
        # the reverse-mode core, on the physical tensors of the engine's walk (no vmap level)
        outs, tr = reverse.trace(segment, [leaves[i] for i in wrt], levels=[])
        result = [None] * (1 + len(leaves))
        for i, g in zip(wrt, tr.pull(outs, grads, None, fill=False)):
            result[1 + i] = g
        return tuple(result)


def checkpoint(fn, *args, use_reentrant=None, **kwargs):
    """``fn(*args)`` that keeps only ``args`` for backward and recomputes the rest then.

    ``args`` may be pytrees of tensors; ``fn`` returns a Tensor or a pytree of Tensors.
    ``fn`` must compute the same thing when run again (random ops such as dropout:
    draw the randomness outside, or set the seed inside).  ``use_reentrant`` is
    accepted for PyTorch code and ignored (there is one implementation).

    >>> w = eagerad.tensor(3.0, requires_grad=True)
    >>> (g,) = eagerad.autograd.grad(checkpoint(lambda v: v ** 3, w), w, create_graph=True)
    >>> g.item(), eagerad.autograd.grad(g, w)[0].item()      # 3 w^2 and 6 w, recomputed
    (27.0, 18.0)
    """
    call = (lambda *a: fn(*a, **kwargs)) if kwargs else fn
    leaves, structure = tree.flatten(list(args))
    if not is_grad_enabled() or not any(isinstance(a, Tensor) and a.requires_grad
                                        for a in leaves):
        return call(*args)
    spec = {"fn": call, "args": structure}
    outs = _Recompute.apply(spec, *leaves)
    return tree.unflatten(spec["out"], outs)
