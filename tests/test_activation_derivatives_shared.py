"""tanh's, sigmoid's and relu's derivatives are written once (``backend/formulas.py``) and
give the same bits everywhere they run: the differentiable rule (eagerad ops), the CPU's
numpy path for small arrays, its Numba kernel, and the CUDA kernel (on the simulator)."""
import numpy as np
import pytest

import eagerad
from eagerad.backend import formulas, get
from eagerad.backend.cpu import kernels
from eagerad.ops import OPS
from simulator_run import run_on_simulator

SAVED = {"tanh": "output", "sigmoid": "output", "relu": "input"}


def _operands(dtype):
    rng = np.random.default_rng(7)
    g = rng.normal(size=64).astype(dtype)
    x = np.concatenate([rng.normal(size=60), [0.0, -0.0, 1e-30, -1e-30]]).astype(dtype)
    return g, x


def _saved(name, x):
    return OPS[name](eagerad.Tensor(x)).numpy() if SAVED[name] == "output" else x


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(SAVED))
def test_rule_numpy_path_and_numba_kernel_agree_bit_for_bit(name, dtype):
    g, x = _operands(dtype)
    saved = _saved(name, x)
    xt = eagerad.tensor(x, requires_grad=True)
    with eagerad.enable_grad():
        out = OPS[name](xt)
    (rule,) = eagerad.autograd.grad(out, xt, eagerad.Tensor(g), create_graph=True)  # the rule
    small = get("cpu").fused_grad(name, g, saved)                                     # numpy
    kernel = kernels.fused_grad(name, g, saved)                                       # Numba
    for got in (small, kernel):
        assert got.dtype == dtype
        np.testing.assert_array_equal(got.view(np.uint8), rule.numpy().view(np.uint8))


def test_relu_formula_keeps_the_dtype_and_sends_nothing_through_zero():
    g = np.array([2.0, -3.0, 4.0], np.float32)
    out = formulas.relu_grad(g, np.array([1.0, 0.0, -1.0], np.float32), np.float32(1))
    assert out.dtype == np.float32 and out.tolist() == [2.0, 0.0, 0.0]


def test_cuda_kernels_agree_with_the_cpu_on_the_simulator():
    script = """
import json, numpy as np
from eagerad.backend import get
from test_activation_derivatives_shared import SAVED, _operands, _saved
cpu, cuda = get("cpu"), get("cuda")
out = {}
for dtype in (np.float32, np.float64):
    g, x = _operands(dtype)
    for name in SAVED:
        s = _saved(name, x)
        want = cpu.fused_grad(name, g, s)
        got = cuda.to_numpy(cuda.fused_grad(name, cuda.from_numpy(g), cuda.from_numpy(s)))
        same = bool((got.view(np.uint8) == want.view(np.uint8)).all())
        out[f"{name}-{np.dtype(dtype).name}"] = [bool(got.dtype == dtype), same]
print("FUSED", json.dumps(out))
"""
    results = run_on_simulator(script, "FUSED")
    assert len(results) == 6 and all(same_dtype and same_bits for same_dtype, same_bits
                                      in results.values()), results
