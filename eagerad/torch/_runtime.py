"""PyTorch's process-wide switches and dtype questions: ``torch.compile`` (``eagerad.jit``
under PyTorch's name), matmul precision and determinism flags (recorded:
eagerad's CPU kernels are deterministic and compute float32 in float32), thread counts
(Numba's pool), ``finfo``/``iinfo``, ``promote_types``/``result_type``/``can_cast``,
``is_floating_point``, ``is_nonzero``, ``logspace``.

>>> import eagerad.torch as torch
>>> torch.finfo(torch.float32).eps, torch.iinfo(torch.int8).max
(1.1920928955078125e-07, 127)
>>> torch.promote_types(torch.int64, torch.float32) == torch.float32
True
"""
import numpy as np

from .. import dtype as dt
from ..face import stamp
from ..tensor import Tensor
from ._face import TORCH

_settings = {"float32_matmul_precision": "highest", "deterministic": False}


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """``torch.compile``: ``eagerad.jit`` under PyTorch's name (traced once per guard key,
    replayed, elementwise chains fused; see ``eagerad.jit.jit``).  A ``Module`` comes back
    as an ``OptimizedModule`` holding it as ``_orig_mod`` (its ``parameters()``,
    ``state_dict()``, ``train()``/``eval()`` work), whose forward is compiled; a function
    comes back compiled.  ``disable=True`` returns ``model`` as is; ``fullgraph``,
    ``dynamic``, ``backend``, ``mode`` and ``options`` are accepted with no effect.  Usable
    as ``@torch.compile`` and ``@torch.compile(mode=...)``.

    >>> import eagerad.torch as torch
    >>> torch.compile(lambda x: x + 1)(torch.tensor(1.0))
    tensor(2.)
    """
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                 mode=mode, options=options, disable=disable)
    if disable:
        return model
    if not callable(model):
        raise TypeError(f"torch.compile: expected a Module or a function, got "
                        f"{type(model).__name__}")
    from ..jit import DEFAULT_MIN_FUSE_SIZE, Compiled, jit, optimized_module
    from ..nn.cell import Cell
    if isinstance(model, Cell):
        from .nn import Module
        return optimized_module(model, Compiled(model, DEFAULT_MIN_FUSE_SIZE), Module)
    return jit(model)


def set_float32_matmul_precision(precision):
    """Recorded ('highest', 'high', 'medium'); float32 products stay float32."""
    if precision not in ("highest", "high", "medium"):
        raise ValueError(f"set_float32_matmul_precision: precision must be 'highest', 'high' or "
                         f"'medium', got {precision!r}")
    _settings["float32_matmul_precision"] = precision


def get_float32_matmul_precision():
    """What ``set_float32_matmul_precision`` recorded."""
    return _settings["float32_matmul_precision"]


def use_deterministic_algorithms(mode, *, warn_only=False):
    """Recorded: eagerad's CPU kernels give the same bits on every run anyway."""
    _settings["deterministic"] = bool(mode)


def are_deterministic_algorithms_enabled():
    """What ``use_deterministic_algorithms`` recorded."""
    return _settings["deterministic"]


def set_num_threads(num):
    """Cap eagerad's intra-op threads at ``num`` (large elementwise ops and products
    split over the backend's pool, Numba's parallel kernels; numpy's BLAS stays on
    one thread), as PyTorch's intra-op setting does (``backend.cpu.threads``).

    >>> import eagerad.torch as torch
    >>> n = torch.get_num_threads(); torch.set_num_threads(1); torch.get_num_threads()
    1
    >>> torch.set_num_threads(n)
    """
    from ..backend.cpu import threads
    threads.set_num_threads(num)


def get_num_threads():
    """The intra-op thread count ``set_num_threads`` set (by default the cores, or
    ``NUMBA_NUM_THREADS``/``OMP_NUM_THREADS`` where the environment sets them)."""
    from ..backend.cpu import threads
    return threads.get_num_threads()


class finfo:
    """``torch.finfo(dtype)``: ``bits``, ``eps``, ``max``, ``min``, ``tiny``
    (= ``smallest_normal``), ``resolution``, ``dtype``."""

    def __init__(self, type=None):
        info = np.finfo(dt.as_dtype(type) or dt.get_default_dtype())
        self.bits, self.eps, self.max, self.min = info.bits, float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution, self.dtype = 10.0 ** -info.precision, str(info.dtype)

    def __repr__(self):
        return (f"finfo(resolution={self.resolution}, min={self.min:.6g}, max={self.max:.6g}, "
                f"eps={self.eps:.6g}, smallest_normal={self.tiny:.6g}, dtype={self.dtype})")


class iinfo:
    """``torch.iinfo(dtype)``: ``bits``, ``max``, ``min``, ``dtype``."""

    def __init__(self, type):
        info = np.iinfo(dt.as_dtype(type))
        self.bits, self.max, self.min, self.dtype = info.bits, int(info.max), int(info.min), str(info.dtype)

    def __repr__(self):
        return f"iinfo(min={self.min}, max={self.max}, dtype={self.dtype})"


def promote_types(type1, type2):
    """The smallest dtype both convert to (PyTorch's table: an integer with a float gives
    the float)."""
    a, b = dt.as_dtype(type1), dt.as_dtype(type2)
    if a.kind == "f" and b.kind in "biu":
        return a
    if b.kind == "f" and a.kind in "biu":
        return b
    return np.promote_types(a, b)


def result_type(tensor1, tensor2):
    """The dtype of ``tensor1 op tensor2``: tensors' dtypes first, then Python numbers'
    kinds (a float number with an integer tensor gives the default float)."""
    def kind(x):
        if isinstance(x, Tensor):
            return x.dtype, x.ndim > 0
        if isinstance(x, bool):
            return np.dtype(bool), False
        return (dt.get_default_dtype() if isinstance(x, float) else np.dtype(np.int64)), False
    (a, a_dim), (b, b_dim) = kind(tensor1), kind(tensor2)
    if a_dim != b_dim and a.kind == b.kind:      # a dimensioned tensor wins within a kind
        return a if a_dim else b
    return promote_types(a, b)


def can_cast(from_, to):
    """Whether PyTorch's casting rules allow ``from_`` -> ``to`` (no float -> int, no
    number -> bool)."""
    order = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
    return order[dt.as_dtype(from_).kind] <= order[dt.as_dtype(to).kind]


def is_floating_point(input):
    """Whether ``input``'s dtype is a float."""
    return input.dtype.kind == "f"


def is_nonzero(input):
    """The truth of a one-element tensor (an error for any other size)."""
    if input.numel() != 1:
        raise RuntimeError(f"is_nonzero: a tensor with {input.numel()} elements has no single "
                           "truth value")
    return bool(input.item())


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False):
    """``steps`` points ``base ** linspace(start, end)``.

    >>> import eagerad.torch as torch
    >>> torch.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    values = np.logspace(float(start), float(end), int(steps), base=float(base))
    out = Tensor(values.astype(dt.as_dtype(dtype) or dt.get_default_dtype()))
    out = out.to(device) if device is not None else out
    return stamp(out.requires_grad_(True) if requires_grad else out, TORCH)
