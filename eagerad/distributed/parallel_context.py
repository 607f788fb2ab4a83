"""MindSpore's auto-parallel context, for its data-parallel mode: ``ParallelMode``,
``set_auto_parallel_context(parallel_mode=..., gradients_mean=...)``,
``get_auto_parallel_context`` and ``reset_auto_parallel_context``.
``DistributedGradReducer`` reads ``gradients_mean`` and ``device_num`` from here.

>>> set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True)
>>> get_auto_parallel_context("gradients_mean")
True
>>> reset_auto_parallel_context(); get_auto_parallel_context("parallel_mode")
'stand_alone'
"""


class ParallelMode:
    """The parallel modes' names (only ``STAND_ALONE`` and ``DATA_PARALLEL`` run here).

    >>> ParallelMode.DATA_PARALLEL
    'data_parallel'
    """
    STAND_ALONE = "stand_alone"
    DATA_PARALLEL = "data_parallel"
    HYBRID_PARALLEL = "hybrid_parallel"
    SEMI_AUTO_PARALLEL = "semi_auto_parallel"
    AUTO_PARALLEL = "auto_parallel"
    MODES = (STAND_ALONE, DATA_PARALLEL, HYBRID_PARALLEL, SEMI_AUTO_PARALLEL, AUTO_PARALLEL)


_DEFAULTS = {"parallel_mode": ParallelMode.STAND_ALONE, "gradients_mean": False,
             "device_num": 1, "global_rank": 0, "gradient_fp32_sync": True,
             "parameter_broadcast": False}
_context = dict(_DEFAULTS)


def set_auto_parallel_context(**kwargs):
    """Set context keys (``parallel_mode``, ``gradients_mean``, ``device_num``, ...);
    an unknown key or a mode other than stand-alone/data-parallel raises.

    >>> set_auto_parallel_context(device_num=2); get_auto_parallel_context("device_num")
    2
    >>> reset_auto_parallel_context()
    """
    for key, value in kwargs.items():
        if key not in _DEFAULTS:
            raise ValueError(f"set_auto_parallel_context: unknown key {key!r}; known: "
                             f"{', '.join(sorted(_DEFAULTS))}")
        if key == "parallel_mode":
            if value not in ParallelMode.MODES:
                raise ValueError(f"set_auto_parallel_context: parallel_mode must be one of "
                                 f"{ParallelMode.MODES}, got {value!r}")
            if value not in (ParallelMode.STAND_ALONE, ParallelMode.DATA_PARALLEL):
                raise NotImplementedError(f"parallel_mode={value!r}: eagerad runs data "
                                          "parallelism only (ParallelMode.DATA_PARALLEL)")
    _context.update(kwargs)


def get_auto_parallel_context(attr_key):
    """The value of one context key.

    >>> get_auto_parallel_context("parallel_mode")
    'stand_alone'
    """
    if attr_key not in _DEFAULTS:
        raise ValueError(f"get_auto_parallel_context: unknown key {attr_key!r}")
    return _context[attr_key]


def reset_auto_parallel_context():
    """Back to the defaults (stand-alone, gradients summed).

    >>> reset_auto_parallel_context(); get_auto_parallel_context("gradients_mean")
    False
    """
    _context.clear()
    _context.update(_DEFAULTS)
