"""Where Numba keeps eagerad's compiled kernels on disk, also on read-only installs.

Numba caches a ``cache=True`` function next to its source (``__pycache__``) or in the
user's cache directory (``~/.cache``), and refuses to build one at all ("cannot cache
function ...: no locator available") when neither is writable: a package on read-only
media run by a user without a writable home.  ``enabled()`` checks once, before the
first kernel is built, whether Numba can cache eagerad's kernels; if not, it points
Numba's cache at a per-user temporary directory (as ``NUMBA_CACHE_DIR`` would) and, if
even that fails, turns caching off, warning once either way.  Every kernel passes
``cache=enabled()``.

>>> enabled() in (True, False)
True
"""
import os
import tempfile
import warnings

_CHOICE = []


def _probe():
    """A function of this package for Numba's cache locators to place (never compiled)."""


def _cacheable():
    """True when Numba finds a writable cache location for kernels in this package and in
    ``backend/formulas.py`` (both are cached)."""
    from numba.core.caching import FunctionCache
    from .. import formulas
    try:
        for fn in (_probe, formulas.tanh_grad):
            FunctionCache(fn)
    except RuntimeError:       # "cannot cache function ...: no locator available"
        return False
    return True


def _user_temp_dir():
    """``<tmp>/eagerad-numba-cache-<user>``, created private to the user (or None)."""
    user = str(os.getuid()) if hasattr(os, "getuid") else os.environ.get("USERNAME", "user")
    path = os.path.join(tempfile.gettempdir(), f"eagerad-numba-cache-{user}")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
    except OSError:
        return None
    return path if os.access(path, os.W_OK) else None


def _choose():
    if _cacheable():
        return True
    from numba.core import config
    previous = config.CACHE_DIR
    fallback = _user_temp_dir()
    if fallback is not None:
        config.CACHE_DIR = fallback
        if _cacheable():
            warnings.warn(f"eagerad: Numba cannot cache compiled kernels next to eagerad or in the "
                          f"home directory (read-only install?); caching them in {fallback} "
                          "instead (set NUMBA_CACHE_DIR to choose the place)",
                          UserWarning, stacklevel=3)
            return True
        config.CACHE_DIR = previous
    warnings.warn("eagerad: Numba cannot cache compiled kernels anywhere writable (read-only "
                  "install, no writable home or temporary directory); kernels are compiled in "
                  "each process (set NUMBA_CACHE_DIR to a writable directory to cache them)",
                  UserWarning, stacklevel=3)
    return False


def enabled():
    """Whether eagerad's Numba kernels are cached on disk (decided once, at the first
    kernel; see the module docstring).

    >>> enabled() is enabled()
    True
    """
    if not _CHOICE:
        _CHOICE.append(_choose())
    return _CHOICE[0]
