"""``mindspore.common``: the ``initializer`` module (``from mindspore.common.initializer
import Normal``) and ``dtype``.

>>> from eagerad.mindspore.common import initializer
>>> initializer.Normal(0.02).sigma
0.02
"""
from ... import dtype  # noqa: F401
from . import initializer  # noqa: F401
