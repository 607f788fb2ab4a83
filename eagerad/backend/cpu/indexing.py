"""cpu backend: sorting, cumulative, gather/scatter, padding and other indexing kernels.

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cpu/__init__.py``.
"""
__all__ = []
