"""In-place ops: ``add_ sub_ mul_ div_ zero_ fill_ clamp_``, ``x += y`` and ``x[i] = v``.

Every in-place change bumps the tensor's version counter (shared with its
views), so a node that saved the old value refuses to run backward with the new
one.  When the change is recorded (grad mode on and something requires grad)
the tensor's history is rebased: the out-of-place op runs on a snapshot of the
old value, the result is written into the tensor's own buffer, and the tensor
takes the new node as its ``grad_fn``, as PyTorch does.  A change through a
view rewrites the history of the view's root, and every live view of the root
is re-derived from the new history (ops/shape.py tracks views), so views and
bases never keep a stale graph.  Only a leaf that requires grad (or a view of
one) is refused, outside ``no_grad``.

>>> import eagerad
>>> x = eagerad.tensor([1.0, 2.0], requires_grad=True)
>>> h = x * 1
>>> h += 1
>>> h.grad_fn.name
'AddBackward'
"""
import numbers

import numpy as np

from .. import backend
from ..autograd import forward_ad
from ..autograd.grad_mode import state as grad_state
from ..face import FaceAttribute
from ..tensor import Tensor, rand, randn, zeros_like
from . import math
from .registry import OPS, Case, U, defop
from .shape import (_batch_size, _batched_front, _getitem, _index_arrays, _lead, _move_front_to,
                    _to_front, index_batch_axis, put_view, replay_view)


def _fill_forward(B, x, value):
    return B.full(x.shape, value, x.dtype)


_fill = defop("fill", _fill_forward, vjp=lambda g, ans, x, value: zeros_like(g),
              jvp=lambda t, ans, x, value: zeros_like(t), saves=(),
              batch=lambda args, bdims, value: (_fill(args[0], value=value), bdims[0]),
              cases=[Case(U(2, 3), value=0.5), Case(U(), value=0.0)])


def _setitem_forward(B, x, v, index):
    out = B.copy(x)
    B.setitem(out, index, v)
    return out


def _kept(g, index):
    """``g`` with the overwritten positions zeroed (a constant mask, so differentiable)."""
    mask = backend.get(g.device.type).full(g.shape, 1, g.dtype)
    backend.get(g.device.type).setitem(mask, index, 0)
    return g * Tensor._make(mask, g.device)


def _scattered(t, ans, index):
    """Zeros of ``ans``'s shape with ``t`` written at ``index``."""
    return _setitem(zeros_like(ans), t, index=index)


def _setitem_batch(args, bdims, index):
    """vmap of ``x[index] = v``: both batch-first (an unbatched one repeated), ``v``'s
    batch axis put where numpy puts it in the batched region."""
    x, v = args
    n = _batch_size(args, bdims)
    x = _batched_front(x, bdims[0], n)
    region = _region_shape(x.shape[1:], index)
    v = v if bdims[1] is None else _to_front(v, bdims[1])
    if bdims[1] is None:
        v = v.reshape((1,) + v.shape)
    v = _move_front_to(_lead(v, len(region)), index_batch_axis(index))
    return _setitem(x, v, index=(slice(None),) + index), 0


_setitem = defop("setitem", _setitem_forward,
                 vjp=(lambda g, ans, x, v, index: _kept(g, index),
                      lambda g, ans, x, v, index: _getitem(g, index)),   # a backend index
                 jvp=(lambda t, ans, x, v, index: _kept(t, index),
                      lambda t, ans, x, v, index: _scattered(t, ans, index)), saves=(),
                 batch=_setitem_batch,
                 cases=[Case(U(3, 4), U(4), index=(1,)),
                        Case(U(5), U(2), index=(np.array([0, 3]),)),
                        Case(U(2, 3), U(), index=(slice(None), slice(0, 2)))])


# ------------------------------------------------------------ checks


def _check_target(x, name):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: self must be a Tensor, got {type(x).__name__}")
    if not getattr(getattr(x._data, "flags", None), "writeable", True):
        raise RuntimeError(
            f"{name}: this tensor (shape {list(x.shape)}) is a read-only broadcast view "
            "(broadcast_to/expand or a read-only numpy array); several elements share one "
            "memory location. Call .clone() first and modify the copy.")


def _check_other(x, y, name, op):
    """``y`` must broadcast to ``x``'s shape and its result must fit ``x``'s dtype."""
    if isinstance(y, Tensor):
        if y.device != x.device:
            raise RuntimeError(f"{name}: other is on {y.device}, self is on {x.device}")
        if y.shape != x.shape:
            try:
                ok = np.broadcast_shapes(x.shape, y.shape) == x.shape
            except ValueError:
                ok = False
            if not ok:
                raise ValueError(f"{name}: other of shape {y.shape} cannot be broadcast to "
                                 f"self's shape {x.shape} (an in-place result keeps self's shape)")
        floating = y.dtype.kind == "f"
    elif isinstance(y, (numbers.Number, np.generic)) and not isinstance(y, complex):
        floating = isinstance(y, (float, np.floating))
    else:
        raise TypeError(f"{name}: other must be a Tensor or a real number, got {type(y).__name__}")
    if x.dtype.kind != "f" and (floating or op == "div"):
        raise TypeError(f"{name}: the result is floating point and cannot be stored in self of "
                        f"dtype {x.dtype}; cast first (x = x.astype(eagerad.float32))")


def _recorded(x, others):
    """Whether the change must enter the graph (or carry forward-mode tangents)."""
    tensors = [x] + [o for o in others if isinstance(o, Tensor)]
    if grad_state.enabled and any(t._requires_grad for t in tensors):
        return True
    return bool(forward_ad.levels) and any(t._tangents for t in tensors)


def _check_rebase(x, root, name):
    if root._requires_grad and root.grad_fn is None and grad_state.enabled:
        what = "a leaf tensor that requires grad" if root is x else \
            "a view of a leaf tensor that requires grad"
        raise RuntimeError(
            f"{name}: {what} (shape {list(root.shape)}) is being used in an in-place operation. "
            "Wrap parameter updates in `with eagerad.no_grad():`, or work on x.clone().")


# ------------------------------------------------------------ the one in-place path


def _snapshot(x, op):
    """``x``'s old value for the out-of-place op: the same buffer when the rule does
    not read it, else a copy (the buffer is about to change)."""
    reads_x = op is None or op.saves is None or 0 in op.saves
    data = backend.get(x.device.type).copy(x._data) if reads_x else x._data
    return _with_history(data, x)


def _with_history(data, x):
    old = Tensor._make(data, x._device, x._requires_grad, x.grad_fn, face=x._face)
    if x._out_index:           # (the defaults are class attributes: no instance dict)
        old._out_index = x._out_index
    if x._tangents is not None:
        old._tangents = x._tangents
    return old


def _rebase(x, name, op_name, compute):
    """Run ``compute(old_x)`` out of place, write it into ``x`` and adopt its history.

    When ``x`` is a view, the history rewritten is its root's (the root's old value
    with the view's region replaced, PyTorch's CopySlices); then every live view of
    the root, ``x`` included, is taken again from the root's new history."""
    root, steps = x._view or (x, ())
    _check_rebase(x, root, name)
    old = _snapshot(x, OPS[op_name] if op_name else None)
    result = compute(old)
    if result.dtype != x.dtype:
        result = result.astype(x.dtype)
    if root is not x:
        result = put_view(_with_history(root._data, root), steps, result)
    backend.get(root.device.type).setitem(root._data, Ellipsis, result._data)
    x._version[0] += 1
    _adopt(root, result)
    for view in list(root._views or ()):
        _adopt(view, replay_view(root, view._view[1]))
    return x


def _adopt(x, result):
    """``x`` takes ``result``'s graph position (its values are already in place)."""
    retained = x._retains_grad and x.grad_fn is not None
    if retained:                      # .grad is the new value's gradient, not the old one's
        x.grad_fn.retained.pop(x._out_index, None)
    x.grad_fn, x._out_index = result.grad_fn, result._out_index
    x._requires_grad = result._requires_grad
    x._tangents = result._tangents
    if retained:
        from ..autograd.hooks import retain_grad
        x._retains_grad = False
        retain_grad(x)


def _lean(x, y):
    """Whether ``x op= y`` can skip the checks and the graph: nothing is recorded,
    ``x`` is a writeable float numpy array and ``y`` a float or a tensor of ``x``'s
    shape, dtype and device (what ``_check_other`` would accept anyway)."""
    if grad_state.enabled or forward_ad.levels or not isinstance(x, Tensor):
        return False
    d = x._data
    if type(d) is not np.ndarray or d.dtype.kind != "f" or not d.flags.writeable:
        return False
    if type(y) is Tensor:
        e = y._data
        return e.shape == d.shape and e.dtype == d.dtype and y._device == x._device
    return type(y) is float


def _binary_inplace(op_name, name, fn, example):
    def method(self, other, *, alpha=None):
        if alpha is not None and alpha != 1:      # PyTorch's x.add_(y, alpha=a): x + a * y
            if op_name not in ("add", "sub"):
                raise TypeError(f"{name}() got an unexpected keyword argument 'alpha'")
            other = other * alpha
        if _lean(self, other):      # an optimizer's update: no checks or graph needed
            backend.get(self._device.type).inplace(op_name, self._data,
                                                   other._data if type(other) is Tensor else other)
            self._version[0] += 1
            return self
        _check_target(self, name)
        _check_other(self, other, name, op_name)
        if _recorded(self, (other,)):
            return _rebase(self, name, op_name,
                           lambda old: fn(old, old if other is self else other))
        y = other._data if isinstance(other, Tensor) else other
        backend.get(self.device.type).inplace(op_name, self._data, y)
        self._version[0] += 1
        return self
    method.__name__ = name
    method.__doc__ = (f"In place ``self = self {name[:-1]} other`` (other broadcasts to self's "
                      f"shape); returns self.\n\n    >>> print(eagerad.ones(2).{name}(2.0))\n    {example}\n")
    return method


add_ = _binary_inplace("add", "add_", math.add, "[3. 3.]")
sub_ = _binary_inplace("sub", "sub_", math.sub, "[-1. -1.]")
mul_ = _binary_inplace("mul", "mul_", math.mul, "[2. 2.]")
div_ = _binary_inplace("div", "div_", math.div, "[0.5 0.5]")


def fill_(self, value):
    """Set every element to ``value`` (a number or one-element tensor); returns self.

    >>> eagerad.zeros(2).fill_(3.0).tolist()
    [3.0, 3.0]
    """
    _check_target(self, "fill_")
    if isinstance(value, Tensor):
        value = value.item()
    _check_other(self, value, "fill_", "fill")
    if _recorded(self, ()):
        return _rebase(self, "fill_", "fill", lambda old: _fill(old, value=value))
    backend.get(self.device.type).setitem(self._data, Ellipsis, value)
    self._version[0] += 1
    return self


def zero_(self):
    """Set every element to zero; returns self (``p.grad.zero_()``).

    >>> t = eagerad.Tensor([1.0, 2.0]); t.zero_() is t, t.tolist()
    (True, [0.0, 0.0])
    """
    return fill_(self, 0)


def clamp_(self, min=None, max=None):
    """Clamp into ``[min, max]`` in place (either may be None); returns self.

    >>> eagerad.tensor([-2.0, 3.0]).clamp_(-1.0, 1.0).tolist()
    [-1.0, 1.0]
    """
    _check_target(self, "clamp_")
    for bound in (min, max):
        if bound is not None:
            _check_other(self, bound.item() if isinstance(bound, Tensor) else bound, "clamp_", "clip")
    if _recorded(self, ()):
        return _rebase(self, "clamp_", "clip", lambda old: math.clip_by_value(old, min, max))
    result = math.clip_by_value(self.detach(), min, max)
    backend.get(self.device.type).setitem(self._data, Ellipsis, result._data)
    self._version[0] += 1
    return self


def _region_shape(shape, index):
    """Shape of ``x[index]`` for a tensor of ``shape``, without touching its memory."""
    try:
        return np.broadcast_to(np.empty((), np.bool_), shape)[index].shape
    except IndexError as err:
        raise IndexError(f"__setitem__: index out of range for a tensor of shape {shape}: "
                         f"{err}") from None


def setitem(self, index, value):
    """``self[index] = value`` (basic and advanced indexing; value broadcasts).

    >>> x = eagerad.zeros(3); x[1] = 5.0; x.tolist()
    [0.0, 5.0, 0.0]
    """
    _check_target(self, "__setitem__")
    index = _index_arrays(index, self.device)
    if not isinstance(value, Tensor):
        value = Tensor(value, dtype=self.dtype, device=self.device)
    elif value.device != self.device:
        raise RuntimeError(f"__setitem__: value is on {value.device}, self is on {self.device}")
    if self.device.type == "cpu":
        region = _region_shape(self.shape, index)
        try:
            fits = np.broadcast_shapes(value.shape, region) == region
        except ValueError:
            fits = False
        if not fits:
            raise ValueError(f"__setitem__: value of shape {value.shape} cannot be broadcast to "
                             f"the indexed region of shape {region}")
    if value.dtype != self.dtype:
        value = value.astype(self.dtype)
    if _recorded(self, (value,)):
        return _rebase(self, "__setitem__", "setitem",
                       lambda old: _setitem(old, value, index=index))
    backend.get(self.device.type).setitem(self._data, index, value._data)
    self._version[0] += 1
    return self


def copy_(self, src):
    """Copy ``src``'s values into ``self`` (broadcast and cast to self's shape and dtype);
    recorded like any in-place op, so the gradient flows to ``src``.

    >>> x = eagerad.zeros(2, 2); x.copy_(eagerad.Tensor([1.0, 2.0])).tolist()
    [[1.0, 2.0], [1.0, 2.0]]
    """
    return setitem(self, Ellipsis, src)


def _rewritten(name, fn, doc):
    """``x.<name>(*args)``: ``fn(x, *args)`` written into ``x``, recorded like any in-place op
    (PyTorch's ``exp_``, ``lerp_``, ...: the value is computed out of place, then stored)."""
    def method(self, *args, **kwargs):
        _check_target(self, name)
        if _recorded(self, args + tuple(kwargs.values())):
            return _rebase(self, name, None, lambda old: fn(old, *args, **kwargs))
        result = fn(self.detach(), *args, **kwargs)
        if result.dtype != self.dtype:
            result = result.astype(self.dtype)
        backend.get(self.device.type).setitem(self._data, Ellipsis, result._data)
        self._version[0] += 1
        return self
    method.__name__, method.__doc__ = name, doc
    return method


def _filled_with(name, draw, doc):
    """``x.<name>(*args)``: ``x`` overwritten with samples ``draw(x, *args)`` (gradient 0
    to the old values, as ``fill_``)."""
    def method(self, *args, **kwargs):
        return setitem(self, Ellipsis, draw(self, *args, **kwargs))
    method.__name__, method.__doc__ = name, doc
    return method


_REWRITTEN = ("exp_ log_ log1p_ expm1_ sqrt_ rsqrt_ neg_ abs_ sin_ cos_ tan_ tanh_ sigmoid_ relu_ "
              "reciprocal_ floor_ ceil_ trunc_ frac_ round_ sign_ square_ pow_ fmod_ remainder_ "
              "clamp_min_ clamp_max_ lerp_ addcmul_ addcdiv_ erf_ atan2_ hypot_ logit_ "
              "nan_to_num_ absolute_ acos_ acosh_ asin_ asinh_ atan_ atanh_ arccos_ arccosh_ "
              "arcsin_ arcsinh_ arctan_ arctan2_ arctanh_ cosh_ sinh_ sinc_ sgn_ fix_ erfc_ "
              "erfinv_ exp2_ log2_ log10_ lgamma_ digamma_ polygamma_ deg2rad_ rad2deg_ "
              "copysign_ xlogy_ float_power_ ldexp_ floor_divide_ divide_ true_divide_ "
              "multiply_ subtract_ negative_ cumsum_ cumprod_ tril_ triu_ addmm_ addmv_ addr_ "
              "addbmm_ baddbmm_ bitwise_and_ bitwise_or_ bitwise_xor_ bitwise_not_ gcd_ lcm_ "
              "heaviside_ logical_and_ logical_or_ logical_xor_ logical_not_ greater_ "
              "greater_equal_ less_ less_equal_ not_equal_ index_fill_ index_copy_ index_put_ "
              "masked_scatter_ put_").split()
# in-place comparisons: PyTorch's short names of the elementwise tests
_COMPARISONS = {"eq_": "equal", "ne_": "not_equal", "gt_": "greater", "ge_": "greater_equal",
                "lt_": "less", "le_": "less_equal"}


def _rewrites():
    """The in-place twins of public ops, for the names in ``_REWRITTEN`` and
    ``_COMPARISONS``."""
    from .registry import PUBLIC
    sources = {name: name[:-1] for name in _REWRITTEN}
    sources.update(_COMPARISONS)
    return {name: _rewritten(name, PUBLIC[op],
                             f"In place ``self = {op}(self, ...)``; returns self.")
            for name, op in sources.items() if op in PUBLIC and name not in METHODS}


def check_draw(name, std=None, low=None, high=None, p=None, rate=None):
    """Refuse the sampler parameters PyTorch refuses, naming them: a negative std drew
    mirrored samples, ``uniform_(2, 1)`` samples from [1, 2), ``bernoulli_(1.5)`` ones.

    >>> check_draw("normal_", std=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: normal_: std must be >= 0, got -1.0
    """
    if std is not None and not float(std) >= 0:
        raise ValueError(f"{name}: std must be >= 0, got {std}")
    if low is not None and not float(low) <= float(high):
        raise ValueError(f"{name}: expects a [from, to) range, got from={low} > to={high}")
    if p is not None and not 0 <= float(p) <= 1:
        raise ValueError(f"{name}: p must lie in [0, 1], got {p}")
    if rate is not None and not float(rate) > 0:
        raise ValueError(f"{name}: lambd must be > 0, got {rate}")


def _uniform_(x, a=0.0, b=1.0, generator=None):
    check_draw("uniform_", low=a, high=b)
    return rand(*x.shape, dtype=x.dtype, device=x.device) * (b - a) + a


def _normal_(x, mean=0.0, std=1.0, generator=None):
    check_draw("normal_", std=std)
    return randn(*x.shape, dtype=x.dtype, device=x.device) * std + mean


def _bernoulli_(x, p=0.5, generator=None):
    check_draw("bernoulli_", p=p)
    return (rand(*x.shape, device=x.device) < p).astype(x.dtype)


def _exponential_(x, lambd=1.0, generator=None):
    check_draw("exponential_", rate=lambd)
    return -math.log1p(-rand(*x.shape, dtype=x.dtype, device=x.device)) / lambd


_SAMPLERS = {"uniform_": _uniform_, "normal_": _normal_, "bernoulli_": _bernoulli_,
             "exponential_": _exponential_}


METHODS = {"copy_": copy_, "add_": add_, "sub_": sub_, "mul_": mul_, "div_": div_, "fill_": fill_,
           "zero_": zero_, "clamp_": clamp_, "clip_": clamp_, "__setitem__": setitem,
           "__iadd__": add_, "__isub__": sub_, "__imul__": mul_, "__itruediv__": div_}


def install():
    """Put the in-place methods on Tensor (called by ``eagerad.ops``).

    >>> install(); hasattr(Tensor, 'clamp_')
    True
    >>> x = eagerad.tensor([0.0, 1.0], dtype=eagerad.float64); x.exp_().tolist(), x.uniform_(2.0, 3.0).min().item() >= 2.0
    ([1.0, 2.718281828459045], True)
    """
    methods = dict(METHODS)
    methods.update(_rewrites())
    for name, draw in _SAMPLERS.items():
        methods[name] = _filled_with(name, draw, f"Fill in place with ``{name[:-1]}`` samples; "
                                                 "returns self.")
    for name, fn in methods.items():
        current = Tensor.__dict__.get(name)
        if isinstance(current, FaceAttribute):   # a face's version stays (torch's div_):
            current.default = fn                 # the neutral one is what it stands in for
        else:
            setattr(Tensor, name, fn)
