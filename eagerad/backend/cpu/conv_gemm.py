"""cpu backend: 2-D convolution (groups of 1) as im2col + one GEMM per image, each way.

The op-by-op convolution (``unfold``, a reshape, a broadcast ``matmul``, a reshape, a
bias add) records five nodes; here the forward is one call and each gradient one call:
the input's ``W^T @ g`` per image then col2im, the weight's ``g @ cols^T`` per image
(columns recomputed: one im2col pass, instead of keeping 9x the input alive from forward
to backward) summed over the batch.  The products are the ones the op-by-op path makes
(the same BLAS call on the same operands for every image), so the numbers are the same.
``fused.py`` exposes them as ``B.conv2d_gemm*``.

With float32 / float64 operands and numpy's OpenBLAS each call is one Numba kernel
(``conv_kernels``: im2col per image and the same GEMM, blocks of images over Numba's
threads, the same bits).  Otherwise each call works through the batch in chunks of
images (``_over_images``): a chunk's
im2col columns, its products and its bias add / col2im run back to back while the
columns are still in cache, and the chunks are shared over the backend's thread pool
(``threads.share``), so im2col, col2im and the GEMMs all use every intra-op thread.
Every image's numbers come from the same calls whatever the chunking, and the weight
gradient's per-image products are summed over the batch in image order after all chunks
are done, so results are bit-identical under any thread count.

>>> x, w = np.ones((1, 1, 3, 3)), np.ones((2, 1, 2, 2))
>>> conv2d_gemm(x, w, None, ((1, 1), (1, 1), (0, 0, 0, 0)))[0, 0].tolist()
[[4.0, 4.0], [4.0, 4.0]]
"""
import time

import numpy as np

from . import openblas, pool, threads
from .nn import unfold, windows

# bytes of im2col columns per chunk of images (the CNN benchmark's convolutions: 2 and 4
# chunks).  CPU time of that benchmark's six conv calls on one thread (median of 40):
# 128 KiB chunks 9.6 ms, 256 KiB 8.1, 512 KiB 7.3, 1 MiB 7.1, 2 MiB 7.2, whole batch 7.4
# (small chunks pay a padding copy and ~20 slicing calls each)
CHUNK_BYTES = 1 << 20
# below this many multiply-adds plus copied elements a call is not shared over the pool
SHARE_MIN = 1 << 20


def _over_images(n, per_image_bytes, work_size, work):
    """``work(lo, hi)`` for image ranges covering ``range(n)``: chunks of about
    ``CHUNK_BYTES`` of columns (at least two per share), shared over the pool when
    ``work_size`` is worth it."""
    count = max(1, min(n, -(-n * per_image_bytes // CHUNK_BYTES)))
    helpers = threads.shares() if work_size >= SHARE_MIN else 1
    if helpers > 1:
        count = max(count, min(n, 2 * helpers))
    if count == 1:
        work(0, n)
        return
    step = -(-n // count)
    chunks = [(lo, min(lo + step, n)) for lo in range(0, n, step)]
    if helpers > 1:
        threads.share(lambda i: work(*chunks[i]), len(chunks))
    else:
        for lo, hi in chunks:
            work(lo, hi)


def _kernels(key, *arrays):
    """``((conv_kernels, GEMM address), None)`` where the Numba kernels run this call,
    else ``(None, timer)``: the numpy path below runs (the same bits), and ``timer``,
    where not None, is to be called at its end -- it records the path's time as the
    single-threaded reference of ``key``'s work (``parallel.measured``: the numpy path
    runs first for each size, and while parallel launches do not pay).  The kernels take
    operands of one dtype, float32 or float64, where numpy's OpenBLAS GEMM is found."""
    dtype = arrays[0].dtype
    if dtype.char not in "fd" or any(a.dtype != dtype for a in arrays[1:]):
        return None, None
    addr = openblas.gemm_address(dtype.char)
    if not addr:
        return None, None
    from . import conv_kernels
    parallel = conv_kernels.parallel
    if parallel.paused() or parallel.unmeasured(key):
        start = time.perf_counter()
        return None, lambda: parallel.measured(key, time.perf_counter() - start)
    return (conv_kernels, addr), None


def _image_blocks(n):
    """Bounds of the kernels' image blocks: one block on one thread, else two per
    thread (so a busy core holds back at most a quarter of the batch)."""
    count = 1 if threads.kernel_threads() < 2 else max(1, min(n, 2 * threads.kernel_threads()))
    return np.linspace(0, n, count + 1).astype(np.int64)


def _geometry(kernel, geometry, out_hw):
    """The kernels' geometry array (kh, kw, sh, sw, dh, dw, top, left, oh, ow)."""
    stride, dilation, pads = geometry
    return np.array(tuple(kernel) + tuple(stride) + tuple(dilation) + (pads[0], pads[2]) + tuple(out_hw),
                    np.int64)


def _columns(x, kernel, geometry):
    """(N, C*kh*kw, L) columns of ``x``."""
    stride, dilation, pads = geometry
    cols = unfold(x, kernel, stride, dilation, pads, 0.0)
    return cols.reshape(x.shape[0], x.shape[1] * kernel[0] * kernel[1], -1)


def _sizes(x_shape, w_shape, geometry):
    """(oh, ow), column rows K, and the multiply-adds + copies of one image."""
    stride, dilation, pads = geometry
    oh, ow = windows(x_shape[2:], w_shape[2:], stride, dilation, pads)
    k = x_shape[1] * w_shape[2] * w_shape[3]
    return (oh, ow), k, k * oh * ow * (w_shape[0] + 1)


def conv2d_gemm(x, w, b, geometry):
    """Cross-correlation of ``x`` (N, C, H, W) with ``w`` (O, C, kh, kw) plus ``b`` (O,)
    or None; ``geometry`` is (stride, dilation, (top, bottom, left, right) pads)."""
    n, o = x.shape[0], w.shape[0]
    (oh, ow), k, per_image = _sizes(x.shape, w.shape, geometry)
    out = pool.empty((n, o, oh, ow), np.result_type(x, w))
    flat, wm = out.reshape(n, o, oh * ow), w.reshape(o, k)
    key = ("conv2d", x.shape, w.shape, b is None, geometry, x.dtype.char)
    found, timer = _kernels(key, x, w) if b is None else _kernels(key, x, w, b)
    if found is not None and out.size:
        bounds = _image_blocks(n)
        found[0].column_products(found[1], np.ascontiguousarray(x),
                                 _geometry(w.shape[2:], geometry, (oh, ow)),
                                 np.empty((len(bounds) - 1, k, oh * ow), x.dtype), bounds,
                                 np.ascontiguousarray(wm)[None],
                                 np.empty(0, x.dtype) if b is None else np.ascontiguousarray(b),
                                 flat, False, key=key)
        return out
    bias = None if b is None else b.reshape(1, o, 1)

    def chunk(lo, hi):
        cols = _columns(x[lo:hi], w.shape[2:], geometry)
        with np.errstate(all="ignore"):
            np.matmul(wm, cols, out=flat[lo:hi])
            if bias is not None:
                np.add(flat[lo:hi], bias, out=flat[lo:hi])
    _over_images(n, k * oh * ow * x.itemsize, n * per_image, chunk)
    if timer is not None:
        timer()
    return out


def conv2d_gemm_grad_input(g, w, size, geometry):
    """The gradient of ``conv2d_gemm`` for its input: ``W^T @ g`` per image, col2im.

    >>> conv2d_gemm_grad_input(np.ones((1, 1, 2, 2)), np.ones((1, 1, 2, 2)), (3, 3), ((1, 1), (1, 1), (0, 0, 0, 0)))[0, 0].tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    from .window_copy_kernels import col2im
    stride, dilation, pads = geometry
    n, o, oh, ow = g.shape
    kernel, c = tuple(w.shape[2:]), w.shape[1]
    k = c * kernel[0] * kernel[1]
    dtype = np.result_type(g, w)
    out = pool.empty((n, c) + tuple(size), dtype)
    wt, gm = w.reshape(o, k).T, g.reshape(n, o, oh * ow)
    key = ("conv2d_grad_input", g.shape, w.shape, tuple(size), geometry, g.dtype.char)
    found, timer = _kernels(key, g, w)
    if found is not None and out.size and g.size:
        bounds = _image_blocks(n)
        found[0].grad_input(found[1], np.ascontiguousarray(gm), np.ascontiguousarray(w.reshape(o, k)),
                            out, _geometry(kernel, geometry, (oh, ow)),
                            np.empty((len(bounds) - 1, c) + kernel + (oh, ow), dtype), bounds,
                            key=key)
        return out

    def chunk(lo, hi):
        with np.errstate(all="ignore"):
            dcols = np.matmul(wt, gm[lo:hi])
        out[lo:hi].fill(0)
        col2im(dcols.reshape((hi - lo, c) + kernel + (oh, ow)), out[lo:hi], stride[0],
               stride[1], dilation[0], dilation[1], pads[0], pads[2])
    _over_images(n, k * oh * ow * dtype.itemsize, n * k * oh * ow * (o + 1), chunk)
    if timer is not None:
        timer()
    return out


def conv2d_gemm_grad_weight(g, x, shape, geometry):
    """The gradient of ``conv2d_gemm`` for its weight (of ``shape``): ``g @ cols^T`` per
    image, summed over the images in order.

    >>> conv2d_gemm_grad_weight(np.ones((1, 1, 2, 2)), np.ones((1, 1, 3, 3)), (1, 1, 2, 2), ((1, 1), (1, 1), (0, 0, 0, 0)))[0, 0].tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    n, o = g.shape[:2]
    (oh, ow), k, per_image = _sizes(x.shape, shape, geometry)
    per = np.empty((n, o, k), np.result_type(g, x))
    gm = g.reshape(n, o, oh * ow)
    key = ("conv2d_grad_weight", g.shape, x.shape, tuple(shape), geometry, g.dtype.char)
    found, timer = _kernels(key, g, x)
    if found is not None and per.size and g.size:
        bounds = _image_blocks(n)
        found[0].column_products(found[1], np.ascontiguousarray(x),
                                 _geometry(shape[2:], geometry, (oh, ow)),
                                 np.empty((len(bounds) - 1, k, oh * ow), x.dtype), bounds,
                                 np.ascontiguousarray(gm), np.empty(0, x.dtype), per, True,
                                 key=key)
        return per.sum(axis=0).reshape(shape)

    def chunk(lo, hi):
        cols = _columns(x[lo:hi], tuple(shape[2:]), geometry)
        with np.errstate(all="ignore"):
            np.matmul(gm[lo:hi], cols.swapaxes(-1, -2), out=per[lo:hi])
    _over_images(n, k * oh * ow * x.itemsize, n * per_image, chunk)
    if timer is not None:
        timer()
    return per.sum(axis=0).reshape(shape)
