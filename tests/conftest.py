import numpy as np
import pytest

import eagerad


@pytest.fixture(autouse=True)
def _seeded():
    eagerad.set_seed(0)
    np.random.seed(0)
    yield
