"""``fmod`` (an elementwise op: one stanza in ops/math.py plus its formula in
backend/formulas.py) and ``narrow`` (a shape op: one stanza with its batching rule in
ops/shape.py): values, edges, views, errors, batching and the CUDA simulator.  Their
gradchecks (second order) and vmap checks come from the op table automatically."""
import numpy as np
import pytest

import eagerad
from eagerad import ops
from eagerad.ops import OPS
from simulator_run import run_on_simulator


def test_fmod_equals_numpy_bit_for_bit_over_many_magnitudes():
    rng = np.random.default_rng(0)
    x = rng.normal(size=2000) * 10.0 ** rng.uniform(-8, 8, 2000)
    y = rng.normal(size=2000) * 10.0 ** rng.uniform(-8, 8, 2000)
    np.testing.assert_array_equal(ops.fmod(eagerad.tensor(x), eagerad.tensor(y)).numpy(),
                                  np.fmod(x, y))


def test_fmod_keeps_the_dividends_sign_and_edges():
    x = eagerad.tensor([5.5, -5.5, 5.5, -0.0, 1.0, np.inf, 3.0, np.nan], dtype=eagerad.float64)
    y = eagerad.tensor([2.0, 2.0, -2.0, 2.0, 0.0, 1.0, np.inf, 1.0], dtype=eagerad.float64)
    out = ops.fmod(x, y).numpy()
    assert out[:3].tolist() == [1.5, -1.5, 1.5] and out[3] == 0 and np.signbit(out[3])
    assert np.isnan(out[4]) and np.isnan(out[5]) and out[6] == 3.0 and np.isnan(out[7])
    assert ops.fmod(eagerad.tensor([5, -5]), 3).tolist() == [2.0, -2.0]   # integers: float
    assert eagerad.tensor([7.0], dtype=eagerad.float32).fmod(4.0).dtype == eagerad.float32


def test_fmod_gradients_closed_form():
    # d/dx = 1; d/dy = -trunc(x / y) (PyTorch's rule)
    x = eagerad.tensor([5.5, -5.5, 7.25], dtype=eagerad.float64, requires_grad=True)
    y = eagerad.tensor([2.0, 2.0, -3.0], dtype=eagerad.float64, requires_grad=True)
    ops.fmod(x, y).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, 1.0] and y.grad.tolist() == [-2.0, 2.0, 2.0]


def test_narrow_values_negative_start_and_empty():
    x = eagerad.Tensor(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(ops.narrow(x, 2, 1, 2).numpy(), x.numpy()[:, :, 1:3])
    np.testing.assert_array_equal(x.narrow(-2, -1, 1).numpy(), x.numpy()[:, 2:3])
    assert x.narrow(0, 2, 0).shape == (0, 3, 4)


@pytest.mark.parametrize("args", [(1, 2, 2), (1, -4, 1), (1, 0, -1), (3, 0, 1)])
def test_narrow_out_of_range_says_so(args):
    with pytest.raises((ValueError, IndexError), match="narrow|axis"):
        ops.narrow(eagerad.ones(2, 3), *args)


def test_narrow_rejects_a_float_start():
    with pytest.raises(TypeError):
        ops.narrow(eagerad.ones(2, 3), 1, 0.5, 1)


def test_narrow_is_a_view_writes_reach_the_base_and_its_graph():
    base = eagerad.zeros(3, 4)
    view = base.narrow(0, 1, 1)
    view += 5.0
    assert base.tolist()[1] == [5.0] * 4 and base.tolist()[0] == [0.0] * 4
    x = eagerad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    h = x * 1.0
    h.narrow(0, 0, 2).mul_(3.0)           # recorded through the view (CopySlices)
    assert h.tolist() == [3.0, 6.0, 3.0]
    h.sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 1.0]


@pytest.mark.parametrize("bdim", [0, 1, 2])
def test_narrow_batching_rule_equals_a_loop(bdim):
    rng = np.random.default_rng(3)
    samples = [rng.normal(size=(3, 5)) for _ in range(4)]
    stacked = eagerad.Tensor(np.stack(samples, axis=bdim))
    out, out_bdim = OPS["narrow"].batch([stacked], [bdim], axis=1, start=1, length=3)
    got = np.moveaxis(out.numpy(), out_bdim, 0)
    want = np.stack([ops.narrow(eagerad.Tensor(s), 1, 1, 3).numpy() for s in samples])
    np.testing.assert_array_equal(got, want)


def test_new_ops_on_the_cuda_simulator():
    script = """
import json, numpy as np, eagerad
from eagerad import ops
x, y = np.array([[5.5, -5.5, 7.25], [2.0, -0.5, 1e-3]]), np.array([2.0, -3.0, 0.3])
out = {}
for dtype in ("float32", "float64"):
    grads = []
    for device in ("cpu", "cuda"):
        a = eagerad.tensor(x, dtype=dtype, device=device, requires_grad=True)
        b = eagerad.tensor(y, dtype=dtype, device=device, requires_grad=True)
        f = ops.fmod(a, b)
        (f * ops.narrow(a, 1, 1, 2).sum()).sum().backward()
        grads.append([f.numpy().tolist(), a.grad.numpy().tolist(), b.grad.numpy().tolist(),
                      str(f.dtype)])
    out[dtype] = grads
print("SIM", json.dumps(out))
"""
    for dtype, (cpu, gpu) in run_on_simulator(script, "SIM").items():
        tol = 1e-5 if dtype == "float32" else 1e-14   # float32 sums: another order
        assert gpu[3] == cpu[3] == dtype
        want = np.fmod(np.array([[5.5, -5.5, 7.25], [2.0, -0.5, 1e-3]], dtype),
                       np.array([2.0, -3.0, 0.3], dtype))
        np.testing.assert_allclose(gpu[0], want, rtol=tol)
        for g, c in zip(gpu[:3], cpu[:3]):
            np.testing.assert_allclose(g, c, rtol=tol)
