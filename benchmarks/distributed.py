"""Data-parallel step time over MPI: 1 rank vs 2 ranks, and whether the gradient
all-reduce overlaps with backward.

Run ``python benchmarks/distributed.py`` (needs ``pip install 'eagerad[distributed]'``);
it starts itself through ``python -m eagerad.distributed.run`` with 1 and then 2 ranks
(``OMP_NUM_THREADS=1``: one core per rank).  Workload: an MLP 1024 -> 4 x 1024 tanh ->
10 in float32 (about 4.2 M parameters, 16.8 MB of gradients), mean squared error, SGD,
``--batch`` rows per rank.  Reported per rank count (medians over ``--repeat`` rounds
after a warm-up; each round runs the three workloads once each, interleaved, every call
started after a barrier):

- compute only: forward + backward + update of the bare model on this rank's batch
- communication only: the same bucketed all-reduces DDP starts, one after the other,
  with nothing else running
- DDP step: forward + backward (all-reduce overlapped) + update through
  ``DistributedDataParallel``

With 2 ranks, DDP step < compute + communication shows the overlap; "waited" is the
part of the communication still running when backward ended (the rest was hidden).
On a machine whose cores are all busy computing, the copies MPI makes for the
all-reduce compete with the compute for the same cores, which limits what can be hidden.  ``--smoke`` shrinks
everything (a correctness run whose timings mean nothing).
"""
import argparse
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)     # the checkout


def interleaved_medians(steps, barrier, repeat, warmup=2):
    """Median seconds of each of ``steps`` over ``repeat`` rounds, one call of each per round
    (interleaved, so a load change on a shared machine hits them all alike); every call
    starts after a barrier."""
    for _ in range(warmup):
        for step in steps:
            step()
    times = [[] for _ in steps]
    for _ in range(repeat):
        for step, row in zip(steps, times):
            barrier()
            start = time.perf_counter()
            step()
            row.append(time.perf_counter() - start)
    return [float(np.median(row)) for row in times]


def rank_main(args):
    import eagerad
    from eagerad import distributed as dist
    from eagerad.distributed import reducer as reducer_module
    from eagerad.distributed.buckets import start_allreduce
    from eagerad.distributed.ddp import DistributedDataParallel
    from eagerad.distributed.process_group import group

    dist.init_process_group(backend="mpi", timeout=120)
    rank, n = dist.get_rank(), dist.get_world_size()
    width, depth = (32, 2) if args.smoke else (args.width, args.depth)
    batch = 8 if args.smoke else args.batch
    nn = eagerad.nn

    def mlp():
        eagerad.manual_seed(0)
        layers = [nn.Linear(width, width), nn.Tanh()]
        for _ in range(depth - 1):
            layers += [nn.Linear(width, width), nn.Tanh()]
        return nn.Sequential(*layers, nn.Linear(width, 10))

    rng = np.random.default_rng(rank)
    x = eagerad.tensor(rng.standard_normal((batch, width)).astype(np.float32))
    y = eagerad.tensor(rng.standard_normal((batch, 10)).astype(np.float32))

    def stepper(model):
        opt = eagerad.optim.SGD(model.parameters(), lr=1e-3)

        def step():
            opt.zero_grad()
            ((model(x) - y) ** 2).mean().backward()
            opt.step()
        return step

    ddp = DistributedDataParallel(mlp(), bucket_cap_mb=args.bucket_mb)
    buckets = ddp.reducer.buckets
    buffers = [np.ones(b.numel, b.dtype) for b in buckets]

    def communicate():
        for j, buf in enumerate(buffers):
            start_allreduce(group(), buf, f"bucket {j}").wait()
    waits = []
    finish = reducer_module._Pass.finish

    def timed_finish(state):
        start = time.perf_counter()
        finish(state)
        waits.append(time.perf_counter() - start)
    reducer_module._Pass.finish = timed_finish
    compute, comm, overlapped = interleaved_medians([stepper(mlp()), communicate, stepper(ddp)],
                                                    dist.barrier, args.repeat)
    reducer_module._Pass.finish = finish
    exposed = float(np.median(waits))
    params = sum(p.numel() for p in ddp.parameters())
    if rank == 0:
        print(f"ranks={n} params={params} buckets={len(buckets)} batch/rank={batch}: "
              f"compute only {compute * 1e3:8.1f} ms | communication only {comm * 1e3:7.1f} ms | "
              f"compute + communication {(compute + comm) * 1e3:8.1f} ms | "
              f"DDP step {overlapped * 1e3:8.1f} ms (waited {exposed * 1e3:.1f} ms for the "
              "all-reduce after backward)", flush=True)
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--rank-side", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--smoke", action="store_true", help="tiny sizes (checks, not timings)")
    p.add_argument("--width", type=int, default=1024)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--batch", type=int, default=256, help="rows per rank")
    p.add_argument("--bucket-mb", type=float, default=4.0)
    p.add_argument("--repeat", type=int, default=7)
    args = p.parse_args()
    if args.rank_side:
        return rank_main(args)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.setdefault("OMP_NUM_THREADS", "1")
    for nproc in (1, 2):
        subprocess.run([sys.executable, "-m", "eagerad.distributed.run", "--nproc", str(nproc),
                        os.path.abspath(__file__), "--rank-side"] + sys.argv[1:],
                       env=env, check=True)


if __name__ == "__main__":
    main()
