"""In-place writes into a parameter's buffer, outside the graph.

Optimizers, initialisers and checkpoint loading change parameters in place: the
buffer is overwritten (views and aliases see the new values), no graph is
recorded, and the version counter is bumped so that a backward through a graph
that saved the old values fails loudly instead of using stale numbers.

>>> import eagerad
>>> w = eagerad.Parameter(eagerad.zeros(2), name='w')
>>> _ = assign(w, eagerad.ones(2)); w.version
1
"""
from .. import backend
from ..tensor import Tensor


def assign(param, value):
    """Copy ``value`` (a Tensor or array-like of ``param``'s shape) into ``param``'s buffer.

    >>> w = eagerad.Parameter(eagerad.zeros(2), name='w')
    >>> assign(w, [1.0, 2.0]).tolist()
    [1.0, 2.0]
    """
    if not isinstance(value, Tensor):
        value = Tensor(value, dtype=param.dtype)
    if value.shape != param.shape:
        raise ValueError(f"cannot write a value of shape {value.shape} into "
                         f"{getattr(param, 'name', None) or 'tensor'} of shape {param.shape}")
    if value.device != param.device:
        value = value.to(param.device)
    backend.get(param.device.type).setitem(param._data, Ellipsis, value._data)
    param._version[0] += 1
    return param
