"""``mindspore.amp``: loss scaling for mixed precision (``StaticLossScaler``,
``DynamicLossScaler``, ``all_finite``).

>>> import eagerad.mindspore as ms
>>> from eagerad.mindspore.amp import StaticLossScaler
>>> StaticLossScaler(8.0).scale(ms.Tensor(1.5))
Tensor(shape=[], dtype=Float32, value= 12)
"""
from ..amp import DynamicLossScaler, LossScaler, StaticLossScaler, all_finite  # noqa: F401
