"""Complex numbers: parts, conjugate, phase, and building complex tensors from reals.

Gradients follow PyTorch's convention: for a real loss ``L`` of ``z = a + ib`` the
gradient is ``dL/da + i dL/db`` (twice the conjugate Wirtinger derivative), so a
holomorphic ``f`` has the vjp ``g * conj(f'(z))`` and gradient descent on ``z.grad``
lowers the loss.  The ops here are not holomorphic; each writes its complex rules itself
(``registry.COMPLEX_AWARE``).  Their kernels are the backends' ``spectral`` family.

>>> import eagerad
>>> z = view_as_complex(eagerad.tensor([[3.0, 4.0]], dtype=eagerad.float64))
>>> z.tolist(), abs(z).tolist(), conj(z).tolist()
([(3+4j)], [5.0], [(3-4j)])
"""
import numpy as np

from .. import dtype as dt
from ..tensor import Tensor
from . import math as _math
from .registry import COMPLEX_AWARE, Case, U, defop, export


def _defop(name, forward, **kw):
    """``defop`` of an op whose rules handle complex operands themselves."""
    op = defop(name, forward, **kw)
    COMPLEX_AWARE.add(name)
    return op


def _unary(name):
    return lambda B, x: B.complex_unary(name, x)


def _join_parts(B, x):
    shape = tuple(x.shape)           # (a device array's shape may not take negative indices)
    if not shape or shape[-1] != 2:
        raise ValueError(f"view_as_complex: the last dimension must have size 2 (real and "
                         f"imaginary parts), got shape {shape}")
    lead = (slice(None),) * (x.ndim - 1)
    return B.complex_join(B.getitem(x, lead + (0,)), B.getitem(x, lead + (1,)))


# (no 0-d case: the unary closed-form table of test_engine covers real functions only)
_ONE = [Case(U(2, 3)), Case(U(1)), Case(U(0, 2))]
_conj = _defop("conj", _unary("conj"), vjp=lambda g, ans, x: conj(g),
               jvp=lambda t, ans, x: conj(t), saves=(), elementwise=True, cases=_ONE)
_real = _defop("real", _unary("real"), vjp=lambda g, ans, x: g.astype(x.dtype),
               jvp=lambda t, ans, x: real(t), saves=(), elementwise=True, cases=_ONE)
_imag = _defop("imag", _unary("imag"),
               vjp=lambda g, ans, x: _complex(_math.mul(g, 0.0), g),
               jvp=lambda t, ans, x: _imag(t), saves=(), elementwise=True, cases=_ONE)
_complex = _defop("complex", lambda B, re, im: B.complex_join(re, im),
                  vjp=(lambda g, ans, re, im: real(g), lambda g, ans, re, im: _imag(g)),
                  jvp=(lambda t, ans, re, im: _complex(t, _math.mul(t, 0.0)),
                       lambda t, ans, re, im: _complex(_math.mul(t, 0.0), t)),
                  saves=(), elementwise=True,
                  cases=[Case(U(2, 3), U(2, 3)), Case(U(3), U(2, 3)), Case(U(), U()),
                         Case(U(0, 2), U(2))])
_view_as_real = _defop("view_as_real", lambda B, x: B.complex_split(x),
                       vjp=lambda g, ans, x: _view_as_complex(g),
                       jvp=lambda t, ans, x: _view_as_real(t), saves=(), cases=_ONE)
_view_as_complex = _defop("view_as_complex", _join_parts,
                          vjp=lambda g, ans, x: _view_as_real(g),
                          jvp=lambda t, ans, x: _view_as_complex(t), saves=(),
                          cases=[Case(U(3, 2)), Case(U(2)), Case(U(0, 2))])


def _sgn_vjp(g, ans, x):
    """d(z/|z|) is self-adjoint: ``(g - s Re(conj(s) g)) / |z|`` (0 at z = 0)."""
    r = _math.abs(x)
    zero = r == 0
    step = g - ans * real(_math.mul(conj(ans), g))
    return _math.where(zero, 0.0, step / _math.where(zero, 1.0, r))


_sgn = _defop("sgn", _unary("sgn"), vjp=_sgn_vjp, jvp=_sgn_vjp, save_output=True, elementwise=True,
              cases=[Case(U(2, 3, low=0.2, high=1.0, signed=True))])


def _angle_factor(x):
    """``i z / |z|^2`` (0 at z = 0): the gradient of arg(z) in PyTorch's convention."""
    r2 = real(_math.mul(x, conj(x)))
    zero = r2 == 0
    return _math.where(zero, 0.0, _math.mul(x, 1j) / _math.where(zero, 1.0, r2))


_angle = _defop("angle", _unary("angle"), vjp=lambda g, ans, x: _math.mul(g, _angle_factor(x)),
                jvp=lambda t, ans, x: real(_math.mul(conj(_angle_factor(x)), t)),
                elementwise=True, cases=[Case(U(2, 3, low=0.2, high=1.0, signed=True))])


def abs_vjp(g, ans, x):
    """The gradient of ``|x|``: ``g * sign(x)``, for complex ``x`` ``g * x / |x|``.

    >>> import eagerad
    >>> abs_vjp(eagerad.tensor([2.0]), None, eagerad.tensor([3 + 4j])).tolist()
    [(1.2+1.6j)]
    """
    return _math.mul(g, _sgn(x) if x.dtype.kind == "c" else _math.sign(x))


def abs_jvp(t, ans, x):
    """The tangent of ``|x|``: ``t * sign(x)``, for complex ``x`` ``Re(conj(x / |x|) t)``.

    >>> import eagerad
    >>> abs_jvp(eagerad.tensor([1j]), None, eagerad.tensor([3 + 4j])).tolist()
    [0.8]
    """
    if x.dtype.kind == "c":
        return real(_math.mul(conj(_sgn(x)), t))
    return _math.mul(t, _math.sign(x))


COMPLEX_AWARE.add("abs")     # math.abs's rules branch on complex operands (abs_vjp, abs_jvp)


def _tensor(x):
    return x if isinstance(x, Tensor) else _math.as_tensor(x)


@export(methods=("is_complex",))
def is_complex(input):
    """Whether ``input`` holds complex numbers (complex64 or complex128).

    >>> import eagerad
    >>> is_complex(eagerad.tensor([1j])), is_complex(eagerad.tensor([1.0]))
    (True, False)
    """
    return _tensor(input).dtype.kind == "c"


@export(methods=("conj", "conj_physical"), aliases=("conj_physical",))
def conj(input):
    """The complex conjugate ``a - ib``; a real tensor is its own conjugate (returned as is).

    >>> import eagerad
    >>> conj(eagerad.tensor([1 + 2j])).tolist()
    [(1-2j)]
    """
    x = _tensor(input)
    return _conj(x) if x.dtype.kind == "c" else x


@export
def real(input):
    """The real part (a float tensor); a real tensor is its own real part.

    >>> import eagerad
    >>> real(eagerad.tensor([1.5 + 2j])).tolist()
    [1.5]
    """
    x = _tensor(input)
    return _real(x) if x.dtype.kind == "c" else x


@export
def imag(input):
    """The imaginary part (a float tensor) of a complex tensor; real tensors have none.

    >>> import eagerad
    >>> imag(eagerad.tensor([1.5 + 2j])).tolist()
    [2.0]
    """
    x = _tensor(input)
    if x.dtype.kind != "c":
        raise TypeError(f"imag: expected a complex tensor, got dtype {x.dtype} (real tensors "
                        "have no imaginary part)")
    return _imag(x)


@export(methods=("angle",))
def angle(input):
    """The phase ``atan2(b, a)`` of complex input; of real input 0 for ``x >= 0`` and pi for
    ``x < 0`` (NaN stays NaN), as PyTorch's ``angle``.

    >>> import eagerad
    >>> angle(eagerad.tensor([1j, -1.0])).tolist()
    [1.5707963705062866, 3.1415927410125732]
    """
    x = _tensor(input)
    if x.dtype.kind == "c":
        return _angle(x)
    if x.dtype.kind != "f":
        x = x.astype(dt.default_float)
    zero = x.detach() * 0                      # NaN where x is NaN
    return _math.where(x < 0, zero + np.pi, zero)


@export
def view_as_real(input):
    """A complex tensor as real pairs: shape ``(..., 2)`` holding real and imaginary parts
    (a copy, not a view of the same memory).

    >>> import eagerad
    >>> view_as_real(eagerad.tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    x = _tensor(input)
    if x.dtype.kind != "c":
        raise TypeError(f"view_as_real: expected a complex tensor, got dtype {x.dtype}")
    return _view_as_real(x)


@export
def view_as_complex(input):
    """Real pairs ``(..., 2)`` (float32 or float64) as a complex tensor of shape ``(...)``.

    >>> import eagerad
    >>> view_as_complex(eagerad.tensor([[1.0, 2.0]])).tolist()
    [(1+2j)]
    """
    x = _tensor(input)
    if x.dtype not in (dt.float32, dt.float64):
        raise TypeError(f"view_as_complex: expected a float32 or float64 tensor, got dtype "
                        f"{x.dtype}")
    return _view_as_complex(x)


def _parts(name, a, b):
    a, b = _tensor(a), _tensor(b)
    if a.dtype != b.dtype or a.dtype not in (dt.float32, dt.float64):
        raise TypeError(f"{name}: expected two float32 or two float64 tensors of one dtype, "
                        f"got {a.dtype} and {b.dtype}")
    return a, b


@export(name="complex")
def complex_(real, imag):
    """The complex tensor ``real + i imag`` (broadcasting; both float32 or both float64).

    >>> import eagerad
    >>> complex_(eagerad.tensor([1.0]), eagerad.tensor([-2.0])).tolist()
    [(1-2j)]
    """
    real, imag = _parts("complex", real, imag)
    return _complex(real, imag)


@export
def polar(abs, angle):
    """The complex tensor ``abs * (cos(angle) + i sin(angle))``.

    >>> import eagerad
    >>> polar(eagerad.tensor([2.0]), eagerad.tensor([0.0])).tolist()
    [(2+0j)]
    """
    abs, angle = _parts("polar", abs, angle)
    return _complex(abs * _math.cos(angle), abs * _math.sin(angle))


def sgn(x):
    """``x / |x|`` (0 at 0) of a complex tensor, differentiable to any order.

    >>> import eagerad
    >>> sgn(eagerad.tensor([3 + 4j])).tolist()
    [(0.6+0.8j)]
    """
    return _sgn(x)
