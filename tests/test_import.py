"""Start-up cost and the fused Numba gradient kernels.

Importing eagerad must be quick and compile nothing (numba itself is not even
imported); the fused first-order kernels used by tanh/sigmoid/relu backward must
give the numbers of the differentiable rules they stand in for."""
import subprocess
import sys

import numpy as np
import pytest

import eagerad
from eagerad import autograd, ops
from eagerad.backend import cpu
from eagerad.backend.cpu import kernels

_PROBE = """
import sys, time
start = time.perf_counter()
import eagerad
took = time.perf_counter() - start
print(took, 'numba' in sys.modules)
"""


def _import_once():
    out = subprocess.run([sys.executable, "-c", _PROBE], capture_output=True, text=True,
                         check=True).stdout.split()
    return float(out[0]), out[1] == "True"


def test_import_does_not_import_numba():
    # (import time itself is a figure of benchmarks/run.py: a wall-clock bound here flaked
    # whenever the machine was busy)
    _, numba = _import_once()
    assert not numba, "import eagerad imported numba"


def _first_order(op, x):
    """Gradient of ``sum(op(x) * w)`` through the fused kernel (no graph of the backward)."""
    w = eagerad.Tensor(np.linspace(-2, 2, x.size).reshape(x.shape).astype(x.dtype))
    (g,) = autograd.grad((op(x) * w).sum(), x)
    return g.numpy(), w


def _rule_path(op, x, w):
    """The same gradient through the differentiable vjp rule (``create_graph`` skips fusion)."""
    (g,) = autograd.grad((op(x) * w).sum(), x, create_graph=True)
    return g.detach().numpy()


SIZES = [7, 5000, kernels.PARALLEL_MIN + 5]   # numpy formula, serial kernel, a parallel twin


def _closed_form(name, x_np, w):
    xs, ws = x_np.astype(np.float64).reshape(-1), np.asarray(w, np.float64).reshape(-1)
    return {"tanh": 1 - np.tanh(xs) ** 2, "sigmoid": 0.25 / np.cosh(xs / 2) ** 2,
            "relu": (xs > 0) * 1.0}[name] * ws


def _same_up_to_rounding(a, b):
    """Equal but for rounding (a compiled kernel may fuse ``1 - t * t`` into one FMA)."""
    tight = a.dtype == np.float64
    np.testing.assert_allclose(a, b, rtol=1e-12 if tight else 1e-5, atol=1e-14 if tight else 1e-6)


def _input(dtype, size):
    x_np = np.random.default_rng(size).uniform(-3, 3, size).astype(dtype)
    x_np[:3] = (0.0, 1e-3, -1e-3)      # relu's kink and tiny values
    return x_np


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("name", sorted(kernels.CODES))
def test_fused_backward_matches_the_rules(name, dtype, size, monkeypatch):
    calls = []
    real = cpu.fused_grad
    monkeypatch.setattr(cpu, "fused_grad", lambda *a: calls.append(a[0]) or real(*a))
    x_np = _input(dtype, size)
    x = eagerad.tensor(x_np.reshape(-1, 1) if size > 10 else x_np, requires_grad=True)
    op = getattr(ops, name)
    fused, w = _first_order(op, x)
    assert calls == [name], "the fused path was not used for the first-order backward"
    rule = _rule_path(op, x, w)
    assert calls == [name], "the fused path must not run when create_graph=True"
    assert fused.dtype == dtype and fused.shape == x.shape
    _same_up_to_rounding(fused, rule)
    np.testing.assert_allclose(fused.reshape(-1), _closed_form(name, x_np, w),
                               rtol=1e-5 if dtype == np.float32 else 1e-12,
                               atol=1e-6 if dtype == np.float32 else 1e-14)


@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("name", sorted(kernels.CODES))
def test_numba_kernel_itself_matches_the_rules(name, size, monkeypatch):
    """The Numba kernel called directly, small arrays included (the backend sends
    those to numpy, so this is the only place they reach the kernel); the largest
    size runs the parallel twin (its threshold lowered to keep the arrays small)."""
    monkeypatch.setattr(kernels, "FUSED_PARALLEL_MIN", kernels.PARALLEL_MIN)
    for dtype in (np.float32, np.float64):
        x_np = _input(dtype, size).reshape(-1, 1)
        x = eagerad.tensor(x_np, requires_grad=True)
        op = getattr(ops, name)
        y = op(x)
        w = np.linspace(-2, 2, size).astype(dtype).reshape(-1, 1)
        saved = x_np if name == "relu" else y.numpy()
        got = kernels.fused_grad(name, w, saved)
        rule = _rule_path(op, x, eagerad.Tensor(w))
        assert got.dtype == dtype and got.shape == x_np.shape
        _same_up_to_rounding(got, rule)


def test_fused_kernel_declines_what_it_does_not_cover():
    a = np.ones(4, np.float32)
    assert kernels.fused_grad("exp", a, a) is None
    assert kernels.fused_grad("tanh", a, a.astype(np.float64)) is None
    assert kernels.fused_grad("tanh", a.astype(np.float16), a.astype(np.float16)) is None
