"""The N-D convolutions, pools, unpooling, resizing and grid sampling on Numba's CUDA
simulator against the CPU: they are compositions of ops with CUDA kernels (integer
bookkeeping on the host), so values and gradients must agree and stay on the device.

As in test_cuda_sim_nn.py the simulator is switched on before numba is imported, in a
subprocess (this file as a script); tiny float32 shapes keep it quick.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

from test_cuda_sim import HAVE_NUMBA_CUDA, ROOT, _close


def _checks():
    import eagerad
    from eagerad.ops import convolution_nd as C, grid_sample as G, pooling_nd as P
    from eagerad.ops import resize as R, unpool as U
    rng = np.random.default_rng(0)
    x = rng.normal(size=(1, 2, 3, 4, 3)).astype(np.float32)
    w = rng.normal(size=(2, 1, 1, 2, 1)).astype(np.float32)
    g = rng.uniform(-1.1, 1.1, size=(1, 2, 3, 2)).astype(np.float32)
    idx = (np.arange(8).reshape(1, 2, 1, 2, 2) * 3).astype(np.int64)
    cases = [
        (lambda x, w: C.conv3d(x, w, padding=(0, 1, 0), groups=2), (x, w)),
        (lambda x, w: C.conv_transpose3d(x, w, stride=(1, 2, 1), groups=2), (x, w)),
        (lambda x: P.max_pool3d(x, (1, 1, 2), 1, (0, 0, 1)), (x,)),
        (lambda x: P.avg_pool3d(x, (1, 2, 1), 1, (0, 1, 0), count_include_pad=False), (x,)),
        (lambda x: P.adaptive_max_pool3d(x, (2, 3, 2)), (x,)),
        (lambda x: R.interpolate(x, scale_factor=1.5, mode="trilinear"), (x,)),
        (lambda x: R.interpolate(x, scale_factor=1.5, mode="nearest-exact"), (x,)),
        (lambda x, g: G.grid_sample(x[:, :, 0], g, padding_mode="reflection"), (x, g)),
        (lambda x: U.max_unpool3d(x[:, :, :1, :2, :2], eagerad.tensor(idx, device=x.device), 2,
                                  output_size=(2, 4, 4)), (x,)),
    ]
    for fn, arrays in cases:
        results = []
        for dev in ("cpu", "cuda"):
            xs = [eagerad.tensor(a, requires_grad=True, device=dev) for a in arrays]
            out = fn(*xs)
            eagerad.autograd.backward((out * out).sum())
            results.append([out] + [t.grad for t in xs])
        for a, b in zip(*results):
            assert b.device.type == "cuda"
            _close(b, a, 1e-4)
    print("CUDASIM-NNFUNC-OK")


@pytest.mark.skipif(not HAVE_NUMBA_CUDA, reason="numba-cuda is not installed: no CUDA simulator")
def test_nd_ops_match_cpu_on_simulator():
    env = dict(os.environ, NUMBA_ENABLE_CUDASIM="1",
               PYTHONPATH=os.pathsep.join([ROOT, os.path.join(ROOT, "tests"),
                                           os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, os.path.abspath(__file__)], env=env, cwd=ROOT,
                          capture_output=True, text=True, timeout=600)
    assert "CUDASIM-NNFUNC-OK" in proc.stdout, proc.stderr[-4000:]


if __name__ == "__main__":
    sys.setswitchinterval(1e-5)      # the simulator's barrier loop polls: switch often
    _checks()
