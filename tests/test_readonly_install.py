"""A read-only install (package on read-only media, no writable home, NUMBA_CACHE_DIR
unset): Numba kernels still run, caching in a per-user temporary directory, with one
warning; with no writable place at all, they run uncached, with one warning."""
import json
import math
import os
import shutil
import stat
import subprocess
import sys
import tempfile
import warnings

import pytest

import eagerad
from eagerad.backend.cpu import jit_cache

CHILD = """
import json, warnings
warnings.simplefilter("always")
with warnings.catch_warnings(record=True) as caught:
    import eagerad
    from eagerad import ops
    # first kernel: cross-entropy's (backend/cpu/loss_kernels.py), then the special functions'
    ce = ops.cross_entropy(eagerad.zeros(2, 3), eagerad.tensor([0, 2])).item()
    erf = ops.erf(eagerad.ones(3, dtype=eagerad.float64)).tolist()
    lgamma = ops.lgamma(eagerad.tensor([4.0], dtype=eagerad.float64)).tolist()
print(json.dumps({"ce": ce, "erf": erf, "lgamma": lgamma, "file": eagerad.__file__,
                  "warnings": [str(w.message) for w in caught if "Numba" in str(w.message)]}))
"""


def _read_only_tree(path):
    for root, dirs, files in os.walk(path):
        for name in files:
            os.chmod(os.path.join(root, name), 0o444)
        os.chmod(root, 0o555)


def _writable_tree(path):
    for root, dirs, files in os.walk(path):
        os.chmod(root, 0o755)


def _without_write_override():
    """argv prefix that runs a command without root's power to write read-only files."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: read-only permissions cannot be enforced")
    caps = "-dac_override,-fowner"
    return [setpriv, f"--inh-caps={caps}", f"--bounding-set={caps}"]


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX permissions")
def test_read_only_install_falls_back_to_a_temporary_cache():
    prefix = _without_write_override()
    base = tempfile.mkdtemp(prefix="eagerad-ro-")
    try:
        install, tmp = os.path.join(base, "install"), os.path.join(base, "tmp")
        os.makedirs(tmp)
        package = os.path.dirname(eagerad.__file__)
        shutil.copytree(package, os.path.join(install, "eagerad"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        _read_only_tree(install)
        env = {k: v for k, v in os.environ.items()
               if not k.startswith("NUMBA_") and k not in ("XDG_CACHE_HOME", "PYTHONPATH")}
        env.update(HOME=install, TMPDIR=tmp, PYTHONDONTWRITEBYTECODE="1")
        out = subprocess.run(prefix + [sys.executable, "-c", CHILD], cwd=install, env=env,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stderr[-2000:]
        result = json.loads(out.stdout.strip().splitlines()[-1])
        assert result["file"].startswith(install)                 # the read-only copy ran
        assert result["ce"] == pytest.approx(math.log(3.0), rel=1e-6)
        assert result["erf"] == [math.erf(1.0)] * 3
        assert result["lgamma"] == [pytest.approx(math.lgamma(4.0), rel=1e-15)]
        assert len(result["warnings"]) == 1 and tmp in result["warnings"][0], result["warnings"]
        cached = [n for _, _, files in os.walk(tmp) for n in files if n.endswith(".nbi")]
        assert cached, "nothing was cached in the fallback directory"
        assert not any(n == "__pycache__" for _, dirs, _ in os.walk(install) for n in dirs)
    finally:
        _writable_tree(base)
        shutil.rmtree(base, ignore_errors=True)


def test_no_writable_place_turns_caching_off_with_one_warning(monkeypatch):
    monkeypatch.setattr(jit_cache, "_cacheable", lambda: False)
    monkeypatch.setattr(jit_cache, "_user_temp_dir", lambda: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert jit_cache._choose() is False
    assert len(caught) == 1 and "compiled in each process" in str(caught[0].message)


def test_writable_install_caches_in_place_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert jit_cache._cacheable() and jit_cache.enabled()
    assert stat.S_IMODE(os.stat(os.path.dirname(jit_cache.__file__)).st_mode) & 0o200
