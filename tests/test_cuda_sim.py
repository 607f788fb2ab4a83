"""The CUDA backend on Numba's CUDA simulator, compared with the CPU backend.

``NUMBA_ENABLE_CUDASIM=1`` must be set before numba is imported, so the checks
run in one subprocess (this file executed as a script); each check is reported
as its own test here.  Shapes are tiny: the simulator runs every GPU thread as
a Python thread.  Skipped when numba-cuda is not installed.
"""
import importlib.util
import os
import sys
import zlib

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_NUMBA_CUDA = importlib.util.find_spec("numba_cuda") is not None


def _close(a, b, tol=1e-5):
    a = a.numpy() if hasattr(a, "numpy") else np.asarray(a)
    b = b.numpy() if hasattr(b, "numpy") else np.asarray(b)
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, a.dtype, b.shape, b.dtype)
    np.testing.assert_allclose(a.astype(np.float64), b.astype(np.float64), rtol=tol, atol=tol)


def _pair(arr, requires_grad=False):
    import eagerad
    return (eagerad.tensor(arr, requires_grad=requires_grad),
            eagerad.tensor(arr, requires_grad=requires_grad, device="cuda"))

# ------------------------------------------------------------------- checks
# Each ``check_*`` runs inside the simulator subprocess and raises on failure.


def check_unary_forward():
    import eagerad
    from eagerad import ops
    rng = np.random.default_rng(1)
    x = rng.uniform(-0.9, 0.9, (2, 3)).astype(np.float32)
    for name in ("neg", "exp", "sin", "cos", "tan", "sinh", "cosh", "tanh", "atanh", "asin",
                 "acos", "atan", "asinh", "sigmoid", "relu", "abs", "square", "sign", "expm1",
                 "floor", "ceil", "round", "isfinite", "isnan", "logical_not"):
        c, g = _pair(x)
        _close(getattr(ops, name)(g), getattr(ops, name)(c))
    c, g = _pair(np.array([1.5, 2.5, 4.0, 9.0]))      # float64, domain of all of them
    for name in ("log", "sqrt", "log1p", "acosh", "reciprocal", "round"):
        _close(getattr(ops, name)(g), getattr(ops, name)(c), 1e-12)
    c, g = _pair(np.array([-2, 0, 3], dtype=np.int32))
    for name in ("abs", "square", "neg", "relu", "sign"):
        _close(getattr(ops, name)(g), getattr(ops, name)(c))
    assert eagerad.tensor([np.nan, 1.0], device="cuda").isnan().tolist() == [True, False]


def check_binary_broadcast_and_scalars():
    from eagerad import ops
    rng = np.random.default_rng(2)
    a = rng.uniform(0.5, 2, (2, 1, 3)).astype(np.float32)
    b = rng.uniform(0.5, 2, (4, 1)).astype(np.float32)
    (ac, ag), (bc, bg) = _pair(a), _pair(b)
    for name in ("add", "sub", "mul", "div", "pow", "maximum", "minimum", "equal", "less",
                 "greater_equal", "floor_divide", "remainder", "logical_and"):
        fn = getattr(ops, name)
        _close(fn(ag, bg), fn(ac, bc))
        _close(fn(ag, 1.5), fn(ac, 1.5))
        _close(fn(2.0, bg), fn(2.0, bc))
    i, j = _pair(np.arange(6, dtype=np.int64).reshape(2, 3))
    _close(j * 3 - 1, i * 3 - 1)
    _close(j / 4, i / 4)                                 # true division gives float
    _close(j < 2.5, i < 2.5)


def check_reductions_any_axes():
    from eagerad import ops
    rng = np.random.default_rng(3)
    c, g = _pair(rng.normal(size=(3, 4, 5)).astype(np.float32))
    for axis in (None, 1, (0, 2), -1):
        for keepdims in (False, True):
            for name in ("sum", "max", "min", "logsumexp", "mean"):
                _close(getattr(ops, name)(g, axis, keepdims), getattr(ops, name)(c, axis, keepdims))
    for axis in (None, 0, 2):
        _close(ops.argmax(g, axis), ops.argmax(c, axis))
        _close(ops.argmin(g, axis, True), ops.argmin(c, axis, True))
    c, g = _pair(rng.normal(size=3001))                  # long row: two-pass split
    _close(g.sum(), c.sum(), 1e-10)
    _close(g.max(), c.max())
    _close(g.argmax(), c.argmax())
    c, g = _pair(np.array([[1, 5, 5], [7, 2, 7]], dtype=np.int32))
    _close(g.sum(axis=1), c.sum(axis=1))
    _close(g.argmax(axis=1), c.argmax(axis=1))           # first of tied maxima


def check_matmul_batched():
    rng = np.random.default_rng(4)
    for sa, sb in (((5, 7), (7, 6)), ((3, 5, 7), (7, 2)), ((2, 1, 3, 4), (5, 4, 3)),
                   ((4,), (4, 3)), ((2, 3, 4), (4,)), ((4,), (4,))):
        (ac, ag), (bc, bg) = _pair(rng.normal(size=sa)), _pair(rng.normal(size=sb))
        _close(ag @ bg, ac @ bc, 1e-12)
    (ac, ag), (bc, bg) = _pair(rng.normal(size=(5, 9)).astype(np.float32)), \
        _pair(rng.normal(size=(9, 3)).astype(np.float32))
    _close(ag @ bg, ac @ bc)


def check_softmax_cross_entropy():
    from eagerad import ops
    rng = np.random.default_rng(5)
    c, g = _pair(rng.normal(size=(3, 4)).astype(np.float32) * 50)
    for axis in (0, -1):
        _close(ops.softmax(g, axis), ops.softmax(c, axis))
        _close(ops.log_softmax(g, axis), ops.log_softmax(c, axis), 1e-4)
    lc, lg = _pair(np.array([0, 3, 1]))
    _close(ops.cross_entropy(g, lg), ops.cross_entropy(c, lc), 1e-4)
    _close(ops.cross_entropy(g, [0, 3, 1]), ops.cross_entropy(c, [0, 3, 1]), 1e-4)


def check_where_clip_movement():
    from eagerad import ops
    rng = np.random.default_rng(6)
    x = rng.normal(size=(2, 3, 4)).astype(np.float32)
    c, g = _pair(x)
    _close(ops.where(g > 0, g, 0.0), ops.where(c > 0, c, 0.0))
    _close(ops.where(g[0] > 0, 1.0, g[1]), ops.where(c[0] > 0, 1.0, c[1]))
    _close(ops.clip_by_value(g, -0.5, 0.5), ops.clip_by_value(c, -0.5, 0.5))
    _close(g.transpose((2, 0, 1)), c.transpose((2, 0, 1)))
    _close(g.T.reshape(4, -1), c.T.reshape(4, -1))
    _close(g[:, :1].broadcast_to((5, 2, 3, 4)), c[:, :1].broadcast_to((5, 2, 3, 4)))
    _close(ops.concat([g, g[:, :2]], 1), ops.concat([c, c[:, :2]], 1))
    _close(ops.stack([g, g], 2), ops.stack([c, c], 2))
    _close(g.astype("int32"), c.astype("int32"))
    _close(g.astype("bool"), c.astype("bool"))
    _close(g.astype("float64"), c.astype("float64"))


def check_indexing_gather_scatter():
    import eagerad
    rng = np.random.default_rng(7)
    x = rng.normal(size=(4, 5))
    c, g = _pair(x, requires_grad=True)
    idx = np.array([1, 3, 1, 1])
    for index in ((1, slice(None, None, -2)), (Ellipsis, None, 2), (slice(1, 3), [0, 4]),
                  eagerad.tensor(idx), x > 0, (idx, idx)):
        gi = tuple(eagerad.tensor(i.numpy(), device="cuda") if isinstance(i, eagerad.Tensor)
                   else i for i in index) if isinstance(index, tuple) else \
            eagerad.tensor(index.numpy(), device="cuda") if isinstance(index, eagerad.Tensor) \
            else index
        _close(g[gi], c[index])
    # scatter-add in the backward: repeated rows accumulate (row 1 picked three times)
    gidx = eagerad.tensor(idx, device="cuda")
    (g[gidx] * 2).sum().backward()
    expect = np.zeros_like(x)
    np.add.at(expect, idx, 2.0)
    assert g.grad.device == "cuda:0"
    np.testing.assert_array_equal(g.grad.numpy(), expect)


def check_inplace_and_setitem():
    import eagerad
    c, g = _pair(np.arange(6.0).reshape(2, 3))
    for t in (c, g):
        t[0, 1:] = 10.0
        t[1] = eagerad.tensor([7.0, 8.0, 9.0], device=t.device, dtype=eagerad.float64)
        t[:, [0]] = -1.0
        t.add_(1.0)
        t.mul_(eagerad.tensor([1.0, 2.0, 3.0], device=t.device, dtype=eagerad.float64))
    _close(g, c)
    np.testing.assert_array_equal(g.numpy(), [[0, 22, 33], [0, 18, 30]])


def check_creation_and_seeded_random():
    import eagerad
    _close(eagerad.zeros(2, 3, device="cuda"), eagerad.zeros(2, 3))
    _close(eagerad.full((2,), 7, device="cuda"), eagerad.full((2,), 7))
    _close(eagerad.arange(0, 1, 0.25, device="cuda"), eagerad.arange(0, 1, 0.25))
    _close(eagerad.ones_like(eagerad.zeros(3, device="cuda")), eagerad.ones(3))
    for fn in (eagerad.rand, eagerad.randn):
        eagerad.set_seed(11)
        a = fn(2, 3, device="cuda")
        eagerad.set_seed(11)
        b = fn(2, 3)
        assert a.device == "cuda:0"
        np.testing.assert_array_equal(a.numpy(), b.numpy())


def check_backward_matches_cpu_and_device():
    import eagerad
    rng = np.random.default_rng(8)
    w0 = rng.normal(size=(3, 4)).astype(np.float32)
    x0 = rng.normal(size=(5, 3)).astype(np.float32)
    grads = {}
    for dev in ("cpu", "cuda"):
        w = eagerad.tensor(w0, requires_grad=True, device=dev)
        x = eagerad.tensor(x0, requires_grad=True, device=dev)
        loss = ((x @ w).tanh() * 2 + (-(x @ w)).exp().sigmoid()).relu().mean()
        loss.backward()
        assert w.grad.device == dev and x.grad.device == dev
        grads[dev] = (loss.item(), w.grad.numpy(), x.grad.numpy())
    assert abs(grads["cpu"][0] - grads["cuda"][0]) < 1e-5
    for a, b in zip(grads["cpu"][1:], grads["cuda"][1:]):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def check_higher_order():
    import eagerad
    # d^3/dx^3 sin(x) * x^2 at x = 0.7, on both devices, from nested autograd.grad
    vals = {}
    for dev in ("cpu", "cuda"):
        x = eagerad.tensor([0.7], dtype=eagerad.float64, requires_grad=True, device=dev)
        y = (x.sin() * x * x).sum()
        d1, = eagerad.autograd.grad(y, x, create_graph=True)
        d2, = eagerad.autograd.grad(d1.sum(), x, create_graph=True)
        d3, = eagerad.autograd.grad(d2.sum(), x)
        assert d3.device == dev
        vals[dev] = d3.item()
    x = 0.7      # (x^2 sin x)''' = 6 cos x - 6 x sin x - x^2 cos x
    exact = 6 * np.cos(x) - 6 * x * np.sin(x) - x * x * np.cos(x)
    assert abs(vals["cuda"] - exact) < 1e-12 and abs(vals["cpu"] - exact) < 1e-12
    # MindSpore face: eagerad.grad of a two-input function
    f = eagerad.grad(lambda a, b: (a * b.exp()).sum(), grad_position=(0, 1))
    a = eagerad.tensor([1.0, 2.0], device="cuda")
    b = eagerad.tensor([0.0, 1.0], device="cuda")
    ga, gb = f(a, b)
    np.testing.assert_allclose(ga.numpy(), [1.0, np.e], rtol=1e-6)
    np.testing.assert_allclose(gb.numpy(), [1.0, 2 * np.e], rtol=1e-6)


def check_mixed_device_error_and_round_trip():
    import eagerad.mindspore as ms
    import eagerad.torch as torch
    c = torch.tensor([1.0, 2.0], requires_grad=True)
    g = torch.tensor([3.0, 4.0], device="cuda")
    try:
        c + g
    except RuntimeError as err:
        assert "cpu" in str(err) and "cuda:0" in str(err), err
    else:
        raise AssertionError("cpu + cuda did not raise")
    moved = c.to("cuda")
    assert moved.device == "cuda:0" and c.cuda().device == "cuda:0"
    back = (moved * g).cpu()
    assert back.device == "cpu" and back.tolist() == [3.0, 8.0]
    back.sum().backward()               # gradient flows back across devices
    assert c.grad.device == "cpu" and c.grad.tolist() == [3.0, 4.0]
    assert repr(g) == str(g) == "tensor([3., 4.], device='cuda:0')"    # PyTorch's spelling
    h = ms.Tensor([3.0, 4.0], device="cuda")                             # MindSpore's
    assert "device=cuda:0" in repr(h) and str(h) == "[3. 4.]"
    assert not hasattr(c, "__cuda_array_interface__")


def check_nn_training_step():
    import eagerad
    from eagerad import nn
    eagerad.set_seed(3)
    eagerad.set_context(device_target="GPU")      # the default device becomes cuda
    try:
        net = nn.Dense(3, 2)
    finally:
        eagerad.set_context(device_target="CPU")
    assert all(p.device == "cuda:0" for p in net.trainable_params())
    opt = nn.SGD(net.trainable_params(), learning_rate=0.1)
    x = eagerad.randn(4, 3, device="cuda")
    y = eagerad.randn(4, 2, device="cuda")
    loss_fn = nn.MSELoss()
    first = None
    for _ in range(3):
        loss = loss_fn(net(x), y)
        grads = eagerad.grad(lambda xx: loss_fn(net(xx), y), None, net.trainable_params())(x)
        opt(grads)
        first = first if first is not None else loss.item()
    assert loss_fn(net(x), y).item() < first


def check_shared_arrays_are_per_block():
    """Threads reaching ``cuda.shared.array`` together get one array (a simulator race)."""
    import threading
    import eagerad.backend.cuda.launch  # noqa: F401  (installs the race-free allocation)
    from numba.cuda.simulator.kernelapi import FakeCUDAShared
    for _ in range(50):
        shared, got = FakeCUDAShared(0), []
        gate = threading.Barrier(8)

        def alloc():
            gate.wait()
            got.append(shared.array(4, np.float64))
        threads = [threading.Thread(target=alloc) for _ in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len({id(a) for a in got}) == 1, f"{len({id(a) for a in got})} arrays for one block"


def check_gradient_accumulation_keeps_views():
    """Summing two paths into a node must not write into a device array another tensor views."""
    import eagerad
    from eagerad.autograd import engine
    x = eagerad.tensor([1.0, 2.0, 3.0, 4.0], device="cuda")
    buf = [x * 1]
    view = buf[0].reshape(2, 2)            # shares the device memory of buf[0]
    with eagerad.no_grad():
        buf[0] = engine._add(buf[0], x)
    np.testing.assert_array_equal(view.numpy(), [[1.0, 2.0], [3.0, 4.0]])
    np.testing.assert_array_equal(buf[0].numpy(), [2.0, 4.0, 6.0, 8.0])


def check_gradcheck_table_on_cuda():
    """Every op of the gradcheck table: first- and second-order vjps on 'cuda' equal CPU's."""
    import eagerad
    from eagerad.ops import OPS
    from eagerad.ops.registry import U
    failures = []
    for name in sorted(OPS):
        op = OPS[name]
        for k, case in enumerate(op.cases[:1]):      # the first case: the simulator is slow
            try:
                _compare_case(eagerad, op, case, U, zlib.crc32(f"{name}{k}".encode()))
            except Exception as err:   # collect every op, report them all
                failures.append(f"{name}[{k}] {case}: {type(err).__name__}: {err}")
    assert not failures, "\n".join(failures)


def _compare_case(eagerad, op, case, U, seed):
    results = []
    for dev in ("cpu", "cuda"):
        rng = np.random.default_rng(seed)
        args, inputs = [], []
        for a in case.args:
            if isinstance(a, U):
                t = eagerad.tensor(a.draw(rng), dtype=eagerad.float64, requires_grad=True,
                                   device=dev)
                inputs.append(t)
                args.append(t)
            else:
                args.append(eagerad.Tensor(a, device=dev) if isinstance(a, np.ndarray) else a)
        out = op(*args, **case.kwargs)
        outs = out if isinstance(out, tuple) else (out,)
        if not inputs or not any(o.requires_grad for o in outs):
            results.append([o.numpy() for o in outs])
            continue
        from eagerad.ops.complex_ops import view_as_real     # complex results as real pairs
        loss = sum((o * o.detach().cos()).sum()
                   for o in (view_as_real(o) if o.dtype.kind == "c" else o for o in outs)
                   if o.dtype.kind == "f")
        firsts = eagerad.autograd.grad(loss, inputs, create_graph=True, allow_unused=True)
        firsts = [f if f is not None else eagerad.zeros_like(x) for f, x in zip(firsts, inputs)]
        second = sum((f * f).sum() for f in firsts)
        seconds = eagerad.autograd.grad(second, inputs, allow_unused=True) \
            if second.requires_grad else [None] * len(inputs)
        row = [o.numpy() for o in outs] + [f.numpy() for f in firsts]
        row += [s.numpy() if s is not None else None for s in seconds]
        for t in [*outs, *firsts, *(s for s in seconds if s is not None)]:
            assert t.device == dev or op.name == "to", f"result on {t.device}, expected {dev}"
        results.append(row)
    for a, b in zip(*results):
        if a is None or b is None:
            assert a is None and b is None
        else:
            np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-10)


def check_float16_computes_in_float32_and_masked_logits():
    import eagerad
    from eagerad import ops
    from eagerad.backend import cuda as B
    c, g = _pair(np.array([1.0, 3.0], np.float16))
    _close(g / 100000, c / 100000, 1e-3)          # not divided by float16(1e5) = inf
    assert (g / 100000).numpy()[0] > 0
    big = np.array([60000.0, 60000.0], np.float16)  # the float16 sum overflows, the mean not
    mean = B.reduce("mean", B.from_numpy(big), None, False).copy_to_host()
    assert mean.dtype == np.float16 and mean == 60000.0
    c, g = _pair(np.full(300, 200, np.uint8))
    assert abs(ops.logsumexp(g).item() - (200 + np.log(300))) < 1e-3
    c, g = _pair(np.zeros(3000, np.float16))
    _close(ops.softmax(g), ops.softmax(c), 1e-6)
    logits = np.array([[1.0, -np.inf, 0.5], [0.2, 0.1, -np.inf]])
    c, g = _pair(logits, requires_grad=True)
    for t in (c, g):
        loss = ops.cross_entropy(t, eagerad.tensor([0, 1], device=t.device))
        loss.backward()
        assert np.isfinite(loss.item())
    _close(g.grad, c.grad, 1e-12)


CHECKS = sorted(name for name in list(globals()) if name.startswith("check_"))


def _run_all():
    """Script mode (inside the simulator, or on a GPU): run every check, print a JSON verdict."""
    from simulator_run import run_checks
    run_checks(globals(), "CUDASIM-RESULTS")

# ------------------------------------------------------------- pytest side


@pytest.fixture(scope="module")
def sim_results():
    from simulator_run import checks_on_simulator
    return checks_on_simulator(__file__, "CUDASIM-RESULTS")


@pytest.mark.parametrize("name", CHECKS)
def test_on_cuda_simulator(sim_results, name):
    assert sim_results[name] == "ok", sim_results[name]


def test_cuda_request_without_numba_cuda_names_the_package(monkeypatch):
    import eagerad
    from eagerad import context
    monkeypatch.setitem(sys.modules, "numba_cuda", None)      # import now fails
    assert "numba-cuda" in context.cuda_problem()
    with pytest.raises(RuntimeError, match="numba-cuda"):
        eagerad.ones(2).to("cuda")
    with pytest.warns(UserWarning, match="numba-cuda"):
        context._said.discard("gpu")
        eagerad.set_context(device_target="GPU")
    assert context.default_device() == "cpu"
    eagerad.set_context(device_target="CPU")


if __name__ == "__main__":
    _run_all()
