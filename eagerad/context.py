"""Run-time settings (``eagerad.set_context`` / ``eagerad.context``), MindSpore style.

Everything runs eagerly: ``GRAPH_MODE`` is accepted (said once) so MindSpore
scripts run unchanged.  ``device_target="GPU"`` makes CUDA the default device
when it is usable; otherwise it warns once and stays on the CPU.

>>> import eagerad
>>> eagerad.set_context(mode=eagerad.context.PYNATIVE_MODE)
"""
import warnings

from .backend import cuda_problem, require_cuda  # noqa: F401  (also public here)
from .device import CPU, DEFAULT as _default, Device, default_device

GRAPH_MODE = 0
PYNATIVE_MODE = 1

_settings = {"mode": PYNATIVE_MODE, "device_target": "CPU"}
_said = set()


def _once(key, message):
    if key not in _said:
        _said.add(key)
        warnings.warn(message, stacklevel=3)


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
