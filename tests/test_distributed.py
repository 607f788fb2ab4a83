"""Data parallelism over MPI, run for real: ``mpiexec -n 2 python tests/test_distributed.py
<scenario>`` in a subprocess (this file is also the ranks' script).

* train: 20 steps of SGD and of Adam, PyTorch spelling (DistributedDataParallel) and
  MindSpore spelling (value_and_grad + DistributedGradReducer): both ranks' parameters are
  bitwise identical and equal one process trained on the whole batch to float64
  round-off; no_sync accumulation equals one big step; every collective vs numpy;
  mismatched shapes are reported with every rank's shape, not reduced.
* failures: a rank raising mid-step, a rank killed, a rank skipping a collective (the
  watchdog) end the job with an error naming the rank, within the timeout.
"""
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
TIMEOUT_S = 40

mpi4py = pytest.importorskip("mpi4py", reason="the [distributed] extra (mpi4py + mpich) is "
                             "not installed: pip install 'eagerad[distributed]'")


def launch(scenario, nproc=2, script=os.path.abspath(__file__), **extra_env):
    """Run ``script scenario`` on ``nproc`` ranks through the launcher; (returncode, output,
    seconds)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""),
               **extra_env)
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "eagerad.distributed.run", "--nproc", str(nproc),
                           script] + ([scenario] if scenario else []),
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=TIMEOUT_S)
    return proc.returncode, proc.stdout + proc.stderr, time.monotonic() - start


CHECK = re.compile(r"^check (.+): max error (\S+) \(tolerance (\S+)\) (ok|FAILED)$", re.M)


@pytest.mark.parametrize("face, checks", [("torch", 16), ("mindspore", 24)])
def test_tutorial_ranks_agree_and_match_one_process_every_step(face, checks):
    rc, out, _ = launch(None, script=os.path.join(ROOT, "tutorials", f"distributed_{face}.py"))
    assert rc == 0, out
    found = CHECK.findall(out)
    assert len(found) == checks, out
    for label, err, tol, status in found:
        assert status == "ok" and float(err) <= float(tol), (label, err, tol)


def test_training_matches_one_process_in_both_spellings():
    rc, out, _ = launch("train")
    assert rc == 0, out
    for rank in (0, 1):
        assert f"rank {rank}: all checks passed" in out, out


def test_cuda_tensors_are_staged_through_the_host():
    """Under numba's CUDA simulator: collectives and DDP on CUDA tensors give the CPU's
    numbers and leave the results on the device."""
    rc, out, _ = launch("cuda", NUMBA_ENABLE_CUDASIM="1")
    assert rc == 0, out
    for rank in (0, 1):
        assert f"rank {rank}: cuda checks passed" in out, out


@pytest.mark.parametrize("scenario, says", [
    # a rank raising: its excepthook names it and aborts the job
    ("raise", ["rank 1 of 2 failed", "ValueError: boom at step 3"]),
    # a rank killed: mpiexec stops the job, the launcher names the rank
    ("kill", ["eagerad.distributed.run: rank 1 (pid", "ended abnormally"]),
    # a rank that never joins a collective: the other's watchdog fires
    ("skip", ["rank 0: all_reduce (argument check) did not complete within 1.5 s"]),
])
def test_a_failing_rank_ends_the_job_with_an_error_naming_it(scenario, says):
    rc, out, seconds = launch(scenario)
    assert rc != 0, out
    for text in says:
        assert text in out, out
    assert "rank 0 finished" not in out, out
    assert seconds < TIMEOUT_S


# --------------------------------------------------------------- the ranks' side
def _data(rows=8):
    rng = np.random.default_rng(7)
    return rng.standard_normal((rows, 5)), rng.standard_normal((rows, 3))


def _mlp(eagerad, seed):
    eagerad.manual_seed(seed)
    nn = eagerad.nn
    return nn.Sequential(nn.Linear(5, 16, dtype=eagerad.float64), nn.Tanh(),
                         nn.Linear(16, 3, dtype=eagerad.float64))


def _mse(face, net, x, y):
    return ((net(_as_tensor(face)(x)) - _as_tensor(face)(y)) ** 2).mean()


def _as_tensor(face):
    """The face's dtype-keeping constructor: ``torch.tensor`` or ``mindspore.Tensor``."""
    return getattr(face, "tensor", None) or face.Tensor


def _same_everywhere(dist, face, params, what):
    """Every rank's parameters are bitwise those of rank 0."""
    for p in params:
        mine = _as_tensor(face)(p.numpy().copy())
        assert mine.dtype == p.dtype
        every = [_as_tensor(face)(np.zeros_like(p.numpy())) for _ in range(dist.get_world_size())]
        dist.all_gather(every, mine)
        for t in every[1:]:
            assert np.array_equal(t.numpy(), every[0].numpy()), what


def _close(a_params, b_params, what, tol=1e-12):
    for a, b in zip(a_params, b_params):
        err = np.abs(a.numpy() - b.numpy()).max()
        assert err <= tol * max(1.0, np.abs(a.numpy()).max()), (what, err)


def _torch_spelling(rank, n):
    import eagerad.torch as torch
    import eagerad.torch.distributed as dist
    from eagerad.torch.nn.parallel import DistributedDataParallel as DDP
    x, y = _data()
    rows = len(x) // n
    mine = slice(rank * rows, (rank + 1) * rows)
    for name in ("SGD", "Adam"):
        Opt = getattr(torch.optim, name)
        ref = _mlp(torch, 0)
        model = DDP(_mlp(torch, 1 + rank))       # different starts: DDP takes rank 0's
        ref.load_state_dict(model.module.state_dict())
        o_ref, o_ddp = Opt(ref.parameters(), lr=0.05), Opt(model.parameters(), lr=0.05)
        for _ in range(20):
            o_ref.zero_grad()
            _mse(torch, ref, x, y).backward()
            o_ref.step()
            o_ddp.zero_grad()
            _mse(torch, model, x[mine], y[mine]).backward()
            o_ddp.step()
        grad = next(model.parameters()).grad
        assert "tensor(" in repr(grad) and grad.shape == next(model.parameters()).shape
        _same_everywhere(dist, torch, model.parameters(), f"torch {name}")
        _close(ref.parameters(), model.module.parameters(), f"torch {name}")
        moved = max(np.abs(p.numpy() - q.numpy()).max() for p, q in
                    zip(model.module.parameters(), _mlp(torch, 1).parameters()))
        assert moved > 1e-3, moved       # the comparison is not vacuous: training moved them
    # buffers (running statistics) start as rank 0's and are re-sent before each forward
    bn = torch.nn.BatchNorm1d(3)
    with torch.no_grad():
        bn.running_mean.add_(rank + 1.0)
    net = DDP(bn)
    assert bn.running_mean.tolist() == [1.0, 1.0, 1.0], bn.running_mean
    net(torch.tensor(x[:4, :3] * (rank + 1)))          # each rank updates its own statistics
    mine = bn.running_mean.numpy().copy()
    with torch.no_grad():
        net(torch.tensor(x[:4, :3]))
    every = [torch.zeros(3) for _ in range(n)]
    dist.all_gather(every, torch.tensor(mine))
    assert not np.array_equal(every[0].numpy(), every[1].numpy())
    expect = every[0].numpy() * 0.9 + 0.1 * x[:4, :3].mean(axis=0)   # rank 0's, then updated
    assert np.allclose(bn.running_mean.numpy(), expect, atol=1e-6), (bn.running_mean, expect)


def _no_sync(dist, eagerad, DDP, rank, n):
    x, y = _data(16)
    quarter = len(x) // (2 * n)        # two micro-batches per rank
    ref = _mlp(eagerad, 3)
    model = DDP(_mlp(eagerad, 3))
    _mse(eagerad, ref, x, y).backward()
    parts = [slice((2 * rank + k) * quarter, (2 * rank + k + 1) * quarter) for k in (0, 1)]
    with model.no_sync():
        (_mse(eagerad, model, x[parts[0]], y[parts[0]]) / 2).backward()
    (_mse(eagerad, model, x[parts[1]], y[parts[1]]) / 2).backward()
    for p, q in zip(ref.parameters(), model.module.parameters()):
        assert np.abs(p.grad.numpy() - q.grad.numpy()).max() < 1e-13, "no_sync"
    # an unused parameter: refused by default, skipped with find_unused_parameters
    class FirstOnly(eagerad.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = eagerad.nn.Linear(2, 1, dtype=eagerad.float64)
            self.b = eagerad.nn.Linear(2, 1, dtype=eagerad.float64)

        def forward(self, v):
            return self.a(v)
    net = FirstOnly()
    try:
        DDP(net)(eagerad.ones(1, 2, dtype=eagerad.float64))
        raise AssertionError("an unused parameter was accepted")
    except RuntimeError as exc:
        assert "find_unused_parameters=True" in str(exc) and "'b.weight'" in str(exc), exc
    lone = DDP(net, find_unused_parameters=True)
    if rank == 0:       # a forward that is never differentiated, on one rank only: no MPI
        lone(eagerad.ones(1, 2, dtype=eagerad.float64))
    lone(eagerad.ones(1, 2, dtype=eagerad.float64) * (rank + 1)).sum().backward()
    assert net.b.weight.grad is None and net.a.weight.grad.tolist() == [[1.5, 1.5]]


def _mindspore_spelling(dist, rank, n):
    import eagerad.mindspore as ms
    from eagerad.mindspore import communication, nn
    from eagerad.distributed.grad_reducer import grad_reducer_for
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL, gradients_mean=True,
                                 device_num=communication.get_group_size())
    x, y = _data()
    rows = len(x) // n
    mine = slice(rank * rows, (rank + 1) * rows)

    def mlp():
        ms.set_seed(0)
        return nn.SequentialCell(nn.Dense(5, 16, dtype=ms.float64), nn.Tanh(),
                                 nn.Dense(16, 3, dtype=ms.float64))
    for name in ("SGD", "Adam"):
        Opt = getattr(nn, name)
        ref, net = mlp(), mlp()
        o_ref = Opt(ref.trainable_params(), learning_rate=0.05)
        o_net = Opt(net.trainable_params(), learning_rate=0.05)
        reducer = nn.DistributedGradReducer(o_net.parameters)
        step_ref = ms.value_and_grad(lambda a, b: _mse(ms, ref, a, b), None, o_ref.parameters)
        step_net = ms.value_and_grad(lambda a, b: _mse(ms, net, a, b), None, o_net.parameters)
        for _ in range(20):
            o_ref(step_ref(x, y)[1])
            o_net(reducer(step_net(x[mine], y[mine])[1]))
        _same_everywhere(dist, ms, net.trainable_params(), f"mindspore {name}")
        _close(ref.trainable_params(), net.trainable_params(), f"mindspore {name}")
    params = net.trainable_params()
    assert isinstance(grad_reducer_for(params), nn.DistributedGradReducer.__mro__[1])
    summed = nn.DistributedGradReducer(params, mean=False)(
        tuple(ms.ops.ones_like(p) * (rank + 1) for p in params))
    for p, t in zip(params, summed):
        assert np.array_equal(t.numpy(), np.full(p.shape, n * (n + 1) / 2)) and t.dtype == p.dtype
    ms.reset_auto_parallel_context()
    assert grad_reducer_for(params)(summed) is summed       # stand-alone: the identity
    # the communication primitives: new tensors, inputs untouched, MindSpore's face
    x = ms.Tensor(np.arange(2.0 * n * 2).reshape(2 * n, 2) * (rank + 1))
    before = x.asnumpy().copy()
    total = ms.ops.AllReduce(ms.ops.ReduceOp.SUM)(x)
    whole = np.arange(2.0 * n * 2).reshape(2 * n, 2) * (n * (n + 1) / 2)
    assert np.array_equal(total.asnumpy(), whole) and np.array_equal(x.asnumpy(), before)
    assert repr(total).startswith("Tensor(shape=")
    part = ms.ops.ReduceScatter(ms.ops.ReduceOp.SUM)(x)
    assert np.array_equal(part.asnumpy(), whole[2 * rank:2 * rank + 2])
    gathered = ms.ops.AllGather()(x[:1])
    assert np.array_equal(gathered.asnumpy(), np.stack([before[0] / (rank + 1) * (k + 1)
                                                        for k in range(n)]))
    (root,) = ms.ops.Broadcast(n - 1)((x,))
    assert np.array_equal(root.asnumpy(), before / (rank + 1) * n)


def _collectives(dist, eagerad, rank, n):
    reducers = {"sum": np.sum, "max": np.max, "min": np.min, "prod": np.prod}
    for dtype in ("float16", "float32", "float64", "int8", "int32", "int64", "uint8", "bool"):
        per_rank = [np.arange(1, 7).reshape(2, 3) * (k + 1) % 5 for k in range(n)]
        per_rank = [a.astype(dtype) for a in per_rank]
        stacked = np.stack(per_rank)
        for op, fn in reducers.items():
            t = eagerad.tensor(per_rank[rank].copy())
            dist.all_reduce(t, op)
            want = (stacked.any(0) if op in ("sum", "max") else stacked.all(0)) if dtype == "bool" \
                else fn(stacked, axis=0).astype(dtype)
            assert np.array_equal(t.numpy(), want), (dtype, op, t.numpy(), want)
        gathered = [eagerad.zeros(2, 3, dtype=dtype) for _ in range(n)]
        dist.all_gather(gathered, eagerad.tensor(per_rank[rank]))
        assert all(np.array_equal(g.numpy(), a) for g, a in zip(gathered, per_rank)), dtype
        out = eagerad.zeros(2 * n, 3, dtype=dtype)
        dist.all_gather_into_tensor(out, eagerad.tensor(per_rank[rank]))
        assert np.array_equal(out.numpy(), np.concatenate(per_rank)), dtype
        b = eagerad.tensor(per_rank[rank].copy())
        dist.broadcast(b, src=1)
        assert np.array_equal(b.numpy(), per_rank[1]), dtype
    big = [np.arange(4 * n, dtype=np.float64).reshape(2 * n, 2) ** (k + 1) for k in range(n)]
    out = eagerad.zeros(2, 2, dtype=eagerad.float64)
    dist.reduce_scatter_tensor(out, eagerad.tensor(big[rank]))
    assert np.array_equal(out.numpy(), sum(big)[2 * rank:2 * rank + 2])
    mean = eagerad.tensor(np.array([1.0, 2.0]) * (rank + 1)).T      # any layout
    work = dist.all_reduce(mean, dist.ReduceOp.AVG, async_op=True)
    assert work.wait() and work.is_completed()
    assert np.allclose(mean.numpy(), np.array([1.0, 2.0]) * (n + 1) / 2)
    lists = [eagerad.tensor(np.full(3, 10.0 * k + rank)) for k in range(n)]
    got = eagerad.zeros(3, dtype=eagerad.float64)
    dist.reduce_scatter(got, lists, "sum")
    assert np.array_equal(got.numpy(), np.full(3, 10.0 * rank * n + sum(range(n))))
    dist.barrier()


def _cuda(dist, eagerad, DDP, rank, n):
    t = eagerad.tensor(np.arange(4.0) * (rank + 1), device="cuda")
    dist.all_reduce(t, "mean")
    assert t.device.type == "cuda" and np.array_equal(t.numpy(), np.arange(4.0) * (n + 1) / 2)
    b = eagerad.tensor(np.full(3, rank, np.float32), device="cuda")
    dist.broadcast(b, src=n - 1)
    assert np.array_equal(b.numpy(), np.full(3, n - 1, np.float32))
    out = [eagerad.zeros(2, device="cuda") for _ in range(n)]
    dist.all_gather(out, eagerad.tensor([rank, rank + 0.5], device="cuda"))
    assert [o.numpy().tolist() for o in out] == [[k, k + 0.5] for k in range(n)]
    x, y = _data(4)
    rows = len(x) // n
    mine = slice(rank * rows, (rank + 1) * rows)
    ref, model = _mlp(eagerad, 0), DDP(_mlp(eagerad, 0).to("cuda"))
    _mse(eagerad, ref, x, y).backward()
    xc, yc = (eagerad.tensor(a[mine], device="cuda") for a in (x, y))
    ((model(xc) - yc) ** 2).mean().backward()
    for p, q in zip(ref.parameters(), model.module.parameters()):
        assert q.grad.device.type == "cuda"
        assert np.abs(p.grad.numpy() - q.grad.numpy()).max() < 1e-12


def _mismatch(dist, eagerad, DDP, rank):
    """Mismatched shapes are reported on every rank, with each rank's shape."""
    try:
        dist.all_reduce(eagerad.zeros(3 + rank, dtype=eagerad.float64))
        raise AssertionError("mismatched shapes were reduced")
    except ValueError as exc:
        assert str(exc) == (
            "all_reduce: the ranks passed different tensors or arguments (rank 0: shape (3,) "
            "float64 op sum; rank 1: shape (4,) float64 op sum); every rank must call the same "
            "collective with the same shapes and dtypes"), exc
    try:
        DDP(eagerad.nn.Sequential(eagerad.nn.Linear(2, 3 + rank)))
        raise AssertionError("models of different shapes were accepted")
    except ValueError as exc:
        assert "DistributedDataParallel: the ranks passed different" in str(exc), exc
        assert "rank 1: 0.weight: shape (4, 2)" in str(exc), exc


def rank_main(scenario):
    import eagerad
    from eagerad import distributed as dist
    from eagerad.distributed.ddp import DistributedDataParallel as DDP
    dist.init_process_group(backend="mpi", timeout=1.5 if scenario == "skip" else 20)
    rank, n = dist.get_rank(), dist.get_world_size()
    if scenario == "train":
        _collectives(dist, eagerad, rank, n)
        _mismatch(dist, eagerad, DDP, rank)
        _torch_spelling(rank, n)
        _no_sync(dist, eagerad, DDP, rank, n)
        _mindspore_spelling(dist, rank, n)
        print(f"rank {rank}: all checks passed", flush=True)
    elif scenario == "cuda":
        _cuda(dist, eagerad, DDP, rank, n)
        print(f"rank {rank}: cuda checks passed", flush=True)
    elif scenario in ("raise", "kill"):
        x, y = _data()
        model = DDP(_mlp(eagerad, 0))
        opt = eagerad.optim.SGD(model.parameters(), lr=0.1)
        for step in range(6):
            if rank == 1 and step == 3:
                if scenario == "raise":
                    raise ValueError("boom at step 3")
                os.kill(os.getpid(), signal.SIGKILL)
            opt.zero_grad()
            _mse(eagerad, model, x[rank::n], y[rank::n]).backward()
            opt.step()
        print(f"rank {rank} finished", flush=True)
    elif scenario == "skip":
        if rank == 0:
            dist.all_reduce(eagerad.ones(2))
        else:
            time.sleep(TIMEOUT_S)
    dist.destroy_process_group()


if __name__ == "__main__":
    rank_main(sys.argv[1])
