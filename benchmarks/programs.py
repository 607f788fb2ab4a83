"""Public PyTorch programs (tutorials/torch_*.py), eagerad next to PyTorch CPU in one run.

The programs are the ones tests/test_torch_programs.py checks for equal losses: makemore's
GPT, the word language model (LSTM and GRU), the VAE, the MNIST CNN and DCGAN, each written
once and run with ``import eagerad.torch as torch`` or with PyTorch, from the same initial
weights.  Each row times a whole short training run (the program's own ``run``/``train``).

Run ``python benchmarks/programs.py`` (``--only makemore`` for one program, ``--rounds 7``
for more repeats).  By default both frameworks run single-threaded in ONE child process,
alternating (eagerad, PyTorch, eagerad, ...), and the row reports the median of the per-round
ratios of CPU time (``time.process_time``), which a busy machine moves much less than wall
time.  ``--threads default`` instead leaves each library its default threads and compares
wall time (medians over rounds, still interleaved).
"""
import argparse
import os
import subprocess
import sys
import time

from models import ROOT, SINGLE     # benchmarks/models.py: the same single-thread settings
PROGRAMS = ("makemore", "word_lm_lstm", "word_lm_gru", "vae", "mnist", "dcgan")


def programs(pt, et):
    """name -> (run with eagerad, run with PyTorch); both start from one PyTorch model."""
    sys.path.insert(0, os.path.join(ROOT, "tutorials"))
    import torch_dcgan as dcgan
    import torch_makemore as makemore
    import torch_mnist as mnist
    import torch_vae as vae
    import torch_word_language_model as word_lm

    def pair(run, reference):
        return (lambda: run(et, reference)), (lambda: run(pt, reference))

    def makemore_run(fw, reference):
        return makemore.train(fw, *makemore.build(fw, reference), makemore.fixed_order())

    def word_lm_rows(kind):
        pt.manual_seed(1)
        return pair(lambda fw, ref: word_lm.run(fw, ref, kind), word_lm.model_class(pt)(kind))

    pt.manual_seed(3407)
    rows = {"makemore": pair(makemore_run, makemore.build(pt)[0]),
            "word_lm_lstm": word_lm_rows("LSTM"), "word_lm_gru": word_lm_rows("GRU")}
    pt.manual_seed(2)
    rows["vae"] = pair(vae.run, vae.model_class(pt)())
    pt.manual_seed(1)
    rows["mnist"] = pair(lambda fw, ref: mnist.run(fw, ref, dropout=False),
                         mnist.model_class(pt)())
    pt.manual_seed(999)
    rows["dcgan"] = pair(dcgan.run, dcgan.build(pt))
    return rows


def child(names, rounds, single):
    """Time the programs here, eagerad and PyTorch alternating; print one row each."""
    import warnings

    import numpy as np
    import torch as pt
    warnings.filterwarnings("ignore", message=".*pin_memory.*")    # PyTorch's, about no GPU

    import eagerad.torch as et
    if single:
        pt.set_num_threads(1)
    clock = time.process_time if single else time.perf_counter
    table = programs(pt, et)
    for name in names:
        mine, theirs = table[name]
        mine(), theirs()                         # warm-up: kernels compiled, caches filled
        times = ([], [])
        for _ in range(rounds):
            for spent, run in zip(times, (mine, theirs)):
                t0 = clock()
                run()
                spent.append(clock() - t0)
        ratios = np.array(times[0]) / np.array(times[1])
        print(f"{name:14s} {np.median(times[0]) * 1e3:10.1f} {np.median(times[1]) * 1e3:10.1f} "
              f"{np.median(ratios):7.2f}", flush=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", choices=PROGRAMS, action="append", help="run only these programs")
    ap.add_argument("--rounds", type=int, default=5, help="timed runs per framework")
    ap.add_argument("--threads", choices=("single", "default"), default="single")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    names = args.only or list(PROGRAMS)
    single = args.threads == "single"
    if args.child:
        child(names, args.rounds, single)
        return
    print(f"{'single-threaded CPU time' if single else 'default threads, wall time'}, "
          f"median of {args.rounds} interleaved rounds "
          f"(load average {os.getloadavg()[0]:.2f})")
    print(f"{'program':14s} {'eagerad ms':>10s} {'torch ms':>10s} {'ratio':>7s}", flush=True)
    env = dict(os.environ, PYTHONPATH=ROOT, **(SINGLE if single else {}))
    cmd = [sys.executable, os.path.abspath(__file__), "--child", "--rounds", str(args.rounds),
           "--threads", args.threads] + [a for n in names for a in ("--only", n)]
    subprocess.run(cmd, env=env, check=True)


if __name__ == "__main__":
    main()
