"""The fixed weights of the small nets whose checkpoints tests/test_mindspore_ckpt.py reads.

Shared by ``make_ckpt.py`` (run under real MindSpore) and the tests, so both sides build
the same numbers from numpy's frozen legacy ``RandomState`` stream.
"""
import numpy as np

# parameter name -> shape of MindSpore's Conv2d(1, 2, 3) + BatchNorm2d(2) + Dense(8, 3)
# (Conv2d's default has_bias=False, so the conv has a weight only)
NET_SHAPES = {
    "conv.weight": (2, 1, 3, 3),
    "bn.moving_mean": (2,),
    "bn.moving_variance": (2,),
    "bn.gamma": (2,),
    "bn.beta": (2,),
    "fc.weight": (3, 8),
    "fc.bias": (3,),
}


def make_net(nn):
    """The net of NET_SHAPES built from a MindSpore-style ``nn`` module (MindSpore's own or
    eagerad.mindspore.nn): Conv2d(1, 2, 3) -> BatchNorm2d(2) -> Dense(8, 3)."""

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.conv = nn.Conv2d(1, 2, 3)
            self.bn = nn.BatchNorm2d(2)
            self.fc = nn.Dense(8, 3)

        def construct(self, x):
            return self.fc(self.bn(self.conv(x)).reshape(x.shape[0], -1)[:, :8])

    return Net()


def net_weights(dtype):
    """``{name: array}`` of the net's fixed weights in ``dtype`` (variances kept positive)."""
    rng = np.random.RandomState(2026)
    out = {}
    for name, shape in NET_SHAPES.items():
        values = rng.uniform(-1.0, 1.0, size=shape)
        if name == "bn.moving_variance":
            values = np.abs(values) + 0.5
        out[name] = values.astype(dtype)
    return out


def mixed_values():
    """Parameters of other dtypes and ranks: ints, a bool, a scalar, a string."""
    return {
        "counts.int32": np.arange(-3, 3, dtype=np.int32).reshape(2, 3),
        "steps.int64": np.array([2 ** 40, -5, 0], dtype=np.int64),
        "mask.bool": np.array([True, False, True]),
        "scale.float64": np.array(1.0 / 3.0),
        "bytes.uint8": np.array([0, 7, 255], dtype=np.uint8),
    }
