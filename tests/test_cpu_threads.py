"""The CPU thread policy (``eagerad/backend/cpu/threads.py``): one intra-op count caps
BLAS, Numba and the backend's pool; splitting work over threads never changes a bit
(column-split products of few rows are split the same way under every thread count)."""
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import eagerad
import eagerad.torch as torch
from eagerad.backend import cpu
from eagerad.backend.cpu import threads

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REAL_BACK_OFF = threads._back_off
two_cores = pytest.mark.skipif(threads.CORES < 2, reason="one core: nothing is split")


@pytest.fixture
def restore_threads(monkeypatch):
    """Restores the thread count after the test; splits never back off during it (a
    loaded machine would otherwise turn splitting off, see ``threads._back_off``)."""
    old = threads.get_num_threads()
    monkeypatch.setattr(threads, "_back_off", lambda missed: None)
    yield
    threads.set_num_threads(old)


@pytest.mark.skipif(threads.blas_threads() is None, reason="numpy's BLAS is not OpenBLAS")
@pytest.mark.skipif("OPENBLAS_NUM_THREADS" in os.environ, reason="the user's BLAS setting")
def test_set_num_threads_caps_blas_numba_and_the_pool(restore_threads):
    import numba
    threads.set_blas_threads(2)             # as numpy leaves it on a 2-core machine
    assert threads.blas_threads() == 2      # the ctypes getter sees the library's state
    torch.set_num_threads(2)
    assert threads.blas_threads() == 1      # products are split by the pool instead
    assert eagerad.get_num_threads() == torch.get_num_threads() == 2
    assert numba.get_num_threads() == min(2, numba.config.NUMBA_NUM_THREADS)
    assert threads.shares() == min(2, threads.CORES)
    eagerad.set_num_threads(1)
    assert (threads.blas_threads(), numba.get_num_threads(), threads.shares()) == (1, 1, 1)
    a = np.ones((4096, 64), np.float32)
    assert threads.matmul(a, a.T[:, :1024]) is None    # one share: nothing is split


@pytest.mark.parametrize("bad", [0, -1, 1.5, True, "2", None])
def test_set_num_threads_refuses_what_is_not_a_positive_int(bad):
    with pytest.raises(ValueError, match="num must be a positive int"):
        eagerad.set_num_threads(bad)


def test_import_policy_in_a_fresh_process():
    """Importing eagerad leaves numpy's OpenBLAS on one thread and loads GNU OpenMP
    with a short spin: after a Numba parallel kernel its idle worker spins
    ``OPENMP_SPIN`` rounds (~1.5 ms of CPU here; the default libgomp spins 300000,
    ~10 ms per kernel), then sleeps; the environment is left as it was."""
    code = """if 1:
        import os, time, numpy as np
        from eagerad.backend.cpu import activation_kernels, threads
        assert "GOMP_SPINCOUNT" not in os.environ
        x = np.ones(1 << 18, np.float32)
        for _ in range(3):
            activation_kernels.gelu(x, False)       # a prange kernel on every thread
        busy = 0.0
        for _ in range(5):
            activation_kernels.gelu(x, False)
            c0 = time.process_time(); time.sleep(0.02); busy += time.process_time() - c0
        print(threads.blas_threads(), busy)
    """
    env = {k: v for k, v in os.environ.items() if k not in (
        "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "NUMBA_NUM_THREADS", "GOMP_SPINCOUNT",
        "OMP_WAIT_POLICY")}
    env["PYTHONPATH"] = ROOT
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    blas, busy = out.stdout.split()
    assert blas in ("1", "None")
    if threads.CORES > 1:
        assert float(busy) < 0.03, f"idle OpenMP workers used {busy} s of CPU in 0.1 s of sleep"


SHAPES = [((1024, 64), (64, 192)), ((1000, 77), (77, 300)), ((16, 64, 64), (64, 512)),
          ((64, 64, 128), (64, 128, 64)), ((2, 3, 500, 64), (64, 300)), ((3000, 5), (5, 700)),
          ((1, 16, 72), (64, 72, 196)), ((16, 72), (2, 32, 72, 196)), ((64, 16, 196), (1, 196, 72))]


@two_cores
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.complex64])
@pytest.mark.parametrize("shapes", SHAPES, ids=str)
def test_split_products_are_bit_identical_to_one_thread(shapes, dtype, restore_threads):
    rng = np.random.default_rng(0)
    a = rng.standard_normal(shapes[0]).astype(dtype)
    b = rng.standard_normal(shapes[1]).astype(dtype)
    ref = np.matmul(a, b)
    threads.set_num_threads(2)
    for x in (a, np.ascontiguousarray(a.swapaxes(-1, -2)).swapaxes(-1, -2)):
        got = threads.matmul(x, b)
        assert got is not None and got.dtype == ref.dtype
        np.testing.assert_array_equal(got, ref)
        np.testing.assert_array_equal(cpu.matmul(x, b), ref)


@two_cores
def test_splits_that_do_not_pay_pause_splitting(restore_threads):
    """Each split that did not pay doubles a pause (1 ms, 2 ms, ... up to 1 s) during
    which work runs on the calling thread alone; set_num_threads ends it."""
    threads.set_num_threads(2)
    assert threads.shares() == 2
    for _ in range(12):
        REAL_BACK_OFF(True)
    assert threads._backoff["wait"] == threads.BACKOFF_MAX == 1.0
    assert threads.shares() == 1
    a = np.ones((2048, 64), np.complex64)   # (the pool's path: gemm_split's kernel never pauses)
    assert threads.matmul(a, a.T) is None
    np.testing.assert_array_equal(cpu.matmul(a, a.T), np.matmul(a, a.T))
    REAL_BACK_OFF(False)                    # a split that paid
    assert threads._backoff["wait"] == 0.0
    threads.set_num_threads(2)
    assert threads.shares() == 2


def test_products_it_does_not_split_go_back_to_numpy():
    a = np.ones((4, 8, 8), np.float32)
    assert threads.matmul(a, np.ones((8, 8), np.float32)) is None          # small
    stacks = np.ones((4, 1, 64, 256), np.float32)                          # two stacks
    assert threads.matmul(stacks, np.ones((1, 3, 256, 256), np.float32)) is None  # broadcast
    assert threads.matmul(np.ones(512), np.ones((512, 512))) is None       # a vector
    assert threads.matmul(np.ones((512, 512), int), np.ones((512, 512), int)) is None


@pytest.mark.parametrize("dtype, shapes", [
    (np.float32, ((64, 784), (784, 256))), (np.float64, ((40, 3000), (3000, 600))),
    (np.complex64, ((64, 2048), (2048, 256)))], ids=str)
def test_products_of_few_rows_split_by_columns_the_same_under_every_thread_count(
        dtype, shapes, restore_threads):
    """Fewer rows than two row blocks: column blocks fixed by the shape, so one and two
    threads give the same bits; within float rounding of one unsplit BLAS call."""
    rng = np.random.default_rng(3)
    a = rng.standard_normal(shapes[0]).astype(dtype)
    b = rng.standard_normal(shapes[1]).astype(dtype)
    chunks = threads.column_chunks(a.shape[0], a.shape[1], b.shape[1])
    assert len(chunks) >= 2 and all(lo % threads.COL_ALIGN == 0 for lo, _ in chunks)
    assert chunks[0][0] == 0 and chunks[-1][1] == b.shape[1]
    got = []
    for n in (1, 2):
        threads.set_num_threads(n)
        for x in (a, np.ascontiguousarray(a.T).T):
            out = threads.matmul(x, b)
            assert out is not None and out.dtype == dtype
            got.append(out)
    for out in got[1:]:
        np.testing.assert_array_equal(out, got[0])
    ref = np.matmul(a.astype(np.complex128), b.astype(np.complex128))
    tol = 1e-12 if dtype == np.float64 else 1e-5
    np.testing.assert_allclose(got[0], ref, rtol=tol, atol=tol * np.abs(ref).max())


@two_cores
@pytest.mark.parametrize("n", [2, 5, 4097])
def test_split_ufuncs_match_numpy(n, restore_threads):
    threads.set_num_threads(2)
    rng = np.random.default_rng(1)
    x = rng.standard_normal((n, 300))
    row = rng.standard_normal(300)
    for ufunc, args in ((np.exp, (x,)), (np.add, (x, row)), (np.multiply, (x, 2.0))):
        out = np.empty_like(x)
        cpu._split(ufunc, out, *args)
        np.testing.assert_array_equal(out, ufunc(*args))


@two_cores
def test_share_runs_each_chunk_once_and_reraises(restore_threads):
    threads.set_num_threads(2)
    seen, lock = [], threading.Lock()

    def work(i):
        with lock:
            seen.append(i)
    threads.share(work, 37)
    assert sorted(seen) == list(range(37))

    def fails(i):
        if i == 20:
            raise KeyError("chunk 20")
    with pytest.raises(KeyError, match="chunk 20"):
        threads.share(fails, 40)


@two_cores
def test_gradients_identical_under_one_and_two_threads(restore_threads):
    """A layer whose products and activations are large enough to be split."""
    rng = np.random.default_rng(2)
    w1 = rng.standard_normal((64, 256)).astype(np.float32) / 8
    w2 = rng.standard_normal((256, 64)).astype(np.float32) / 16
    xs = rng.standard_normal((2048, 64)).astype(np.float32)

    def grads(n):
        threads.set_num_threads(n)
        a, b = (eagerad.tensor(w, requires_grad=True) for w in (w1, w2))
        h = (eagerad.tensor(xs) @ a).tanh()
        loss = ((h @ b) ** 2).sum()
        ga, gb = eagerad.autograd.grad(loss, [a, b])
        return [g.numpy() for g in (ga, gb)] + [loss.numpy()]
    for one, two in zip(grads(1), grads(2)):
        np.testing.assert_array_equal(one, two)


def _direct_conv(x, w, stride, pads):
    """Cross-correlation by windows (float64), the oracle for ``conv_gemm``."""
    xp = np.pad(x.astype(np.float64), ((0, 0), (0, 0), pads[:2], pads[2:]))
    win = np.lib.stride_tricks.sliding_window_view(xp, w.shape[2:], axis=(2, 3))
    win = win[:, :, ::stride[0], ::stride[1]]
    return np.einsum("ncyxij,ocij->noyx", win, w.astype(np.float64))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_convolution_image_chunks_give_the_same_bits_for_any_chunking_and_threads(
        dtype, restore_threads, monkeypatch):
    """``conv_gemm`` works through the batch in image chunks shared over the pool: one
    chunk on one thread, one image per chunk on two threads and the default chunking
    all give the same bits, and the window-sum oracle's numbers."""
    from eagerad.backend.cpu import conv_gemm
    rng = np.random.default_rng(4)
    x = rng.standard_normal((13, 3, 11, 9)).astype(dtype)
    w = rng.standard_normal((5, 3, 3, 2)).astype(dtype)
    b = rng.standard_normal(5).astype(dtype)
    geometry = ((2, 1), (1, 1), (1, 0, 2, 1))
    plain = _direct_conv(x, w, (2, 1), (1, 0, 2, 1))
    g = rng.standard_normal(plain.shape).astype(dtype)

    def run(threads_, chunk_bytes, share_min):
        threads.set_num_threads(threads_)
        monkeypatch.setattr(conv_gemm, "CHUNK_BYTES", chunk_bytes)
        monkeypatch.setattr(conv_gemm, "SHARE_MIN", share_min)
        return [conv_gemm.conv2d_gemm(x, w, b, geometry).copy(),
                conv_gemm.conv2d_gemm_grad_input(g, w, x.shape[2:], geometry).copy(),
                conv_gemm.conv2d_gemm_grad_weight(g, x, w.shape, geometry).copy()]
    whole = run(1, 1 << 40, 1 << 40)
    for got in (run(2, 1, 0), run(2, conv_gemm.CHUNK_BYTES, 0), run(1, 1, 0)):
        for a, ref in zip(got, whole):
            np.testing.assert_array_equal(a, ref)
    tol = 1e-4 if dtype == np.float32 else 1e-10
    np.testing.assert_allclose(whole[0], plain + b.reshape(1, 5, 1, 1), rtol=tol, atol=tol)
    # the adjoint identity <conv(x), g> = <x, grad_input(g)> = <w, grad_weight(g, x)>
    inner = float(plain.ravel() @ g.astype(np.float64).ravel())
    assert np.isclose(float(x.astype(np.float64).ravel() @ whole[1].astype(np.float64).ravel()),
                      inner, rtol=tol * 10)
    assert np.isclose(float(w.astype(np.float64).ravel() @ whole[2].astype(np.float64).ravel()),
                      inner, rtol=tol * 10)


@two_cores
def test_max_pool_index_kernels_split_over_images_keep_every_bit(restore_threads):
    """Large max-pool calls are split over the pool by images: indices, pooled values and
    the scattered gradient equal one thread's, and the pooled values are the maxima."""
    from eagerad.backend.cpu import fused
    rng = np.random.default_rng(5)
    x = rng.standard_normal((64, 8, 28, 28)).astype(np.float32)
    x[3, 2, 4:6, 6:8] = 0.5                  # a tie: the first maximum wins
    g = rng.standard_normal((64, 8, 14, 14)).astype(np.float32)
    geometries = [((2, 2), (2, 2), (1, 1), (0, 0, 0, 0)), ((3, 3), (2, 2), (1, 1), (1, 1, 1, 1))]

    def run(n, geometry):
        threads.set_num_threads(n)
        idx = fused.max_pool_argmax(x, geometry)
        return idx, fused.pool_take(x, idx, -np.inf), fused.pool_put(g, idx, x.shape[2:]).copy()
    for geometry in geometries:
        for one, two in zip(run(1, geometry), run(2, geometry)):
            np.testing.assert_array_equal(one, two)
    idx, pooled, _ = run(2, geometries[0])
    np.testing.assert_array_equal(pooled, x.reshape(64, 8, 14, 2, 14, 2).max(axis=(3, 5)))
    assert idx[3, 2, 2, 3] == 4 * 28 + 6
