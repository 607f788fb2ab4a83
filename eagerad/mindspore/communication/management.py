"""``mindspore.communication.management``: the same functions as the package.

>>> from eagerad.mindspore.communication import management
>>> management.get_group_size.__name__
'get_group_size'
"""
from ...distributed.communication import (get_group_size, get_local_rank, get_rank,  # noqa: F401
                                          init, release)
