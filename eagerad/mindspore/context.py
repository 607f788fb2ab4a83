"""``mindspore.context``: the run settings (``set_context``/``get_context``, the two
modes), so ``import eagerad.mindspore.context as context`` works as in MindSpore.

>>> import eagerad.mindspore.context as context
>>> context.set_context(mode=context.PYNATIVE_MODE); context.get_context("mode") == context.PYNATIVE_MODE
True
"""
from ..context import GRAPH_MODE, PYNATIVE_MODE, get_context, set_context  # noqa: F401
from ..jit import jit, ms_function  # noqa: F401
