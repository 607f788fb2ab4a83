"""``mindspore.train``: ``Model`` and its callbacks.

>>> import eagerad.mindspore as ms
>>> ms.train.Model.__name__
'Model'
"""
from ..train import *  # noqa: F401,F403
from ..train import Model  # noqa: F401
