"""Anomaly mode: find the op whose backward rule produced NaN or Inf.

When on, every new node records the user's source lines that created it, and
the engine checks each backward rule's results; the first non-finite gradient
raises a ``RuntimeError`` naming the node (e.g. ``SqrtBackward``) and showing
those lines.  Off by default; when off it costs one attribute read per node.

>>> import eagerad
>>> x = eagerad.tensor([0.0], requires_grad=True)
>>> with eagerad.autograd.detect_anomaly():
...     y = x.sqrt() * 0
...     y.sum().backward()   # doctest: +ELLIPSIS
Traceback (most recent call last):
RuntimeError: Function 'SqrtBackward' returned nan/inf values in its gradient for input 0 ...
"""
import functools
import os
import sys
import traceback

import numpy as np

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


class _Anomaly:
    """The switch the engine and ``Node`` read (one shared object)."""
    enabled = False

    @staticmethod
    def check(node, grads):
        """Raise if any gradient the rule of ``node`` returned is NaN or Inf."""
        for i, g in enumerate(grads):
            if g is None or g.dtype.kind != "f":
                continue
            if not np.isfinite(g.numpy()).all():
                where = node.trace or "  (creation point not recorded: the node was made before " \
                                      "anomaly mode was switched on)\n"
                raise RuntimeError(
                    f"Function '{node.name}' returned nan/inf values in its gradient for input {i} "
                    f"(shape {list(g.shape)}). The forward op was created at:\n{where}")


anomaly = _Anomaly()


def creation_trace(limit=4):
    """The innermost ``limit`` stack frames outside the eagerad package, formatted.

    >>> 'File' in creation_trace(limit=1)
    True
    """
    frames = [f for f in traceback.extract_stack(sys._getframe(1))
              if not os.path.abspath(f.filename).startswith(_PACKAGE)]
    return "".join(traceback.format_list(frames[-limit:]))


def is_anomaly_enabled():
    """True inside ``detect_anomaly()`` or after ``set_detect_anomaly(True)``.

    >>> with detect_anomaly():
    ...     print(is_anomaly_enabled())
    True
    >>> is_anomaly_enabled()
    False
    """
    return anomaly.enabled


class set_detect_anomaly:
    """Switch anomaly mode on or off now; as a context manager, restore it on exit.

    >>> _ = set_detect_anomaly(False)
    """

    def __init__(self, mode):
        self._prev = anomaly.enabled
        anomaly.enabled = bool(mode)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        anomaly.enabled = self._prev
        return False


class detect_anomaly:
    """Context manager (and decorator) turning anomaly mode on for a block.

    >>> @detect_anomaly()
    ... def step(x): return x.sum()
    """

    def __enter__(self):
        self._prev = anomaly.enabled
        anomaly.enabled = True
        return self

    def __exit__(self, *exc):
        anomaly.enabled = self._prev
        return False

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with detect_anomaly():
                return fn(*args, **kwargs)
        return wrapper
