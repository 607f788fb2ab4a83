"""``gemm_split``: split products as one Numba kernel calling numpy's OpenBLAS GEMM per
block -- the same bits as the blocks computed one by one with ``np.matmul``, and a
clear refusal (False / None) for what it does not take."""
import numpy as np
import pytest

import eagerad
from eagerad.backend.cpu import gemm_split, openblas, parallel, threads

pytestmark = pytest.mark.skipif(not openblas.gemm_address("f"),
                                reason="numpy's BLAS is not an OpenBLAS with 64-bit integers")


@pytest.fixture(autouse=True)
def kernel_launches(monkeypatch):
    """Every split runs the kernel (not its first, timed single-threaded run, nor a pause)."""
    monkeypatch.setattr(parallel, "unmeasured", lambda key: False)
    monkeypatch.setattr(parallel, "paused", lambda: False)
    monkeypatch.setattr(parallel, "_note", lambda key, seconds: None)


@pytest.fixture
def two_threads():
    old = threads.get_num_threads()
    eagerad.set_num_threads(2)
    yield
    eagerad.set_num_threads(old)


def _operands(dtype, m, k, n, seed=0):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((m, k)).astype(dtype), rng.standard_normal((k, n)).astype(dtype)


def _views(a):
    """``a`` itself, a transposed view of a copy, and a row slice of a wider array."""
    wide = np.zeros((a.shape[0], a.shape[1] + 5), a.dtype)
    wide[:, :a.shape[1]] = a
    return a, np.ascontiguousarray(a.T).T, wide[:, :a.shape[1]]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_row_blocks_give_numpys_bits_for_every_layout(dtype):
    a, b = _operands(dtype, 200, 33, 70)
    ref = np.matmul(a, b)
    for x in _views(a):
        for y in _views(b):
            out = np.empty((200, 70), dtype)
            assert gemm_split.run(x, y, out, gemm_split.ROWS, [(0, 96), (96, 192), (192, 200)])
            np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_column_blocks_give_the_bits_of_each_block_alone(dtype):
    a, b = _operands(dtype, 16, 300, 200)
    chunks = [(0, 64), (64, 128), (128, 200)]
    ref = np.concatenate([np.matmul(a, b[:, lo:hi]) for lo, hi in chunks], axis=1)
    np.testing.assert_allclose(ref, a @ b, rtol=1e-5, atol=1e-4)
    for x in _views(a):
        for y in _views(b):
            out = np.empty((16, 200), dtype)
            assert gemm_split.run(x, y, out, gemm_split.COLUMNS, chunks)
            np.testing.assert_array_equal(out, ref)


def test_stacks_split_by_matrices_as_numpy_computes_them():
    rng = np.random.default_rng(1)
    a = rng.standard_normal((6, 4, 16, 8)).astype(np.float32)
    b = rng.standard_normal((6, 4, 8, 12)).astype(np.float32)
    out = np.empty((6, 4, 16, 12), np.float32)
    assert gemm_split.run(a, b.swapaxes(-1, -2).copy().swapaxes(-1, -2), out,
                          gemm_split.MATRICES, [(0, 3), (3, 6)])
    np.testing.assert_array_equal(out, np.matmul(a, b))
    stack, single = rng.standard_normal((5, 40, 8)), rng.standard_normal((8, 3))
    out = np.empty((5, 40, 3))
    assert gemm_split.run(stack, single, out, gemm_split.MATRICES, [(0, 2), (2, 5)])
    np.testing.assert_array_equal(out, np.matmul(stack, single))


def test_a_plan_serves_every_operand_of_its_layout():
    a, b = _operands(np.float32, 16, 128, 512)
    out = np.empty((16, 512), np.float32)
    plan = gemm_split.plan(a, b, out, gemm_split.COLUMNS, [(0, 256), (256, 512)])
    for seed in range(3):
        x, y = _operands(np.float32, 16, 128, 512, seed)
        plan(x, y, out)
        ref = np.concatenate([x @ y[:, :256], x @ y[:, 256:]], axis=1)
        np.testing.assert_array_equal(out, ref)


def test_what_it_refuses_computes_nothing():
    a, b = _operands(np.float32, 100, 8, 6)
    chunks = [(0, 48), (48, 100)]
    out = np.full((100, 6), 7.0, np.float32)
    refused = [(a, b.astype(np.float64)),                 # mixed dtypes
               (a.astype(np.int64), b.astype(np.int64)),  # integers
               (a.astype(np.complex64), b.astype(np.complex64)),
               (np.zeros((100, 16), np.float32)[:, ::2], b),   # strided rows BLAS cannot read
               (a[::-1], b)]                             # negative strides
    for x, y in refused:
        assert gemm_split.run(x, y, out.astype(np.result_type(x, y)), gemm_split.ROWS, chunks) is False
    wide = np.full((100, 12), 7.0, np.float32)
    assert gemm_split.run(a, b, wide[:, ::2], gemm_split.ROWS, chunks) is False   # strided out
    assert gemm_split.run(a, b, wide[:, :5], gemm_split.ROWS, chunks) is False    # wrong shape
    assert (out == 7).all() and (wide == 7).all()


def test_product_plan_splits_a_recurrent_step_only_with_threads(two_threads):
    a, b = _operands(np.float32, 16, 128, 512)
    out = np.empty((16, 512), np.float32)
    plan = threads.product_plan(a, b, out)
    assert plan is not None
    plan(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5, atol=1e-5)
    assert threads.product_plan(a[:, :8], b[:8], out) is None            # small: numpy's
    eagerad.set_num_threads(1)
    assert threads.product_plan(a, b, out) is None                       # one thread


def test_lstm_layer_with_split_steps_matches_one_thread(two_threads):
    """The split per-step products change at most the last bits of an LSTM's outputs
    and gradients against the single-threaded run."""
    from eagerad import nn
    rng = np.random.default_rng(0)
    lstm = nn.LSTM(64, 128)
    x = eagerad.tensor(rng.standard_normal((12, 16, 64)).astype(np.float32), requires_grad=True)
    results = []
    for count in (2, 1):
        eagerad.set_num_threads(count)
        x.grad = None
        out, _ = lstm(x)
        out.sum().backward()
        results.append((out.numpy().copy(), x.grad.numpy().copy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-4, atol=1e-5)


def test_the_single_threaded_way_gives_the_kernels_bits(monkeypatch):
    """A plan's first run (timed as the reference) and runs during a pause take its blocks
    one by one with numpy: the same bits as the kernel."""
    for mode, (m, k, n), chunks in ((gemm_split.ROWS, (200, 33, 70), [(0, 96), (96, 200)]),
                                    (gemm_split.COLUMNS, (16, 300, 200), [(0, 128), (128, 200)])):
        a, b = _operands(np.float32, m, k, n)
        kernel_out, serial_out = np.empty((m, n), np.float32), np.empty((m, n), np.float32)
        plan = gemm_split.plan(a, b, kernel_out, mode, chunks)
        plan(a, b, kernel_out)
        monkeypatch.setattr(parallel, "paused", lambda: True)
        plan(a, b, serial_out)
        monkeypatch.setattr(parallel, "paused", lambda: False)
        np.testing.assert_array_equal(serial_out, kernel_out)
    stack, single = np.random.default_rng(2).standard_normal((2, 5, 40, 8)), np.ones((8, 3))
    out = np.empty((2, 5, 40, 3))
    monkeypatch.setattr(parallel, "paused", lambda: True)
    assert gemm_split.run(stack, single, out, gemm_split.MATRICES, [(0, 1), (1, 2)])
    np.testing.assert_array_equal(out, np.matmul(stack, single))
