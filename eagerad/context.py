"""Run-time settings (``eagerad.set_context`` / ``eagerad.context``), MindSpore style.

Everything runs eagerly: ``GRAPH_MODE`` is accepted (said once) so MindSpore
scripts run unchanged.  ``device_target="GPU"`` makes CUDA the default device
when it is usable; otherwise it warns once and stays on the CPU.

>>> import eagerad
>>> eagerad.set_context(mode=eagerad.context.PYNATIVE_MODE)
"""
import warnings

from .device import CPU, Device

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_settings = {"mode": PYNATIVE_MODE, "device_target": "CPU"}
_default = [CPU]
_said = set()


def _once(key, message):
    if key not in _said:
        _said.add(key)
        warnings.warn(message, stacklevel=3)


def cuda_problem():
    """None when CUDA can be used, else a sentence saying what is missing.

    >>> cuda_problem() is None or isinstance(cuda_problem(), str)
    True
    """
    try:
        import numba_cuda  # noqa: F401  (the maintained CUDA target, extra eagerad[cuda])
    except ImportError:
        return ("the numba-cuda package is not installed (install it with "
                "`pip install eagerad[cuda]`)")
    from numba import config, cuda
    if config.ENABLE_CUDASIM:   # Numba's CUDA simulator runs the kernels on the CPU
        return None
    try:
        if not cuda.is_available():
            return ("no usable CUDA GPU/driver was found (install the extra with "
                    "`pip install eagerad[cuda]` and check `nvidia-smi`)")
    except Exception as err:  # numba raises various driver errors
        return f"CUDA could not be initialised: {err}"
    return None


def require_cuda():
    """Raise a clear RuntimeError when the GPU is asked for but cannot be used.

    >>> try:
    ...     require_cuda()
    ... except RuntimeError as err:
    ...     print(str(err)[:31])
    ... else:
    ...     print("device='cuda' was requested but")
    device='cuda' was requested but
    """
    problem = cuda_problem()
    if problem:
        raise RuntimeError(f"device='cuda' was requested but {problem}")


def set_context(mode=None, device_target=None, device_id=None, **ignored):
    """MindSpore's ``set_context``; unknown keywords are accepted and ignored.

    >>> set_context(mode=PYNATIVE_MODE, device_target="CPU", save_graphs=False)
    >>> get_context("device_target")
    'CPU'
    """
    if mode is not None:
        if mode not in (GRAPH_MODE, PYNATIVE_MODE):
            raise ValueError(f"mode must be GRAPH_MODE (0) or PYNATIVE_MODE (1), got {mode!r}")
        if mode == GRAPH_MODE:
            _once("graph", "eagerad runs every mode eagerly: GRAPH_MODE is accepted and runs "
                           "as PYNATIVE_MODE")
        _settings["mode"] = mode
    if device_target is not None:
        target = str(device_target).upper()
        if target not in ("CPU", "GPU", "ASCEND"):
            raise ValueError(f"device_target must be 'CPU' or 'GPU', got {device_target!r}")
        _settings["device_target"] = target
        if target == "GPU":
            problem = cuda_problem()
            if problem:
                _once("gpu", f"device_target='GPU' but {problem}; running on the CPU")
                _default[0] = CPU
            else:
                _default[0] = Device("cuda", device_id or 0)
        else:
            if target == "ASCEND":
                _once("ascend", "device_target='Ascend' is not available; running on the CPU")
            _default[0] = CPU


def get_context(key):
    """The current value of one setting (``'mode'`` or ``'device_target'``).

    >>> get_context("mode") == PYNATIVE_MODE
    True
    """
    return _settings[key]


def default_device():
    """Where new tensors go when no ``device`` is given (set by ``set_context``).

    >>> default_device()
    device(type='cpu')
    """
    return _default[0]


def set_default_device(device):
    """PyTorch's ``set_default_device``: where tensors go when no ``device`` is given
    (``None`` means the CPU); ``'cuda'`` needs a usable GPU.

    >>> set_default_device("cpu"); get_default_device()
    device(type='cpu')
    """
    dev = CPU if device is None else Device(device)
    if dev.type == "cuda":
        require_cuda()
    _default[0] = dev


def get_default_device():
    """PyTorch's ``get_default_device`` (same as ``default_device``).

    >>> get_default_device()
    device(type='cpu')
    """
    return _default[0]


def jit(fn=None, *args, **kwargs):
    """MindSpore's ``@jit`` (also ``ms_function``): accepted, and the function runs eagerly
    as written (said once per process); arguments such as ``mode=``/``jit_config=`` are
    ignored.  Also usable as ``jit(fn)`` and ``@jit(...)``.

    >>> @jit
    ... def double(x):
    ...     return x * 2
    >>> double(3)
    6
    """
    if fn is None or not callable(fn):
        return lambda f: jit(f)
    _once("jit", "eagerad runs every function eagerly: @jit is accepted and compiles nothing")
    return fn


ms_function = jit
