"""Training steps of four small models, eagerad next to PyTorch CPU in one run.

Run ``python benchmarks/models.py`` (``--quick`` for fewer steps, ``--only lstm`` for one
model).  Each framework runs in its own child process (as ``benchmarks/run.py`` does),
twice: pinned to one thread (``torch.set_num_threads(1)``, ``NUMBA_NUM_THREADS``,
``OMP``/``MKL``/``OPENBLAS`` threads 1) and with each library's default threads.  The
model code is written once against a PyTorch-shaped namespace (``eagerad`` has the same
spellings for everything used here), both frameworks start from the same numpy weights, and
each child prints its first loss: the parent refuses to report timings unless the losses
agree to rtol 1e-4.

Models (float32):

- transformer: 2-layer causal transformer, d=64, 4 heads, seq 64, batch 16, vocab 64, AdamW
- lstm:        2-layer LSTM language model, hidden 128, seq 32, batch 16, vocab 64,
               SGD + gradient-norm clipping
- cnn:         2 conv (3x3, padding 1) + 2 max-pool + linear on 64 28x28 images, Adam
- pinn:        tanh MLP 1->64->64->1, loss on u'' (grad of grad), Adam

Reported: the fastest mean step time over ``rounds`` rounds of ``steps`` steps each, after
warm-up steps (on a shared machine other processes only ever add time).

``--cpu-time`` instead runs both frameworks in one single-threaded child, steps
interleaved (eagerad, PyTorch, eagerad, ...), and reports the median of the per-step
ratios of CPU time (``time.process_time``): on a loaded machine wall times move several
fold between runs, CPU time and interleaving much less.
"""
import argparse
import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODELS = ("transformer", "lstm", "cnn", "pinn")
SINGLE = {"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
          "OPENBLAS_NUM_THREADS": "1"}


# ------------------------------------------------------------------ the models (one code)


def transformer(fw, rng):
    """nanoGPT-style blocks: pre-LayerNorm, causal self-attention, GELU MLP."""
    nn, F = fw.nn, fw.nn.functional
    vocab, d, heads, seq, batch = 64, 64, 4, 64, 16

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.ln1 = nn.LayerNorm(d, eps=1e-5, elementwise_affine=True)
            self.qkv = nn.Linear(d, 3 * d, bias=True)
            self.proj = nn.Linear(d, d, bias=True)
            self.ln2 = nn.LayerNorm(d, eps=1e-5, elementwise_affine=True)
            self.fc = nn.Linear(d, 4 * d, bias=True)
            self.out = nn.Linear(4 * d, d, bias=True)
            self.gelu = nn.GELU(approximate="none")

        def forward(self, x, mask):
            b, t, _ = x.shape
            q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
            q, k, v = (z.reshape(b, t, heads, d // heads).swapaxes(1, 2) for z in (q, k, v))
            att = (q @ k.swapaxes(-2, -1)) * (1.0 / (d // heads) ** 0.5) + mask
            y = F.softmax(att, dim=-1) @ v
            x = x + self.proj(y.swapaxes(1, 2).reshape(b, t, d))
            return x + self.out(self.gelu(self.fc(self.ln2(x))))

    class GPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(vocab, d)
            self.pos = nn.Embedding(seq, d)
            self.blocks = nn.ModuleList([Block(), Block()])
            self.ln = nn.LayerNorm(d, eps=1e-5, elementwise_affine=True)
            self.head = nn.Linear(d, vocab, bias=False)

        def forward(self, idx, pos, mask):
            x = self.tok(idx) + self.pos(pos)
            for block in self.blocks:
                x = block(x, mask)
            return self.head(self.ln(x))

    model = GPT()
    import numpy as np
    idx = fw.tensor(rng.integers(0, vocab, (batch, seq + 1)))
    pos = fw.tensor(np.arange(seq))
    mask = fw.tensor(np.triu(np.full((seq, seq), -np.inf, np.float32), 1))
    x, y = idx[:, :-1], idx[:, 1:]
    opt = fw.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), eps=1e-8,
                         weight_decay=0.1)

    def loss():
        return F.cross_entropy(model(x, pos, mask).reshape(-1, vocab), y.reshape(-1))
    return model, opt, loss, None


def lstm(fw, rng):
    """Embedding -> 2-layer LSTM -> linear over the vocabulary, next-token loss."""
    nn, F = fw.nn, fw.nn.functional
    vocab, hidden, seq, batch = 64, 128, 32, 16

    class LM(nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(vocab, hidden)
            self.rnn = nn.LSTM(hidden, hidden, num_layers=2, bias=True, batch_first=True)
            self.head = nn.Linear(hidden, vocab, bias=True)

        def forward(self, x):
            out, _ = self.rnn(self.emb(x))
            return self.head(out)

    model = LM()
    idx = fw.tensor(rng.integers(0, vocab, (batch, seq + 1)))
    x, y = idx[:, :-1], idx[:, 1:]
    opt = fw.optim.SGD(model.parameters(), lr=0.1, momentum=0.0)

    def loss():
        return F.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))

    def clip():
        fw.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    return model, opt, loss, clip


def cnn(fw, rng):
    """conv 1->8 -> relu -> pool -> conv 8->16 -> relu -> pool -> linear 784->10."""
    nn, F = fw.nn, fw.nn.functional

    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.c1 = nn.Conv2d(1, 8, 3, stride=1, padding=1, dilation=1, groups=1, bias=True)
            self.c2 = nn.Conv2d(8, 16, 3, stride=1, padding=1, dilation=1, groups=1, bias=True)
            self.fc = nn.Linear(16 * 7 * 7, 10, bias=True)

        def forward(self, x):
            x = F.max_pool2d(F.relu(self.c1(x)), 2, 2)
            x = F.max_pool2d(F.relu(self.c2(x)), 2, 2)
            return self.fc(x.reshape(x.shape[0], -1))

    model = Net()
    images = fw.tensor(rng.standard_normal((64, 1, 28, 28)).astype("float32"))
    labels = fw.tensor(rng.integers(0, 10, 64))
    opt = fw.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                        weight_decay=0.0)

    def loss():
        return F.cross_entropy(model(images), labels)
    return model, opt, loss, None


def pinn(fw, rng):
    """u(x) = MLP(x); loss = mean((u'' + sin x)^2) + u(0)^2 + u(pi)^2 on 128 points."""
    nn = fw.nn
    import numpy as np

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.l1 = nn.Linear(1, 64, bias=True)
            self.l2 = nn.Linear(64, 64, bias=True)
            self.l3 = nn.Linear(64, 1, bias=True)

        def forward(self, x):
            return self.l3(fw.tanh(self.l2(fw.tanh(self.l1(x)))))

    model = MLP()
    xs = fw.tensor(np.linspace(0, np.pi, 128, dtype=np.float32).reshape(128, 1),
                   requires_grad=True)
    ends = fw.tensor(np.array([[0.0], [np.pi]], np.float32))
    opt = fw.optim.Adam(model.parameters(), lr=1e-3, betas=(0.9, 0.999), eps=1e-8,
                        weight_decay=0.0)

    def loss():
        u = model(xs)
        (du,) = fw.autograd.grad(u.sum(), xs, create_graph=True)
        (d2u,) = fw.autograd.grad(du.sum(), xs, create_graph=True)
        return ((d2u + fw.sin(xs)) ** 2).mean() + (model(ends) ** 2).sum()
    return model, opt, loss, None


# ------------------------------------------------------------------ child process


def _set_weights(fw, model, rng):
    """The same numpy weights in either framework: U(-1/sqrt(fan_in), ..) by parameter name."""
    import numpy as np
    with fw.no_grad():
        for name, p in sorted(model.named_parameters(), key=lambda kv: kv[0]):
            shape = tuple(p.shape)
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else shape[0]
            bound = 1.0 / np.sqrt(fan_in)
            p.copy_(fw.tensor(rng.uniform(-bound, bound, shape).astype(np.float32)))


def _stepper(fw, model_name):
    """One training step of ``model_name`` in framework ``fw`` (built from the seeded
    weights), as a function returning the loss."""
    import numpy as np
    model, opt, loss_fn, clip = globals()[model_name](fw, np.random.default_rng(0))
    _set_weights(fw, model, np.random.default_rng(1))

    def step():
        opt.zero_grad()
        loss = loss_fn()
        loss.backward()
        if clip is not None:
            clip()
        opt.step()
        return loss
    return step


def child(framework, model_name, steps, rounds, warmup, default_threads):
    if framework == "torch":
        import torch as fw
        if not default_threads:
            fw.set_num_threads(1)
    else:
        import eagerad.torch as fw
    step = _stepper(fw, model_name)
    first = float(step().item())
    for _ in range(warmup):
        step()
    best = float("inf")
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(steps):
            step()
        best = min(best, (time.perf_counter() - t0) / steps)
    return {"first_loss": first, "ms": best * 1e3}


def interleaved(model_name, steps, warmup):
    """Median per-step CPU-time ratio eagerad / PyTorch, steps interleaved in one process."""
    import numpy as np
    import torch
    import eagerad.torch as ea
    torch.set_num_threads(1)
    steppers = [_stepper(fw, model_name) for fw in (ea, torch)]
    first = [float(s().item()) for s in steppers]
    for _ in range(warmup):
        for s in steppers:
            s()
    times = [[], []]
    for _ in range(steps):
        for k, s in enumerate(steppers):
            t0 = time.process_time()
            s()
            times[k].append(time.process_time() - t0)
    ratios = sorted(a / b for a, b in zip(*times))
    return {"first_loss": first, "eagerad_ms": float(np.median(times[0])) * 1e3,
            "torch_ms": float(np.median(times[1])) * 1e3, "ratio": ratios[len(ratios) // 2]}


def run_child(framework, model_name, args, default_threads):
    env = dict(os.environ)
    if not default_threads:
        env.update(SINGLE)
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, os.path.abspath(__file__), "--child", framework, model_name,
           str(args.steps), str(args.rounds), str(args.warmup)] + (["--default"] if default_threads else [])
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
    if out.returncode:
        raise RuntimeError(f"{framework} {model_name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and rounds")
    parser.add_argument("--only", choices=MODELS, action="append", help="run only these models")
    parser.add_argument("--single-only", action="store_true", help="skip the default-threads run")
    parser.add_argument("--cpu-time", action="store_true",
                        help="single-threaded CPU time, both frameworks interleaved in one process")
    parser.add_argument("--child", nargs=5, help=argparse.SUPPRESS)
    parser.add_argument("--interleaved", nargs=3, help=argparse.SUPPRESS)
    parser.add_argument("--default", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        fw, name, steps, rounds, warmup = args.child
        print(json.dumps(child(fw, name, int(steps), int(rounds), int(warmup), args.default)))
        return
    if args.interleaved:
        name, steps, warmup = args.interleaved
        print(json.dumps(interleaved(name, int(steps), int(warmup))))
        return
    args.steps, args.rounds, args.warmup = (3, 2, 2) if args.quick else (10, 3, 3)
    if args.cpu_time:
        env = dict(os.environ, **SINGLE)
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        print(f"{'model':<12} {'eagerad cpu ms':>15} {'torch cpu ms':>13} {'ratio':>6}")
        for name in args.only or MODELS:
            cmd = [sys.executable, os.path.abspath(__file__), "--interleaved", name,
                   str(5 if args.quick else 15), str(args.warmup)]
            out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
            if out.returncode:
                raise RuntimeError(f"{name} failed:\n{out.stderr[-3000:]}")
            r = json.loads(out.stdout.strip().splitlines()[-1])
            a, b = r["first_loss"]
            if not abs(a - b) <= 1e-4 * abs(b):
                raise SystemExit(f"{name}: first losses differ: eagerad {a!r}, torch {b!r}")
            print(f"{name:<12} {r['eagerad_ms']:>15.2f} {r['torch_ms']:>13.2f} "
                  f"{r['ratio']:>6.2f}", flush=True)
        return
    modes = [False] if args.single_only else [False, True]
    print(f"{'model':<12} {'threads':<8} {'eagerad ms':>11} {'torch ms':>9} {'ratio':>6}")
    for name in args.only or MODELS:
        for default_threads in modes:
            ea = run_child("eagerad", name, args, default_threads)
            th = run_child("torch", name, args, default_threads)
            a, b = ea["first_loss"], th["first_loss"]
            if not abs(a - b) <= 1e-4 * abs(b):
                raise SystemExit(f"{name}: first losses differ: eagerad {a!r}, torch {b!r}")
            print(f"{name:<12} {'default' if default_threads else '1':<8} {ea['ms']:>11.2f} "
                  f"{th['ms']:>9.2f} {ea['ms'] / th['ms']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
