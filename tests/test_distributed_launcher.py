"""The launcher's command line (no MPI run needed): MPICH gets ``-n N python script``,
Open MPI also ``--oversubscribe`` and, for root, ``--allow-run-as-root``; ``-m`` runs a
module; a missing mpiexec is a clear error."""
import os
import sys

import pytest

from eagerad.distributed import run


def test_mpich_command():
    cmd = run.command(["--nproc", "3", "train.py", "--lr", "0.1"], mpiexec="/x/mpiexec",
                      openmpi=False)
    assert cmd == ["/x/mpiexec", "-n", "3", sys.executable, "train.py", "--lr", "0.1"]


@pytest.mark.parametrize("root", [True, False])
def test_openmpi_command_as_root_or_not(monkeypatch, root):
    monkeypatch.setattr(os, "geteuid", lambda: 0 if root else 1000)
    cmd = run.command(["--nproc", "2", "-m", "pkg.train"], mpiexec="mpiexec", openmpi=True)
    assert cmd[:4] == ["mpiexec", "-n", "2", "--oversubscribe"]
    assert ("--allow-run-as-root" in cmd) == root
    assert cmd[-3:] == [sys.executable, "-m", "pkg.train"]


def test_bad_nproc_and_missing_mpiexec(monkeypatch, tmp_path):
    with pytest.raises(SystemExit, match="--nproc must be at least 1"):
        run.command(["--nproc", "0", "x.py"], mpiexec="mpiexec", openmpi=False)
    monkeypatch.setattr(sys, "executable", str(tmp_path / "python"))
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match=r"pip install 'eagerad\[distributed\]'"):
        run.find_mpiexec()


def test_rank_of_reads_what_the_ranks_registered(tmp_path):
    (tmp_path / "4242").write_text("1")
    assert run.rank_of(4242, str(tmp_path)) == 1
    assert run.rank_of(7, str(tmp_path)) is None
