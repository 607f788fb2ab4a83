"""Custom differentiable operations: subclass ``Function`` (PyTorch's face).

``forward`` runs without recording; ``apply`` then records one graph node whose
backward calls the subclass's ``backward``.  When that backward is written with
eagerad ops it is recorded under ``create_graph=True``, so the custom op can be
differentiated again.  An optional ``jvp`` gives forward-mode tangents.  As in
torch.func, ``forward(*args)`` may leave the context to ``setup_context(ctx, inputs,
output)``, and a static ``vmap(info, in_dims, *args) -> (output, out_dims)`` batches
the op inside ``vmap`` (otherwise it runs once per sample).

>>> import eagerad
>>> class Cube(Function):
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x ** 3
...     @staticmethod
...     def backward(ctx, g):
...         (x,) = ctx.saved_tensors
...         return g * 3 * x ** 2
>>> x = eagerad.tensor(2.0, requires_grad=True)
>>> Cube.apply(x).backward(); x.grad.item()
12.0
"""
import collections
import functools

from ..tensor import Tensor, zeros, zeros_like
from . import batching, forward_ad
from .engine import _edge_of
from .grad_mode import no_grad, state as grad_state
from .node import Node


class FunctionCtx:
    """What ``forward`` leaves for ``backward``/``jvp``: saved tensors, flags, any attribute.

    Saved tensors are checked for in-place changes when read back; a saved
    output comes back as the recorded output, so double backward sees its graph.

    >>> ctx = FunctionCtx(needs_input_grad=(True, False))
    >>> ctx.scale = 3.0; ctx.needs_input_grad
    (True, False)
    """

    def __init__(self, needs_input_grad):
        self.needs_input_grad = needs_input_grad
        self._saved = ()
        self._versions = ()
        self._out_slots = ()   # for each saved tensor: the output index it is, or None
        self._outs = None      # recorded outputs, available while backward runs
        self._name = "Function"

    def save_for_backward(self, *tensors):
        """Keep tensors (inputs, outputs or intermediates) for ``backward``.

        >>> ctx = FunctionCtx(needs_input_grad=(True,)); ctx.save_for_backward(eagerad.ones(2))
        >>> [t.shape for t in ctx.saved_tensors]
        [(2,)]
        """
        for i, t in enumerate(tensors):
            if t is not None and not isinstance(t, Tensor):
                raise TypeError(f"save_for_backward: argument {i} is {type(t).__name__}, not a "
                                "Tensor (store other values as ctx attributes)")
        self._saved = tensors
        self._versions = tuple(None if t is None else (t._version, t._version[0]) for t in tensors)

    @property
    def saved_tensors(self):
        """The tensors given to ``save_for_backward``, after checking none changed in place.

        >>> t = eagerad.ones(2); ctx = FunctionCtx((True,)); ctx.save_for_backward(t)
        >>> ctx.saved_tensors[0] is t
        True
        """
        result = []
        for i, (t, ver) in enumerate(zip(self._saved, self._versions)):
            if t is not None and ver[0][0] != ver[1]:
                raise RuntimeError(
                    f"one of the variables needed for gradient computation has been modified by "
                    f"an inplace operation: tensor {i} saved by {self._name} (shape {list(t.shape)}) "
                    f"is at version {ver[0][0]}; expected version {ver[1]} instead.")
            slot = self._out_slots[i] if self._out_slots else None
            result.append(self._outs[slot] if slot is not None and self._outs is not None else t)
        return tuple(result)


class Function:
    """Base class of custom ops; call them with ``MyFunction.apply(*args)``.

    Subclasses define static ``forward(ctx, *args)`` returning a Tensor or a tuple
    of Tensors, ``backward(ctx, *grads)`` returning one gradient (or None) per
    argument of ``forward``, and optionally ``jvp(ctx, *tangents)`` returning the
    output tangent(s); ``jvp`` gets zeros for tensor arguments without a tangent.

    >>> class Cube(Function):
    ...     @staticmethod
    ...     def forward(ctx, x):
    ...         ctx.save_for_backward(x); return x ** 3
    ...     @staticmethod
    ...     def backward(ctx, g):
    ...         (x,) = ctx.saved_tensors; return g * 3 * x ** 2
    >>> x = eagerad.tensor(2.0, requires_grad=True); Cube.apply(x).backward(); x.grad.item()
    12.0
    """

    @staticmethod
    def forward(ctx, *args):
        """Compute the outputs from plain (detached) arguments; override as a staticmethod.

        >>> Function.forward(None)
        Traceback (most recent call last):
        NotImplementedError: Function subclasses must define a static forward(ctx, *args)
        """
        raise NotImplementedError("Function subclasses must define a static forward(ctx, *args)")

    @staticmethod
    def backward(ctx, *grads):
        """One gradient (or None) per ``forward`` argument from the output gradients; override it.

        >>> Function.backward(None)
        Traceback (most recent call last):
        NotImplementedError: Function subclasses must define a static backward(ctx, *grads)
        """
        raise NotImplementedError("Function subclasses must define a static backward(ctx, *grads)")

    jvp = None
    setup_context = None      # torch.func style: forward(*args) has no ctx; this fills it
    vmap = None               # vmap(info, in_dims, *args) -> (output, out_dims)
    generate_vmap_rule = False   # accepted: without a vmap rule every sample runs on its own

    @classmethod
    def apply(cls, *args):
        """Run ``forward`` now and record one node for the whole custom op.

        >>> class Double(Function):
        ...     forward = staticmethod(lambda ctx, x: x * 2)
        ...     backward = staticmethod(lambda ctx, g: g * 2)
        >>> y = Double.apply(eagerad.tensor(1.0, requires_grad=True)); y.item(), y.grad_fn.name
        (2.0, 'DoubleBackward')
        """
        if batching.levels and any(type(a) is batching.BatchedTensor for a in args):
            if cls.vmap is not None:
                return _apply_vmap_rule(cls, args)
            return batching.apply_per_sample(cls.apply, args)   # inside vmap: per sample
        needs = tuple(isinstance(a, Tensor) and a._requires_grad for a in args)
        ctx = FunctionCtx(needs)
        ctx._name = cls.__name__ + "Backward"
        plain = tuple(a.detach() if isinstance(a, Tensor) else a for a in args)
        with no_grad():
            if cls.setup_context is not None:
                raw = cls.forward(*plain)
                cls.setup_context(ctx, plain, raw)
            else:
                raw = cls.forward(ctx, *plain)
        single = isinstance(raw, Tensor)
        raw = (raw,) if single else tuple(raw)
        for k, o in enumerate(raw):
            if not isinstance(o, Tensor):
                raise TypeError(f"{cls.__name__}.forward must return Tensors, output {k} is "
                                f"{type(o).__name__}")
        # saved inputs are the caller's tensors (their graph matters under create_graph)
        ctx._saved = tuple(_caller_tensor(t, plain, args) for t in ctx._saved)
        outs = tuple(Tensor._make(o._data, o._device, version=o._version, face=o._face)
                     for o in raw)
        ctx._out_meta = tuple((o.shape, o.dtype, o.device) for o in outs)
        ctx._out_slots = tuple(next((k for k, o in enumerate(raw) if o is t), None)
                               for t in ctx._saved)
        if grad_state.enabled and any(needs):
            edges = tuple(_edge_of(a) if need else None for a, need in zip(args, needs))
            # the node owns the saved non-output tensors so that a backward without
            # retain_graph frees them (and refuses a second pass), as for built-in ops
            saved = tuple(t for t, s in zip(ctx._saved, ctx._out_slots)
                          if t is not None and s is None)
            node = Node(ctx._name, functools.partial(_run_backward, cls, ctx), edges, args, saved,
                        outs, any(s is not None for s in ctx._out_slots))
            for k, o in enumerate(outs):
                o._requires_grad = True
                o.grad_fn = node
                o._out_index = k
        if forward_ad.levels:
            _push_tangents(cls, ctx, args, outs)
        return outs[0] if single else outs


VmapInfo = collections.namedtuple("VmapInfo", "batch_size randomness")


def _apply_vmap_rule(cls, args):
    """The subclass's ``vmap(info, in_dims, *args)`` on the newest vmap level's values; its
    outputs' batch axes (``out_dims``) are moved to the front and wrapped again."""
    level = max(a._level for a in args if type(a) is batching.BatchedTensor)
    here = [type(a) is batching.BatchedTensor and a._level == level for a in args]
    n = batching.levels[level]
    out, out_dims = cls.vmap(VmapInfo(n, "error"), tuple(0 if h else None for h in here),
                             *[a._value if h else a for a, h in zip(args, here)])
    single = isinstance(out, Tensor)
    outs = (out,) if single else tuple(out)
    dims = (out_dims,) * len(outs) if out_dims is None or isinstance(out_dims, int) else out_dims
    if len(dims) != len(outs):
        raise RuntimeError(f"{cls.__name__}.vmap returned {len(outs)} outputs but {len(dims)} "
                           "out_dims")
    wrapped = []
    for o, d in zip(outs, dims):
        if d is None:       # the same for every sample
            o = o.reshape((1,) + tuple(o.shape)).broadcast_to((n,) + tuple(o.shape))
        elif d % o.ndim:
            o = o.moveaxis(d, 0)
        wrapped.append(batching.BatchedTensor(o, level))
    return wrapped[0] if single else tuple(wrapped)


def _caller_tensor(t, plain, args):
    for p, a in zip(plain, args):
        if t is p:
            return a
    return t


def _run_backward(cls, ctx, grads, inputs, outs):
    """Node callback: the subclass's ``backward`` with missing gradients as zeros."""
    grads = [g if g is not None else zeros(*shape, dtype=dtype, device=device)
             for g, (shape, dtype, device) in zip(grads, ctx._out_meta)]
    ctx._outs = outs
    try:
        result = cls.backward(ctx, *grads)
    finally:
        ctx._outs = None
    result = (result,) if isinstance(result, Tensor) or result is None else tuple(result)
    if len(result) != len(inputs):
        raise RuntimeError(f"{cls.__name__}.backward returned {len(result)} gradients, but forward "
                           f"took {len(inputs)} arguments (return None for non-differentiable ones)")
    fitted = []
    for i, (g, a) in enumerate(zip(result, inputs)):
        if g is None or not ctx.needs_input_grad[i]:
            fitted.append(None)
            continue
        if not isinstance(g, Tensor):
            raise TypeError(f"{cls.__name__}.backward: gradient {i} is {type(g).__name__}, "
                            "not a Tensor or None")
        if g.shape != a.shape:
            raise RuntimeError(f"{cls.__name__}.backward: gradient {i} has shape {g.shape}, but "
                               f"input {i} has shape {a.shape}")
        fitted.append(g if g.dtype == a.dtype else g.astype(a.dtype))
    return fitted


def _push_tangents(cls, ctx, args, outs):
    """Forward mode through a custom op: its ``jvp`` at every level where inputs carry tangents."""
    for level, tangents in forward_ad.levels_with_tangents(args):
        if cls.jvp is None:
            raise NotImplementedError(f"forward-mode AD: {cls.__name__} defines no jvp(ctx, "
                                      "*tangents) static method")
        full = [t if t is not None else (zeros_like(a) if isinstance(a, Tensor) else None)
                for t, a in zip(tangents, args)]
        out_t = forward_ad.without_level(level, cls.jvp, ctx, *full)
        out_t = (out_t,) if isinstance(out_t, Tensor) else tuple(out_t)
        for k, (o, t) in enumerate(zip(outs, out_t)):
            if t is None:
                continue
            if t.shape != o.shape:
                raise RuntimeError(f"{cls.__name__}.jvp: tangent {k} has shape {t.shape}, output "
                                   f"{k} has shape {o.shape}")
            forward_ad.set_tangent(o, level, t)
        forward_ad.keep_out_tangents(outs)
