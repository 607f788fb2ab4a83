"""Graphs are freed by reference counting alone, training keeps memory flat, and
two threads training at once get exactly the single-threaded results."""
import gc
import sys
import threading
import tracemalloc
import weakref

import numpy as np
import pytest

import eagerad
from eagerad import autograd


@pytest.fixture
def no_gc():
    gc.collect()
    gc.disable()
    yield
    gc.enable()


def _mlp_loss(w1, w2, x, y):
    h = (x @ w1).tanh()
    return ((h @ w2 - y) ** 2).mean()


def _params(seed):
    rng = np.random.default_rng(seed)
    return (eagerad.tensor(rng.normal(size=(3, 8)) * 0.5, dtype=eagerad.float64, requires_grad=True),
            eagerad.tensor(rng.normal(size=(8, 1)) * 0.5, dtype=eagerad.float64, requires_grad=True))


def _data(seed):
    rng = np.random.default_rng(seed + 100)
    x = rng.normal(size=(16, 3))
    return eagerad.tensor(x), eagerad.tensor(np.sin(x.sum(1, keepdims=True)))


def test_dropped_output_frees_the_graph_without_gc(no_gc):
    w1, w2 = _params(0)
    x, y = _data(0)
    loss = _mlp_loss(w1, w2, x, y)
    node = weakref.ref(loss.grad_fn)
    inner = weakref.ref(loss.grad_fn.next[0][0])
    del loss
    assert node() is None and inner() is None


def test_graph_freed_after_backward_and_after_create_graph(no_gc):
    w1, w2 = _params(1)
    x, y = _data(1)
    loss = _mlp_loss(w1, w2, x, y)
    node = weakref.ref(loss.grad_fn)
    loss.backward()
    del loss
    assert node() is None
    assert w1.grad is not None and w1.grad.grad_fn is None

    loss = _mlp_loss(w1, w2, x, y)
    g1, g2 = autograd.grad(loss, (w1, w2), create_graph=True)
    first = weakref.ref(loss.grad_fn)
    second = weakref.ref(g1.grad_fn)
    penalty = (g1 ** 2).sum() + (g2 ** 2).sum()
    gg = autograd.grad(penalty, w1)[0]
    assert gg.shape == w1.shape and gg.grad_fn is None
    del loss, g1, g2, penalty
    assert first() is None and second() is None


def test_hooks_and_retained_grads_do_not_leak(no_gc):
    w1, w2 = _params(2)
    x, y = _data(2)
    h = x @ w1
    h.retain_grad()
    h.register_hook(lambda g: g * 2)
    node = weakref.ref(h.grad_fn)
    ((h.tanh() @ w2) ** 2).sum().backward()
    assert h.grad.shape == h.shape
    del h
    assert node() is None


def _train(w1, w2, x, y, steps, lr=0.1):
    for _ in range(steps):
        loss = _mlp_loss(w1, w2, x, y)
        loss.backward()
        with eagerad.no_grad():
            w1.sub_(w1.grad * lr)
            w2.sub_(w2.grad * lr)
        w1.grad = None
        w2.grad = None
    return loss.item()


def test_training_steps_keep_traced_memory_flat():
    """Any per-step leak of 60 bytes or more shows up over 800 traced steps."""
    w1, w2 = _params(3)
    x, y = _data(3)
    first = _train(w1, w2, x, y, 100)         # warm caches (promotion tables, kernels)
    tracemalloc.start()
    try:
        _train(w1, w2, x, y, 300)             # allocator free lists settle
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        last = _train(w1, w2, x, y, 800)
        gc.collect()
        after = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert last < first                        # it trained
    assert after - before < 48 * 1024, f"memory grew by {after - before} bytes over 800 steps"


def test_ten_thousand_steps_keep_object_count_flat():
    w = eagerad.tensor([0.5, -0.5], dtype=eagerad.float64, requires_grad=True)
    x = eagerad.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=eagerad.float64)
    y = eagerad.tensor([1.0, 2.0], dtype=eagerad.float64)
    counts = []
    for step in range(10_000):
        loss = ((x @ w - y) ** 2).sum()
        loss.backward()
        with eagerad.no_grad():
            w.sub_(w.grad * 0.02)
        w.grad.zero_()
        if step in (999, 9999):
            gc.collect()
            counts.append(len(gc.get_objects()))
    np.testing.assert_allclose(w.numpy(), [5 / 7, 1 / 7], atol=1e-9)   # solves x w = y
    assert counts[1] - counts[0] < 50, counts


def test_two_threads_get_single_threaded_gradients():
    steps = 150
    expected = []
    for seed in (4, 5):
        w1, w2 = _params(seed)
        _train(w1, w2, *_data(seed), steps)
        expected.append((w1.numpy().copy(), w2.numpy().copy()))

    results = {}
    barrier = threading.Barrier(2)

    def worker(seed):
        w1, w2 = _params(seed)
        x, y = _data(seed)
        barrier.wait()
        _train(w1, w2, x, y, steps)
        results[seed] = (w1.numpy().copy(), w2.numpy().copy())

    old_interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)               # switch threads often, inside ops
    threads = [threading.Thread(target=worker, args=(s,)) for s in (4, 5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    sys.setswitchinterval(old_interval)
    for seed, (e1, e2) in zip((4, 5), expected):
        np.testing.assert_array_equal(results[seed][0], e1)
        np.testing.assert_array_equal(results[seed][1], e2)


def test_no_grad_is_per_thread():
    seen = {}
    inside = threading.Event()
    release = threading.Event()

    def other():
        with eagerad.no_grad():
            inside.set()
            release.wait(5)

    t = threading.Thread(target=other)
    t.start()
    inside.wait(5)
    x = eagerad.tensor([1.0], requires_grad=True)
    seen["main"] = (x * 2).requires_grad
    release.set()
    t.join()
    assert seen["main"] is True
