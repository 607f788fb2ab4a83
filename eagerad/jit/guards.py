"""What a compiled function's trace depends on: its guard key.

A trace is replayed only for calls whose key equals the key it was traced under: for
every tensor in the arguments (tuples, lists and dicts of them, nested) its shape, dtype,
device and ``requires_grad``; the Python numbers, strings, booleans and None in the
arguments by value; grad mode; and, when the function is a layer (``nn.Cell``/``Module``)
or a bound method of one, every sublayer's ``training`` flag and the identity, shape and
dtype of its parameters and buffers (a layer with hooks runs eagerly).  Arguments of any
other type (numpy arrays, arbitrary objects) make the call run eagerly, untraced: their
contents cannot be guarded.

>>> import eagerad
>>> leaves, key = flatten_args((eagerad.ones(2), {"n": 3}), {})
>>> len(leaves), key[0]
(1, 'tuple')
"""
from ..autograd.grad_mode import state as _grad_state
from ..tensor import Tensor

_SCALARS = (bool, int, float, complex, str, bytes, type(None))


class Unguardable(Exception):
    """An argument whose value a guard key cannot capture (the call runs eagerly)."""


def _walk(x, leaves, out):
    tx = type(x)
    if tx is Tensor or isinstance(x, Tensor):
        leaves.append(x)
        d = x._data
        out.append((tx, d.shape, d.dtype, x._device, x._requires_grad))
    elif tx in _SCALARS:
        out.append((tx, x))
    elif tx is tuple or tx is list:
        out.append((tx.__name__, len(x)))
        for v in x:
            _walk(v, leaves, out)
    elif tx is dict:
        keys = tuple(x)
        out.append(("dict", keys))
        for k in keys:
            _walk(x[k], leaves, out)
    else:
        raise Unguardable(f"an argument of type {tx.__name__}")


def flatten_args(args, kwargs):
    """The tensors of ``(args, kwargs)`` in order and a hashable key of everything else
    (raises ``Unguardable`` for arguments it cannot key).

    >>> flatten_args((1.5,), {})[1]
    ('tuple', 1, (<class 'float'>, 1.5), 'dict', ())
    """
    leaves, out = [], []
    _walk(args, leaves, out)
    _walk(kwargs, leaves, out)
    return leaves, tuple(x for item in out for x in (item if type(item[0]) is str else (item,)))


def module_of(fn):
    """The layer whose state a trace of ``fn`` depends on: ``fn`` itself when it is a layer,
    the instance of a bound method of one, else None.

    >>> import eagerad
    >>> lin = eagerad.nn.Dense(2, 2); module_of(lin) is lin, module_of(lin.construct) is lin
    (True, True)
    """
    from ..nn.cell import Cell
    if isinstance(fn, Cell):
        return fn
    owner = getattr(fn, "__self__", None)
    return owner if isinstance(owner, Cell) else None


def module_state(module):
    """The guarded state of ``module``: each sublayer's ``training`` flag, then the identity,
    shape, dtype and ``requires_grad`` of each parameter and buffer (``Unguardable`` when a
    sublayer has hooks or recomputation: such a layer runs eagerly).

    >>> import eagerad
    >>> s = module_state(eagerad.nn.Dense(2, 3)); s[0], s[2][0]
    (True, (3, 2))
    """
    out = []
    for m in module.modules():
        d = m.__dict__
        if d.get("_forward_pre_hooks") or d.get("_forward_hooks") or d.get("_recompute") or \
                d.get("_backward_pre_hooks") or d.get("_backward_hooks"):
            raise Unguardable("a layer with hooks (they run at every call)")
        out.append(m.training)
    for t in module.parameters():
        out.append(id(t))
        out.append((t._data.shape, t._data.dtype, t._requires_grad))
    for t in module.buffers():
        if t is not None:
            out.append(id(t))
            out.append((t._data.shape, t._data.dtype, t._requires_grad))
    return tuple(out)


def guard_key(module, args, kwargs):
    """``(tensors of the arguments, key)`` of one call, the key also holding grad mode and
    ``module``'s state (``module_state``) when there is one.

    >>> import eagerad
    >>> guard_key(None, (eagerad.ones(2),), {})[1][-1]
    True
    """
    leaves, key = flatten_args(args, kwargs)
    ids = [id(t) for t in leaves]
    if len(set(ids)) != len(ids):          # one tensor passed twice: part of the key
        key = key + ("aliased", tuple(ids.index(i) for i in ids))
    if module is not None:
        key = key + module_state(module)
    return leaves, key + (_grad_state.enabled,)
