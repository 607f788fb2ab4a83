"""``torch.cuda.amp``: the older spelling of ``torch.amp`` (see there).
>>> import eagerad.torch as torch
>>> torch.cuda.amp.GradScaler(enabled=False).get_scale()
1.0
"""
from .. import amp as _amp
from ..amp import GradScaler, custom_bwd, custom_fwd  # noqa: F401


class autocast(_amp.autocast):
    """``torch.cuda.amp.autocast(enabled=True, dtype=torch.float16, cache_enabled=True)``."""

    def __init__(self, enabled=True, dtype=None, cache_enabled=True):
        super().__init__("cuda", dtype, enabled, cache_enabled)


