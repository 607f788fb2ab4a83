"""Data-movement CUDA kernels: strided copy, fill, gather, scatter, scatter-add.

``copy_strided`` is the workhorse: it walks a logical ``shape`` and copies from
``src_off + sum(i_d * src_strides[d])`` to ``dst_off + sum(i_d * dst_strides[d])``
(flat buffers, element strides), casting on store.  Copies of views (``views``:
transposes, broadcasts, slices), writes into views, slice assignment and concat are
that one kernel with different strides.  Advanced indexing goes through an explicit int64 map of flat source
positions; ``scatter_add`` accumulates with atomics so repeated indices add up.
"""
from numba import cuda

from .launch import offset


@cuda.jit(cache=True)
def copy_strided(dst, src, shape, n, dst_off, dst_st, src_off, src_st):
    for i in range(cuda.grid(1), n, cuda.gridsize(1)):
        dst[dst_off + offset(i, shape, dst_st)] = src[src_off + offset(i, shape, src_st)]


@cuda.jit(cache=True)
def fill(out, value):
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = value


@cuda.jit(cache=True)
def gather(out, src, index):
    """``out[i] = src[index[i]]``."""
    for i in range(cuda.grid(1), out.size, cuda.gridsize(1)):
        out[i] = src[index[i]]


@cuda.jit(cache=True)
def scatter(dst, src, index, shape, src_st):
    """``dst[index[i]] = src[...]`` with ``src`` broadcast over ``index``'s shape by strides."""
    for i in range(cuda.grid(1), index.size, cuda.gridsize(1)):
        dst[index[i]] = src[offset(i, shape, src_st)]


@cuda.jit(cache=True)
def scatter_add(dst, src, index):
    """``dst[index[i]] += src[i]`` atomically: repeated indices accumulate."""
    for i in range(cuda.grid(1), index.size, cuda.gridsize(1)):
        cuda.atomic.add(dst, index[i], src[i])
