"""Launcher: ``python -m eagerad.distributed.run --nproc N script.py args...`` (or
``-m module args...``) starts N ranks of the script through the MPI installation's
``mpiexec`` and exits with its status, so a tutorial needs no MPI knowledge.

It uses the ``mpiexec`` next to the running Python (what the ``mpich`` wheels install
into a virtual environment), else the first on ``PATH``.  Open MPI's ``mpiexec`` gets
``--allow-run-as-root`` when run by root and ``--oversubscribe`` (more ranks than
cores is allowed, as with MPICH).  Unless ``OMP_NUM_THREADS`` is set it is set to 1 for
the ranks (as ``torchrun`` does), so N ranks do not each start a thread per core.

>>> command(["--nproc", "2", "train.py", "--lr", "0.1"], mpiexec="mpiexec", openmpi=False)[:3]
['mpiexec', '-n', '2']
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading

RUN_DIR_ENV = "EAGERAD_RUN_DIR"     # where the ranks register their PIDs


def find_mpiexec():
    """Path of the ``mpiexec`` to use, or a FileNotFoundError saying how to get one.

    >>> os.path.basename(find_mpiexec())
    'mpiexec'
    """
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.access(here, os.X_OK) else shutil.which("mpiexec")
    if found is None:
        raise FileNotFoundError("eagerad.distributed.run: no mpiexec found next to "
                                f"{sys.executable} or on PATH; pip install 'eagerad[distributed]' "
                                "(the mpich wheels bring one) or load your cluster's MPI")
    return found


def is_openmpi(mpiexec):
    """True for Open MPI's launcher (it needs extra flags to run as root).

    >>> is_openmpi(find_mpiexec()) in (True, False)
    True
    """
    out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
    return "open mpi" in (out.stdout + out.stderr).lower() or "openrte" in out.stdout.lower()


def _parser():
    p = argparse.ArgumentParser(prog="python -m eagerad.distributed.run",
                                description="Start N ranks of a training script through mpiexec.")
    p.add_argument("--nproc", "--nproc-per-node", "--nproc_per_node", "-n", type=int,
                   required=True, help="number of ranks (processes) to start")
    p.add_argument("-m", dest="module", action="store_true",
                   help="run the target as a module (python -m target)")
    p.add_argument("target", help="the script (or module with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return p


def command(argv, mpiexec=None, openmpi=None):
    """The mpiexec command line for launcher arguments ``argv`` (see the module)."""
    opts = _parser().parse_args(argv)
    if opts.nproc < 1:
        raise SystemExit(f"--nproc must be at least 1, got {opts.nproc}")
    mpiexec = mpiexec or find_mpiexec()
    openmpi = is_openmpi(mpiexec) if openmpi is None else openmpi
    cmd = [mpiexec, "-n", str(opts.nproc)]
    if openmpi:
        cmd += ["--oversubscribe"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    cmd.append(sys.executable)
    cmd += ["-m", opts.target] if opts.module else [opts.target]
    return cmd + opts.args


# MPICH's report of a rank that died ("=   PID 9377 RUNNING AT host"); Open MPI's names
# the rank itself ("Process name: [[...],1]"), which needs no translation.
_DEAD_PID = re.compile(r"PID (\d+) RUNNING AT")


def _forward(source, sink, pids):
    """Copy ``source``'s lines to ``sink`` as they come, noting the PIDs MPICH reports dead."""
    for line in iter(source.readline, ""):
        sink.write(line)
        sink.flush()
        pids.extend(int(p) for p in _DEAD_PID.findall(line))
    source.close()


def rank_of(pid, run_dir):
    """The rank that process ``pid`` registered in ``run_dir`` at ``init_process_group``
    (None when it did not).

    >>> import tempfile; d = tempfile.mkdtemp()
    >>> _ = open(os.path.join(d, "123"), "w").write("1"); rank_of(123, d), rank_of(9, d)
    (1, None)
    """
    try:
        with open(os.path.join(run_dir, str(pid))) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def main(argv=None):
    """Run the job; returns mpiexec's exit status.  When it fails and MPICH reports a dead
    process, say which rank that was (each rank registers its PID at initialisation)."""
    cmd = command(sys.argv[1:] if argv is None else argv)
    env = dict(os.environ)
    env.setdefault("OMP_NUM_THREADS", "1")
    if "--allow-run-as-root" in cmd:
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    with tempfile.TemporaryDirectory(prefix="eagerad-run-") as run_dir:
        env[RUN_DIR_ENV] = run_dir
        proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True, bufsize=1)
        pids = []
        threads = [threading.Thread(target=_forward, args=(stream, sink, pids), daemon=True)
                   for stream, sink in ((proc.stdout, sys.stdout), (proc.stderr, sys.stderr))]
        for t in threads:
            t.start()
        try:
            status = proc.wait()
        except KeyboardInterrupt:
            proc.terminate()
            status = proc.wait()
        for t in threads:
            t.join()
        if status != 0:
            for pid in dict.fromkeys(pids):
                rank = rank_of(pid, run_dir)
                if rank is not None:
                    sys.stderr.write(f"eagerad.distributed.run: rank {rank} (pid {pid}) ended "
                                     f"abnormally; mpiexec stopped the job (exit status {status})\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
