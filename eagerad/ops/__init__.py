"""Differentiable ops (``eagerad.ops``): every op is defined once, in the module
of its family, and installed as a Tensor method/operator here.

>>> import eagerad
>>> from eagerad import ops
>>> ops.mul(eagerad.tensor([2.0]), 3.0)
tensor([6.])
"""
import sys as _sys

from .. import _upcalls
from . import inplace as _inplace, methods as _methods
from .primitives import MatMul, ReduceSum, stop_gradient
from .registry import OPS, defop


def _import_families():
    """Import every op module of this package, so that a new family is one new file: its
    ``export`` declarations (``registry.PUBLIC``) become names here and Tensor methods."""
    import importlib
    import pkgutil
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    from .registry import PRIMITIVES, PUBLIC
    from .primitives import make_primitive
    namespace = globals()
    for public, fn in PUBLIC.items():
        namespace[public] = fn      # wins over a submodule of the same name
    for cls_name, fn in PRIMITIVES.items():
        namespace.setdefault(cls_name, make_primitive(cls_name, fn))


_import_families()
_upcalls.register("ops", _sys.modules[__name__])   # the numpy protocols of Tensor route here
_methods.install()
_inplace.install()
