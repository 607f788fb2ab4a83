"""MindSpore's ``Tensor`` methods, registered as the MindSpore face's attributes: names the
core Tensor lacks, and names whose MindSpore signature or result differs from the core's
(``mean(axis, keep_dims)`` keeps an integer dtype, ``sort`` returns int32 indices,
``cross(other, dim=None)`` takes the first axis of size 3, ``copy()`` is differentiable).
A tensor of another face does not see these (a name new here raises AttributeError there).

>>> import eagerad.mindspore as ms
>>> x = ms.Tensor([[1.0, 2.0, 3.0]])
>>> x.nelement(), x.ndimension(), x.ravel().shape
(3, 2, (3,))
"""
import importlib

import numpy as np

from ..face import install
from ._face import MINDSPORE
from .ops import _functions as F, _semantics as S

_core = importlib.import_module("eagerad.tensor")


def _register(name, impl):
    install(_core.Tensor, name)      # a name the core lacks reads as absent on other faces
    MINDSPORE.attributes[name] = impl


def copy(self):
    """A differentiable copy with its own memory (MindSpore's ``Tensor.copy``).

    >>> import eagerad.mindspore as ms
    >>> ms.grad(lambda t: (t.copy() * 3).sum())(ms.Tensor([1.0])).numpy().tolist()
    [3.0]
    """
    return self.clone()


def mean(self, axis=None, keep_dims=False, *, keepdims=None, dim=None, keepdim=None, dtype=None):
    """MindSpore's ``Tensor.mean(axis, keep_dims)`` (an integer tensor keeps its dtype); the
    core's spellings (``keepdims``, ``dim``, ``keepdim``, ``dtype``) are accepted too, since
    the core's layers call them on MindSpore tensors.

    >>> import eagerad.mindspore as ms
    >>> ms.Tensor(np.array([[1, 2], [3, 4]], np.int32)).mean()
    Tensor(shape=[], dtype=Int32, value= 2)
    """
    axis = dim if dim is not None else axis
    keep = next((k for k in (keepdims, keepdim) if k is not None), keep_dims)
    out = S.mean(self, axis, keep)
    return out.astype(dtype) if dtype is not None else out


def where(self, condition, y):
    """``self`` where ``condition``, else ``y``.

    >>> import eagerad.mindspore as ms
    >>> ms.Tensor([1.0, 2.0]).where(ms.Tensor([True, False]), ms.Tensor([0.0, 0.0])).numpy().tolist()
    [1.0, 0.0]
    """
    return S._core.where(condition, self, y)


def expand_as(self, other):
    """``self`` broadcast to ``other``'s shape.

    >>> import eagerad.mindspore as ms
    >>> ms.Tensor([1.0, 2.0]).expand_as(ms.ops.ones((3, 2))).shape
    (3, 2)
    """
    return S._core.broadcast_to(self, tuple(other.shape))


def gather_elements(self, dim, index):
    """The elements at ``index`` along ``dim``.

    >>> import eagerad.mindspore as ms
    >>> ms.Tensor([[1.0, 2.0]]).gather_elements(1, ms.Tensor(np.array([[1, 1]]))).numpy().tolist()
    [[2.0, 2.0]]
    """
    return S._core.gather_elements(self, dim, index)


def ndimension(self):
    """The number of axes.

    >>> import eagerad.mindspore as ms
    >>> ms.ops.ones((2, 3)).ndimension()
    2
    """
    return self.ndim


def nelement(self):
    """The number of elements.

    >>> import eagerad.mindspore as ms
    >>> ms.ops.ones((2, 3)).nelement()
    6
    """
    return F.numel(self)


def real(self):
    """The real part: a real tensor itself (as a new tensor).

    >>> import eagerad.mindspore as ms
    >>> ms.Tensor([1.5]).real().numpy().tolist()
    [1.5]
    """
    return self * 1


def _itemsize(self):
    return np.dtype(self.dtype).itemsize


def _strides(self):
    shape = tuple(self.shape)
    step, out = np.dtype(self.dtype).itemsize, []
    for size in reversed(shape):
        out.append(step)
        step *= size
    return tuple(reversed(out))


itemsize = property(_itemsize, doc="""Bytes per element.

    >>> import eagerad.mindspore as ms
    >>> ms.ops.ones((2, 3)).itemsize
    4
    """)
strides = property(_strides, doc="""Bytes between neighbours along each axis (C order).

    >>> import eagerad.mindspore as ms
    >>> ms.ops.ones((2, 3)).strides
    (12, 4)
    """)


def _method(fn, name):
    """``fn(self, ...)`` as a method (a function of the ops face, first argument the tensor)."""
    def method(self, *args, **kwargs):
        return fn(self, *args, **kwargs)
    method.__name__, method.__doc__ = name, f"MindSpore's ``Tensor.{name}``: ``ops.{fn.__name__}``."
    return method


for _name, _fn in (("argmin", S.argmin), ("sort", S.sort), ("topk", S.topk),
                   ("argsort", S.argsort), ("cross", S.cross), ("count_nonzero", S.count_nonzero),
                   ("clamp", S.clamp), ("clip", S.clamp), ("median", S.median),
                   ("ravel", F.ravel), ("trunc", F.trunc), ("frac", F.frac), ("lerp", F.lerp),
                   ("addcmul", F.addcmul), ("addcdiv", F.addcdiv), ("absolute", F.absolute)):
    _register(_name, _method(_fn, _name))
for _name, _impl in (("copy", copy), ("mean", mean), ("where", where), ("expand_as", expand_as),
                     ("gather_elements", gather_elements), ("ndimension", ndimension),
                     ("nelement", nelement), ("real", real), ("itemsize", itemsize),
                     ("strides", strides)):
    _register(_name, _impl)
del _name, _fn, _impl
