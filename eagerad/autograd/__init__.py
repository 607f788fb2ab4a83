"""Reverse-mode engine and its PyTorch-style face (``eagerad.autograd``).

>>> import eagerad
>>> x = eagerad.tensor(2.0, requires_grad=True)
>>> eagerad.autograd.grad(x ** 3, x)[0].item()
12.0
"""
from .. import _upcalls
from ..tensor import Tensor, ones_like, tensor as _tensor
from . import batching as _batching, forward_ad, hooks as _hooks
from .anomaly import detect_anomaly, is_anomaly_enabled, set_detect_anomaly
from .engine import backward as _engine_backward
from .function import Function, FunctionCtx
from .grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from .gradcheck import GradcheckError, gradcheck, gradgradcheck


def _as_list(x):
    if x is None:
        return None
    return list(x) if isinstance(x, (tuple, list)) else [x]


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate d(tensors)/d(leaf) into every leaf's ``.grad`` (only into the ``.grad`` of
    ``inputs`` when given, leaves or not).

    >>> x = eagerad.tensor(1.0, requires_grad=True); backward(x * 3); x.grad.item()
    3.0
    >>> y = eagerad.tensor(1.0, requires_grad=True); backward(x * y, inputs=[y])
    >>> x.grad.item(), y.grad.item()
    (3.0, 1.0)
    """
    tensors = _as_list(tensors)
    grads = _as_list(grad_tensors) or [None] * len(tensors)
    if len(grads) != len(tensors):
        raise ValueError(f"grad_tensors has {len(grads)} entries for {len(tensors)} tensors")
    inputs = _as_list(inputs)
    if inputs is not None and not inputs:
        raise RuntimeError("backward: inputs= must not be empty (omit it to reach every leaf)")
    _engine_backward(tensors, grads, retain_graph, create_graph, inputs, True,
                     accumulate=inputs is not None)


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         allow_unused=False):
    """Gradients of ``outputs`` w.r.t. ``inputs`` as a tuple; ``.grad`` is untouched.

    With ``create_graph=True`` the result is itself differentiable.

    >>> x = eagerad.tensor(1.0, requires_grad=True)
    >>> (g,) = grad(x.sin(), x, create_graph=True); round(grad(g, x)[0].item(), 6)  # -sin(1)
    -0.841471
    """
    outputs = _as_list(outputs)
    inputs = _as_list(inputs)
    grads = _as_list(grad_outputs) or [None] * len(outputs)
    if len(grads) != len(outputs):
        raise ValueError(f"grad_outputs has {len(grads)} entries for {len(outputs)} outputs")
    lv = _batching.active()
    if lv:      # inside vmap: differentiate the physical tensors, per sample
        phys = _upcalls.get("to_physical")
        outputs = [phys(o, lv) for o in outputs]
        grads = [g if g is None else phys(g, lv) for g in grads]
        grads = [g if g is not None or o.size != 1 else None for g, o in zip(grads, outputs)]
        grads = [ones_like(o) if g is None else g for g, o in zip(grads, outputs)]
        result = _engine_backward(outputs, grads, retain_graph, create_graph,
                                  [phys(t, lv) for t in inputs], allow_unused)
        return tuple(g if g is None else _batching.wrap(g, lv) for g in result)
    return _engine_backward(outputs, grads, retain_graph, create_graph, inputs, allow_unused)


def _tensor_backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
    """Accumulate the gradient of this tensor into the leaves' ``.grad``.

    ``gradient`` is required for non-scalar tensors (the vector in a vector-Jacobian product);
    ``inputs`` limits the accumulation to those tensors.

    >>> x = eagerad.tensor(3.0, requires_grad=True); (x * x).backward(); x.grad.item()
    6.0
    """
    backward([self], None if gradient is None else [gradient], retain_graph, create_graph, inputs)


def Variable(data, requires_grad=False):
    """PyTorch's legacy wrapper: now just a tensor.

    >>> v = Variable([1.0, 2.0], requires_grad=True)
    >>> type(v).__name__, v.requires_grad
    ('Tensor', True)
    """
    if isinstance(data, Tensor):
        return data.requires_grad_(requires_grad) if requires_grad else data
    return _tensor(data, requires_grad=requires_grad)


Tensor.backward = _tensor_backward
_hooks.install()

__all__ = ["backward", "grad", "no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "forward_ad", "Variable", "Function", "FunctionCtx", "gradcheck", "gradgradcheck", "GradcheckError",
           "detect_anomaly", "set_detect_anomaly", "is_anomaly_enabled"]
