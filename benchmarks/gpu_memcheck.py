"""Device check of the CUDA backend's allocator, launch path and disk cache (one run).

Run ``python benchmarks/gpu_memcheck.py`` on a machine with an NVIDIA GPU (it takes
well under a minute after the kernels are compiled once).  It prints one line per
check and exits non-zero if any fails:

- the caching allocator sits on the driver's stream-ordered pool (``cuda.core``) and
  numba allocates through it (the External Memory Management plugin is installed);
- values of a few ops against the CPU, on fresh random inputs each run;
- the prepared launch path is taken (plans with a loaded function, no fallback);
- ``eagerad.cuda.memory_allocated()`` comes back after a training step's graph is
  dropped with the garbage collector off; ``empty_cache`` gives the cache back;
- ``EAGERAD_CUDA_MEMORY_LIMIT`` gives a MemoryError naming the bytes (child process);
- cold start: a child process runs the same ops after this one; it must load every
  kernel from the disk cache (numba's per-kernel cache hit/miss counts).

Under Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) it runs the same checks where
they mean something (not the pool, plans or disk cache).
"""
import gc
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

FAILED = []


def check(name, ok, detail=""):
    print(f"{'ok  ' if ok else 'FAIL'} {name}{': ' + detail if detail else ''}", flush=True)
    if not ok:
        FAILED.append(name)


def ops_workload(eagerad, rng):
    """A few ops of every launch form; returns (cuda results, cpu results)."""
    x = rng.standard_normal((37, 29)).astype(np.float32)
    y = rng.standard_normal((29,)).astype(np.float32)
    out = []
    for dev in ("cuda", "cpu"):
        a, b = eagerad.tensor(x, device=dev), eagerad.tensor(y, device=dev)
        r = [(a.tanh() * b + (-a).exp()), (a * 2.5 - 1), a.T @ a, a.sum(axis=0),
             a.max(axis=1), a[3:20:2, ::3], eagerad.ops.where(a > 0, a, b)]
        out.append([t.numpy() for t in r])
    return out


def main_checks():
    import eagerad
    from eagerad.backend import cuda as B
    from eagerad.backend.cuda import launch, memory
    sim = launch.SIMULATOR
    rng = np.random.default_rng()
    got, want = ops_workload(eagerad, rng)
    for i, (g, w) in enumerate(zip(got, want)):
        err = float(np.linalg.norm(g - w) / max(np.linalg.norm(w), 1e-30))
        check(f"values op {i}", g.shape == w.shape and err < 1e-5, f"rel err {err:.1e}")
    alloc = memory.current()
    if not sim:
        from numba.cuda.cudadrv import driver
        check("arena is the cuda.core stream-ordered pool",
              isinstance(alloc.arena, memory.PoolArena), type(alloc.arena).__name__)
        check("numba allocates through the plugin",
              driver._memory_manager is memory.plugin_class())
        before = alloc.allocated
        from numba import cuda
        d = cuda.to_device(np.ones(1000))
        check("cuda.to_device counted", alloc.allocated == before + 8192,
              f"{alloc.allocated - before} bytes")
        del d
        plans = list(launch._plans.values())
        fast = sum(p.function is not None for p in plans)
        check("prepared launches", plans and fast == len(plans), f"{fast}/{len(plans)} plans")
    # a training step's graph is given back by reference counting
    w = eagerad.tensor(rng.standard_normal((29, 5)).astype(np.float32), device="cuda",
                       requires_grad=True)
    x = eagerad.tensor(rng.standard_normal((64, 29)).astype(np.float32), device="cuda")
    labels = eagerad.tensor(rng.integers(0, 5, 64), device="cuda")

    def step():
        eagerad.ops.cross_entropy((x @ w).relu(), labels).backward()
        w.grad = None
    step()
    gc.collect()
    gc.disable()
    start = eagerad.cuda.memory_allocated()
    step()
    end = eagerad.cuda.memory_allocated()
    gc.enable()
    check("dropped graph frees without gc", end == start, f"{start} -> {end} bytes")
    eagerad.cuda.empty_cache()
    check("empty_cache", eagerad.cuda.memory_reserved() == eagerad.cuda.memory_allocated())
    print("memory stats:", eagerad.cuda.memory_stats())
    # per-op host cost of a tiny elementwise op (allocation + launch), for the notes
    v = eagerad.tensor(np.ones(16, np.float32), device="cuda")
    for _ in range(50):
        v = v * 1.0
    B.to_numpy(v._data)
    n = 10 if sim else 1000
    t0 = time.perf_counter()
    for _ in range(n):
        v = v * 1.0
    B.to_numpy(v._data)
    print(f"tiny op (16 floats, mul by scalar): {(time.perf_counter() - t0) / n * 1e6:.1f} us/op")
    return sim


def child_limit():
    """In a child with EAGERAD_CUDA_MEMORY_LIMIT=1M: a 2 MB tensor must not fit."""
    import eagerad
    small = eagerad.zeros(1000, device="cuda")
    try:
        eagerad.zeros(500_000, device="cuda")
    except MemoryError as err:
        print("LIMIT-OK", err)
    else:
        print("LIMIT-MISSING")
    del small


def child_cold():
    """The first run of ``ops_workload`` in a fresh process: its time and how many
    kernels numba compiled rather than loaded from the disk cache."""
    t0 = time.perf_counter()
    import eagerad
    from eagerad.backend.cuda import launch
    ops_workload(eagerad, np.random.default_rng(0))
    misses = sum(sum(k._cache_misses.values()) for k, _ in launch._plans)
    hits = sum(sum(k._cache_hits.values()) for k, _ in launch._plans)
    print(f"COLD {time.perf_counter() - t0:.3f} {misses} {hits}")


def run_child(mode, **env):
    proc = subprocess.run([sys.executable, os.path.abspath(__file__), mode], cwd=ROOT,
                          env=dict(os.environ, **env), capture_output=True, text=True,
                          timeout=600)
    return proc.stdout + proc.stderr[-2000:]


def main():
    sim = main_checks()
    out = run_child("limit", EAGERAD_CUDA_MEMORY_LIMIT="1M")
    check("memory limit", "LIMIT-OK" in out and "bytes requested" in out, out.strip()[-300:])
    if not sim:            # this process compiled (or loaded) the workload's kernels
        out = run_child("cold")
        if "COLD " in out:
            secs, misses, hits = out.split("COLD ")[1].split()[:3]
            check("another process loads every kernel from the disk cache",
                  int(misses) == 0 and int(hits) > 0,
                  f"{hits} loaded, {misses} compiled, first ops after import {secs} s")
        else:
            check("another process loads every kernel from the disk cache", False, out[-500:])
    print("gpu_memcheck:", "all passed" if not FAILED else f"FAILED {FAILED}")
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "limit":
        child_limit()
    elif len(sys.argv) > 1 and sys.argv[1] == "cold":
        child_cold()
    else:
        main()
