"""``stacked_matmul.split_stacked``: attention's stacked products on views, split along
the first batch axis over the CPU pool, are bit-identical to one ``np.matmul``."""
import numpy as np
import pytest

from eagerad.backend.cpu import stacked_matmul, threads


def _attention_views(dtype):
    rng = np.random.default_rng(0)
    qkv = rng.standard_normal((6, 16, 3 * 32)).astype(dtype)
    q = qkv[..., :32].reshape(6, 16, 4, 8).swapaxes(1, 2)       # (6, 4, 16, 8), strided
    k = qkv[..., 32:64].reshape(6, 16, 4, 8).swapaxes(1, 2)
    return q, k


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_split_products_of_views_equal_one_matmul_bit_for_bit(dtype, monkeypatch):
    q, k = _attention_views(dtype)
    monkeypatch.setattr(threads, "shares", lambda: 2)     # split even on a busy machine
    scores = stacked_matmul.split_stacked(q, k.swapaxes(-1, -2), min_work=0)
    np.testing.assert_array_equal(scores, np.matmul(q, k.swapaxes(-1, -2)))
    p = np.ascontiguousarray(scores)
    out = stacked_matmul.split_stacked(p, k, min_work=0)
    np.testing.assert_array_equal(out, np.matmul(p, k))
    assert out.shape == (6, 4, 16, 8) and out.dtype == dtype


def test_what_it_leaves_to_numpy(monkeypatch):
    q, k = _attention_views(np.float32)
    kt = k.swapaxes(-1, -2)
    assert stacked_matmul.split_stacked(q, kt) is None                    # small product
    monkeypatch.setattr(threads, "kernel_threads", lambda: 1)
    assert stacked_matmul.split_stacked(q, kt, min_work=0) is None        # one thread
    monkeypatch.setattr(threads, "kernel_threads", lambda: 2)
    monkeypatch.setattr(threads, "shares", lambda: 2)
    assert stacked_matmul.split_stacked(q[0, 0], kt[0, 0], min_work=0) is None  # 2-D
    assert stacked_matmul.split_stacked(q, kt[:1], min_work=0) is None    # broadcast batch
    assert stacked_matmul.split_stacked(q, kt.astype(np.float64), min_work=0) is None
    assert stacked_matmul.split_stacked(q.astype(np.int64), kt.astype(np.int64), min_work=0) is None


def test_the_cpu_backend_matmul_splits_attention_views_with_the_same_bits(monkeypatch):
    from eagerad.backend import cpu
    q, k = _attention_views(np.float32)
    monkeypatch.setattr(threads, "shares", lambda: 2)
    monkeypatch.setattr(stacked_matmul, "MIN_WORK", 0)
    calls = []
    real = stacked_matmul.split_stacked
    monkeypatch.setattr(stacked_matmul, "split_stacked",
                        lambda a, b: calls.append(a.shape) or real(a, b, min_work=0))
    kt = k.swapaxes(-1, -2)
    np.testing.assert_array_equal(cpu.matmul(q, kt), np.matmul(q, kt))
    assert calls == [(6, 4, 16, 8)]
