"""Side-by-side timings: eagerad against PyTorch CPU, plain numpy and hand-fused kernels.

Run ``python benchmarks/run.py`` (``--quick`` for fewer repeats; ``--interleaved`` for W1,
W3, W3-jit and W6 of eagerad and PyTorch alternated in one process, timed in CPU time).
Every library runs in its own child process, so each one pays its own imports and
allocator settings; PyTorch runs twice, with glibc's default allocator and with the mmap
and trim thresholds pinned (page faults on fresh 40 MB buffers dominate its W3
otherwise).  PyTorch is optional: its rows say "not measured" when absent.

Workloads (fastest wall time of the repeats, after a warm-up):

- W1  100-op chain ``y = tanh(sin(y) * 1.01 + 0.1)`` x25 on 16 float32, fwd+bwd, us/op
- W2  MLP step 64x784 -> 256 ReLU -> 10, cross-entropy, backward, SGD update, float32
- W3  10M float32 ``(tanh(x) * x + exp(-x)).sum()`` fwd+bwd
- W3-jit  W3 under ``eagerad.jit`` (one fused Numba pass each way; compared with torch's W3)
- W4a 1M float64 first derivative of ``sum(sin(x) * x**2)``
- W4b 1M float64 second derivative (the derivative of the summed first derivative)
- W6  PINN step: tanh MLP 1 -> 64 -> 64 -> 1 on 128 float64 points, loss on u'' (grad of
      grad, create_graph) against a source term, backward to the weights, Adam
- W5  start-up: ``import eagerad``; the seed tutorials end to end with a warm and a cold Numba cache
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PINNED = {"MALLOC_MMAP_THRESHOLD_": "67108864", "MALLOC_TRIM_THRESHOLD_": "268435456"}
W3_N, W4_N, W6_N = 10_000_000, 1_000_000, 128
WORKLOADS = ("W1", "W2", "W3", "W3-jit", "W4a", "W4b", "W6")
UNITS = {"W1": "us/op", "W2": "ms", "W3": "ms", "W3-jit": "ms", "W4a": "ms", "W4b": "ms", "W6": "ms"}
REFERENCE = {"W3-jit": "W3"}     # the workload of the other libraries a row is compared with


def threads():
    """Cores eagerad's parallel kernels use (Numba's default: every core we may run on)."""
    env = os.environ.get("NUMBA_NUM_THREADS")
    return int(env) if env else len(os.sched_getaffinity(0))


def timeit(fn, repeat, warmup=2):
    """Fastest of ``repeat`` calls after ``warmup`` calls, in seconds.

    The minimum, not the median: on a shared machine other processes only ever
    add time, and multi-threaded runs (BLAS, PyTorch, prange) suffer most."""
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


# ------------------------------------------------------------------ workloads per library


def bench_eagerad(repeat):
    import numpy as np
    import eagerad as ea
    from eagerad import ops

    rng = np.random.default_rng(0)
    res = {}

    x1 = ea.tensor(rng.standard_normal(16).astype(np.float32), requires_grad=True)

    def w1():
        y = x1
        for _ in range(25):
            y = (y.sin() * 1.01 + 0.1).tanh()
        y.sum().backward()
        x1.grad = None
    res["W1"] = timeit(w1, repeat * 20) / 100 * 1e6

    xb = ea.tensor(rng.standard_normal((64, 784)).astype(np.float32))
    labels = ea.tensor(rng.integers(0, 10, 64))
    params = [ea.tensor((rng.standard_normal(s) * 0.05).astype(np.float32), requires_grad=True)
              for s in ((784, 256), (256,), (256, 10), (10,))]

    def w2():
        w1_, b1, w2_, b2 = params
        loss = ops.cross_entropy((xb @ w1_ + b1).relu() @ w2_ + b2, labels)
        loss.backward()
        with ea.no_grad():
            for p in params:
                p.sub_(0.01 * p.grad)
                p.grad = None
    res["W2"] = timeit(w2, repeat * 5) * 1e3

    x3 = ea.tensor(rng.standard_normal(W3_N).astype(np.float32), requires_grad=True)

    def w3():
        (x3.tanh() * x3 + (-x3).exp()).sum().backward()
        x3.grad = None
    res["W3"] = timeit(w3, repeat) * 1e3

    w3_compiled = ea.jit(lambda x: (x.tanh() * x + (-x).exp()).sum())

    def w3_jit():                  # (the warm-up calls trace it and load its kernels)
        w3_compiled(x3).backward()
        x3.grad = None
    res["W3-jit"] = timeit(w3_jit, repeat) * 1e3

    x4 = ea.tensor(rng.standard_normal(W4_N), requires_grad=True)

    def w4a():
        return ea.autograd.grad((x4.sin() * x4 ** 2).sum(), x4)[0]

    def w4b():
        (g,) = ea.autograd.grad((x4.sin() * x4 ** 2).sum(), x4, create_graph=True)
        return ea.autograd.grad(g.sum(), x4)[0]
    res["W4a"] = timeit(w4a, repeat) * 1e3
    res["W4b"] = timeit(w4b, repeat) * 1e3
    res["W6"] = timeit(pinn_step(ea, ea.autograd.grad, ea.optim.Adam, ea.tensor, np), repeat * 5) * 1e3
    return res


def pinn_step(lib, grad, adam, tensor, np):
    """One W6 training step for ``lib`` (eagerad or torch, spelled alike here): u'' of a tanh
    MLP at fixed collocation points by grad of grad, a squared residual against
    ``-pi**2 sin(pi x)``, its gradient in the weights, an Adam update."""
    rng = np.random.default_rng(0)
    xs = np.linspace(0.0, 1.0, W6_N).reshape(-1, 1)
    x = tensor(xs, requires_grad=True)
    f = tensor(-np.pi ** 2 * np.sin(np.pi * xs))
    params = [tensor(rng.standard_normal(s) * scale, requires_grad=True)
              for s, scale in (((1, 64), 1.0), ((64,), 0.1), ((64, 64), 0.125), ((64,), 0.1),
                               ((64, 1), 0.125), ((1,), 0.1))]
    opt = adam(params, lr=1e-3)

    def step():
        w1, b1, w2, b2, w3, b3 = params
        u = (lib.tanh(lib.tanh(x @ w1 + b1) @ w2 + b2) @ w3 + b3).sum()
        (du,) = grad(u, x, create_graph=True)
        (d2u,) = grad(du.sum(), x, create_graph=True)
        loss = ((d2u - f) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
    return step


def bench_torch(repeat):
    import numpy as np
    import torch
    torch.set_num_threads(threads())
    rng = np.random.default_rng(0)
    res = {}

    rng.standard_normal(16)      # (W1's input, drawn as the other libraries draw it)
    res["W1"] = timeit(chain_step(torch, np), repeat * 20) / 100 * 1e6

    xb = torch.tensor(rng.standard_normal((64, 784)).astype(np.float32))
    labels = torch.tensor(rng.integers(0, 10, 64))
    params = [torch.tensor((rng.standard_normal(s) * 0.05).astype(np.float32), requires_grad=True)
              for s in ((784, 256), (256,), (256, 10), (10,))]

    def w2():
        w1_, b1, w2_, b2 = params
        loss = torch.nn.functional.cross_entropy(torch.relu(xb @ w1_ + b1) @ w2_ + b2, labels)
        loss.backward()
        with torch.no_grad():
            for p in params:
                p.sub_(0.01 * p.grad)
                p.grad = None
    res["W2"] = timeit(w2, repeat * 5) * 1e3

    x3 = torch.tensor(rng.standard_normal(W3_N).astype(np.float32), requires_grad=True)

    def w3():
        (torch.tanh(x3) * x3 + torch.exp(-x3)).sum().backward()
        x3.grad = None
    res["W3"] = timeit(w3, repeat) * 1e3

    x4 = torch.tensor(rng.standard_normal(W4_N), requires_grad=True)

    def w4a():
        return torch.autograd.grad((torch.sin(x4) * x4 ** 2).sum(), x4)[0]

    def w4b():
        (g,) = torch.autograd.grad((torch.sin(x4) * x4 ** 2).sum(), x4, create_graph=True)
        return torch.autograd.grad(g.sum(), x4)[0]
    res["W4a"] = timeit(w4a, repeat) * 1e3
    res["W4b"] = timeit(w4b, repeat) * 1e3
    res["W6"] = timeit(pinn_step(torch, torch.autograd.grad, torch.optim.Adam, torch.tensor, np),
                       repeat * 5) * 1e3
    return res


def bench_numpy(repeat):
    """Forward plus hand-derived gradients with numpy ufuncs (no autodiff)."""
    import numpy as np
    rng = np.random.default_rng(0)
    res = {}

    x1 = rng.standard_normal(16).astype(np.float32)

    def w1():
        y, saved = x1, []
        for _ in range(25):
            t = np.tanh(np.sin(y) * np.float32(1.01) + np.float32(0.1))
            saved.append((y, t))
            y = t
        g = np.ones_like(y)
        for y_in, t in reversed(saved):
            g = g * (1 - t * t) * np.float32(1.01) * np.cos(y_in)
        return g
    res["W1"] = timeit(w1, repeat * 20) / 100 * 1e6

    xb = rng.standard_normal((64, 784)).astype(np.float32)
    labels = rng.integers(0, 10, 64)
    params = [(rng.standard_normal(s) * 0.05).astype(np.float32)
              for s in ((784, 256), (256,), (256, 10), (10,))]

    def w2():
        w1_, b1, w2_, b2 = params
        h = xb @ w1_ + b1
        a = np.maximum(h, 0)
        z = a @ w2_ + b2
        e = np.exp(z - z.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        p[np.arange(64), labels] -= 1
        dz = p / 64
        da = dz @ w2_.T * (h > 0)
        grads = (xb.T @ da, da.sum(0), a.T @ dz, dz.sum(0))
        for w, g in zip(params, grads):
            w -= np.float32(0.01) * g
    res["W2"] = timeit(w2, repeat * 5) * 1e3

    x3 = rng.standard_normal(W3_N).astype(np.float32)

    def w3():
        t = np.tanh(x3)
        e = np.exp(-x3)
        (t * x3 + e).sum()
        return (1 - t * t) * x3 + t - e
    res["W3"] = timeit(w3, repeat) * 1e3

    x4 = rng.standard_normal(W4_N)

    def w4a():
        s, c = np.sin(x4), np.cos(x4)
        return c * x4 * x4 + 2 * x4 * s

    def w4b():
        s, c = np.sin(x4), np.cos(x4)
        return -s * x4 * x4 + 4 * x4 * c + 2 * s
    res["W4a"] = timeit(w4a, repeat) * 1e3
    res["W4b"] = timeit(w4b, repeat) * 1e3
    return res


def bench_fused(repeat):
    """One-pass Numba ``prange`` kernels: the compiled limit for W3 and W4."""
    import numpy as np
    from numba import njit, prange

    @njit(parallel=True, fastmath=True)
    def w3_kernel(x, grad):
        total = 0.0
        for i in prange(x.size):
            t = np.tanh(x[i])
            e = np.exp(-x[i])
            total += t * x[i] + e
            grad[i] = (1 - t * t) * x[i] + t - e
        return total

    @njit(parallel=True, fastmath=True)
    def w4a_kernel(x, grad):
        for i in prange(x.size):
            s, c = np.sin(x[i]), np.cos(x[i])
            grad[i] = c * x[i] * x[i] + 2 * x[i] * s

    @njit(parallel=True, fastmath=True)
    def w4b_kernel(x, grad):
        for i in prange(x.size):
            s, c = np.sin(x[i]), np.cos(x[i])
            grad[i] = -s * x[i] * x[i] + 4 * x[i] * c + 2 * s

    rng = np.random.default_rng(0)
    x3 = rng.standard_normal(W3_N).astype(np.float32)
    x4 = rng.standard_normal(W4_N)
    res = {"W3": timeit(lambda: w3_kernel(x3, np.empty_like(x3)), repeat) * 1e3,
           "W4a": timeit(lambda: w4a_kernel(x4, np.empty_like(x4)), repeat) * 1e3,
           "W4b": timeit(lambda: w4b_kernel(x4, np.empty_like(x4)), repeat) * 1e3}
    return res


BENCHES = {"eagerad": bench_eagerad, "torch": bench_torch, "numpy": bench_numpy,
           "fused": bench_fused}


# ------------------------------------------------------------------------- start-up (W5)



def _tutorial():
    """The project's main job: every seed tutorial, in order (tutorials/run_seeds.py)."""
    return os.path.join(ROOT, "tutorials", "run_seeds.py"), "tutorials/run_seeds.py, all seed examples"


def _wall(cmd, env):
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, cwd=ROOT, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-2000:]}")
    return wall, proc.stdout


def startup(repeat):
    """Import time (in-process and whole interpreter) and the tutorial with cold/warm cache.

    Measured as a user meets it the second time: with Python's bytecode cache written (an
    environment that sets PYTHONDONTWRITEBYTECODE would time the compiler, not the import)."""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    _wall([sys.executable, "-c", "import eagerad"], env)        # writes the bytecode cache
    res = {}
    code = "import time; t = time.perf_counter(); import eagerad; print(time.perf_counter() - t)"
    res["import (in-process)"] = sorted(float(_wall([sys.executable, "-c", code], env)[1])
                                        for _ in range(repeat))[repeat // 2]
    res["python -c 'import eagerad'"] = sorted(_wall([sys.executable, "-c", "import eagerad"], env)[0]
                                               for _ in range(repeat))[repeat // 2]
    res["python -c 'pass'"] = sorted(_wall([sys.executable, "-c", "pass"], env)[0]
                                     for _ in range(repeat))[repeat // 2]
    path, name = _tutorial()
    with tempfile.TemporaryDirectory(prefix="eagerad_numba_cache_") as cache:
        env_cache = dict(env, NUMBA_CACHE_DIR=cache)
        res[f"tutorial cold cache ({name})"] = _wall([sys.executable, path], env_cache)[0]
        res[f"tutorial warm cache ({name})"] = min(_wall([sys.executable, path], env_cache)[0]
                                                   for _ in range(2))
    return res


# ------------------------------------------------------------------------------- driver


def run_child(lib, alloc, repeat, rounds):
    """Fastest of ``rounds`` fresh interpreters per workload; None when ``lib`` cannot import."""
    best = None
    for _ in range(rounds):
        res = _child_once(lib, alloc, repeat)
        if res is None:
            return None
        best = res if best is None else {w: min(v, best[w]) for w, v in res.items()}
    return best


def _child_once(lib, alloc, repeat):
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for k in PINNED:
        env.pop(k, None)
    if alloc == "pinned":
        env.update(PINNED)
    cmd = [sys.executable, os.path.abspath(__file__), "--child", lib, "--repeat", str(repeat)]
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        if "ModuleNotFoundError" in proc.stderr:
            return None
        raise RuntimeError(f"{lib} ({alloc}) failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fmt(v):
    if v is None:
        return "not measured"
    return f"{v:.3g}" if v < 100 else f"{v:.0f}"


def table(rows):
    """Markdown table: one row per (library, allocator), one column per workload, plus ratios."""
    head = "| run | allocator | " + " | ".join(f"{w} ({UNITS[w]})" for w in WORKLOADS) + " |"
    lines = [head, "|" + "---|" * (len(WORKLOADS) + 2)]
    for (lib, alloc), res in rows.items():
        cells = [fmt(res.get(w) if res else None) if (res is None or w in res) else "-"
                 for w in WORKLOADS]
        lines.append(f"| {lib} | {alloc} | " + " | ".join(cells) + " |")
    ea = rows[("eagerad", "default")]
    for ref in ("default", "pinned"):
        torch = rows.get(("torch", ref))
        cells = [f"{ea[w] / torch[REFERENCE.get(w, w)]:.2f}" if torch else "not measured"
                 for w in WORKLOADS]
        lines.append(f"| eagerad / torch | eagerad default vs torch {ref} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


TARGETS = {"W1": ("default", 0.7), "W2": ("default", 0.8), "W3": ("pinned", 0.8),
           "W3-jit": ("pinned", 0.4),
           "W4a": ("default", 0.65), "W4b": ("default", 0.65), "W6": ("default", 1.0)}   # issue 23


def verdicts(rows, start):
    lines = []
    ea = rows[("eagerad", "default")]
    for w, (ref, limit) in TARGETS.items():
        torch = rows.get(("torch", ref))
        if torch is None:
            lines.append(f"- {w}: target <= {limit} vs torch {ref}: not measured (no PyTorch)")
            continue
        r = ea[w] / torch[REFERENCE.get(w, w)]
        lines.append(f"- {w}: {r:.2f}x torch ({ref} allocator), target <= {limit}: "
                     f"{'met' if r <= limit else 'NOT met'}")
    imp = start["import (in-process)"]
    lines.append(f"- import eagerad: {imp:.3f} s, target < 0.3 s: {'met' if imp < 0.3 else 'NOT met'}")
    warm = next(v for k, v in start.items() if k.startswith("tutorial warm"))
    lines.append(f"- tutorial warm (whole process): {warm:.2f} s, target < 2 s: "
                 f"{'met' if warm < 2 else 'NOT met'}")
    return "\n".join(lines)


def chain_step(lib, np):
    """One W1 call for ``lib`` (eagerad or torch, spelled alike here): the 100-op chain
    forward and backward on 16 float32."""
    x = lib.tensor(np.random.default_rng(0).standard_normal(16).astype(np.float32),
                   requires_grad=True)

    def step():
        y = x
        for _ in range(25):
            y = lib.tanh(lib.sin(y) * 1.01 + 0.1)
        y.sum().backward()
        x.grad = None
    return step


def w3_steps(ea, torch, np):
    """W3 for eagerad (eager and under ``eagerad.jit``) and torch, on one input."""
    xs = np.random.default_rng(0).standard_normal(W3_N).astype(np.float32)
    xe = ea.tensor(xs, requires_grad=True)
    xt = torch.tensor(xs, requires_grad=True)
    compiled = ea.jit(lambda x: (x.tanh() * x + (-x).exp()).sum())

    def eager():
        (xe.tanh() * xe + (-xe).exp()).sum().backward()
        xe.grad = None

    def jitted():
        compiled(xe).backward()
        xe.grad = None

    def pytorch():
        (torch.tanh(xt) * xt + torch.exp(-xt)).sum().backward()
        xt.grad = None
    return eager, jitted, pytorch


def interleaved(rounds, calls):
    """W1, W3, W3-jit and W6 of eagerad and PyTorch in ONE process, single-threaded,
    alternating ``rounds`` times between ``calls`` calls of each (one call of the W3 rows):
    the CPU time (``time.process_time``) per call and the median of the per-round ratios.
    On a shared machine other jobs add wall time to both sides; CPU time of calls
    interleaved within a second of each other is the comparison that holds up.  The
    process runs with the pinned allocator (``main`` sees to it), as W3's torch row must."""
    for k in ("NUMBA_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        os.environ[k] = "1"      # (before numpy, torch and eagerad load their thread pools)
    sys.path.insert(0, ROOT)     # this tree's eagerad, as the children's PYTHONPATH gives them
    import numpy as np
    import torch
    import eagerad
    torch.set_num_threads(1)
    w3_eager, w3_jit, w3_torch = w3_steps(eagerad, torch, np)
    rows = {}
    for name, steps, n in (
            ("W1", [chain_step(lib, np) for lib in (eagerad, torch)], calls * 2),
            ("W3", [w3_eager, w3_torch], 1),
            ("W3-jit", [w3_jit, w3_torch], 1),
            ("W6", [pinn_step(lib, lib.autograd.grad, lib.optim.Adam, lib.tensor, np)
                    for lib in (eagerad, torch)], calls)):
        for f in steps:
            for _ in range(3):
                f()
        times, ratios = ([], []), []
        for _ in range(rounds):
            spent = []
            for f, out in zip(steps, times):
                t0 = time.process_time()
                for _ in range(n):
                    f()
                spent.append((time.process_time() - t0) / n)
                out.append(spent[-1])
            ratios.append(spent[0] / spent[1])
        rows[name] = (float(np.median(times[0])), float(np.median(times[1])),
                      float(np.median(ratios)))
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interleaved", action="store_true",
                    help="W1, W3, W3-jit and W6 only: eagerad and torch alternated in one "
                         "process, CPU time")
    ap.add_argument("--quick", action="store_true", help="fewer repeats (about a minute)")
    ap.add_argument("--child", choices=sorted(BENCHES), help=argparse.SUPPRESS)
    ap.add_argument("--repeat", type=int, default=None, help="timed calls per workload")
    args = ap.parse_args()
    repeat = args.repeat or (3 if args.quick else 9)
    if args.child:
        print(json.dumps(BENCHES[args.child](repeat)))
        return
    if args.interleaved:
        if any(os.environ.get(k) != v for k, v in PINNED.items()):    # (read at start-up)
            os.execve(sys.executable, [sys.executable] + sys.argv, dict(os.environ, **PINNED))
        print(f"W1, W3, W3-jit and W6, single-threaded, CPU time per call, eagerad and torch "
              f"(pinned allocator) interleaved (load average {os.getloadavg()[0]:.2f})")
        print("| workload | eagerad ms | torch ms | eagerad / torch (median of rounds) |\n|---|---|---|---|")
        for w, (ea, th, r) in interleaved(5 if args.quick else 15, 20).items():
            print(f"| {w} | {ea * 1e3:.3f} | {th * 1e3:.3f} | {r:.2f} |")
        return

    print(f"python {sys.version.split()[0]}, {threads()} threads (Numba and torch.set_num_threads), "
          f"pinned allocator = {' '.join(f'{k}={v}' for k, v in PINNED.items())}, "
          f"load average before = {os.getloadavg()[0]:.2f}", flush=True)
    rows = {}
    for lib, alloc in (("eagerad", "default"), ("eagerad", "pinned"), ("torch", "default"),
                       ("torch", "pinned"), ("numpy", "default"), ("fused", "default")):
        t0 = time.perf_counter()
        rows[(lib, alloc)] = run_child(lib, alloc, repeat, 1 if args.quick else 3)
        print(f"  {lib:8s} {alloc:8s} done in {time.perf_counter() - t0:5.1f} s", flush=True)
    start = startup(3 if args.quick else 5)
    print(f"load average after = {os.getloadavg()[0]:.2f}")
    print()
    print(table(rows))
    print()
    print("| start-up (W5) | seconds |\n|---|---|")
    for k, v in start.items():
        print(f"| {k} | {v:.3f} |")
    print()
    print(verdicts(rows, start))


if __name__ == "__main__":
    main()
