"""How tensors print: PyTorch's format, and the options every face's printing reads.

Which format a tensor uses is its face's choice (``eagerad.face``): ``eagerad.torch``'s
tensors print as PyTorch does, ``eagerad.mindspore``'s as MindSpore does (its face holds
that format), and the engine's own (``import eagerad``) in PyTorch's layout with eagerad's
dtype names.
``eagerad.set_printoptions(style=...)`` forces one face's style on every tensor
(``style='auto'`` restores each tensor's own); ``precision``, ``threshold``,
``edgeitems``, ``linewidth`` and ``sci_mode`` are PyTorch's options of the same names.

>>> import eagerad
>>> eagerad.tensor([1.0, 2.5]), eagerad.zeros(2, dtype=eagerad.float64)
(tensor([1.0000, 2.5000]), tensor([0., 0.], dtype=eagerad.float64))
"""
import math

import numpy as np

from . import dtype as dt
from .device import default_device
from .face import FACES

FORCED = [None]             # the face whose style set_printoptions forces on every tensor, or None
_OPTIONS = {"precision": 4, "threshold": 1000, "edgeitems": 3,
            "linewidth": 80, "sci_mode": None}
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, math.inf, 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None, style=None):
    """PyTorch's ``torch.set_printoptions`` plus ``style``: the name of a face
    (``'torch'``, ``'mindspore'``, ``'eagerad'``; a face module must have been imported)
    prints every tensor that way, ``'auto'`` (the default) follows each tensor's face.

    >>> set_printoptions(precision=2)
    >>> import eagerad; eagerad.tensor([1 / 3])
    tensor([0.33])
    >>> set_printoptions(profile='default', style='auto')
    """
    if style is not None:
        if style != "auto" and style not in FACES:
            raise ValueError(f"set_printoptions: style must be 'auto' or the name of an imported "
                             f"face ({', '.join(sorted(FACES))}), got {style!r}")
        FORCED[0] = None if style == "auto" else FACES[style]
    if profile is not None:
        if profile not in _PROFILES:
            raise ValueError(f"set_printoptions: profile must be one of {sorted(_PROFILES)}, "
                             f"got {profile!r}")
        for key, value in zip(("precision", "threshold", "edgeitems", "linewidth"),
                              _PROFILES[profile]):
            _OPTIONS[key] = value
        _OPTIONS["sci_mode"] = None
    for key, value in (("precision", precision), ("threshold", threshold),
                       ("edgeitems", edgeitems), ("linewidth", linewidth)):
        if value is not None:
            _OPTIONS[key] = value
    if sci_mode is not None or profile is not None:
        _OPTIONS["sci_mode"] = sci_mode


# ------------------------------------------------------------------ PyTorch format

def torch_dtype(dtype, module="torch"):
    """PyTorch's printed name of a dtype (``module`` names the namespace).

    >>> torch_dtype(dt.float64), torch_dtype(dt.bool_, "eagerad")
    ('torch.float64', 'eagerad.bool')
    """
    return f"{module}.{'bool' if dtype == dt.bool_ else dtype.name}"


class _Formatter:
    """PyTorch's element formatter: one width and mode (integer-valued floats, fixed
    or scientific) for all the values of a tensor."""

    def __init__(self, arr):
        self.floating = arr.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.width = True, False, 1
        precision = _OPTIONS["precision"]
        if not self.floating:
            self.width = max((len(str(v)) for v in arr.ravel().tolist()), default=1)
            return
        vals = arr.ravel().astype(np.float64)
        vals = vals[np.isfinite(vals) & (vals != 0)]
        if vals.size:
            absv = np.abs(vals)
            lo, hi = absv.min(), absv.max()
            self.int_mode = bool((vals == np.ceil(vals)).all())
            if self.int_mode:
                self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
                fmt, extra = ("{:.%de}" % precision, 0) if self.sci_mode else ("{:.0f}", 1)
            else:
                self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
                fmt, extra = "{:.%d%s}" % (precision, "e" if self.sci_mode else "f"), 0
            self.width = max(len(fmt.format(v)) + extra for v in vals.tolist())
        if _OPTIONS["sci_mode"] is not None:
            self.sci_mode = _OPTIONS["sci_mode"]

    def format(self, value):
        precision = _OPTIONS["precision"]
        if not self.floating:
            text = str(value)
        elif self.sci_mode:
            text = "{:.{}e}".format(value, precision)
        elif self.int_mode:
            text = f"{value:.0f}" + ("" if math.isinf(value) or math.isnan(value) else ".")
        else:
            text = "{:.{}f}".format(value, precision)
        return text.rjust(self.width)


class _ComplexFormatter:
    """PyTorch's layout of complex elements: real and imaginary parts each get their own
    ``_Formatter`` (width and mode), printed as ``1.5000+2.0000j`` / ``1.-2.j``."""

    def __init__(self, arr):
        self.real, self.imag = _Formatter(arr.real), _Formatter(arr.imag)
        self.width = self.real.width + self.imag.width + 1      # the 'j'

    def format(self, value):
        imag = (self.imag.format(value.imag) + "j").lstrip()
        return self.real.format(value.real) + ("" if imag[0] in "+-" else "+") + imag


def _formatter(arr):
    return _ComplexFormatter(arr) if arr.dtype.kind == "c" else _Formatter(arr)


def _summarized(arr, edge):
    """The edge items of every axis (what a summarized print shows)."""
    if arr.ndim == 0:
        return arr
    if arr.shape[0] > 2 * edge:
        arr = np.concatenate([arr[:edge], arr[-edge:]])
    return np.stack([_summarized(row, edge) for row in arr]) if arr.ndim > 1 else arr


def _body(arr, indent, summarize, fmt):
    edge = _OPTIONS["edgeitems"]
    if arr.ndim == 0:
        return fmt.format(arr.item())
    cut = summarize and arr.shape[0] > 2 * edge
    if arr.ndim == 1:
        per_line = max(1, int((_OPTIONS["linewidth"] - indent) // (fmt.width + 2)))
        values = arr.tolist()
        items = ([fmt.format(v) for v in values[:edge]] + [" ..."] +
                 [fmt.format(v) for v in values[-edge:]]) if cut else [fmt.format(v) for v in values]
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = range(arr.shape[0])
    parts = ([_body(arr[i], indent + 1, summarize, fmt) for i in rows[:edge]] + ["..."] +
             [_body(arr[i], indent + 1, summarize, fmt) for i in rows[-edge:]]) if cut else \
        [_body(arr[i], indent + 1, summarize, fmt) for i in rows]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(parts) + "]"


def _with_suffixes(text, suffixes, indent):
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > _OPTIONS["linewidth"]:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"


def grad_fn_name(node):
    """PyTorch's class name of a graph node (``AddBackward0``).

    >>> import eagerad
    >>> x = eagerad.tensor(1.0, requires_grad=True)
    >>> grad_fn_name((x + x).grad_fn)
    'AddBackward0'
    """
    name = getattr(node, "torch_name", None)
    return name if name else f"{node.name}0"


def torch_repr(t, prefix="tensor(", module="torch"):
    """``t`` as PyTorch prints it: ``tensor([1., 2.], grad_fn=<MulBackward0>)``
    (``module`` is the namespace in dtype names: ``torch.float64``).

    >>> import eagerad
    >>> torch_repr(eagerad.tensor([[0.1, 0.2]]))
    'tensor([[0.1000, 0.2000]])'
    >>> torch_repr(eagerad.tensor([1e-5, 1.0])), torch_repr(eagerad.tensor(3.0, requires_grad=True))
    ('tensor([1.0000e-05, 1.0000e+00])', 'tensor(3., requires_grad=True)')
    >>> torch_repr(eagerad.tensor([1 + 2j, 0.5 - 1j]))
    'tensor([1.0000+2.j, 0.5000-1.j])'
    """
    arr = t.numpy()
    indent = len(prefix)
    suffixes = []
    if t._device != default_device():
        suffixes.append(f"device='{t._device}'")
    default = arr.dtype in (dt.default_float, dt.complex_of(dt.default_float), dt.int64, dt.bool_)
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if arr.dtype != dt.default_float:
            suffixes.append(f"dtype={torch_dtype(arr.dtype, module)}")
        body = "[]"
    else:
        if not default:
            suffixes.append(f"dtype={torch_dtype(arr.dtype, module)}")
        summarize = arr.size > _OPTIONS["threshold"]
        fmt = _formatter(_summarized(arr, _OPTIONS["edgeitems"]) if summarize else arr)
        body = _body(arr, indent, summarize, fmt)
    if t.grad_fn is not None:
        suffixes.append(f"grad_fn=<{grad_fn_name(t.grad_fn)}>")
    elif t._requires_grad:
        suffixes.append("requires_grad=True")
    return _with_suffixes(prefix + body, suffixes, indent)
