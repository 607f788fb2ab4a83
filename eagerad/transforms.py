"""Function transforms, MindSpore style: ``grad`` and ``value_and_grad``.

A transform wraps any Python callable (function, lambda, closure, ``nn.Cell``
or a function returned by ``grad`` itself) and differentiates it when called,
through ``eagerad.reverse`` (the one reverse-mode core: a fresh variable per
differentiated position, one engine walk, one ``create_graph`` policy).  This
module only maps MindSpore's spelling onto it: ``grad_position``, ``weights``,
several outputs summed, ``has_aux``, ``return_ids``, ``sens_param``; anything that
does not reach the output gets zeros of its shape.

>>> import eagerad
>>> from eagerad import grad, ops
>>> round(float(grad(grad(grad(ops.sin)))(eagerad.tensor(1.0))), 6)  # -cos(1)
-0.540302
"""
from . import reverse, tree as _tree
from .autograd import forward_ad
from .functional import at_positions, regroup
from .ops.primitives import Primitive
from .tensor import Tensor, ones_like
from .vectorize import active

__all__ = ["grad", "value_and_grad", "GradOperation"]


# ------------------------------------------------------------------ arguments

def _check_positions(grad_position, weights):
    """Normalise ``grad_position`` to None or a tuple of ints; raise on bad values."""
    if grad_position is None:
        if weights is None:
            raise ValueError("`grad_position` and `weight` can not be None at the same time.")
        return None
    single = isinstance(grad_position, int) and not isinstance(grad_position, bool)
    positions = (grad_position,) if single else grad_position
    if not isinstance(positions, tuple) or not positions or \
            any(not isinstance(p, int) or isinstance(p, bool) for p in positions):
        raise TypeError(f"grad_position must be an int, a non-empty tuple of ints or None, "
                        f"got {grad_position!r}")
    if any(p < 0 for p in positions):
        raise ValueError(f"grad_position must be >= 0, got {grad_position!r}")
    return positions


def _as_weights(weights):
    """(tuple of tensors, True if a single Parameter was given) for ``weights``."""
    if weights is None:
        return (), False
    if isinstance(weights, Tensor):
        return (weights,), True
    if not isinstance(weights, (list, tuple)):
        raise TypeError(f"weights must be a Parameter, a list of Parameters or a ParameterTuple, "
                        f"got {type(weights).__name__}")
    for i, w in enumerate(weights):
        if not isinstance(w, Tensor):
            raise TypeError(f"weights[{i}] must be a Parameter, got {type(w).__name__}")
    return tuple(weights), False


# ------------------------------------------------------------------- outputs

def _flatten(out, where="output"):
    """Tensors of a (nested) tuple/list output, in order; Python numbers are constants."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for i, o in enumerate(out) for t in _flatten(o, f"{where}[{i}]")]
    if isinstance(out, dict):
        return [t for k, o in out.items() for t in _flatten(o, f"{where}[{k!r}]")]
    if isinstance(out, (int, float, bool)) or out is None:
        return []
    raise TypeError(f"the function's {where} is a {type(out).__name__}; grad needs Tensors "
                    "(or tuples of Tensors) as outputs")


def _seeds(outs, sens):
    """One seed per output tensor: ones, or the matching ``sens`` tensor (shape-checked)."""
    if sens is None:
        return [ones_like(o) for o in outs]
    sens_list = _flatten(sens, "sens") if isinstance(sens, (tuple, list)) else [sens]
    if len(sens_list) != len(outs):
        raise ValueError(f"sens_param: the function returned {len(outs)} tensor(s) but "
                         f"{len(sens_list)} sens value(s) were given")
    seeds = []
    for i, (o, s) in enumerate(zip(outs, sens_list)):
        if not isinstance(s, Tensor):
            s = Tensor(s, dtype=o.dtype)
        if s.shape != o.shape and not (s.size == o.size == 1):
            raise ValueError(f"sens_param: sens {i} has shape {s.shape} but output {i} has shape "
                             f"{o.shape}; the sens must have the shape of the output")
        seeds.append(s.reshape(o.shape) if s.shape != o.shape else s)
    return seeds


def _detach(out):
    """Cut outputs from the reverse graph, keeping their forward-mode tangents."""
    return _tree.map(lambda t: forward_ad.detach(t) if isinstance(t, Tensor) else t, out)


# -------------------------------------------------------------------- engine

def differentiate(fn, args, kwargs, positions, weights, has_aux, sens=None):
    """Run ``fn(*args, **kwargs)`` and differentiate it (``eagerad.reverse``'s core with
    MindSpore's spelling: positions, weights, several outputs summed, ``sens``).

    Returns ``(value, aux, input_grads, weight_grads)``: the raw output, the
    auxiliary outputs (a tuple, or None without ``has_aux``) and one gradient per
    entry of ``positions`` and of ``weights``.  The building block of ``grad``,
    ``value_and_grad`` and ``ops.GradOperation``.

    >>> w = eagerad.Parameter(eagerad.Tensor([2.0]), name='w')
    >>> f = lambda x: (x * w).sum()
    >>> value, aux, (gx,), (gw,) = differentiate(f, (eagerad.Tensor([3.0]),), {}, (0,), [w], False)
    >>> value.item(), aux, gx.tolist(), gw.tolist()
    (6.0, None, [2.0], [3.0])
    """
    if positions is not None and positions and max(positions) >= len(args):
        raise ValueError(f"grad_position {max(positions)} is out of range: the function was "
                         f"called with {len(args)} positional argument(s)")
    if active() and weights:
        raise NotImplementedError(
            "grad with weights= inside vmap would sum the per-sample weight gradients; pass the "
            "parameters as an argument instead (e.g. vmap(grad(loss), in_axes=(None, 0))(params, x) "
            "with eagerad.func.functional_call)")
    unique = tuple(dict.fromkeys(positions or ()))   # a position listed twice: one variable
    leaves, defs = [], []
    for p in unique:
        ls, treedef = _tree.flatten(args[p])
        for x in ls:
            if not isinstance(x, Tensor):
                raise TypeError(f"grad_position {p} selects an argument of type "
                                f"{type(x).__name__}; only Tensors can be differentiated")
        leaves += ls
        defs.append(treedef)
    value, tr = reverse.trace(at_positions(fn, args, kwargs, unique, defs), leaves, weights)
    if has_aux:
        if not isinstance(value, (tuple, list)) or len(value) < 2:
            raise ValueError("has_aux=True needs the function to return a tuple of at least "
                             f"two outputs, got {type(value).__name__}")
        target, aux = value[0], tuple(_detach(v) for v in value[1:])
    else:
        target, aux = value, None
    outs = _flatten(target)
    grads = tr.pull(outs, _seeds(outs, sens), retain_graph=None)
    if not tr.differentiable(outs):
        value = _detach(value)
    per_position = dict(zip(unique, regroup(grads, defs, False)))
    return value, aux, [per_position[p] for p in positions or ()], grads[len(leaves):]


def _shape_result(positions, single_position, input_grads, weights, single_weight, weight_grads,
                  has_weights, return_ids):
    """Arrange gradients as in seed 002's tables: inputs, weights, or ``(inputs, weights)``."""
    if return_ids:
        input_grads = [(p, g) for p, g in zip(positions or (), input_grads)]
        weight_grads = [(getattr(w, "name", None) or i, g)
                        for i, (w, g) in enumerate(zip(weights, weight_grads))]
    ins = input_grads[0] if single_position else tuple(input_grads)
    ws = weight_grads[0] if single_weight else tuple(weight_grads)
    if positions is None:
        return ws
    return (ins, ws) if has_weights else ins


def _transform(fn, grad_position, weights, has_aux, return_ids, with_value):
    if not callable(fn):
        raise TypeError(f"fn must be callable (a function or a Cell), got {type(fn).__name__}")
    positions = _check_positions(grad_position, weights)
    single_position = positions is not None and not isinstance(grad_position, tuple)
    weight_list, single_weight = _as_weights(weights)

    def wrapped(*args, **kwargs):
        value, aux, gi, gw = differentiate(fn, args, kwargs, positions, weight_list, has_aux)
        grads = _shape_result(positions, single_position, gi, weight_list, single_weight, gw,
                              weights is not None, return_ids)
        if with_value:
            return value, grads
        return (grads, aux) if has_aux else grads

    wrapped.__name__ = f"{'value_and_grad' if with_value else 'grad'}_of_" \
                       f"{getattr(fn, '__name__', type(fn).__name__)}"
    wrapped.__doc__ = f"Gradient function of {fn!r} (made by eagerad.transforms)."
    return wrapped


def grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """A function computing the gradient of ``fn`` (MindSpore's ``mindspore.grad``).

    ``grad_position`` (int, tuple of ints or None) picks the inputs,
    ``weights`` (Parameter, list or ParameterTuple) the parameters.  Several
    outputs are summed; with ``has_aux=True`` only the first output is
    differentiated and ``(grads, tuple_of_other_outputs)`` is returned.  With
    ``return_ids=True`` every gradient comes as ``(position or parameter name, grad)``.
    An argument may be a pytree (nested dicts/lists/tuples of tensors, e.g. parameters
    as a dict): its gradient has the same structure.

    >>> x, y = eagerad.Tensor(1.0), eagerad.Tensor(2.0)
    >>> grad(lambda x, y: x ** 2 + y, grad_position=(0, 1))(x, y)
    (tensor(2.), tensor(1.))
    >>> g = grad(lambda p: (p['w'] * p['b'][0]).sum())({'w': eagerad.ones(2), 'b': [eagerad.Tensor(3.0)]})
    >>> g['w'].tolist(), g['b'][0].item()
    ([3.0, 3.0], 2.0)
    """
    return _transform(fn, grad_position, weights, has_aux, return_ids, with_value=False)


def value_and_grad(fn, grad_position=0, weights=None, has_aux=False, return_ids=False):
    """Like ``grad`` but returns ``(fn's output, gradients)`` from one forward pass.

    >>> value_and_grad(lambda x: x * x)(eagerad.Tensor(3.0))
    (tensor(9.), tensor(6.))
    """
    return _transform(fn, grad_position, weights, has_aux, return_ids, with_value=True)


class GradOperation(Primitive):
    """MindSpore's gradient higher-order function: ``GradOperation(...)(fn[, weights])``.

    ``get_all``: gradients of all inputs (else the first only); ``get_by_list``:
    gradients of the ``weights`` given with ``fn`` (then ``(inputs, weights)``
    when ``get_all`` too; a single Parameter gets its gradient unwrapped, and ``weights=None``
    with ``get_all`` gives ``(input_grads, ())``); ``sens_param``: the gradient function takes one more
    argument, the output's sensitivity (a tuple of them for a tuple output),
    instead of seeding the outputs with ones.

    >>> dx = GradOperation()(lambda x: x * x)(eagerad.Tensor([3.0]))
    >>> dx
    tensor([6.])
    """

    def __init__(self, get_all=False, get_by_list=False, sens_param=False):
        self.get_all = bool(get_all)
        self.get_by_list = bool(get_by_list)
        self.sens_param = bool(sens_param)

    def __call__(self, fn, weights=None):
        if not callable(fn):
            raise TypeError(f"GradOperation: fn must be callable, got {type(fn).__name__}")
        if self.get_by_list and weights is None and not self.get_all:
            raise ValueError("GradOperation(get_by_list=True) needs the weights: "
                             "grad_op(net, ParameterTuple(net.trainable_params()))")
        weight_list, single_weight = _as_weights(weights) if self.get_by_list else ((), False)

        def gradient_function(*args, **kwargs):
            sens = None
            if self.sens_param:
                if not args:
                    raise ValueError("GradOperation(sens_param=True): the last argument must be "
                                     "the sens, but no argument was given")
                args, sens = args[:-1], args[-1]
            if self.get_all:
                positions = tuple(range(len(args)))
            elif not self.get_by_list:
                if not args:
                    raise ValueError("GradOperation(): grad_position 0 is out of range: the "
                                     "function was called without arguments")
                positions = (0,)
            else:
                positions = None
            _, _, gi, gw = differentiate(fn, args, kwargs, positions, weight_list, False, sens)
            if self.get_by_list:
                gw = gw[0] if single_weight else tuple(gw)   # one Parameter: its gradient
                return (tuple(gi), gw) if self.get_all else gw
            return tuple(gi) if self.get_all else gi[0]

        gradient_function.__name__ = f"grad_of_{getattr(fn, '__name__', type(fn).__name__)}"
        return gradient_function

    def __repr__(self):
        return (f"GradOperation(get_all={self.get_all}, get_by_list={self.get_by_list}, "
                f"sens_param={self.sens_param})")
