"""GPU timings: eagerad's CUDA backend next to PyTorch CUDA and CuPy, same run.

Run ``python benchmarks/gpu.py`` on a machine with an NVIDIA GPU and numba-cuda
(``pip install eagerad[cuda]``); PyTorch and CuPy rows say "not measured" when
they are absent.  ``--smoke`` shrinks every size so the script also runs under
Numba's CUDA simulator (``NUMBA_ENABLE_CUDASIM=1``) as a correctness check;
its timings mean nothing.

Workloads (median wall time of the repeats after a warm-up, each step ending in a
device synchronisation):

- W2  MLP training step, batch 4096: 784 -> 256 ReLU -> 10, cross-entropy, backward,
      SGD update, float32
- W3  10M float32 ``(tanh(x) * x + exp(-x)).sum()`` forward and backward

Every library computes the same W3 gradient, compared at the end as a check.
"""
import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # the checkout

SIZES = {"full": {"batch": 4096, "din": 784, "hidden": 256, "dout": 10, "n": 10_000_000},
         "smoke": {"batch": 8, "din": 6, "hidden": 5, "dout": 3, "n": 3000}}


def timeit(step, sync, repeat, warmup=2):
    """Median seconds of ``repeat`` synchronised calls of ``step`` after ``warmup``."""
    for _ in range(warmup):
        step()
    sync()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        step()
        sync()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def data(size):
    rng = np.random.default_rng(0)
    return {"x": rng.standard_normal((size["batch"], size["din"]), dtype=np.float32),
            "labels": rng.integers(0, size["dout"], size["batch"]),
            "w1": (rng.standard_normal((size["hidden"], size["din"])) * 0.05).astype(np.float32),
            "w2": (rng.standard_normal((size["dout"], size["hidden"])) * 0.05).astype(np.float32),
            "v": rng.uniform(-2, 2, size["n"]).astype(np.float32)}

# ------------------------------------------------------------------ eagerad


def eagerad_rows(d, repeat):
    import eagerad
    from eagerad import context
    problem = context.cuda_problem()
    if problem:
        return {"W2": f"not measured ({problem})", "W3": f"not measured ({problem})"}, None
    from numba import cuda
    dev = "cuda"
    x = eagerad.tensor(d["x"], device=dev)
    labels = eagerad.tensor(d["labels"], device=dev)
    w1 = eagerad.Parameter(eagerad.tensor(d["w1"], device=dev), name="w1")
    w2 = eagerad.Parameter(eagerad.tensor(d["w2"], device=dev), name="w2")
    opt = eagerad.nn.SGD([w1, w2], learning_rate=0.01)
    loss_grad = eagerad.value_and_grad(
        lambda xb: eagerad.ops.cross_entropy((xb @ w1.T).relu() @ w2.T, labels), None, [w1, w2])

    def w2_step():
        _, grads = loss_grad(x)
        opt(grads)

    v = eagerad.tensor(d["v"], device=dev, requires_grad=True)

    def w3_step():
        v.grad = None
        (v.tanh() * v + (-v).exp()).sum().backward()

    rows = {"W2": timeit(w2_step, cuda.synchronize, repeat),
            "W3": timeit(w3_step, cuda.synchronize, repeat)}
    return rows, v.grad.numpy()

# ------------------------------------------------------------------ PyTorch


def torch_rows(d, repeat):
    try:
        import torch
    except ImportError:
        return {"W2": "not measured (PyTorch is not installed)",
                "W3": "not measured (PyTorch is not installed)"}, None
    if not torch.cuda.is_available():
        return {"W2": "not measured (PyTorch has no CUDA device)",
                "W3": "not measured (PyTorch has no CUDA device)"}, None
    dev = "cuda"
    x = torch.tensor(d["x"], device=dev)
    labels = torch.tensor(d["labels"], device=dev)
    w1 = torch.tensor(d["w1"], device=dev, requires_grad=True)
    w2 = torch.tensor(d["w2"], device=dev, requires_grad=True)
    opt = torch.optim.SGD([w1, w2], lr=0.01)

    def w2_step():
        opt.zero_grad()
        torch.nn.functional.cross_entropy((x @ w1.T).relu() @ w2.T, labels).backward()
        opt.step()

    v = torch.tensor(d["v"], device=dev, requires_grad=True)

    def w3_step():
        v.grad = None
        (v.tanh() * v + (-v).exp()).sum().backward()

    rows = {"W2": timeit(w2_step, torch.cuda.synchronize, repeat),
            "W3": timeit(w3_step, torch.cuda.synchronize, repeat)}
    return rows, v.grad.cpu().numpy()

# --------------------------------------------------------------------- CuPy


def cupy_rows(d, repeat):
    """Hand-written forward and backward in CuPy: the cost of the arithmetic alone."""
    try:
        import cupy as cp
        cp.cuda.runtime.getDeviceCount()
    except Exception as err:   # not installed, or no device/driver
        return {"W2": f"not measured (CuPy unavailable: {type(err).__name__})",
                "W3": f"not measured (CuPy unavailable: {type(err).__name__})"}, None
    x, w1, w2 = cp.asarray(d["x"]), cp.asarray(d["w1"]), cp.asarray(d["w2"])
    labels = cp.asarray(d["labels"])
    onehot = cp.eye(d["w2"].shape[0], dtype=cp.float32)[labels]

    def w2_step():
        h = x @ w1.T
        a = cp.maximum(h, 0)
        z = a @ w2.T
        p = cp.exp(z - z.max(axis=1, keepdims=True))
        p /= p.sum(axis=1, keepdims=True)
        gz = (p - onehot) / x.shape[0]
        gw2 = gz.T @ a
        gh = (gz @ w2) * (h > 0)
        gw1 = gh.T @ x
        cp.subtract(w1, 0.01 * gw1, out=w1)
        cp.subtract(w2, 0.01 * gw2, out=w2)

    v = cp.asarray(d["v"])
    out = {}

    def w3_step():
        t = cp.tanh(v)
        e = cp.exp(-v)
        (t * v + e).sum()
        out["grad"] = (1 - t * t) * v + t - e

    sync = cp.cuda.Device().synchronize
    rows = {"W2": timeit(w2_step, sync, repeat), "W3": timeit(w3_step, sync, repeat)}
    return rows, cp.asnumpy(out["grad"])

# --------------------------------------------------------------------- main


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--smoke", action="store_true", help="tiny sizes (runs on the simulator)")
    parser.add_argument("--repeat", type=int, default=None)
    args = parser.parse_args()
    size = SIZES["smoke" if args.smoke else "full"]
    if args.smoke:
        sys.setswitchinterval(1e-5)   # the simulator's block barrier polls between threads
    repeat = args.repeat or (1 if args.smoke else 20)
    d = data(size)
    results = {}
    for name, fn in (("eagerad", eagerad_rows), ("PyTorch CUDA", torch_rows), ("CuPy", cupy_rows)):
        results[name] = fn(d, repeat)
    print(f"GPU benchmarks ({'smoke sizes' if args.smoke else 'full sizes'}, median of {repeat})")
    print(f"{'':14s}{'W2 MLP step':>28s}{'W3 fwd+bwd':>28s}")
    for name, (rows, _) in results.items():
        cells = [f"{r * 1e3:10.3f} ms" if isinstance(r, float) else r for r in
                 (rows["W2"], rows["W3"])]
        print(f"{name:14s}" + "".join(f"{c:>28s}" if len(c) <= 27 else "  " + c for c in cells))
    reference = results["eagerad"][1]
    if reference is not None:
        x = d["v"].astype(np.float64)
        t = np.tanh(x)
        exact = (1 - t * t) * x + t - np.exp(-x)
        for name, (_, g) in results.items():
            if g is not None:
                err = float(np.max(np.abs(g - exact) / (1 + np.abs(exact))))
                print(f"W3 gradient check, {name}: max relative error {err:.2e}")
                assert err < 1e-4, f"{name}: W3 gradient differs from the exact one"


# ------------------------------------------------------------ W1-GPU (launch cost)


def w1_gpu_rows(repeat):
    """W1-GPU: benchmarks/run.py's 100-op chain (``tanh(sin(y) * 1.01 + 0.1)`` x25,
    forward and backward) on 16 float32 on the GPU, per op: the fixed cost of an eager
    op (allocation, launch) with no arithmetic to hide it.  eagerad next to PyTorch
    CUDA; also prints eagerad's allocator counters after the run."""
    from run import chain_step
    rows = {}
    import eagerad
    from eagerad import context
    problem = context.cuda_problem()
    if problem:
        rows["eagerad"] = f"not measured ({problem})"
    else:
        from numba import cuda
        before = eagerad.get_default_device()
        eagerad.set_default_device("cuda")
        try:
            step = chain_step(eagerad, np)
        finally:
            eagerad.set_default_device(before)
        rows["eagerad"] = timeit(step, cuda.synchronize, repeat * 10) / 100
        print(f"eagerad CUDA memory after W1-GPU: {eagerad.cuda.memory_stats()}")
    try:
        import torch
        if not torch.cuda.is_available():
            raise ImportError("PyTorch has no CUDA device")
        with torch.device("cuda"):
            step = chain_step(torch, np)
        rows["PyTorch CUDA"] = timeit(step, torch.cuda.synchronize, repeat * 10) / 100
    except ImportError as err:
        rows["PyTorch CUDA"] = f"not measured ({err})"
    print(f"{'':14s}{'W1-GPU 100-op chain, 16 floats, per op':>40s}")
    for name, r in rows.items():
        print(f"{name:14s}" + (f"{r * 1e6:>37.1f} us" if isinstance(r, float) else "  " + r))
    return rows


if __name__ == "__main__":
    main()
    w1_gpu_rows(1 if "--smoke" in sys.argv else 20)
