"""What the tutorials below print after each result: the largest gap to an independent answer.

Every tutorial compares what it computed with something computed another way (a closed form,
central finite differences, a plain Python loop) and prints one line per comparison,
``check <what>: max error <e> (tolerance <tol>) ok``; a gap above the tolerance stops the
script.  ``tests/test_tutorial_scripts.py`` runs the scripts and reads these lines.

>>> _ = report("demo", [1.0, 2.0], [1.0, 2.0 + 1e-12], 1e-9)
check demo: max error 1e-12 (tolerance 1e-09) ok
"""
import numpy as np


def report(label, got, want, tol):
    """Print the largest absolute difference between ``got`` and ``want``; stop above ``tol``."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.shape != want.shape:
        raise SystemExit(f"check {label}: shape {got.shape} differs from expected {want.shape}")
    err = float(np.max(np.abs(got - want))) if got.size else 0.0
    ok = err <= tol
    print(f"check {label}: max error {err:.3g} (tolerance {tol:g}) {'ok' if ok else 'FAILED'}")
    if not ok:
        raise SystemExit(f"check {label} failed")
    return err


def central_difference(f, x, eps=1e-6):
    """Gradient of the scalar function ``f`` of a float64 numpy array, by central differences.

    >>> central_difference(lambda v: float((v ** 2).sum()), np.array([1.0, -2.0])).round(6)
    array([ 2., -4.])
    """
    x = np.array(x, dtype=np.float64)
    out = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[i] = eps
        out[i] = (f(x + step) - f(x - step)) / (2 * eps)
    return out
