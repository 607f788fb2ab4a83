"""PyTorch autograd details (issue 16): gradcheck's check_* flags, grad_fn.next_functions
with AccumulateGrad leaves, PyTorch's node names."""
import importlib

import numpy as np
import pytest

import eagerad as E
from eagerad.autograd import Function, GradcheckError, gradcheck, gradgradcheck


gc_module = importlib.import_module("eagerad.autograd.gradcheck")   # the attribute is the function


def x64(values):
    return E.tensor(np.asarray(values, dtype=np.float64), dtype=E.float64, requires_grad=True)


class WrongJvp(Function):
    """Correct backward, forward-mode rule off by a factor 2."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return g * 2 * x

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 4 * x


def test_forward_ad_check_catches_a_wrong_jvp_rule_only_when_asked():
    x = x64([0.5, -1.5])
    assert gradcheck(WrongJvp.apply, x)
    with pytest.raises(GradcheckError, match="forward-mode Jacobian mismatch"):
        gradcheck(WrongJvp.apply, x, check_forward_ad=True)
    assert gradcheck(WrongJvp.apply, x, check_forward_ad=True, raise_exception=False) is False
    assert gradcheck(WrongJvp.apply, x, check_backward_ad=False) is True


def test_all_flags_pass_on_correct_ops_and_their_second_order():
    x, y = x64([[0.3, -0.2], [1.1, 0.4]]), x64([0.7, -0.9])
    f = lambda a, b: ((a @ b).tanh() * a.sum(axis=0)).exp()
    assert gradcheck(f, (x, y), check_forward_ad=True, check_batched_grad=True,
                     check_undefined_grad=True, fast_mode=True)
    assert gradgradcheck(f, (x, y), check_fwd_over_rev=True, check_batched_grad=True)


def test_forward_and_batched_jacobians_are_the_closed_form():
    x = x64([0.2, 0.9, -0.4])
    f = lambda a: (a.sin() * a[0],)
    expect = np.diag(np.cos(x.numpy()) * 0.2)
    expect[0] += np.sin(x.numpy())          # d/da0 of a0 * sin(a)_j
    for jac in (gc_module._forward, gc_module._batched, gc_module._analytic):
        np.testing.assert_allclose(jac(f, (x,), [0])[0][0], expect, rtol=1e-12)


def test_undefined_grad_check_rejects_a_backward_that_invents_gradient():
    class Leaky(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1.0

        @staticmethod
        def backward(ctx, g):
            return g + 1.0

    x = x64([1.0])
    with pytest.raises(GradcheckError, match="check_undefined_grad"):
        gradcheck(lambda t: Leaky.apply(t) * 0.0, x)


def test_next_functions_and_accumulate_grad():
    a = E.tensor([1.0, 2.0], requires_grad=True)
    b = E.tensor([3.0, 4.0])
    c = a.exp()
    z = c * a + b
    add_inputs = z.grad_fn.next_functions
    assert add_inputs[1] == (None, 0)                     # b does not require grad
    mul_node = add_inputs[0][0]
    (exp_node, i0), (acc, i1) = mul_node.next_functions
    assert exp_node is c.grad_fn and (i0, i1) == (0, 0)
    assert acc.variable is a and acc.name == "AccumulateGrad" and acc.next_functions == ()
    assert exp_node.next_functions[0][0] == acc
    assert mul_node.name == "MulBackward" and mul_node.torch_name == "MulBackward0"
    assert z.grad_fn.torch_name == "AddBackward0"


def test_custom_function_keeps_its_own_name():
    y = WrongJvp.apply(E.tensor(1.0, requires_grad=True))
    assert y.grad_fn.torch_name == "WrongJvpBackward"
