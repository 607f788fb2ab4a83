"""conv2d, conv_transpose2d, max/avg pooling and batch_norm on Numba's CUDA simulator
against the CPU: forward values, gradients of every input, running statistics.

As in test_cuda_sim.py, the simulator must be switched on before numba is imported,
so the checks run in a subprocess (this file as a script); tiny shapes keep it quick.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from test_cuda_sim import HAVE_NUMBA_CUDA, ROOT, _close


def _both(fn, *arrays):
    """``fn`` on CPU and CUDA tensors made from ``arrays``: (outputs, input grads) each."""
    import eagerad
    results = []
    for dev in ("cpu", "cuda"):
        xs = [eagerad.tensor(a, requires_grad=True, device=dev) for a in arrays]
        out = fn(*xs)
        eagerad.autograd.backward((out * out).sum())
        results.append([out] + [x.grad for x in xs])
    return results


def _checks():
    import eagerad
    from eagerad.ops import convolution as C, normalization as N
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 2, 5, 4)).astype(np.float32)
    w = rng.normal(size=(4, 1, 3, 2)).astype(np.float32)
    b = rng.normal(size=4).astype(np.float32)
    cases = [
        (lambda x, w, b: C.conv2d(x, w, b, stride=(2, 1), padding=1, dilation=(1, 2), groups=2),
         (x, w, b)),
        (lambda x, w, b: C.conv_transpose2d(x, w.reshape(2, 4, 3, 1), b, stride=2, padding=1,
                                            output_padding=1), (x, w, b)),
        (lambda x: C.max_pool2d(x, 2, 1, 1), (x,)),
        (lambda x: C.max_pool2d(x, 2), (np.round(x),)),          # ties: the first maximum wins
        (lambda x: C.avg_pool2d(x, 3, 2, 1, ceil_mode=True, count_include_pad=False), (x,)),
        (lambda x, g, s: N.batch_norm(x, None, None, g, s, training=True), (x, b[:2], b[2:])),
    ]
    for fn, arrays in cases:
        cpu, gpu = _both(fn, *arrays)
        for a, g in zip(cpu, gpu):
            assert g.device.type == "cuda"
            _close(g, a, 1e-4)
    stats = []
    for dev in ("cpu", "cuda"):
        rm, rv = eagerad.zeros(2, device=dev), eagerad.ones(2, device=dev)
        N.batch_norm(eagerad.tensor(x, device=dev), rm, rv, training=True)
        stats.append((rm, rv))
    _close(stats[1][0], stats[0][0])
    _close(stats[1][1], stats[0][1])
    print("CUDASIM-NN-OK")


@pytest.mark.skipif(not HAVE_NUMBA_CUDA, reason="numba-cuda is not installed: no CUDA simulator")
def test_conv_pool_batch_norm_match_cpu_on_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests"),
                                           os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert "CUDASIM-NN-OK" in proc.stdout, proc.stderr[-4000:]


if __name__ == "__main__":
    sys.setswitchinterval(1e-5)      # the simulator's barrier loop polls: switch often
    _checks()
