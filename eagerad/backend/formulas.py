"""Scalar formulas shared by the CPU and CUDA kernels.

Each entry is a plain Python function of floats written with the ``math`` module,
so Numba compiles the same source for the CPU (``numba.vectorize``) and for CUDA
(``cuda.jit(device=True)``): one formula, two devices.
"""
UNARY = {}
BINARY = {}
