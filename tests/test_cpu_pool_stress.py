"""The CPU buffer pool under churn: many sizes of 20-50 MB outputs, far more than
its idle limit, some kept alive; every value is checked (additions and products by
a power of two are exact, so numpy's results are the same bits by construction)."""
import numpy as np

import eagerad
from eagerad.backend import cpu


def test_pool_churns_large_buffers_past_its_limit(monkeypatch):
    monkeypatch.setattr(cpu.pool, "LIMIT", 48 << 20)     # one or two idle buffers at most
    kept = []
    for step in range(16):
        mb = (20, 50, 35, 27)[step % 4] + step // 8       # sizes repeat and change
        n = (mb << 20) // 8
        x = eagerad.tensor(np.arange(n, dtype=np.float64))
        y = (x + float(step)) * 2.0                       # pooled temporaries of one size
        z = (x - 1.0) * 0.5
        if step % 3 == 0:
            kept.append((step, n, y))                    # some results stay alive
        np.testing.assert_array_equal(z.numpy(), (np.arange(n, dtype=np.float64) - 1.0) * 0.5)
        del x, y, z
    assert cpu.pool.held_bytes() > 0
    for step, n, y in kept:
        np.testing.assert_array_equal(y.numpy(), (np.arange(n, dtype=np.float64) + step) * 2.0)
