"""Custom ops through eagerad.autograd.Function: gradients, double backward,
forward mode, saved-tensor version checks, multiple outputs, error messages."""
import weakref

import numpy as np
import pytest

import eagerad
from eagerad.autograd import Function, forward_ad as fwAD, gradcheck, gradgradcheck

f64 = eagerad.float64


def T(a, requires_grad=True):
    return eagerad.tensor(np.asarray(a, dtype=np.float64), dtype=f64, requires_grad=requires_grad)


class Cube(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 3 * x ** 2

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 3 * x ** 2


class Exp(Function):
    """Saves its output: double backward must see the output's own graph."""
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


class MulScale(Function):
    """Two tensor inputs, a Python scalar argument and two outputs."""
    @staticmethod
    def forward(ctx, a, b, scale):
        ctx.scale = scale
        ctx.save_for_backward(a, b)
        return a * b * scale, a + b

    @staticmethod
    def backward(ctx, g_prod, g_sum):
        a, b = ctx.saved_tensors
        return g_prod * b * ctx.scale + g_sum, g_prod * a * ctx.scale + g_sum, None


def test_first_and_second_derivatives_closed_form():
    x = T([2.0, -0.5])
    y = Cube.apply(x)
    np.testing.assert_allclose(y.detach().numpy(), [8.0, -0.125])
    assert y.grad_fn.name == "CubeBackward"
    (g,) = eagerad.autograd.grad(y.sum(), x, create_graph=True)
    np.testing.assert_allclose(g.detach().numpy(), [12.0, 0.75])
    (gg,) = eagerad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(gg.numpy(), [12.0, -3.0])


@pytest.mark.parametrize("fn", [Cube.apply, Exp.apply, lambda a: MulScale.apply(a, a.sin(), 2.5)[0]])
def test_gradcheck_and_gradgradcheck(fn):
    x = T([0.4, -0.9, 1.3])
    assert gradcheck(fn, x)
    assert gradgradcheck(fn, x)


def test_multiple_outputs_and_needs_input_grad():
    seen = {}

    class Probe(MulScale):
        @staticmethod
        def backward(ctx, g_prod, g_sum):
            seen["needs"] = ctx.needs_input_grad
            return MulScale.backward(ctx, g_prod, g_sum)
    a, b = T([1.0, 2.0]), T([3.0, 4.0], requires_grad=False)
    prod, total = Probe.apply(a, b, 2.0)
    (prod.sum() + 10 * total.sum()).backward()
    assert seen["needs"] == (True, False, False)
    np.testing.assert_allclose(a.grad.numpy(), [6.0 + 10, 8.0 + 10])
    # only one output used: the other gradient arrives as zeros
    a.grad = None
    Probe.apply(a, b, 2.0)[1].sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), [1.0, 1.0])


def test_forward_mode_uses_jvp_and_composes_with_jacfwd():
    x = T([2.0, 3.0], requires_grad=False)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, T([1.0, 0.5], requires_grad=False))
        np.testing.assert_allclose(fwAD.unpack_dual(Cube.apply(d)).tangent.numpy(), [12.0, 13.5])
    np.testing.assert_allclose(eagerad.jacfwd(Cube.apply)(x).numpy(), np.diag([12.0, 27.0]))
    with pytest.raises(NotImplementedError, match="Exp defines no jvp"):
        eagerad.jvp(Exp.apply, x, T([1.0, 1.0], requires_grad=False))


def test_in_place_change_of_saved_tensor_is_detected():
    x = T([1.0, 2.0])
    y = x * 1.0
    z = Cube.apply(y)
    y._version[0] += 1          # what an in-place op does to a saved tensor
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_errors_name_the_function():
    class WrongShape(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g.sum()

    class TooMany(WrongShape):
        @staticmethod
        def backward(ctx, g):
            return g, g
    x = T([1.0, 2.0])
    with pytest.raises(RuntimeError, match="WrongShape.backward: gradient 0 has shape"):
        WrongShape.apply(x).sum().backward()
    with pytest.raises(RuntimeError, match="TooMany.backward returned 2 gradients"):
        TooMany.apply(x).sum().backward()
    with pytest.raises(TypeError, match="save_for_backward"):
        class BadSave(WrongShape):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3.0)
                return x
        BadSave.apply(x)


def test_no_graph_without_requires_grad():
    y = Cube.apply(T([2.0], requires_grad=False))
    assert not y.requires_grad and y.grad_fn is None and y.item() == 8.0


class SquareViaIntermediate(Function):
    """Saves a tensor made inside forward (neither an input nor an output)."""
    made = None

    @staticmethod
    def forward(ctx, x):
        two_x = x * 2.0
        SquareViaIntermediate.made = weakref.ref(two_x)
        ctx.save_for_backward(two_x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (two_x,) = ctx.saved_tensors
        return g * two_x


@pytest.mark.parametrize("fn", [Cube.apply, Exp.apply, SquareViaIntermediate.apply])
def test_second_backward_without_retain_graph_raises_like_built_in_ops(fn):
    x = T([1.0, 2.0])
    y = fn(x).sum()
    y.backward()
    first = x.grad.numpy().copy()
    with pytest.raises(RuntimeError, match=r"second time.*retain_graph=True"):
        y.backward()
    np.testing.assert_allclose(x.grad.numpy(), first)     # the failed pass added nothing


def test_retain_graph_allows_a_second_backward_through_a_function():
    x = T([1.0, 2.0])
    y = Cube.apply(x).sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 24.0])   # 2 * 3 x^2


def test_backward_frees_what_the_function_saved():
    x = T([1.0, 3.0])
    y = SquareViaIntermediate.apply(x).sum()
    assert SquareViaIntermediate.made() is not None       # alive: the graph needs it
    y.backward()
    assert SquareViaIntermediate.made() is None           # freed without any gc.collect()
    np.testing.assert_allclose(x.grad.numpy(), [2.0, 6.0])


def test_function_that_saved_nothing_may_backward_twice():
    class Triple(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 3.0

        @staticmethod
        def backward(ctx, g):
            return g * 3.0
    x = T([1.0, 2.0])
    y = Triple.apply(x).sum()
    y.backward()
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), [6.0, 6.0])


def test_unpack_dual_outside_a_level_gives_no_tangent():
    import eagerad
    from eagerad.autograd import forward_ad
    x = eagerad.tensor([1.0])
    primal, tangent = forward_ad.unpack_dual(x)
    assert primal is x and tangent is None
