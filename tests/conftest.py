import os

import numpy as np
import pytest

import eagerad
import eagerad.mindspore as ms
from eagerad.mindspore import nn


@pytest.fixture(autouse=True)
def _seeded():
    eagerad.set_seed(0)
    np.random.seed(0)
    yield


class Seed002Net(nn.Cell):
    """Seed 002's network: Dense(3, 1) without bias and an MSE loss, returning (loss, logits)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 1, has_bias=False)
        self.loss = nn.MSELoss()

    def construct(self, x, y):
        logits = self.fc(x).squeeze()
        return self.loss(logits, y), logits


@pytest.fixture
def net():
    """Seed 002's network with weight [[2, 3, 4]] (so x = [[1, 2, 3]] gives logits 20)."""
    n = Seed002Net()
    n.fc.weight.set_data(ms.Tensor([[2, 3, 4]], ms.float32))
    return n


# ----------------------------------------------------- replay on another default device
# EAGERAD_DEFAULT_DEVICE=cuda runs the tests with CUDA as the default device (tensors
# made without ``device=`` land there), which is how benchmarks/device_check.sh replays
# the CPU suite on a GPU.  Tests that are about the CPU itself carry
# ``@pytest.mark.cpu_only("why")`` and are skipped then, with that reason.
DEFAULT_DEVICE = os.environ.get("EAGERAD_DEFAULT_DEVICE", "").strip().lower()


def pytest_configure(config):
    config.addinivalue_line("markers", "cpu_only(reason): the test is about the CPU device; "
                                       "skipped when EAGERAD_DEFAULT_DEVICE names another")
    if DEFAULT_DEVICE not in ("", "cpu", "cuda"):
        raise pytest.UsageError(f"EAGERAD_DEFAULT_DEVICE must be 'cpu' or 'cuda', got "
                                f"{DEFAULT_DEVICE!r}")


def pytest_collection_modifyitems(config, items):
    if DEFAULT_DEVICE in ("", "cpu"):
        return
    for item in items:
        mark = item.get_closest_marker("cpu_only")
        if mark is not None:
            reason = mark.args[0] if mark.args else mark.kwargs.get("reason", "CPU-specific")
            item.add_marker(pytest.mark.skip(reason=f"cpu_only: {reason}"))


@pytest.fixture(autouse=True)
def _default_device():
    """Every test starts on the default device that EAGERAD_DEFAULT_DEVICE names."""
    if DEFAULT_DEVICE in ("", "cpu"):
        yield
        return
    eagerad.set_default_device(DEFAULT_DEVICE)
    yield
    eagerad.set_default_device(DEFAULT_DEVICE)
