"""numpy's own OpenBLAS, found with ctypes: its thread setter and its ``cblas_?gemm``.

Why: eagerad tunes the BLAS numpy already loaded rather than bringing another --
``threads`` pins its thread count, ``gemm_split`` calls its GEMM once per block of a
split product.  The library is the wheel's bundled copy (``numpy.libs`` /
``numpy/.dylibs``), else whatever OpenBLAS ``/proc/self/maps`` shows
(``numpy.show_config`` names the build machine's directory, not this one's).  Where
numpy uses another BLAS (MKL, Accelerate) nothing is found and callers keep numpy's
own paths.

>>> functions("no_such_symbol_anywhere") is None
True
"""
import ctypes
import os

import numpy as np

_libraries = []
# ``cblas_?gemm`` with 64-bit integers, as numpy's wheels bundle it (``scipy_openblas64_``)
# and as a plain OpenBLAS built with ``INTERFACE64`` and the ``64_`` suffix exports it
_GEMM = {"f": ("scipy_cblas_sgemm64_", "cblas_sgemm64_"),
         "d": ("scipy_cblas_dgemm64_", "cblas_dgemm64_")}
_gemms = {}


def _candidates():
    """Paths of the OpenBLAS libraries numpy may have loaded."""
    root = os.path.dirname(np.__file__)
    found = []
    for folder in (os.path.join(root, os.pardir, "numpy.libs"), os.path.join(root, ".dylibs")):
        try:
            found += [os.path.join(folder, f) for f in sorted(os.listdir(folder)) if "openblas" in f]
        except OSError:
            pass
    if not found and os.path.exists("/proc/self/maps"):
        try:
            with open("/proc/self/maps") as maps:
                found = sorted({line.split()[-1] for line in maps if ".so" in line})
        except OSError:
            found = []
    return [p for p in found if "blas" in os.path.basename(p).lower()]


def libraries():
    """The loadable candidates as ``ctypes.CDLL`` handles (looked up once)."""
    if not _libraries:
        for path in _candidates():
            try:
                _libraries.append(ctypes.CDLL(path))
            except OSError:
                continue
        _libraries.append(None)         # marks the lookup done, also when none loads
    return [lib for lib in _libraries if lib is not None]


def functions(*names):
    """The ctypes functions ``names`` of the first library exporting all of them, or
    None.

    >>> found = functions("openblas_get_num_threads"); found is None or callable(found[0])
    True
    """
    for lib in libraries():
        found = [getattr(lib, name, None) for name in names]
        if all(f is not None for f in found):
            return found
    return None


def address(name):
    """The address of the C function ``name`` (for kernels that call it), or None.

    >>> address("no_such_symbol_anywhere") is None
    True
    """
    found = functions(name)
    return None if found is None else ctypes.cast(found[0], ctypes.c_void_p).value


def gemm_address(char):
    """The address of the 64-bit-integer ``cblas_sgemm`` (``char`` "f") or
    ``cblas_dgemm`` ("d"), or 0 where numpy's BLAS has none.

    >>> gemm_address("f") >= 0 and gemm_address("q") == 0
    True
    """
    if char not in _gemms:
        found = [address(name) for name in _GEMM.get(char, ())]
        _gemms[char] = next((a for a in found if a), 0)
    return _gemms[char]
