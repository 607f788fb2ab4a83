"""Every transform's graph is freed by reference counting alone (issue 22, item 6).

With the cycle collector off, each transform runs, its outputs are dropped, and a
collection must then find no eagerad object (tensor, node, saved input) left in a
reference cycle; memory stays flat over many calls."""
import gc
import tracemalloc

import numpy as np
import pytest

import eagerad
from eagerad import autograd_functional as AF, func
from eagerad.autograd import forward_ad as fwAD

F64 = eagerad.float64
X = eagerad.tensor([0.3, 0.7, -1.2], dtype=F64)
V = eagerad.tensor([1.0, 2.0, -0.5], dtype=F64)


def _f(x):
    return (x.sin() * x.exp() + x.tanh() * x.sigmoid() + (x * x + 1).sqrt()).sum()


def _g(x):
    return x.tanh() * x.exp() + x.sigmoid().sqrt()


def _make_dual_through(name):
    def run():
        x = eagerad.tensor([0.3, 0.7], dtype=F64, requires_grad=True)
        with fwAD.dual_level():
            y = getattr(fwAD.make_dual(x, eagerad.tensor([1.0, 2.0], dtype=F64)), name)()
            return y, fwAD.unpack_dual(y).tangent
    return run


def _reverse_of_forward():
    x = X.detach().requires_grad_()
    with fwAD.dual_level():
        t = fwAD.unpack_dual(_g(fwAD.make_dual(x, V))).tangent
    return eagerad.autograd.grad(t.sum(), x, create_graph=True)


TRANSFORMS = {
    "grad": lambda: eagerad.grad(_f)(X),
    "grad of grad": lambda: eagerad.grad(eagerad.grad(lambda s: _f(s * X)))(eagerad.tensor(1.0, dtype=F64)),
    "value_and_grad": lambda: eagerad.value_and_grad(_f)(X),
    "jvp of grad": lambda: eagerad.jvp(eagerad.grad(_f), (X,), (V,)),
    "vjp": lambda: eagerad.vjp(_g, X)[1](V),
    "jvp": lambda: eagerad.jvp(_g, (X,), (V,)),
    "jacrev": lambda: eagerad.jacrev(_g)(X),
    "jacfwd": lambda: eagerad.jacfwd(_g)(X),
    "jacfwd of jacrev": lambda: eagerad.jacfwd(eagerad.jacrev(_g))(X),
    "hessian": lambda: eagerad.hessian(_f)(X),
    "vmap of grad": lambda: eagerad.vmap(eagerad.grad(_f))(X.reshape((1, 3))),
    "func.hessian": lambda: func.hessian(_f)(X),
    "func.grad": lambda: func.grad(_f)(X),
    "autograd.functional.hvp": lambda: AF.hvp(_f, X, V),
    "autograd.functional.vhp": lambda: AF.vhp(_f, X, V),
    "autograd.functional.hessian": lambda: AF.hessian(_f, X),
    "autograd.functional.jacobian": lambda: AF.jacobian(_g, X, create_graph=True),
    "GradOperation with sens": lambda: eagerad.ops.GradOperation(sens_param=True)(_g)(X, V),
    "checkpoint": lambda: eagerad.autograd.grad(
        eagerad.checkpoint(_f, X.detach().requires_grad_()), [], allow_unused=True),
    "reverse of forward": _reverse_of_forward,
    **{f"make_dual then {name}": _make_dual_through(name)
       for name in ("exp", "tanh", "sigmoid", "sqrt")},
}


def _eagerad_garbage(run):
    """The eagerad objects a collection finds unreachable after ``run()``'s result is dropped."""
    gc.collect()
    gc.disable()
    try:
        result = run()
        del result
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        found = [o for o in gc.garbage if type(o).__module__.startswith("eagerad")]
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    return found


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_dropped_outputs_leave_no_cycle(name):
    run = TRANSFORMS[name]
    run()                       # first call: lazy imports and caches are not garbage
    found = _eagerad_garbage(run)
    assert not found, f"{len(found)} eagerad objects in cycles: " + \
        ", ".join(sorted({type(o).__name__ + (f" {o.name}" if hasattr(o, "name") and
                                              isinstance(o.name, str) else "")
                          for o in found}))


def test_the_check_sees_a_cycle():
    def cyclic():
        t = eagerad.ones(2)
        t.me = t                 # a tensor that refers to itself
        return t
    assert _eagerad_garbage(cyclic)


def test_hessian_vector_products_keep_memory_flat_without_gc():
    x = eagerad.tensor(np.linspace(-1.0, 1.0, 20_000), dtype=F64)
    v = eagerad.ones(20_000, dtype=F64)
    AF.hvp(_f, x, v)
    gc.collect()
    gc.disable()
    try:
        tracemalloc.start()
        AF.hvp(_f, x, v)
        base = tracemalloc.get_traced_memory()[0]
        for _ in range(20):
            out = AF.hvp(_f, x, v)
            jv = eagerad.jvp(eagerad.grad(_f), (x,), (v,))
            del out, jv
        grown = tracemalloc.get_traced_memory()[0] - base
        tracemalloc.stop()
    finally:
        gc.enable()
    # one call holds ~30 arrays of 160 kB while it runs; 20 leaked calls would be ~100 MB
    assert grown < 2_000_000, f"memory grew by {grown} bytes over 20 calls"


def test_a_level_owns_the_saved_tangents_until_it_closes():
    """The node of a saved output holds its tangent weakly; while the level is open the
    tangent stays available to the node's rule even when the output itself is gone."""
    x = eagerad.tensor([0.5, 1.5], dtype=F64, requires_grad=True)
    with fwAD.dual_level():
        d = fwAD.make_dual(x, eagerad.tensor([1.0, 1.0], dtype=F64))
        s = d.exp().sum()            # exp's output is dropped, its node keeps the tangent
        (g,) = eagerad.autograd.grad(s, x, create_graph=True)
        tangent = fwAD.unpack_dual(g).tangent
    # g = exp(x): its tangent along (1, 1) is exp(x)
    np.testing.assert_allclose(tangent.numpy(), np.exp([0.5, 1.5]), rtol=1e-12)


def test_a_long_lived_level_that_trains_stays_flat():
    """Steps that run backward inside one open level release their nodes, and the level
    lets go of those nodes' tangents: the first step's graph is gone by the last."""
    import weakref
    x = eagerad.tensor([0.5, 1.5], dtype=F64, requires_grad=True)
    v = eagerad.tensor([1.0, -1.0], dtype=F64)
    gc.collect()
    gc.disable()
    try:
        with fwAD.dual_level():
            first = None
            for step in range(300):
                y = fwAD.make_dual(x, v).exp()
                if first is None:
                    first = weakref.ref(y.grad_fn)
                y.sum().backward()
                del y
            assert first() is None, "the level still holds the first step's graph"
    finally:
        gc.enable()
    np.testing.assert_allclose(x.grad.numpy(), 300 * np.exp([0.5, 1.5]), rtol=1e-12)
