"""Complex tensors: dtypes, promotion, printing, PyTorch's gradient convention
(``dL/da + i dL/db`` for ``z = a + ib``) and the complex ops, by closed forms, finite
differences of real parametrisations (eagerad's gradcheck, to second order) and PyTorch
where it is installed."""
import numpy as np
import pytest

import eagerad
import eagerad.torch as et
from eagerad.autograd import gradcheck, gradgradcheck
from eagerad.ops import complex_ops as C

F64, C128 = eagerad.float64, eagerad.complex128


def test_dtypes_and_promotion():
    f32 = eagerad.tensor([1.0])
    c64 = eagerad.tensor([1j])
    assert c64.dtype == eagerad.complex64 and eagerad.tensor(np.array([1j])).dtype == C128
    assert (f32 + c64).dtype == eagerad.complex64
    assert (eagerad.tensor([1.0], dtype=F64) * c64).dtype == C128      # complex64 widened
    assert (eagerad.tensor([2]) + c64).dtype == eagerad.complex64
    assert (f32 * 1j).dtype == eagerad.complex64 and (c64 * 2.0).dtype == eagerad.complex64
    assert (eagerad.tensor([1.0], dtype=F64) + 1j).tolist() == [1 + 1j]
    assert c64.is_complex() and not f32.is_complex()
    assert eagerad.tensor([1 + 1j]).mean().tolist() == 1 + 1j             # not cast to float
    assert (c64 / 2).tolist() == [0.5j]


def test_printing_is_pytorchs():
    assert repr(et.tensor([1 + 2j, 0.5 - 1j])) == "tensor([1.0000+2.j, 0.5000-1.j])"
    assert repr(et.tensor([[1 + 2j, 3.0]], dtype=et.complex128)) == \
        "tensor([[1.+2.j, 3.+0.j]], dtype=torch.complex128)"
    assert repr(et.tensor(2 + 3j)) == "tensor(2.+3.j)"
    assert repr(et.tensor([1e-5 + 1j, 1e5 - 3.25j])) == "tensor([1.0000e-05+1.0000j, 1.0000e+05-3.2500j])"


def test_gradient_convention_closed_forms():
    z0 = np.array([1.0 + 2.0j, -0.5 + 0.25j])
    z = eagerad.tensor(z0, requires_grad=True)
    (g,) = eagerad.autograd.grad(C.real(z * C.conj(z)).sum(), z)
    np.testing.assert_allclose(g.numpy(), 2 * z0)                 # |z|^2 -> 2z
    (g,) = eagerad.autograd.grad(C.real(z * z).sum(), z)
    np.testing.assert_allclose(g.numpy(), 2 * np.conj(z0))        # Re(z^2) = a^2 - b^2
    (g,) = eagerad.autograd.grad(C.imag(z).sum(), z)
    np.testing.assert_allclose(g.numpy(), [1j, 1j])
    (g,) = eagerad.autograd.grad(eagerad.ops.abs(z).sum(), z)
    np.testing.assert_allclose(g.numpy(), z0 / np.abs(z0))
    (g,) = eagerad.autograd.grad(C.angle(z).sum(), z)             # d atan2(b, a) = (-b, a) / r^2
    np.testing.assert_allclose(g.numpy(), 1j * z0 / np.abs(z0) ** 2)
    x = eagerad.tensor([0.5, -2.0], dtype=F64, requires_grad=True)  # real leaf: real gradient
    (g,) = eagerad.autograd.grad(C.imag(x * (1 + 2j)).sum(), x)
    assert g.dtype == F64 and g.tolist() == [2.0, 2.0]


def test_a_complex_loss_needs_a_cotangent():
    z = eagerad.tensor([1 + 2j], requires_grad=True)
    with pytest.raises(RuntimeError, match="real scalar"):
        (z * z).sum().backward()
    (z * z).sum().backward(eagerad.tensor(1 + 0j))     # given: the gradient of Re(L)
    np.testing.assert_allclose(z.grad.numpy(), [2 - 4j])


def _pairs(fn):
    """``fn`` of complex tensors as a function of real (re, im) pairs, and back: the real map
    that finite differences can check."""
    def real_fn(*xs):
        out = fn(*[C.view_as_complex(x) for x in xs])
        return C.view_as_real(out) if out.dtype.kind == "c" else out
    return real_fn


def _pair_inputs(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    return tuple(eagerad.tensor(rng.uniform(0.3, 1.2, s + (2,)) * rng.choice([-1, 1], s + (2,)),
                                dtype=F64, requires_grad=True) for s in shapes)


BINARY = {"mul": lambda a, b: a * b, "div": lambda a, b: a / b, "sub": lambda a, b: a - b,
          "matmul": lambda a, b: a @ b.swapaxes(0, 1), "broadcast": lambda a, b: a * b[:1]}
UNARY = {"exp": lambda z: z.exp(), "square": lambda z: z * z + z, "abs": eagerad.ops.abs,
         "angle": C.angle, "sgn": C.sgn, "conj": C.conj, "real": C.real, "imag": C.imag,
         "reciprocal": lambda z: 1 / z, "sum": lambda z: z.sum(axis=0),
         "mean": lambda z: z.mean(), "reshape": lambda z: z.reshape(-1), "index": lambda z: z[1:, ::2],
         "transpose": lambda z: z.swapaxes(0, 1), "view_as_real": C.view_as_real}


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_ops_gradcheck_in_complex(name):
    inputs = _pair_inputs((2, 3), (2, 3), seed=1)
    assert gradcheck(_pairs(BINARY[name]), inputs)
    assert gradgradcheck(_pairs(BINARY[name]), inputs)


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_ops_gradcheck_in_complex(name):
    inputs = _pair_inputs((2, 3), seed=2)
    assert gradcheck(_pairs(UNARY[name]), inputs, check_forward_ad=True)
    assert gradgradcheck(_pairs(UNARY[name]), inputs)


def test_complex_and_polar_gradcheck():
    rng = np.random.default_rng(3)
    a, b = (eagerad.tensor(rng.uniform(0.5, 1.5, 4), dtype=F64, requires_grad=True) for _ in "ab")
    for fn in (C.complex_, C.polar):
        real_fn = lambda x, y, fn=fn: C.view_as_real(fn(x, y))   # noqa: E731
        assert gradcheck(real_fn, (a, b), check_forward_ad=True)
        assert gradgradcheck(real_fn, (a, b))
    np.testing.assert_allclose(C.polar(a, b).numpy(), a.numpy() * np.exp(1j * b.numpy()))
    assert C.complex_(eagerad.tensor([1.0]), eagerad.tensor([np.inf])).tolist() == [complex(1, np.inf)]


def test_bad_input_is_named():
    with pytest.raises(TypeError, match="imag: expected a complex tensor"):
        C.imag(eagerad.tensor([1.0]))
    with pytest.raises(ValueError, match="size 2"):
        C.view_as_complex(eagerad.tensor([[1.0, 2.0, 3.0]]))
    with pytest.raises(TypeError, match="float32 and float64"):
        C.complex_(eagerad.tensor([1.0]), eagerad.tensor([1.0], dtype=F64))
    with pytest.raises(TypeError, match="view_as_real: expected a complex"):
        C.view_as_real(eagerad.tensor([1.0]))
    z = eagerad.tensor([1 + 2j])
    for fn, name in ((lambda: z < z, "lt"), (lambda: eagerad.ops.maximum(z, z), "maximum"),
                     (lambda: eagerad.ops.relu(z), "relu")):
        with pytest.raises(TypeError, match=f"{name}: not defined for complex"):
            fn()


def test_real_tensors_pass_through_unchanged():
    x = eagerad.tensor([-1.0, 2.0])
    assert C.conj(x) is x and C.real(x) is x
    assert C.angle(x).tolist() == [pytest.approx(np.pi), 0.0]
    assert et.tensor([[1.0, 2.0]]).mH.shape == (2, 1)


torch = pytest.importorskip("torch")


@pytest.mark.parametrize("expr", [
    lambda m, a, b: (a * b).abs().sum(),
    lambda m, a, b: (a / b).imag.sum(),
    lambda m, a, b: ((a - b) * a.conj()).real.sum(),
    lambda m, a, b: (a * b).angle().sum(),
    lambda m, a, b: m.view_as_real(a * b).sum() + (a.exp() * b).abs().mean(),
    lambda m, a, b: (a.reshape(3, 1) @ b.reshape(1, 3)).abs().sum(),
    lambda m, a, b: (a[1:] * b[:2]).sgn().real.sum(),
    lambda m, a, b: (a.mH if a.ndim == 2 else a).conj().mul(b).real.sum(),
])
def test_first_and_second_order_match_pytorch(expr):
    z1 = np.array([1 + 2j, 3 - 1j, -0.5 + 0.2j])
    z2 = np.array([0.3 - 1j, 2 + 0.5j, 1 + 1j])
    results = []
    for m in (et, torch):
        a, b = (m.tensor(v, dtype=m.complex128, requires_grad=True) for v in (z1, z2))
        grads = m.autograd.grad(expr(m, a, b), (a, b), create_graph=True)
        total = sum((g.abs() ** 2).sum() for g in grads)
        seconds = m.autograd.grad(total, (a, b))
        results.append([np.asarray(t.detach().resolve_conj().numpy() if m is torch else
                                   t.detach().numpy()) for t in grads + seconds])
    for mine, theirs in zip(*results):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-12)
