"""eagerad.jit / MindSpore's jit / torch.compile: compiled calls give the eager numbers.

Kernels are cached on disk (eagerad.jit.codegen.cache_dir), and the tests reuse a few
chains so that a warm cache compiles nothing.
"""
import numpy as np
import pytest

import eagerad
import eagerad.torch as torch
from eagerad.autograd.gradcheck import gradcheck, gradgradcheck
from eagerad.jit import jit


def w3(x):
    return (x.tanh() * x + (-x).exp()).sum()


def layer(x, w, b):
    return (x @ w + b).tanh()


def _x(n=7, dtype=np.float64, seed=0):
    return eagerad.tensor(np.random.default_rng(seed).uniform(-2, 2, n).astype(dtype),
                          requires_grad=True)


def _plan(f):
    (plan,) = f.plans.values()
    return plan


def test_fused_chain_values_and_gradients_float64():
    f = jit(w3, min_fuse_size=1)
    x = _x()
    for call in range(3):                       # trace, then replays
        x.grad = None
        y = f(x)
        y.backward()
        got, gx = y.item(), x.grad.numpy().copy()
        x.grad = None
        ref = w3(x)
        ref.backward()
        assert got == pytest.approx(ref.item(), rel=1e-13)
        np.testing.assert_allclose(gx, x.grad.numpy(), rtol=1e-12)
    assert y.grad_fn.name == "FusedTanhMulNegExpAddSumBackward"
    assert len(_plan(f).fused) == 1 and not f.fallbacks
    # closed form of the derivative
    xd = x.detach().numpy()
    exact = (1 - np.tanh(xd) ** 2) * xd + np.tanh(xd) - np.exp(-xd)
    np.testing.assert_allclose(gx, exact, rtol=1e-12)
    # the gradient made in the forward pass: scaled by the output gradient; taken twice
    # (retain_graph: the second backward recomputes it)
    y = f(x)
    (g3,) = eagerad.autograd.grad(y, x, grad_outputs=eagerad.tensor(3.0, dtype=eagerad.float64),
                                  retain_graph=True)
    np.testing.assert_allclose(g3.numpy(), 3 * exact, rtol=1e-12)
    x.grad = None
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * exact, rtol=1e-12)


def test_fused_chain_float32_close_to_eager():
    f = jit(w3, min_fuse_size=1)
    x = _x(1000, np.float32, seed=1)
    f(x)
    y = f(x)
    y.backward()
    gx = x.grad.numpy().copy()
    x.grad = None
    ref = w3(x)
    ref.backward()
    assert y.dtype == eagerad.float32 and y.item() == pytest.approx(ref.item(), rel=1e-6)
    np.testing.assert_allclose(gx, x.grad.numpy(), rtol=2e-6, atol=2e-6)


def test_gradcheck_and_second_order_through_fused_op():
    f = jit(layer, min_fuse_size=1)
    rng = np.random.default_rng(2)
    x = eagerad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    w = eagerad.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    b = eagerad.tensor(rng.standard_normal(2), requires_grad=True)
    f(x, w, b)
    assert f(x, w, b).grad_fn.name == "FusedAddTanhBackward"
    assert gradcheck(f, (x, w, b))
    assert gradgradcheck(f, (x, w, b))
    # second derivative in x of the fused W3 chain against the eager one
    g = jit(w3, min_fuse_size=1)
    xs = _x()
    g(xs)
    (d1,) = eagerad.autograd.grad(g(xs), xs, create_graph=True)
    (d2,) = eagerad.autograd.grad(d1.sum(), xs)
    (e1,) = eagerad.autograd.grad(w3(xs), xs, create_graph=True)
    (e2,) = eagerad.autograd.grad(e1.sum(), xs)
    np.testing.assert_allclose(d1.detach().numpy(), e1.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(d2.numpy(), e2.numpy(), rtol=1e-12)


def test_guards_retrace_on_shape_dtype_and_grad_mode():
    calls = []

    def fn(x):
        calls.append(1)                         # a Python side effect: only while tracing
        return x * 2 + 1
    f = jit(fn)
    f(eagerad.ones(2))
    f(eagerad.ones(2))
    assert len(calls) == 1
    assert f(eagerad.ones(3)).tolist() == [3.0, 3.0, 3.0]
    assert f(eagerad.ones(3, dtype=eagerad.float64)).dtype == eagerad.float64
    with eagerad.no_grad():
        f(eagerad.ones(3, dtype=eagerad.float64))
    assert len(calls) == 4 and len(f.plans) == 4
    assert f(eagerad.tensor([1.0, 5.0])).tolist() == [3.0, 11.0]      # replayed, new values


def test_one_tensor_passed_twice():
    f = jit(lambda a, b: a * 2 + b)
    x, y = eagerad.tensor([1.0, 2.0]), eagerad.tensor([10.0, 20.0])
    assert f(x, x).tolist() == [3.0, 6.0]
    assert f(x, y).tolist() == [12.0, 24.0]
    assert f(y, y).tolist() == [30.0, 60.0]
    assert f(y, x).tolist() == [21.0, 42.0]
    assert len(f.plans) == 2


def test_module_training_flag_is_guarded():
    torch.manual_seed(0)
    m = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Dropout(0.5))
    cm = torch.compile(m)
    x = torch.ones(4, 3)
    cm.eval()
    a = cm(x)
    np.testing.assert_allclose(a.detach().numpy(), m(x).detach().numpy())
    cm.train()
    outs = [cm(x).detach().numpy() for _ in range(3)]
    compiled = cm.__dict__["_compiled"]
    assert len(compiled.plans) == 2 and not compiled.fallbacks
    # dropout draws a new mask at every replayed call; kept entries are scaled by 2
    assert not np.array_equal(outs[1], outs[2])
    ref = a.detach().numpy() * 2
    for o in outs:
        assert np.all((o == 0) | np.isclose(o, ref))


def test_random_ops_draw_anew():
    f = jit(lambda x: x + eagerad.rand(3))
    x = eagerad.zeros(3)
    draws = [f(x).numpy() for _ in range(3)]
    assert not f.fallbacks and len(f.plans) == 1
    assert not np.array_equal(draws[1], draws[2])
    assert all(((d >= 0) & (d < 1)).all() for d in draws)


def test_constants_built_inside_are_fresh_each_call():
    f = jit(lambda x: x * eagerad.tensor([1.0, 2.0]) + eagerad.zeros(2))
    for _ in range(3):
        y = f(eagerad.ones(2))
        assert y.tolist() == [1.0, 2.0]
        y.add_(100.0)                   # the caller's tensor: nothing of the plan's
    assert len(f.plans) == 1 and not f.fallbacks


@pytest.mark.parametrize("read", [lambda t: t.sum().item(), lambda t: float(t.sum()),
                                  lambda t: bool(t.sum() > 0), lambda t: t.tolist()[0],
                                  lambda t: t.numpy()[0], lambda t: str(t)])
def test_host_reads_fall_back_to_eager(read):
    def fn(x):
        if read(x):                     # a branch on a value: must not be baked in
            return x * 2
        return x * 3
    f = jit(fn)
    assert f(eagerad.tensor([1.0, 1.0])).tolist() == [2.0, 2.0]
    assert "read on the host" in next(iter(f.fallbacks.values()))
    out = f(eagerad.tensor([-1.0, 0.0]))           # (the bool branch flips here)
    assert out.tolist() == fn(eagerad.tensor([-1.0, 0.0])).tolist()


def test_other_fallbacks():
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    detached = jit(lambda a: a * a.detach())
    inplace = jit(lambda a: (a * 1).add_(1) * 2)
    engine = jit(lambda a: eagerad.autograd.grad((a * a).sum(), a)[0])
    number = jit(lambda a: 3)
    for f, expect in ((detached, [1.0, 4.0]), (inplace, [4.0, 6.0]), (engine, [2.0, 4.0]),
                      (number, 3)):
        for _ in range(2):
            out = f(x)
            assert (out if isinstance(out, int) else out.tolist()) == expect
        assert len(f.fallbacks) == 1 and not f.plans
    with pytest.raises(ZeroDivisionError):
        jit(lambda a: a * (1 / 0))(x)


@eagerad.custom_vjp
def _sin_with_rule(x):
    return x.sin()


_sin_with_rule.defvjp(lambda x: (x.sin(), x), lambda res, g: (g * 100,))


def test_custom_functions_and_hooked_layers_run_eagerly():
    f = jit(lambda a: _sin_with_rule(a) * 2)
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        f(x).sum().backward()
        assert x.grad.tolist() == [200.0, 200.0]
        x.grad = None
    assert "outside eagerad's ops" in next(iter(f.fallbacks.values())) and not f.plans
    seen = []
    m = torch.nn.Linear(2, 2)
    m.register_forward_hook(lambda mod, i, o: seen.append(1))
    cm = torch.compile(m)
    cm(torch.ones(1, 2))
    cm(torch.ones(1, 2))
    assert len(seen) == 2 and not cm.__dict__["_compiled"].plans


def test_parameters_updated_in_place_are_seen():
    w = eagerad.tensor([1.0, 2.0], requires_grad=True)
    f = jit(lambda x: (x * w).sum())
    x = eagerad.ones(2)
    opt = eagerad.optim.SGD([w], lr=0.5)
    for _ in range(3):
        loss = f(x)
        assert loss.item() == pytest.approx(float(w.detach().numpy().sum()))
        opt.zero_grad()
        loss.backward()
        opt.step()
    np.testing.assert_allclose(w.detach().numpy(), [-0.5, 0.5])
    assert len(f.plans) == 1


def test_no_grad_inside_is_kept():
    f = jit(lambda x: x * 2 + _detached_scale(x))
    x = eagerad.tensor([1.0, 2.0], requires_grad=True)
    for _ in range(2):
        x.grad = None
        f(x).sum().backward()
        assert x.grad.tolist() == [2.0, 2.0]


def _detached_scale(x):
    with eagerad.no_grad():
        return x * 10


def test_torch_compile_module_trains_like_eager():
    def run(compiled):
        torch.manual_seed(3)
        model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
        net = torch.compile(model) if compiled else model
        opt = torch.optim.Adam(net.parameters(), lr=0.05)
        x = torch.linspace(-1, 1, 32).reshape(8, 4)
        y = (x ** 2).sum(1, keepdim=True)
        losses = []
        for _ in range(5):
            loss = ((net(x) - y) ** 2).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return losses, net
    eager, _ = run(False)
    compiled, net = run(True)
    np.testing.assert_allclose(compiled, eager, rtol=1e-6)
    assert eager[-1] < eager[0]
    assert list(net.state_dict())[0] == "_orig_mod.0.weight"
    assert len(net.__dict__["_compiled"].plans) == 1


def test_spellings_and_bad_arguments():
    import eagerad.mindspore as ms
    assert ms.jit(lambda x: x * 3)(ms.Tensor([1.0])).tolist() == [3.0]

    @ms.jit(jit_config=None)
    def double(x):
        return x * 2
    assert double(eagerad.ones(1)).tolist() == [2.0]
    f = lambda x: x            # noqa: E731
    assert torch.compile(f, disable=True) is f
    assert torch.compile(mode="max-autotune")(lambda x: x + 1)(torch.ones(1)).tolist() == [2.0]
    with pytest.raises(TypeError, match="expected a function"):
        jit(3)
    with pytest.raises(TypeError, match="expected a Module or a function"):
        torch.compile(3)
    with pytest.raises(ValueError, match="min_fuse_size"):
        jit(f, min_fuse_size=0)
    with pytest.raises(TypeError, match="unexpected keyword"):
        jit(f, fuse=True)


def test_method_of_a_layer_is_guarded_by_its_state():
    class Net(eagerad.nn.Cell):
        def __init__(self):
            super().__init__()
            self.dense = eagerad.nn.Dense(2, 2)

        @eagerad.jit
        def construct(self, x):
            return self.dense(x).tanh()
    net = Net()
    x = eagerad.ones(3, 2)
    a = net(x)
    np.testing.assert_allclose(net(x).numpy(), a.numpy())
    compiled = Net.__dict__["construct"].__get__(net)
    assert len(compiled.plans) == 1
    net.dense.weight.set_data(eagerad.zeros(2, 2))          # in place: seen by the replay
    np.testing.assert_allclose(net(x).numpy(), np.tanh(np.broadcast_to(net.dense.bias.numpy(),
                                                                        (3, 2))), rtol=1e-6)
