"""Vector p-norms and the Frobenius norm: ``eagerad.ops.norm`` and ``Tensor.norm``.

Finite ``p`` is one op whose gradient is ``sign(x) |x|^(p-1) / ||x||^(p-1)``,
0 where the norm is 0 (PyTorch's convention: the 2-norm has gradient 0 at 0, not
nan) and written with safe denominators, so higher derivatives stay finite away
from 0 too.  ``inf``/``-inf`` are ``max``/``min`` of ``|x|`` (ties share the
gradient, as PyTorch), ``0`` counts nonzero entries (gradient 0).  Matrix norms
other than Frobenius (nuclear, spectral, induced 1/inf) are ``eagerad.linalg``'s.

>>> import eagerad
>>> eagerad.ops.norm(eagerad.tensor([3.0, 4.0])).item()
5.0
"""
import math as _math

from .. import dtype as dt
from ..tensor import zeros_like
from .cumulative import batch_along_axes
from .math import abs as _abs, as_tensor, sign, where
from .reduction import _spread, _sum, max as _amax, min as _amin
from .registry import METHODS, Case, U, defop, export
from .shape import normalize_axis


def _pnorm_forward(B, x, p, axes, keepdims):
    if p == 0:
        return B.reduce("sum", B.astype(B.binary("ne", x, 0), x.dtype), axes, keepdims)
    if p == 2:
        return B.unary("sqrt", B.reduce("sum", B.binary("mul", x, x), axes, keepdims))
    a = B.unary("abs", x)
    if p == 1:
        return B.reduce("sum", a, axes, keepdims)
    return B.binary("pow", B.reduce("sum", B.binary("pow", a, p), axes, keepdims), 1.0 / p)


def _slope(ans, x, p, axes, keepdims):
    """d ||x||_p / d x, 0 where the norm is 0 (and, for p < 1, where x is 0); the
    0-"norm" (a count) has derivative 0."""
    if p == 0:
        return zeros_like(x)
    n = _spread(ans, x.shape, axes, keepdims)
    zero = n == 0
    safe_n = where(zero, 1.0, n)
    if p == 2:
        return x / safe_n           # x is 0 wherever the norm is
    if p == 1:
        return sign(x)
    at_zero = x == 0
    scaled = where(at_zero, 0.0, where(at_zero, 1.0, _abs(x)) ** (p - 1)) / safe_n ** (p - 1)
    return where(zero, 0.0, sign(x) * scaled)


_pnorm = defop("pnorm", _pnorm_forward,
               vjp=lambda g, ans, x, p, axes, keepdims: _spread(g, x.shape, axes, keepdims) *
               _slope(ans, x, p, axes, keepdims),
               jvp=lambda t, ans, x, p, axes, keepdims: _sum(t * _slope(ans, x, p, axes, keepdims),
                                                             axes=axes, keepdims=keepdims),
               save_output=True,
               cases=[Case(U(2, 3), 2, axes=(0, 1), keepdims=False),
                      Case(U(2, 3, signed=True, low=0.2), 1, axes=(1,), keepdims=True),
                      Case(U(3, 2, signed=True, low=0.2), 3, axes=(0,), keepdims=False),
                      Case(U(4, signed=True, low=0.2), 1.5, axes=(0,), keepdims=False),
                      Case(U(2, 2), 0, axes=(1,), keepdims=False),
                      Case(U(), 2, axes=(), keepdims=False), Case(U(0, 3), 2, axes=(0,), keepdims=False)])
batch_along_axes(_pnorm)


def vector_norm(x, ord=2, axis=None, keepdims=False):
    """The vector ``ord``-norm of ``x`` over ``axis`` (None: all entries, whatever the
    shape; a tuple: those axes together): ``sum(|x|**ord) ** (1/ord)``, ``inf``/``-inf``
    the largest/smallest ``|x|``, ``0`` the number of nonzero entries.

    >>> vector_norm(eagerad.tensor([[1.0, -2.0], [2.0, 0.0]]), 1).item()
    5.0
    """
    x = as_tensor(x)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    if isinstance(ord, str) or isinstance(ord, bool) or not isinstance(ord, (int, float)):
        raise ValueError(f"vector norm: ord must be a number (or inf), got {ord!r}")
    axes = normalize_axis(axis if axis != () else None, x.ndim)
    if ord == _math.inf:
        return _amax(_abs(x), axes, keepdims)
    if ord == -_math.inf:
        return _amin(_abs(x), axes, keepdims)
    return _pnorm(x, float(ord), axes=axes, keepdims=bool(keepdims))


def _matrix_only(ord):
    raise ValueError(f"norm: the matrix norm ord={ord!r} is eagerad.linalg's (use "
                     "eagerad.linalg.norm or matrix_norm); ops.norm gives vector norms and 'fro'")


@export
def norm(x, ord=None, axis=None, keepdims=False):
    """numpy's ``linalg.norm`` for vector norms and the Frobenius norm: ``axis`` None
    with ``ord`` None is the 2-norm of all entries; an int ``axis`` a vector norm
    (``ord`` 1, 2, ``inf``, ``-inf``, 0 or any p); a 2-tuple ``axis`` (or a 2-D ``x``
    with ``axis`` None) with ``ord`` None or 'fro' the Frobenius norm.  Other matrix
    norms raise (see ``eagerad.linalg``).  ``Tensor.norm(p='fro', dim=None,
    keepdim=False)`` is PyTorch's spelling.

    >>> x = eagerad.tensor([[3.0, 0.0], [0.0, -4.0]])
    >>> norm(x).item(), norm(x, 'fro').item(), norm(x, 1, axis=1).tolist()
    (5.0, 5.0, [3.0, 4.0])
    """
    x = as_tensor(x)
    if isinstance(ord, str) and ord not in ("fro", "nuc"):
        raise ValueError(f"norm: ord must be None, a number, inf, 'fro' or 'nuc'; got {ord!r}")
    if axis is None:
        if ord is None:
            return vector_norm(x, 2, None, keepdims)
        if x.ndim == 1 and ord != "fro":
            return vector_norm(x, ord, None, keepdims)
        if x.ndim != 2:
            raise ValueError(f"norm: ord={ord!r} needs a 1-D or 2-D input or an axis; got shape "
                             f"{x.shape}")
        axis = (0, 1)
    axes = normalize_axis(axis, x.ndim)
    if len(axes) == 1:
        if ord == "fro":
            raise ValueError("norm: ord='fro' is a matrix norm; give two axes")
        return vector_norm(x, 2 if ord is None else ord, axes, keepdims)
    if len(axes) != 2:
        raise ValueError(f"norm: axis={axis!r} must name one axis (vector) or two (matrix)")
    if ord not in (None, "fro"):
        _matrix_only(ord)
    return vector_norm(x, 2, axes, keepdims)


def _tensor_norm(self, p="fro", dim=None, keepdim=False, dtype=None):
    """PyTorch's ``Tensor.norm``: the vector ``p``-norm over ``dim`` (None: all entries,
    flattened; a number ``p`` over several dims is a vector norm of them together);
    'fro' is the 2-norm.

    >>> eagerad.tensor([[1.0, -2.0], [2.0, 0.0]]).norm(1).item()
    5.0
    """
    x = self.astype(dtype) if dtype is not None else self
    if p == "nuc":
        _matrix_only(p)
    return vector_norm(x, 2 if p in ("fro", None) else p, dim, keepdim)


METHODS["norm"] = _tensor_norm
