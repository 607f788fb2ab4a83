"""Write the reference .ckpt files with real MindSpore (run with /work/msvenv/bin/python).

    /work/msvenv/bin/python tests/data/mindspore/make_ckpt.py

Writes ms_net_float32.ckpt, ms_net_float16.ckpt (a Conv2d + BatchNorm2d + Dense net with
the fixed weights of ms_ckpt_nets.py, saved from the Cell) and ms_mixed.ckpt (int, bool,
float64 scalar and string values, saved from a list of dicts).
"""
import os
import sys

import numpy as np
import mindspore as ms
from mindspore import nn

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from ms_ckpt_nets import make_net, mixed_values, net_weights  # noqa: E402


def main():
    for dtype in (np.float32, np.float16):
        net = make_net(nn)
        weights = net_weights(dtype)
        params = dict(net.parameters_and_names())
        assert sorted(params) == sorted(weights), sorted(params)
        for name, value in weights.items():     # a float16 copy of each parameter
            params[name].set_dtype(ms.float16 if dtype == np.float16 else ms.float32)
            params[name].set_data(ms.Tensor(value))
            assert params[name].asnumpy().dtype == dtype
        ms.save_checkpoint(net, os.path.join(HERE, f"ms_net_{np.dtype(dtype).name}.ckpt"))
    mixed = [{"name": k, "data": ms.Parameter(ms.Tensor(v), name=k)} for k, v in mixed_values().items()]
    ms.save_checkpoint(mixed, os.path.join(HERE, "ms_mixed.ckpt"),
                       append_dict={"note.str": "eagerad reads this"})
    ms.save_checkpoint(mixed[:2], os.path.join(HERE, "ms_crc.ckpt"), crc_check=True)


if __name__ == "__main__":
    main()
