"""Device dispatch: one array module per device type.

Each backend module implements the same array-level functions, listed with their
meaning in ``api`` (the contract a new device backend fulfils).  Everything above
this package asks ``get(device_type)`` for the module and never imports a backend
directly, so a new device is one new module.
"""
import importlib


class LinAlgError(RuntimeError):
    """A factorisation or solve failed on its input (singular, not positive-definite, no
    convergence): PyTorch's ``torch.linalg.LinAlgError``, a RuntimeError as there.

    >>> issubclass(LinAlgError, RuntimeError)
    True
    """


_MODULES = {"cpu": "eagerad.backend.cpu", "cuda": "eagerad.backend.cuda"}
_loaded = {}


def get(device_type):
    """The backend module for ``'cpu'`` or ``'cuda'`` (imported on first use, so a machine
    without CUDA never imports the CUDA backend).

    >>> get("cpu").name
    'cpu'
    """
    mod = _loaded.get(device_type)
    if mod is None:
        try:
            path = _MODULES[device_type]
        except KeyError:
            raise ValueError(f"no backend for device type {device_type!r}") from None
        mod = _loaded[device_type] = importlib.import_module(path)
    return mod


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
