"""Views on the CUDA device share memory as numpy's do on the CPU.

Every sequence below writes through a view (basic indexing, transpose, diagonal,
narrow, split pieces, unbind, squeeze/unsqueeze, flatten/view, negative steps,
overlapping copies, optimizer updates through a view) and is run on the CPU and on
CUDA; the values of every tensor it returns, the gradients where it differentiates
and the version counters must be equal.  Further checks: a broadcast view refuses
writes, a view keeps its base's memory alive after the base is dropped, and graphs
built through views and in-place changes give their device memory back by reference
counting alone (``gc.disable()``).

Run as a script it executes the checks on whatever numba.cuda is (the GPU when
``NUMBA_ENABLE_CUDASIM`` is unset); under pytest they run in one simulator
subprocess, each reported as its own test.
"""
import gc
import os
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path[:0] = [os.path.dirname(os.path.abspath(__file__))] + ([ROOT] if __name__ == "__main__" else [])
from simulator_run import checks_on_simulator, run_checks  # noqa: E402


def _m(dev, rows=3, cols=4, requires_grad=False):
    import eagerad
    data = np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) / 7 - 0.5
    return eagerad.tensor(data, device=dev, requires_grad=requires_grad)


def _row_add(dev):
    x = _m(dev)
    x[1].add_(10.0)
    return [x]


def _flat_zero(dev):
    x = _m(dev)
    v = x.reshape(-1)
    v[3:7].zero_()
    return [x, v]


def _transpose_row_mul(dev):
    x = _m(dev)
    t = x.T
    t[2].mul_(3.0)             # column 2 of x
    t[:, 1] = -1.0             # row 1 of x
    return [x, t]


def _strided_slice_fill(dev):
    x = _m(dev, 4, 6)
    x[1::2, ::3].fill_(5.0)
    x[::-1][0] += 100.0        # a negative step: the last row
    return [x]


def _diagonal_and_narrow(dev):
    import eagerad
    x = _m(dev, 4, 4)
    x.diagonal().add_(1.0)
    eagerad.ops.diagonal(x, 1).mul_(-2.0)
    x.narrow(1, 1, 2).sub_(0.25)
    return [x]


def _split_unbind_squeeze(dev):
    import eagerad.torch as torch
    x = _m(dev, 4, 6)
    a, b, c = torch.split(x, [1, 2, 3], dim=1)
    b.mul_(10.0)
    rows = torch.unbind(x, 0)
    rows[3].add_(rows[0])      # reads one view of x, writes another
    u = x[2:3].squeeze(0).unsqueeze(1)
    u.div_(4.0)
    return [x, a, c]


def _view_of_view_of_transpose(dev):
    x = _m(dev, 4, 6)
    v = x.T[1:5][::2, 1:]      # strides (2, 6) in x's memory
    v.add_(v * 0 + 1.0)
    w = x.T.reshape(24)        # not viewable: a copy, which must not reach x
    w.zero_()
    return [x, v, w]


def _overlapping_writes(dev):
    x = _m(dev, 4, 4)
    x[1:] = x[:-1].clone() * 0 + x[:-1]   # numpy's overlap rule: reads before writes
    y = _m(dev, 4, 4)
    y.add_(y.T)                           # the operand is a view of the target
    z = _m(dev, 1, 8).reshape(8)
    z[1:].copy_(z[:-1])
    return [x, y, z]


def _optimizer_through_view(dev):
    import eagerad.torch as torch
    w = torch.nn.Parameter(_m(dev, 2, 3))
    opt = torch.optim.SGD([w], lr=0.5, momentum=0.9)
    for _ in range(2):
        opt.zero_grad()
        (w.T[1:] ** 2).sum().backward()
        opt.step()
    with torch.no_grad():
        w[:, 0].mul_(0.0)      # an update through a view of a parameter
    return [w.detach()]


def _graph_through_views(dev):
    import eagerad
    x = _m(dev, 3, 4, requires_grad=True)
    h = x * 1.0
    col = h[:, 1]
    col.mul_(h[:, 2].clone())  # in place through a view, recorded: rewrites h's history
    d = h.T.diagonal()
    d.add_(2.0)
    loss = (h.sin() * h).sum() + (col * col).sum()
    g, = eagerad.autograd.grad(loss, x, create_graph=True)
    gg, = eagerad.autograd.grad((g * g).sum(), x)
    return [h.detach(), g.detach(), gg]


SEQUENCES = [_row_add, _flat_zero, _transpose_row_mul, _strided_slice_fill, _diagonal_and_narrow,
             _split_unbind_squeeze, _view_of_view_of_transpose, _overlapping_writes,
             _optimizer_through_view, _graph_through_views]


def _compare(seq):
    cpu = seq("cpu")
    gpu = seq("cuda")
    assert len(cpu) == len(gpu)
    for i, (a, b) in enumerate(zip(cpu, gpu)):
        assert b.device.type == "cuda", (seq.__name__, i, b.device)
        np.testing.assert_allclose(b.numpy(), a.numpy(), rtol=1e-12, atol=1e-12,
                                   err_msg=f"{seq.__name__}: result {i}")
        assert b.version == a.version, (seq.__name__, i, a.version, b.version)
        assert b.is_contiguous() == a.is_contiguous(), (seq.__name__, i)


for _seq in SEQUENCES:
    globals()["check_" + _seq.__name__.lstrip("_")] = (lambda s: lambda: _compare(s))(_seq)


def check_strides_and_offsets_as_on_the_cpu():
    import eagerad.torch as torch
    views = [lambda x: x.T, lambda x: x[1:, ::2], lambda x: x[::-1, 2], lambda x: x.diagonal(),
             lambda x: x[:, :1].expand(4, 5), lambda x: x.unsqueeze(1)[2:],
             lambda x: x[:, 2:].reshape(4, 2, 2), lambda x: x.T[1]]
    for f in views:
        a = f(torch.as_tensor(_m("cpu", 4, 6)))
        b = f(torch.as_tensor(_m("cuda", 4, 6)))
        assert b.stride() == a.stride() and b.shape == a.shape, (a.stride(), b.stride())
        np.testing.assert_array_equal(b.cpu().numpy(), a.numpy())


def check_broadcast_view_refuses_writes():
    import eagerad
    x = _m("cuda", 1, 4)
    e = x.broadcast_to((3, 4))
    for write in (lambda: e.add_(1.0), lambda: e[0].zero_(), lambda: e.T.fill_(2.0)):
        try:       # (pytest.raises' failure is no Exception: the checks' runner needs one)
            write()
        except RuntimeError as err:
            assert "read-only broadcast view" in str(err), err
        else:
            raise AssertionError("a write into a broadcast view did not raise")
    assert eagerad.ops.sum(e).item() == pytest.approx(3 * _m("cpu", 1, 4).sum().item())


def check_view_keeps_base_memory_alive():
    import eagerad
    gc.collect()
    start = eagerad.cuda.memory_allocated()
    x = _m("cuda", 64, 64)
    expected = x.numpy()[5, ::3].copy()
    v = x[5, ::3]
    del x
    assert eagerad.cuda.memory_allocated() > start     # v holds the block
    junk = [eagerad.zeros(64 * 64, device="cuda", dtype=eagerad.float64) for _ in range(3)]
    np.testing.assert_array_equal(v.numpy(), expected)   # not overwritten by reuse
    del junk, v
    assert eagerad.cuda.memory_allocated() == start


def check_dropped_view_graphs_free_without_gc():
    import eagerad

    def step():
        out = _graph_through_views("cuda")
        _optimizer_through_view("cuda")
        _split_unbind_squeeze("cuda")
        return out

    step()                     # kernels, caches: made once
    gc.collect()
    gc.disable()
    try:
        start = eagerad.cuda.memory_allocated()
        step()
        assert eagerad.cuda.memory_allocated() == start, (start, eagerad.cuda.memory_allocated())
    finally:
        gc.enable()




def check_nocopy_strides_match_numpy():
    """The reshape rule of the CUDA views against numpy's own choice of view or copy,
    over strided arrays of many shapes."""
    from eagerad.backend.cuda import views
    rng = np.random.default_rng(0)
    base = np.arange(4 * 6 * 5 * 2).reshape(4, 6, 5, 2)
    cuts = [lambda a: a, lambda a: a.transpose(1, 0, 2, 3), lambda a: a[:, ::2],
            lambda a: a[:, :, 1:3], lambda a: a[::-1, :, :, :1], lambda a: a[:1, :1],
            lambda a: a.transpose(3, 2, 1, 0)[0]]
    tried = 0
    for cut in cuts:
        a = cut(base)
        for _ in range(12):
            shape = list(a.shape)
            if rng.random() < 0.5 and len(shape) > 1:     # merge two neighbours
                k = rng.integers(len(shape) - 1)
                shape[k:k + 2] = [shape[k] * shape[k + 1]]
            if rng.random() < 0.5:                         # split one axis / insert ones
                k = rng.integers(len(shape))
                f = next((d for d in (2, 3, 5) if shape[k] % d == 0), 1)
                shape[k:k + 1] = [f, shape[k] // f]
            if rng.random() < 0.3:
                shape.insert(int(rng.integers(len(shape) + 1)), 1)
            r = a.reshape(shape)
            ours = views.nocopy_strides(a.shape, tuple(s // 8 for s in a.strides), tuple(shape))
            if np.shares_memory(r, base):
                assert ours is not None, (a.shape, a.strides, shape)
                probe = np.lib.stride_tricks.as_strided(a, shape, tuple(8 * s for s in ours))
                np.testing.assert_array_equal(probe, r)
            else:
                assert ours is None, (a.shape, a.strides, shape, ours)
            tried += 1
    assert tried == 12 * len(cuts)


def check_views_doctests():
    """views.py's examples (the suite's doctest run skips backend/cuda)."""
    import doctest

    from eagerad.backend.cuda import views
    failed, tried = doctest.testmod(views)
    assert failed == 0 and tried > 0, (failed, tried)


CHECKS = sorted(name for name in list(globals()) if name.startswith("check_"))


@pytest.fixture(scope="module")
def sim_results():
    return checks_on_simulator(__file__, "CUDAVIEWS-RESULTS")


@pytest.mark.parametrize("name", CHECKS)
def test_on_cuda_simulator(sim_results, name):
    assert sim_results[name] == "ok", sim_results[name]


if __name__ == "__main__":
    sys.exit(0 if run_checks(globals(), "CUDAVIEWS-RESULTS") else 1)
