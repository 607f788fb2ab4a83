"""cuda backend: special functions and extra elementwise kernels (erf, lgamma, ...).

Every name in ``__all__`` becomes a function of the backend module (``B.<name>``),
next to the core functions of ``backend/cuda/__init__.py``.
"""
__all__ = []
