"""``torch.backends.cuda``: flags programs set before training
(``torch.backends.cuda.matmul.allow_tf32 = True``); recorded, they change nothing
(eagerad's CUDA products compute float32 in float32).

>>> import eagerad.torch as torch
>>> torch.backends.cuda.matmul.allow_tf32 = True; torch.backends.cuda.matmul.allow_tf32
True
"""
import contextlib
import types

matmul = types.SimpleNamespace(allow_tf32=False, allow_fp16_reduced_precision_reduction=True,
                               allow_bf16_reduced_precision_reduction=True)
_sdp = {"flash": True, "mem_efficient": True, "math": True}


def is_built():
    """Whether eagerad's CUDA backend is importable (numba-cuda installed)."""
    import importlib.util
    return importlib.util.find_spec("numba.cuda") is not None


def flash_sdp_enabled():
    return _sdp["flash"]


def mem_efficient_sdp_enabled():
    return _sdp["mem_efficient"]


def math_sdp_enabled():
    return _sdp["math"]


def enable_flash_sdp(enabled):
    _sdp["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled):
    _sdp["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled):
    _sdp["math"] = bool(enabled)


@contextlib.contextmanager
def sdp_kernel(enable_flash=True, enable_math=True, enable_mem_efficient=True, **kwargs):
    """Recorded inside the block (eagerad has one attention implementation)."""
    saved = dict(_sdp)
    _sdp.update(flash=enable_flash, math=enable_math, mem_efficient=enable_mem_efficient)
    try:
        yield
    finally:
        _sdp.update(saved)
