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
