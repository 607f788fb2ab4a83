"""The backward engine: higher-order derivatives against closed forms, deep
graphs, accumulation, freeing, grad mode, ``autograd.grad`` and error messages."""
import gc
import threading
import weakref

import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops

F64 = eagerad.float64

# op name -> (domain of x, [f', f'', f''', f''''] as functions of the numpy array x)
_sig = lambda x: 1 / (1 + np.exp(-x))  # noqa: E731
CLOSED_FORMS = {
    "exp": ((-1, 1), [np.exp] * 4),
    "expm1": ((-1, 1), [np.exp] * 4),
    "log": ((0.5, 2), [lambda x: 1 / x, lambda x: -1 / x**2, lambda x: 2 / x**3,
                       lambda x: -6 / x**4]),
    "log1p": ((-0.5, 1), [lambda x: 1 / (1 + x), lambda x: -1 / (1 + x)**2,
                          lambda x: 2 / (1 + x)**3, lambda x: -6 / (1 + x)**4]),
    "sqrt": ((0.5, 2), [lambda x: 0.5 * x**-0.5, lambda x: -0.25 * x**-1.5,
                        lambda x: 0.375 * x**-2.5, lambda x: -0.9375 * x**-3.5]),
    "reciprocal": ((0.5, 2), [lambda x: -1 / x**2, lambda x: 2 / x**3, lambda x: -6 / x**4,
                              lambda x: 24 / x**5]),
    "square": ((-1, 1), [lambda x: 2 * x, lambda x: 2 + 0 * x, lambda x: 0 * x, lambda x: 0 * x]),
    "neg": ((-1, 1), [lambda x: -1 + 0 * x] + [lambda x: 0 * x] * 3),
    "sin": ((-1, 1), [np.cos, lambda x: -np.sin(x), lambda x: -np.cos(x), np.sin]),
    "cos": ((-1, 1), [lambda x: -np.sin(x), lambda x: -np.cos(x), np.sin, np.cos]),
    "tan": ((-1, 1), [lambda x: 1 + np.tan(x)**2,
                      lambda x: 2 * np.tan(x) * (1 + np.tan(x)**2),
                      lambda x: (1 + np.tan(x)**2) * (2 + 6 * np.tan(x)**2),
                      lambda x: (1 + np.tan(x)**2) * (16 * np.tan(x) + 24 * np.tan(x)**3)]),
    "sinh": ((-1, 1), [np.cosh, np.sinh, np.cosh, np.sinh]),
    "cosh": ((-1, 1), [np.sinh, np.cosh, np.sinh, np.cosh]),
    "tanh": ((-1, 1), [lambda x: 1 - np.tanh(x)**2,
                       lambda x: -2 * np.tanh(x) * (1 - np.tanh(x)**2),
                       lambda x: (1 - np.tanh(x)**2) * (6 * np.tanh(x)**2 - 2),
                       lambda x: (1 - np.tanh(x)**2) * (16 * np.tanh(x) - 24 * np.tanh(x)**3)]),
    "sigmoid": ((-2, 2), [lambda x: _sig(x) * (1 - _sig(x)),
                          lambda x: _sig(x) * (1 - _sig(x)) * (1 - 2 * _sig(x)),
                          lambda x: _sig(x) * (1 - _sig(x)) * (1 - 6 * _sig(x) + 6 * _sig(x)**2),
                          lambda x: _sig(x) * (1 - _sig(x)) * (1 - 2 * _sig(x))
                          * (1 - 12 * _sig(x) + 12 * _sig(x)**2)]),
    "atanh": ((-0.7, 0.7), [lambda x: 1 / (1 - x**2), lambda x: 2 * x / (1 - x**2)**2,
                            lambda x: (2 + 6 * x**2) / (1 - x**2)**3,
                            lambda x: (24 * x + 24 * x**3) / (1 - x**2)**4]),
    "atan": ((-1, 1), [lambda x: 1 / (1 + x**2), lambda x: -2 * x / (1 + x**2)**2,
                       lambda x: (6 * x**2 - 2) / (1 + x**2)**3,
                       lambda x: (24 * x - 24 * x**3) / (1 + x**2)**4]),
    "asin": ((-0.7, 0.7), [lambda x: (1 - x**2)**-0.5, lambda x: x * (1 - x**2)**-1.5,
                           lambda x: (1 + 2 * x**2) * (1 - x**2)**-2.5,
                           lambda x: (9 * x + 6 * x**3) * (1 - x**2)**-3.5]),
    "acos": ((-0.7, 0.7), [lambda x: -(1 - x**2)**-0.5, lambda x: -x * (1 - x**2)**-1.5,
                           lambda x: -(1 + 2 * x**2) * (1 - x**2)**-2.5,
                           lambda x: -(9 * x + 6 * x**3) * (1 - x**2)**-3.5]),
    "asinh": ((-1, 1), [lambda x: (1 + x**2)**-0.5, lambda x: -x * (1 + x**2)**-1.5,
                        lambda x: (2 * x**2 - 1) * (1 + x**2)**-2.5,
                        lambda x: (9 * x - 6 * x**3) * (1 + x**2)**-3.5]),
    "acosh": ((1.5, 3), [lambda x: (x**2 - 1)**-0.5, lambda x: -x * (x**2 - 1)**-1.5,
                         lambda x: (2 * x**2 + 1) * (x**2 - 1)**-2.5,
                         lambda x: -(6 * x**3 + 9 * x) * (x**2 - 1)**-3.5]),
    "relu": ((0.2, 1), [lambda x: (x > 0) * 1.0] + [lambda x: 0 * x] * 3),
    "abs": ((0.2, 1), [np.sign] + [lambda x: 0 * x] * 3),
    "sign": ((0.2, 1), [lambda x: 0 * x] * 4),
    "floor": ((1.2, 1.8), [lambda x: 0 * x] * 4),
    "ceil": ((1.2, 1.8), [lambda x: 0 * x] * 4),
    "round": ((1.1, 1.4), [lambda x: 0 * x] * 4),
}


def _derivatives(fn, x, n):
    """``[f', ..., f^(n)]`` of an elementwise ``fn`` at ``x`` (None where it is constant)."""
    out, y = [], fn(x).sum()
    for _ in range(n):
        if not y.requires_grad:         # the previous derivative does not depend on x
            out.append(np.zeros(x.shape))
            continue
        (g,) = autograd.grad(y, x, create_graph=True, allow_unused=True)
        g = eagerad.zeros_like(x) if g is None else g
        out.append(g.numpy().copy())
        y = g.sum()
    return out


def test_closed_forms_cover_every_unary_op():
    from test_special_functions import CLOSED_FORMS as SPECIAL, COMPOSITIONS  # their 4th-order checks
    unary = {name for name, op in ops.OPS.items()
             if op.cases and all(len(c.args) == 1 and not c.kwargs for c in op.cases)
             and any(a.shape == () for c in op.cases for a in c.args)
             and name not in ("alias", "clone")}
    covered = set(CLOSED_FORMS) | set(SPECIAL) | set(COMPOSITIONS)
    assert unary <= covered, sorted(unary - covered)


@pytest.mark.parametrize("name", sorted(CLOSED_FORMS))
def test_first_to_fourth_derivative_of_unary_op(name):
    (lo, hi), forms = CLOSED_FORMS[name]
    signed = name in ("relu", "abs", "sign", "floor", "ceil", "round")
    x_np = np.linspace(lo, hi, 7)
    if signed:
        x_np = x_np * np.array([1, -1, 1, -1, 1, -1, 1])
    x = eagerad.tensor(x_np, dtype=F64, requires_grad=True)
    got = _derivatives(getattr(ops, name), x, 4)
    for order, (value, form) in enumerate(zip(got, forms), start=1):
        np.testing.assert_allclose(value, form(x_np), rtol=1e-9, atol=1e-12,
                                   err_msg=f"{name}: derivative of order {order}")


def test_third_derivative_of_cube_times_exp():
    x = eagerad.tensor(0.5, dtype=F64, requires_grad=True)
    d1, d2, d3 = _derivatives(lambda t: t ** 3 * t.exp(), x, 3)
    e = np.exp(0.5)
    assert abs(d1 - (3 * 0.25 + 0.125) * e) < 1e-12
    assert abs(d2 - (3 + 1.5 + 0.125) * e) < 1e-12
    assert abs(d3 - (6 + 9 + 2.25 + 0.125) * e) < 1e-10


def test_higher_order_of_binary_ops():
    x = eagerad.tensor([0.7, 1.3], dtype=F64, requires_grad=True)
    y = eagerad.tensor([1.5, 0.4], dtype=F64, requires_grad=True)
    (gx,) = autograd.grad((x ** y).sum(), x, create_graph=True)
    (gxy,) = autograd.grad(gx.sum(), y)            # d2/dxdy x^y = x^(y-1) (1 + y ln x)
    xn, yn = x.numpy(), y.numpy()
    np.testing.assert_allclose(gxy.numpy(), xn ** (yn - 1) * (1 + yn * np.log(xn)), rtol=1e-12)
    (gx,) = autograd.grad((x / y).sum(), y, create_graph=True)
    (gyy,) = autograd.grad(gx.sum(), y)             # d2/dy2 x/y = 2x/y^3
    np.testing.assert_allclose(gyy.numpy(), 2 * xn / yn ** 3, rtol=1e-12)


def test_hundred_thousand_op_chain_backprops_without_recursion():
    x = eagerad.tensor(1.0, requires_grad=True)
    y = x
    for _ in range(100_000):
        y = y * 1.0
    y.backward()
    assert x.grad.item() == 1.0


def test_shared_inputs_sum_their_gradients():
    x = eagerad.tensor([1.0, -2.0, 3.0], dtype=F64, requires_grad=True)
    (x * x + x.sin() * x + x).sum().backward()
    xn = x.numpy()
    np.testing.assert_allclose(x.grad.numpy(), 2 * xn + np.sin(xn) + xn * np.cos(xn) + 1)


def test_broadcasting_is_undone_by_summing():
    b = eagerad.tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    row = eagerad.tensor([[1.0, 2.0, 3.0]], requires_grad=True)
    vec = eagerad.tensor([1.0, 1.0, 1.0], requires_grad=True)
    s = eagerad.tensor(2.0, requires_grad=True)
    (b * row * vec * s).sum().backward()
    assert row.grad.shape == (1, 3) and vec.grad.shape == (3,) and s.grad.shape == ()
    np.testing.assert_allclose(row.grad.numpy(), [[6.0, 10.0, 14.0]])
    np.testing.assert_allclose(vec.grad.numpy(), [6.0, 20.0, 42.0])
    assert s.grad.item() == pytest.approx(1 * 0 + 2 * 1 + 3 * 2 + 1 * 3 + 2 * 4 + 3 * 5)
    assert row.grad.dtype == eagerad.float32


def test_second_backward_without_retain_graph_names_the_fix():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match=r"retain_graph=True"):
        y.backward()


def test_retain_graph_allows_a_second_backward_that_accumulates():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [4.0, 8.0])


@pytest.mark.parametrize("disable_gc", [False, True])
def test_graph_is_freed_when_the_output_is_dropped(disable_gc):
    was_enabled = gc.isenabled()
    if disable_gc:
        gc.disable()
    try:
        x = eagerad.tensor([1.0, 2.0], requires_grad=True)
        y = ((x * 2).sin() * x).sum()
        y.backward()
        node = weakref.ref(y.grad_fn)
        inner = weakref.ref(y.grad_fn.next[0][0])
        del y
        assert node() is None and inner() is None
    finally:
        if was_enabled:
            gc.enable()


def test_grad_mode_is_thread_local():
    seen = {}
    entered, release = threading.Event(), threading.Event()

    def worker():
        with eagerad.no_grad():
            entered.set()
            release.wait(5)
            seen["worker"] = eagerad.is_grad_enabled()

    thread = threading.Thread(target=worker)
    thread.start()
    entered.wait(5)
    seen["main"] = eagerad.is_grad_enabled()
    x = eagerad.tensor([1.0], requires_grad=True)
    seen["recorded"] = (x * 2).requires_grad
    release.set()
    thread.join()
    assert seen == {"worker": False, "main": True, "recorded": True}


def test_grad_mode_context_managers_and_decorators():
    x = eagerad.tensor([1.0], requires_grad=True)
    with eagerad.no_grad():
        assert not (x * 2).requires_grad
        with eagerad.enable_grad():
            assert (x * 2).requires_grad
        assert not eagerad.is_grad_enabled()
    assert eagerad.is_grad_enabled()

    @eagerad.no_grad()
    def infer(t):
        return t * 2

    @eagerad.enable_grad()
    def train(t):
        return t * 2

    @eagerad.set_grad_enabled(False)
    def frozen(t):
        return t * 2

    assert not infer(x).requires_grad and not frozen(x).requires_grad
    assert eagerad.is_grad_enabled()
    with eagerad.no_grad():
        assert train(x).requires_grad
    with eagerad.set_grad_enabled(False):
        assert not eagerad.is_grad_enabled()
    assert eagerad.is_grad_enabled()
    eagerad.set_grad_enabled(False)
    assert not eagerad.is_grad_enabled()
    eagerad.set_grad_enabled(True)
    assert eagerad.is_grad_enabled()


def test_autograd_grad_options():
    x = eagerad.tensor([1.0, 2.0], dtype=F64, requires_grad=True)
    unused = eagerad.tensor([5.0], dtype=F64, requires_grad=True)
    y = x ** 3
    with pytest.raises(RuntimeError, match="allow_unused=True"):
        autograd.grad(y.sum(), [x, unused], retain_graph=True)
    gx, gu = autograd.grad(y, [x, unused], grad_outputs=eagerad.tensor([1.0, 10.0], dtype=F64),
                           allow_unused=True, create_graph=True)
    assert gu is None and x.grad is None
    np.testing.assert_allclose(gx.numpy(), [3.0, 120.0])
    assert gx.requires_grad
    (gxx,) = autograd.grad(gx.sum(), x)        # d/dx (3 x^2 * [1, 10]) = 6 x * [1, 10]
    np.testing.assert_allclose(gxx.numpy(), [6.0, 120.0])
    assert not gxx.requires_grad


def test_broadcast_mismatch_names_the_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4,\)"):
        eagerad.ones(2, 3) + eagerad.ones(4)


def test_matmul_mismatch_names_the_shapes():
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(4, 5\)"):
        eagerad.ones(2, 3) @ eagerad.ones(4, 5)
    with pytest.raises(ValueError, match=r"\(2, 3\) and \(\)"):
        ops.matmul(eagerad.ones(2, 3), eagerad.tensor(1.0))


def test_integer_tensor_cannot_require_grad_but_parameter_can():
    with pytest.raises(RuntimeError, match="int64"):
        eagerad.tensor(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="int32"):
        eagerad.tensor([1, 2], dtype=eagerad.int32, requires_grad=True)
    p = eagerad.Parameter(eagerad.Tensor(np.array([1, 2], np.int32)), name="p")
    assert p.requires_grad and p.dtype == eagerad.int32
    (p * 3.0).sum().backward()
    assert p.grad.dtype == eagerad.int32
    assert p.grad.tolist() == [3, 3]


def test_backward_on_non_scalar_needs_gradient():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"\(2,\)"):
        (x * 2).backward()
    (x * 2).backward(eagerad.tensor([1.0, 3.0]))
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 6.0])


def test_wrong_gradient_shape_names_both_shapes():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"\(3,\).*\(2,\)"):
        (x * 2).backward(eagerad.tensor([1.0, 2.0, 3.0]))


def test_backward_of_tensor_without_graph_is_an_error():
    with pytest.raises(RuntimeError, match="does not require grad"):
        eagerad.tensor(1.0).backward()


def test_grad_fn_has_a_readable_name_and_leaves_accumulate():
    x = eagerad.tensor([1.0], requires_grad=True)
    y = x * 2
    assert y.grad_fn.name == "MulBackward" and not y.is_leaf and x.is_leaf
    y.sum().backward()
    (x * 3).sum().backward()
    assert x.grad.item() == 5.0


def test_backward_inputs_accumulates_only_into_listed_tensors():
    import eagerad as E
    x = E.tensor([1.0, 2.0], requires_grad=True)
    y = E.tensor([3.0, 4.0], requires_grad=True)
    h = x * y
    (h * x).sum().backward(inputs=[y], retain_graph=True)
    assert x.grad is None and y.grad.tolist() == [1.0, 4.0]
    E.autograd.backward((h * x).sum(), inputs=[x, h])
    assert x.grad.tolist() == [6.0, 16.0]         # d/dx x^2 y = 2xy
    assert h.grad.tolist() == [1.0, 2.0]          # a non-leaf listed: its gradient, x
    assert y.grad.tolist() == [1.0, 4.0]          # untouched by the second call
