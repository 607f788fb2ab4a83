"""The N-D convolutions, pools, unpooling, resizing and grid sampling on Numba's CUDA
simulator against the CPU: they are compositions of ops with CUDA kernels (integer
bookkeeping on the host), so values and gradients must agree and stay on the device.

The simulator runs in a subprocess (``simulator_run``); tiny float32 shapes keep it quick.
"""
import numpy as np
from simulator_run import run_on_simulator
from test_cuda_sim import _close
from test_cuda_sim_nn import _both


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
        for a, b in zip(*_both(fn, *arrays)):
            assert b.device.type == "cuda"
            _close(b, a, 1e-4)
    print('CUDASIM-NNFUNC "ok"')


def test_nd_ops_match_cpu_on_simulator():
    assert run_on_simulator("import sys, test_nnfunc_cuda_sim as m; sys.setswitchinterval(1e-5); "
                            "m._checks()", "CUDASIM-NNFUNC") == "ok"
