"""One reverse-mode core (issue 19, item 3): every reverse-mode front end traces and pulls
through ``eagerad.reverse``, and all of them follow its one ``create_graph`` policy --
the result carries a graph exactly when something can still differentiate it."""
import numpy as np
import pytest

import eagerad
from eagerad import autograd_functional as AF, func, reverse
from eagerad.ops import GradOperation

F64 = eagerad.float64
XS = [0.5, -1.5, 2.0]


def _x(requires_grad=False):
    return eagerad.tensor(XS, dtype=F64, requires_grad=requires_grad)


def _cube(x):
    return (x ** 3).sum()


def _one():
    return eagerad.tensor(1.0, dtype=F64)


def _weight_grad(w):
    """MindSpore's ``weights=``: a Parameter is differentiated where it is (a leaf)."""
    return eagerad.grad(lambda: _cube(w), None, weights=[w])()[0]


def _checkpointed(x):
    return eagerad.autograd.grad(eagerad.checkpoint(_cube, x), x, create_graph=True)[0]


@eagerad.custom_jvp
def _cube_custom(x):
    return (x ** 3).sum()


@_cube_custom.defjvp
def _cube_custom_jvp(primals, tangents):
    (x,), (t,) = primals, tangents
    return _cube_custom(x), (3 * x * x * t).sum()


# each front end's spelling of "the gradient of sum(x^3) at x" (3 x^2)
FRONT_ENDS = {
    "grad": lambda x: eagerad.grad(_cube)(x),
    "value_and_grad": lambda x: eagerad.value_and_grad(_cube)(x)[1],
    "grad with weights": lambda x: _weight_grad(x if x.requires_grad else x.detach().requires_grad_()),
    "GradOperation": lambda x: GradOperation()(_cube)(x),
    "GradOperation sens": lambda x: GradOperation(sens_param=True)(_cube)(x, _one()),
    "vjp": lambda x: eagerad.vjp(_cube, x)[1](_one())[0],
    "jacrev": lambda x: eagerad.jacrev(_cube)(x),
    "func.grad": lambda x: func.grad(_cube)(x),
    "func.grad_and_value": lambda x: func.grad_and_value(_cube)(x)[0],
    "func.vjp": lambda x: func.vjp(_cube, x)[1](_one())[0],
    "func.jacrev": lambda x: func.jacrev(_cube)(x),
    "autograd.functional.vjp": lambda x: AF.vjp(_cube, x, create_graph=True)[1],
    "autograd.functional.jacobian": lambda x: AF.jacobian(_cube, x, create_graph=True),
    "custom_jvp transposed": lambda x: eagerad.grad(_cube_custom)(x),
    "checkpoint": _checkpointed,
}


def _expected():
    return 3 * np.array(XS) ** 2


def test_every_reverse_front_end_goes_through_the_core(monkeypatch):
    calls = []
    real = reverse.trace

    def counting(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr(reverse, "trace", counting)
    for name, spelling in FRONT_ENDS.items():
        calls.clear()
        g = spelling(_x(requires_grad=name == "checkpoint"))
        np.testing.assert_allclose(g.numpy(), _expected(), rtol=1e-12, err_msg=name)
        assert calls, f"{name} did not go through eagerad.reverse"
    for name, run in {"hessian": lambda: eagerad.hessian(_cube)(_x()),
                      "func.hessian": lambda: func.hessian(_cube)(_x()),
                      "autograd.functional.hessian": lambda: AF.hessian(_cube, _x()),
                      "autograd.functional.hvp": lambda: AF.hvp(_cube, _x(), _x())[1],
                      "autograd.functional.vhp": lambda: AF.vhp(_cube, _x(), _x())[1],
                      "strict": lambda: AF.vjp(_cube, _x(), strict=True)[1]}.items():
        calls.clear()
        run()
        assert calls, f"{name} did not go through eagerad.reverse"


@pytest.mark.parametrize("name", sorted(set(FRONT_ENDS) - {"checkpoint"}))
def test_no_graph_when_nothing_can_differentiate_the_result(name):
    g = FRONT_ENDS[name](_x())
    assert not g.requires_grad and g.grad_fn is None


@pytest.mark.parametrize("name", sorted(set(FRONT_ENDS) - {"grad with weights"}))
def test_a_graph_to_an_input_that_requires_grad(name):
    x = _x(requires_grad=True)
    g = FRONT_ENDS[name](x)
    assert g.requires_grad
    (h,) = eagerad.autograd.grad(g.sum(), x)               # d/dx sum(3 x^2) = 6 x
    np.testing.assert_allclose(h.numpy(), 6 * np.array(XS), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(set(FRONT_ENDS) - {"checkpoint", "grad with weights"}))
def test_inside_another_transform_the_result_is_differentiated_again(name):
    # the outer grad's variable reaches the inner call only through the closure
    h = eagerad.grad(lambda s: FRONT_ENDS[name](s * _x()).sum())(_one())
    # d/ds sum(3 s^2 x^2) = 6 s sum(x^2) at s = 1
    np.testing.assert_allclose(h.item(), 6 * np.sum(np.array(XS) ** 2), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(set(FRONT_ENDS) - {"checkpoint"}))
def test_no_graph_under_no_grad(name):
    with eagerad.no_grad():
        g = FRONT_ENDS[name](_x())
    assert not g.requires_grad


@pytest.mark.parametrize("spelling", [
    lambda x, v: eagerad.vjp(lambda t: t ** 3, x)[1](v)[0],
    lambda x, v: func.vjp(lambda t: t ** 3, x)[1](v)[0],
    lambda x, v: GradOperation(sens_param=True)(lambda t: t ** 3)(x, v),
], ids=["vjp", "func.vjp", "GradOperation sens"])
def test_a_cotangent_that_requires_grad_gets_a_graph(spelling):
    v = eagerad.tensor([1.0, 2.0, 3.0], dtype=F64, requires_grad=True)
    g = spelling(_x(), v)
    assert g.requires_grad
    (dv,) = eagerad.autograd.grad(g.sum(), v)             # d/dv sum(v 3 x^2) = 3 x^2
    np.testing.assert_allclose(dv.numpy(), _expected(), rtol=1e-12)


def test_second_derivatives_agree_across_front_ends():
    x = _x()
    want = np.diag(6 * np.array(XS))
    hessians = {
        "hessian": eagerad.hessian(_cube)(x),
        "jacrev of jacrev": eagerad.jacrev(eagerad.jacrev(_cube))(x),
        "grad of grad": eagerad.jacrev(eagerad.grad(_cube))(x),
        "func.hessian": func.hessian(_cube)(x),
        "func.jacrev of func.grad": func.jacrev(func.grad(_cube))(x),
        "autograd.functional.hessian": AF.hessian(_cube, x),
    }
    for name, h in hessians.items():
        np.testing.assert_allclose(h.numpy(), want, rtol=1e-12, err_msg=name)
    v = eagerad.tensor([1.0, -2.0, 0.5], dtype=F64)
    for name, hv in {"autograd.functional.hvp": AF.hvp(_cube, x, v)[1],
                     "autograd.functional.vhp": AF.vhp(_cube, x, v)[1],
                     "jvp of grad": eagerad.jvp(eagerad.grad(_cube), (x,), (v,))[1],
                     "vjp of grad": eagerad.vjp(eagerad.grad(_cube), x)[1](v)[0]}.items():
        np.testing.assert_allclose(hv.numpy(), want @ v.numpy(), rtol=1e-12, err_msg=name)


def test_each_position_is_its_own_variable_in_every_front_end():
    x = eagerad.tensor(2.0, dtype=F64)
    f = lambda a, b: a * a * b                                   # noqa: E731
    for name, grads in {
        "grad": eagerad.grad(f, grad_position=(0, 1))(x, x),
        "func.grad": func.grad(f, argnums=(0, 1))(x, x),
        "vjp": eagerad.vjp(f, x, x)[1](_one()),
        "autograd.functional.vjp": AF.vjp(f, (x, x))[1],
    }.items():
        assert [g.item() for g in grads] == [8.0, 4.0], name     # 2ab and a^2 at a = b = 2
