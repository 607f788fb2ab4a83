"""vmap levels and forward-mode levels are per thread (issue 22, item 5): four threads
running vmap, forward mode, reverse mode and their compositions at once get, in every
iteration, exactly what one thread gets."""
import sys
import threading

import numpy as np
import pytest

import eagerad
from eagerad import custom_vjp, func
from eagerad.autograd import batching, forward_ad as fwAD

F64 = eagerad.float64
THREADS, ITERATIONS = 4, 200


def _inputs(k):
    rng = np.random.default_rng(k)
    return (eagerad.tensor(rng.normal(size=(3, 4)), dtype=F64),
            eagerad.tensor(rng.normal(size=4), dtype=F64))


def _f(x):
    return (x.tanh() * x.exp()).sum()


def _dual(x, v):
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        t = fwAD.unpack_dual((d.sin() * d).sigmoid()).tangent
    assert t is not None, "a tangent went missing"
    return t


def _backward(xs):
    x = xs.detach().requires_grad_()
    _f(x).backward()
    return x.grad


@custom_vjp
def _clipped(x):
    return x * 1.0


_clipped.defvjp(lambda x: (x * 1.0, None), lambda res, g: (g.clip(-0.5, 0.5),))

# each: (inputs) -> tensors; run by one thread, then by four at once
WORKLOADS = {
    "vmap": lambda xs, v: eagerad.vmap(lambda r: (r * v).sum().sin())(xs),
    "nested vmap": lambda xs, v: eagerad.vmap(eagerad.vmap(lambda a: a.cos() * 2))(xs),
    "jvp": lambda xs, v: eagerad.jvp(lambda r: r.sin() * r, (xs[0],), (v,))[1],
    "dual level": lambda xs, v: _dual(xs[1], v),
    "reverse": lambda xs, v: eagerad.grad(_f)(xs),
    "backward": lambda xs, v: _backward(xs),
    "vmap of grad": lambda xs, v: eagerad.vmap(eagerad.grad(_f))(xs),
    "jacfwd of jacrev": lambda xs, v: eagerad.jacfwd(eagerad.jacrev(lambda r: r.sin() * r))(v),
    "hvp": lambda xs, v: eagerad.jvp(eagerad.grad(_f), (xs[0],), (v,))[1],
    "func.vmap of jvp": lambda xs, v: func.vmap(
        lambda r: func.jvp(lambda a: a.exp(), (r,), (v,))[1])(xs),
    "custom_vjp": lambda xs, v: eagerad.grad(lambda r: (_clipped(r) * 3.0).sum())(xs),
}


def _numbers(out):
    outs = out if isinstance(out, (tuple, list)) else (out,)
    return [np.array(o.numpy(), copy=True) for o in outs]


@pytest.mark.parametrize("name", sorted(WORKLOADS))
def test_four_threads_get_the_single_threaded_numbers(name):
    work = WORKLOADS[name]
    data = [_inputs(k) for k in range(THREADS)]
    expected = [_numbers(work(*d)) for d in data]
    failures = []
    barrier = threading.Barrier(THREADS)

    def run(k):
        try:
            barrier.wait()
            for i in range(ITERATIONS):
                got = _numbers(work(*data[k]))
                if len(got) != len(expected[k]) or not all(
                        np.array_equal(a, b) for a, b in zip(got, expected[k])):
                    failures.append(f"thread {k}, iteration {i}: {got} != {expected[k]}")
                    return
        except BaseException as exc:       # noqa: BLE001 -- reported below, with its thread
            failures.append(f"thread {k}: {type(exc).__name__}: {exc}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)            # switch threads often: interleave the levels
    try:
        threads = [threading.Thread(target=run, args=(k,)) for k in range(THREADS)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    assert not failures, failures[:3]
    assert not batching.levels and not fwAD.levels     # every level closed again


def test_a_level_opened_on_one_thread_is_not_open_on_another():
    seen = {}
    opened, checked = threading.Event(), threading.Event()

    def other():
        opened.wait()
        seen["vmap"] = batching.active()
        seen["forward"] = fwAD.active()
        checked.set()

    t = threading.Thread(target=other)
    t.start()
    with fwAD.dual_level() as level:
        vlevel = batching.push(2)
        try:
            opened.set()
            checked.wait()
            assert fwAD.active() == [level] and batching.active() == [vlevel]
        finally:
            batching.pop()
    t.join()
    assert seen == {"vmap": [], "forward": []}
    with pytest.raises(RuntimeError, match="dual_level"):
        threading.Thread(target=lambda: fwAD.make_dual(eagerad.ones(1), eagerad.ones(1))).run()
